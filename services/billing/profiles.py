"""The merchant's profile: what its invoices say about their issuer (name, legal name, address,
country, tax number), and the CRM company whose exchange rates price its foreign-currency ETA
invoices (`crm_company_id`). `GET/PUT /api/merchant`."""
from __future__ import annotations

import re

from tortoise.transactions import in_transaction

from models.billing import MerchantProfile
from models.core import Merchant
from services.crm import accounts as crm_accounts
from services.errors import AuthenticationError, ValidationError
from services.identity import audit
from services.infra.runtime import runtime
from services.principal import Principal
from services.money import markets
from services.money.settlement import MARKETS
from services.validation import Fields

_TAX_NUMBER = re.compile(r"[A-Za-z0-9][A-Za-z0-9 .\-/]{2,31}")
_SA_VAT = re.compile(r"3\d{13}3")          # ZATCA: 15 digits, first and last 3
_FIELDS = ("name", "country", "legal_name", "address", "tax_number", "crm_access_token", "require_two_factor")


async def get_profile(*, principal: Principal) -> dict:
    m = await Merchant.get(id=principal.merchant_id)
    p = await MerchantProfile.get_or_none(merchant_id=m.id)
    return {"id": m.id, "object": "merchant", "email": m.email, "name": m.name, "country": m.country,
            "legal_name": p.legal_name if p else None, "address": p.address if p else None,
            "tax_number": p.tax_number if p else None, "crm_company_id": p.crm_company_id if p else None,
            "require_two_factor": m.require_two_factor}


async def _crm_company(token: str | None) -> str | None:
    """The CRM company an admin's access token names (the link is proven by both credentials:
    the merchant's key on the request, the company admin's token in it); None unlinks."""
    if token is None:
        return None
    try:
        crm = await crm_accounts.authenticate(f"Bearer {token}")
    except AuthenticationError:
        raise ValidationError("crm_access_token must be a current access token of the CRM (POST /api/auth/login on "
                              "the CRM port)", param="crm_access_token", code="invalid_crm_token") from None
    if crm.role != "admin":
        raise ValidationError("crm_access_token must be an admin's access token (a member cannot link the company)",
                              param="crm_access_token", code="invalid_crm_token")
    return crm.company_id


async def update_profile(*, principal: Principal, data: dict) -> dict:
    f = Fields(data)
    name = f.str("name", min_len=1, max_len=200)
    country = f.enum("country", MARKETS)
    require_two_factor = f.bool("require_two_factor")
    legal_name = f.str("legal_name", max_len=200)
    address = f.str("address", max_len=500)
    tax_number = f.str("tax_number", max_len=32, pattern=_TAX_NUMBER)
    crm_token = f.str("crm_access_token", min_len=1, max_len=2000)
    link = "crm_access_token" in data                # a token links the company; null unlinks it
    f.reject_unknown()
    if not link and not any(f.has(k) for k in _FIELDS):
        raise ValidationError(f"give at least one of {', '.join(_FIELDS)}", param=None)
    crm_company_id = await _crm_company(crm_token) if link else None
    m = await Merchant.get(id=principal.merchant_id)
    effective_country = country or m.country
    current = await MerchantProfile.get_or_none(merchant_id=m.id)
    vat = tax_number if f.has("tax_number") else (current.tax_number if current else None)
    if effective_country == "SA" and vat and not _SA_VAT.fullmatch(vat):
        raise ValidationError("A Saudi VAT number has 15 digits and starts and ends with 3", param="tax_number",
                              code="invalid_tax_number")
    changes = {k: v for k, v in (("name", name), ("country", country), ("require_two_factor", require_two_factor))
               if f.has(k)}
    now = runtime().clock.now()
    values = {k: v for k, v in (("legal_name", legal_name), ("address", address), ("tax_number", tax_number))
              if f.has(k)}
    if link:
        values["crm_company_id"] = crm_company_id
    async with in_transaction():        # the change and its audit entry together
        before = await get_profile(principal=principal)
        if changes:
            await Merchant.filter(id=m.id).update(**changes)
        if current is None:
            await MerchantProfile.create(merchant_id=m.id, updated_at=now, **values)
        elif values:
            await MerchantProfile.filter(merchant_id=m.id).update(updated_at=now, **values)
        after = await get_profile(principal=principal)
        changed = sorted(k for k in after if after[k] != before[k])
        if changed:
            await audit.record(merchant_id=m.id, action="merchant.updated", principal=principal,
                               object_type="merchant", object_id=m.id, before={k: before[k] for k in changed},
                               after={k: after[k] for k in changed})
    if changes:
        markets.forget(m.id)            # the intent create's cached market
    return after
