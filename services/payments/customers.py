"""Merchant customers: create, read, update, list, and the `customer` input of a payment."""
from __future__ import annotations

import re
from typing import Any

from tortoise.transactions import in_transaction

from models.payments import Customer
from services.errors import NotFound, ValidationError
from services.ids import new_id
from services.infra.runtime import runtime
from services.pagination import Page, check_limit, keyset
from services import addresses, tax_ids
from services.principal import Principal
from services.validation import Fields, check_email

PHONE = re.compile(r"\+?[0-9][0-9 ()\-]{5,24}")


def _read(f: Fields, *, partial: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if f.has("email") or not partial:
        out["email"] = f.email("email")
    if f.has("name") or not partial:
        out["name"] = f.str("name", max_len=200)
    if f.has("phone") or not partial:
        out["phone"] = f.str("phone", max_len=32, pattern=PHONE)
    if f.has("metadata"):
        out["metadata"] = f.metadata("metadata")
    given, tax_id = tax_ids.read(f)
    if given:
        out["tax_id"] = tax_id
    return out


async def create_customer(*, principal: Principal, data: dict) -> Customer:
    f = Fields(data)
    values = _read(f, partial=False)
    _, address = addresses.read(f)
    f.reject_unknown()
    if not any(values.get(k) for k in ("email", "name", "phone")):
        raise ValidationError("give at least one of email, name, phone", param="email")
    now = runtime().clock.now()
    return await Customer.create(id=new_id("cus"), merchant_id=principal.merchant_id, livemode=principal.livemode,
                                 email=values["email"], name=values["name"], phone=values["phone"],
                                 metadata=values.get("metadata") or {}, tax_id=values.get("tax_id"),
                                 address=addresses.apply(None, address), created_at=now, updated_at=now)


async def get_customer(*, principal: Principal, customer_id: str, param: str = "id") -> Customer:
    c = await Customer.get_or_none(id=customer_id, **principal.scope) if isinstance(customer_id, str) else None
    if c is None:
        raise NotFound(param=param)
    return c


async def update_customer(*, principal: Principal, customer_id: str, data: dict) -> Customer:
    f = Fields(data)
    changes = _read(f, partial=True)
    address_given, address = addresses.read(f)
    f.reject_unknown()
    c = await get_customer(principal=principal, customer_id=customer_id)
    if not changes and not address_given:
        raise ValidationError("give at least one of name, phone, email, metadata, tax_id, address", param=None)
    async with in_transaction():
        if address_given:       # merged into the stored address under a row lock: two updates lose no key
            locked = await Customer.filter(id=c.id).select_for_update().first()
            changes["address"] = addresses.apply(locked.address if locked else c.address, address)
        changes["updated_at"] = runtime().clock.now()
        await Customer.filter(id=c.id).update(**changes)
    for k, v in changes.items():
        setattr(c, k, v)
    return c


async def list_customers(*, principal: Principal, limit=None, starting_after: str | None = None,
                         email: str | None = None) -> Page:
    filters = [("email", "=", check_email(email, "email"))] if email else []
    return await keyset(Customer, scope=principal.scope, filters=filters, limit=check_limit(limit),
                        starting_after=starting_after)


async def customers_by_ids(*, principal: Principal, ids: list[str]) -> dict[str, Customer]:
    """One query for many ids (the GraphQL DataLoader's batch)."""
    rows = await Customer.filter(id__in=list(set(ids)), **principal.scope) if ids else []
    return {c.id: c for c in rows}


def parse_payment_customer(f: Fields | None) -> dict[str, Any] | None:
    """The `customer` object of a payment: `id` of an existing customer, or email/name/phone."""
    if f is None:
        return None
    out = {"id": f.str("id", max_len=40)}
    out.update(_read(f, partial=False))
    f.reject_unknown()
    return out
