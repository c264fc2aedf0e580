"""The merchant's profile: what its invoices say about their issuer (name, legal name, address,
country, tax number). `GET/PUT /api/merchant`."""
from __future__ import annotations

import re

from models.billing import MerchantProfile
from models.core import Merchant
from services.errors import ValidationError
from services.infra.runtime import runtime
from services.principal import Principal
from services.money import markets
from services.money.settlement import MARKETS
from services.validation import Fields

_TAX_NUMBER = re.compile(r"[A-Za-z0-9][A-Za-z0-9 .\-/]{2,31}")
_SA_VAT = re.compile(r"3\d{13}3")          # ZATCA: 15 digits, first and last 3


async def get_profile(*, principal: Principal) -> dict:
    m = await Merchant.get(id=principal.merchant_id)
    p = await MerchantProfile.get_or_none(merchant_id=m.id)
    return {"id": m.id, "object": "merchant", "email": m.email, "name": m.name, "country": m.country,
            "legal_name": p.legal_name if p else None, "address": p.address if p else None,
            "tax_number": p.tax_number if p else None}


async def update_profile(*, principal: Principal, data: dict) -> dict:
    f = Fields(data)
    name = f.str("name", min_len=1, max_len=200)
    country = f.enum("country", MARKETS)
    legal_name = f.str("legal_name", max_len=200)
    address = f.str("address", max_len=500)
    tax_number = f.str("tax_number", max_len=32, pattern=_TAX_NUMBER)
    f.reject_unknown()
    if not any(f.has(k) for k in ("name", "country", "legal_name", "address", "tax_number")):
        raise ValidationError("give at least one of name, country, legal_name, address, tax_number", param=None)
    m = await Merchant.get(id=principal.merchant_id)
    effective_country = country or m.country
    current = await MerchantProfile.get_or_none(merchant_id=m.id)
    vat = tax_number if f.has("tax_number") else (current.tax_number if current else None)
    if effective_country == "SA" and vat and not _SA_VAT.fullmatch(vat):
        raise ValidationError("A Saudi VAT number has 15 digits and starts and ends with 3", param="tax_number",
                              code="invalid_tax_number")
    changes = {k: v for k, v in (("name", name), ("country", country)) if f.has(k)}
    if changes:
        await Merchant.filter(id=m.id).update(**changes)
        markets.forget(m.id)            # the intent create's cached market
    now = runtime().clock.now()
    values = {k: v for k, v in (("legal_name", legal_name), ("address", address), ("tax_number", tax_number))
              if f.has(k)}
    if current is None:
        await MerchantProfile.create(merchant_id=m.id, updated_at=now, **values)
    elif values:
        await MerchantProfile.filter(merchant_id=m.id).update(updated_at=now, **values)
    return await get_profile(principal=principal)
