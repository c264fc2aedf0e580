"""CRM customers: list with filters, create, read, update, and delete with its deals, messages
and commissions in one transaction. Every query is scoped by the caller's company."""
from __future__ import annotations

import re
from typing import Any

from tortoise.expressions import Q
from tortoise.transactions import in_transaction

from models.crm import Commission, Customer, Deal, Message
from services import addresses, tax_ids
from services.crm.accounts import CrmPrincipal
from services.errors import NotFound, ValidationError
from services.ids import new_id
from services.infra.runtime import runtime
from services.pagination import Page, check_limit, paginate
from services.validation import Fields, check_datetime, check_str

_PHONE = re.compile(r"\+?[0-9]{6,15}")
_TAG = re.compile(r"[a-z0-9][a-z0-9 _.-]{0,39}")
MAX_TAGS = 20


def normalize_phone(v: Any, param: str = "phone") -> str:
    """+E.164: spaces, dashes, dots and brackets dropped; 6 to 15 digits."""
    s = check_str(v, param, max_len=32)
    s = re.sub(r"[\s\-().]", "", s)
    if s.startswith("00"):
        s = "+" + s[2:]
    if not _PHONE.fullmatch(s):
        raise ValidationError(f"{param} must be a phone number in international format, e.g. +905551234567",
                              param=param)
    return s if s.startswith("+") else "+" + s


def _tags(v: Any, param: str = "tags") -> list[str]:
    if not isinstance(v, list):
        raise ValidationError(f"{param} must be an array of strings", param=param)
    if len(v) > MAX_TAGS:
        raise ValidationError(f"{param} may hold at most {MAX_TAGS} tags", param=param)
    out: list[str] = []
    for i, t in enumerate(v):
        t = check_str(t, f"{param}[{i}]", max_len=40, min_len=1).lower()
        if not _TAG.fullmatch(t):
            raise ValidationError(f"{param}[{i}] may hold letters, digits, space, _ . - (at most 40)",
                                  param=f"{param}[{i}]")
        if t not in out:
            out.append(t)
    return out


def tags_of(c: Customer) -> list[str]:
    return [t for t in c.tags.split(",") if t]


def _pack(tags: list[str]) -> str:
    return f",{','.join(tags)}," if tags else ""


def _scope(principal: CrmPrincipal) -> dict:
    if not isinstance(principal, CrmPrincipal):
        from services.errors import AuthenticationError
        raise AuthenticationError("Invalid access token", code="invalid_token")
    return {"company_id": principal.company_id}


def _fits(object_id: Any) -> bool:
    """A string that could be an id (the id columns hold 40 characters): any other is not found
    (the lookup would refuse it with a 500)."""
    return isinstance(object_id, str) and len(object_id) <= 40


async def get_customer(*, principal: CrmPrincipal, customer_id: Any, param: str = "id") -> Customer:
    scope = _scope(principal)
    c = await Customer.get_or_none(id=customer_id, **scope) if _fits(customer_id) else None
    if c is None:
        raise NotFound(param=param)
    return c


async def _link_messages(c: Customer) -> None:
    """Messages that arrived from this phone before the customer existed join its conversation."""
    if c.phone:
        await Message.filter(company_id=c.company_id, customer_id=None, phone=c.phone).update(customer_id=c.id)


async def create_customer(*, principal: CrmPrincipal, data: dict) -> Customer:
    scope = _scope(principal)
    f = Fields(data)
    name = f.str("name", required=True, min_len=1, max_len=200)
    email = f.email("email")
    phone = f.str("phone", max_len=32)
    phone = normalize_phone(phone) if phone else None
    tags = f.list("tags", max_items=MAX_TAGS)
    tags = _tags(tags) if tags is not None else []
    _, tax_id = tax_ids.read(f)
    _, address = addresses.read(f)
    f.reject_unknown()
    now = runtime().clock.now()
    async with in_transaction():
        c = await Customer.create(id=new_id("ccu"), name=name, email=email, phone=phone, tags=_pack(tags),
                                  tax_id=tax_id, address=addresses.apply(None, address), created_at=now,
                                  updated_at=now, **scope)
        await _link_messages(c)
    return c


async def update_customer(*, principal: CrmPrincipal, customer_id: str, data: dict) -> Customer:
    f = Fields(data)
    name = f.str("name", min_len=1, max_len=200)
    changes: dict[str, Any] = {}
    if name is not None:
        changes["name"] = name
    # email and phone may be cleared with null
    for key in ("email", "phone"):
        if key in data:
            f.seen.add(key)
            v = data[key]
            if v is None or v == "":
                changes[key] = None
            else:
                changes[key] = f.email(key) if key == "email" else normalize_phone(v)
    if "tags" in data:
        f.seen.add("tags")
        changes["tags"] = _pack(_tags(data["tags"]) if data["tags"] is not None else [])
    given, tax_id = tax_ids.read(f)
    if given:
        changes["tax_id"] = tax_id
    address_given, address = addresses.read(f)
    f.reject_unknown()
    async with in_transaction():
        c = await get_customer(principal=principal, customer_id=customer_id)
        if address_given:       # merged into the stored address (services.addresses)
            locked = await Customer.filter(id=c.id, company_id=c.company_id).select_for_update().first()
            changes["address"] = addresses.apply(locked.address if locked else c.address, address)
        if changes:
            for k, v in changes.items():
                setattr(c, k, v)
            c.updated_at = runtime().clock.now()
            await c.save()
            await _link_messages(c)
    return c


async def delete_customer(*, principal: CrmPrincipal, customer_id: str) -> Customer:
    """The customer, its deals, their commissions and its messages go together or not at all."""
    c = await get_customer(principal=principal, customer_id=customer_id)
    async with in_transaction():
        deal_ids = await Deal.filter(company_id=c.company_id, customer_id=c.id).values_list("id", flat=True)
        if deal_ids:
            await Commission.filter(company_id=c.company_id, deal_id__in=list(deal_ids)).delete()
        await Deal.filter(company_id=c.company_id, customer_id=c.id).delete()
        await Message.filter(company_id=c.company_id, customer_id=c.id).delete()
        await Customer.filter(id=c.id, company_id=c.company_id).delete()
    return c


async def list_customers(*, principal: CrmPrincipal, query: dict) -> Page:
    """Filters: q (name, e-mail or phone contains), email, phone, tag, created_gte, created_lte."""
    qs = Customer.filter(**_scope(principal))
    q = query.get("q") or query.get("search")
    if q:
        q = check_str(q, "q", max_len=200)
        qs = qs.filter(Q(name__icontains=q) | Q(email__icontains=q) | Q(phone__icontains=q))
    if query.get("name"):
        qs = qs.filter(name__icontains=check_str(query["name"], "name", max_len=200))
    if query.get("email"):
        qs = qs.filter(email__iexact=check_str(query["email"], "email", max_len=254))
    if query.get("phone"):
        qs = qs.filter(phone=normalize_phone(query["phone"]))
    if query.get("tag"):
        tag = _tags([query["tag"]], "tag")[0]
        qs = qs.filter(tags__contains=f",{tag},")
    for key, op in (("created_gte", "gte"), ("created_lte", "lte")):
        if query.get(key):
            v = query[key]
            v = int(v) if isinstance(v, str) and v.isdigit() else v
            qs = qs.filter(**{f"created_at__{op}": check_datetime(v, key)})
    return await paginate(qs, limit=check_limit(query.get("limit")), starting_after=query.get("starting_after"))
