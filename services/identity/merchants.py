"""Merchants: the tenants of the merchant interfaces."""
from __future__ import annotations

from tortoise.exceptions import IntegrityError
from tortoise.transactions import in_transaction

from models import _lookup as lookup
from models.core import Merchant
from services.identity import api_keys, team
from services.errors import NotFound, ValidationError
from services.ids import new_id
from services.infra.runtime import runtime
from services.principal import Principal
from services.validation import check_email, check_str


async def create_merchant(*, email: str, name: str | None = None, with_keys: bool = True
                          ) -> tuple[Merchant, dict[str, str]]:
    """A new merchant and, when asked, its first test keys (secret and publishable)."""
    email = check_email(email, "email")
    name = check_str(name or "", "name", max_len=200)
    keys: dict[str, str] = {}
    try:
        async with in_transaction():
            merchant = await Merchant.create(id=new_id("mer"), email=email, name=name,
                                             created_at=runtime().clock.now())
            await team.add_owner(merchant)
            if with_keys:
                for kind in ("secret", "publishable"):
                    _, full = await api_keys.issue_key(merchant_id=merchant.id, kind=kind,
                                                       livemode=False, name=f"default {kind}")
                    keys[f"{kind}_key"] = full
    except IntegrityError:
        raise ValidationError("a merchant with this e-mail already exists", param="email",
                              code="email_taken") from None
    return merchant, keys


async def get_or_create_by_email(email: str) -> Merchant:
    return (await sign_in_or_up(email))[0]


async def sign_in_or_up(email: str) -> tuple[Merchant, bool]:
    """The merchant of this (verified) e-mail, created if there is none: (merchant, created).
    A verified OTP is the sign-up; `created` tells the caller it happened."""
    merchant = await Merchant.get_or_none(email=email)
    if merchant is not None:
        return merchant, False
    try:
        merchant, _ = await create_merchant(email=email, with_keys=False)
        return merchant, True
    except ValidationError:                   # created meanwhile by a concurrent verification
        return await Merchant.get(email=email), False


async def get_viewer(*, principal: Principal) -> Merchant:
    merchant = await lookup.first(Merchant, id=principal.merchant_id)     # the compiled read (models/_lookup)
    if merchant is None:
        raise NotFound()
    return merchant
