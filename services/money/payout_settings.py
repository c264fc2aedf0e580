"""Where a merchant's settlements are paid: one bank account, its IBAN checked by `schwifty`
(country format, length, mod 97). Changing it is a step-up action for a member with 2FA, and an
audit entry that names only the IBAN's last four characters."""
from __future__ import annotations

from schwifty import IBAN
from schwifty.exceptions import SchwiftyException
from tortoise.transactions import in_transaction

from models.team import PayoutSettings
from services.errors import ValidationError
from services.identity import audit, sessions
from services.infra.runtime import runtime
from services.principal import Principal
from services.timestamps import iso
from services.validation import Fields


def payout_settings_object(s: PayoutSettings | None) -> dict:
    if s is None:
        return {"object": "payout_settings", "iban_last4": None, "account_holder_name": None, "updated_at": None}
    return {"object": "payout_settings", "iban_last4": s.iban[-4:], "account_holder_name": s.account_holder_name,
            "updated_at": iso(s.updated_at)}


def check_iban(value, param: str = "iban") -> str:
    """The IBAN, spaceless and upper case; a 400 naming `param` unless its format and mod 97 hold."""
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{param} is required", param=param)
    try:
        return IBAN(value.strip()).compact
    except SchwiftyException as exc:
        raise ValidationError(f"{param} is not a valid IBAN: {exc}", param=param, code="invalid_iban") from None


async def get_payout_settings(*, principal: Principal) -> PayoutSettings | None:
    return await PayoutSettings.get_or_none(merchant_id=principal.merchant_id)


async def update_payout_settings(*, principal: Principal, data: dict) -> PayoutSettings:
    f = Fields(data)
    iban = check_iban(f._get("iban", True))
    holder = f.str("account_holder_name", required=True, max_len=140, min_len=1)
    f.reject_unknown()
    await sessions.require_step_up(principal)
    now = runtime().clock.now()
    async with in_transaction():
        current = await PayoutSettings.filter(merchant_id=principal.merchant_id).select_for_update().first()
        before = payout_settings_object(current) if current else None
        if current is None:
            current = await PayoutSettings.create(merchant_id=principal.merchant_id, iban=iban,
                                                  account_holder_name=holder, updated_at=now)
        else:
            current.iban, current.account_holder_name, current.updated_at = iban, holder, now
            await current.save(update_fields=["iban", "account_holder_name", "updated_at"])
        after = payout_settings_object(current)
        await audit.record(merchant_id=principal.merchant_id, action="payout_settings.updated", principal=principal,
                           object_type="payout_settings", object_id=principal.merchant_id,
                           before={k: before[k] for k in ("iban_last4", "account_holder_name")} if before else None,
                           after={k: after[k] for k in ("iban_last4", "account_holder_name")})
    return current
