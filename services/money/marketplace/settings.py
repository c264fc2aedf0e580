"""The platform's marketplace settings (`GET|PUT /api/marketplace`): who bears disputes
(`dispute_policy`), the account the payout files debit (`payout_account`), and whether paid
payouts get commission invoices."""
from __future__ import annotations

from typing import Any

from models.marketplace import MarketplaceSettings
from services.infra import clock
from services.money.marketplace.sellers import check_bic, check_iban
from services.principal import Principal
from services.timestamps import iso
from services.validation import Fields

DISPUTE_POLICIES = ("platform", "seller", "ratio")


def _key(principal: Principal) -> str:
    return f"{principal.merchant_id}:{'live' if principal.livemode else 'test'}"


def settings_object(s: MarketplaceSettings | None, livemode: bool) -> dict:
    return {"object": "marketplace", "dispute_policy": s.dispute_policy if s else "platform",
            "payout_account": s.payout_account if s else None,
            "commission_invoices": s.commission_invoices if s else True, "livemode": livemode,
            "updated_at": iso(s.updated_at) if s else None}


async def get_settings(*, principal: Principal) -> MarketplaceSettings | None:
    return await MarketplaceSettings.get_or_none(id=_key(principal))


async def settings_of(merchant_id: str, livemode: bool) -> MarketplaceSettings | None:
    return await MarketplaceSettings.get_or_none(id=f"{merchant_id}:{'live' if livemode else 'test'}")


async def update_settings(*, principal: Principal, data: Any) -> MarketplaceSettings | None:
    f = Fields(data)
    current = await get_settings(principal=principal)
    policy = f.enum("dispute_policy", DISPUTE_POLICIES)
    account = current.payout_account if current else None
    if "payout_account" in f.data and f.data["payout_account"] is None:
        f.seen.add("payout_account")
        account = None
    else:
        a = f.obj("payout_account")
        if a is not None:
            account = {"iban": check_iban(a._get("iban", True), "payout_account.iban"),
                       "name": a.str("name", required=True, min_len=1, max_len=140),
                       "bic": check_bic(a.data.get("bic"), "payout_account.bic")}
            a.seen.add("bic")
            a.reject_unknown()
    invoices = f.bool("commission_invoices")
    f.reject_unknown()
    if not f.data:                  # nothing given: nothing changes (the settings as they are)
        return current
    now = await clock.now_for(principal)
    s = current or MarketplaceSettings(id=_key(principal), merchant_id=principal.merchant_id,
                                       livemode=principal.livemode)
    s.dispute_policy = policy or (current.dispute_policy if current else "platform")
    s.payout_account = account
    s.commission_invoices = invoices if invoices is not None else (current.commission_invoices if current else True)
    s.updated_at = now
    await s.save(force_create=current is None)
    return s
