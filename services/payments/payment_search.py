"""The payments list's dashboard filters: a payment method, an amount range and one search box
(`q`) that finds a payment by its exact id, its payer's e-mail (any case), its customer's phone
or its card's last four digits.

An id or last four digits are column equalities, served by the keyset page like every other
filter. An e-mail or a phone matches the payment's own e-mail or its customer's, an OR that the
keyset statement does not express: those pages are read by a plain query over the same order
(created_at, id descending) and the same cursor rule."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tortoise.expressions import Q

from models.payments import Customer, Payment
from services.errors import ValidationError
from services.ids import check_id
from services.pagination import TOTAL_CAP, Page
from services.payments import methods
from services.validation import MAX_INT, check_enum

# A payment's method as the list shows it: the registry's types, plus a card's and the wallets'.
METHOD_FILTER: tuple[str, ...] = tuple(dict.fromkeys(("card", "apple_pay", "google_pay") + methods.TYPES))
_ID = re.compile(r"pay_[A-Za-z0-9]{1,36}")
_LAST4 = re.compile(r"\d{4}")
_EMAIL = re.compile(r"[^@\s]{1,64}@[^@\s]{1,190}")
_PHONE = re.compile(r"\+?[\d\s().-]{6,31}")
_CUSTOMERS_PER_SEARCH = 100
_PHONE_CANDIDATES = 2_000


def digits_of(phone: str | None) -> str:
    """A phone's digits (a leading + and spacing aside)."""
    return "".join(c for c in phone or "" if c.isdigit())


@dataclass
class Search:
    """What `q` and the other dashboard filters add to the list's filters."""
    filters: list[tuple[str, str, Any]] = field(default_factory=list)
    email: str | None = None                       # lower-cased: the payment's or its customer's
    phones: tuple[str, ...] = ()                   # the phone's digits (one), compared with digits_of
    nothing: bool = False                          # q can match no payment


def amount_param(v: Any, param: str) -> int | None:
    """A minor-unit bound from a query string or GraphQL: a whole number, 0 or more."""
    if v is None or v == "":
        return None
    if isinstance(v, str):
        if not re.fullmatch(r"\d{1,18}", v.strip()):
            raise ValidationError(f"{param} must be a whole number of minor units (0 or more)", param=param)
        v = int(v.strip())
    if isinstance(v, bool) or not isinstance(v, int) or v < 0 or v > MAX_INT:
        raise ValidationError(f"{param} must be a whole number of minor units (0 or more)", param=param)
    return v


def build(*, query: Any = None, payment_method: Any = None, amount_gte: Any = None,
          amount_lte: Any = None, query_param: str = "q", method_param: str = "payment_method",
          gte_param: str = "amount_gte", lte_param: str = "amount_lte") -> Search:
    s = Search()
    if payment_method not in (None, ""):
        s.filters.append(("payment_method_type", "=", check_enum(payment_method, method_param, METHOD_FILTER)))
    low, high = amount_param(amount_gte, gte_param), amount_param(amount_lte, lte_param)
    if low is not None:
        s.filters.append(("amount", ">=", low))
    if high is not None:
        s.filters.append(("amount", "<=", high))
    if query in (None, ""):
        return s
    if not isinstance(query, str) or len(query) > 254:
        raise ValidationError(f"{query_param} must be a payment id, an e-mail, a phone or a card's last 4 digits "
                              "(at most 254 characters)", param=query_param)
    q = query.strip()
    if _ID.fullmatch(q):
        s.filters.append(("id", "=", q))
    elif _LAST4.fullmatch(q):
        s.filters.append(("card_last4", "=", q))
    elif _EMAIL.fullmatch(q):
        s.email = q.lower()
    elif _PHONE.fullmatch(q) and sum(c.isdigit() for c in q) >= 6:
        s.phones = (digits_of(q),)
    else:
        s.nothing = True
    return s


async def page(*, scope: dict[str, Any], filters: list[tuple[str, str, Any]], search: Search, limit: int,
               starting_after: str | None) -> Page:
    """A page of the payments an e-mail or phone search finds, newest first (model instances)."""
    if search.nothing:
        return Page(items=[], has_more=False, total=0)
    customers = Customer.filter(**scope)
    if search.email:
        ids = await customers.filter(email__iexact=search.email).limit(_CUSTOMERS_PER_SEARCH).values_list("id", flat=True)
    else:
        # A phone is stored as it was given (+966 50 123 4567): the candidates end with the same last
        # four digits, and their digits are compared.
        wanted = search.phones[0]
        candidates = await customers.filter(phone__endswith=wanted[-4:]).limit(_PHONE_CANDIDATES) \
            .values_list("id", "phone")
        ids = [cid for cid, phone in candidates if digits_of(phone) == wanted][:_CUSTOMERS_PER_SEARCH]
    match = Q(customer_id__in=list(ids)) if ids else None
    if search.email:
        match = Q(email__iexact=search.email) | match if match is not None else Q(email__iexact=search.email)
    if match is None:
        return Page(items=[], has_more=False, total=0)
    base = Payment.filter(**scope).filter(match)
    ops = {"=": "", ">=": "__gte", "<=": "__lte", "<": "__lt"}
    for name, op, value in filters:
        base = base.filter(**{name + ops[op]: value})
    qs = base
    if starting_after:
        check_id(starting_after, "starting_after")
        cursor = await base.filter(id=starting_after).first()
        if cursor is None:
            raise ValidationError("starting_after is not an id from this list", param="starting_after")
        qs = qs.filter(Q(created_at__lt=cursor.created_at) | Q(created_at=cursor.created_at, id__lt=cursor.id))
    rows = await qs.order_by("-created_at", "-id").limit(limit + 1)
    total = await base.count()
    items = rows[:limit]
    has_more = len(rows) > limit
    return Page(items=items, has_more=has_more, total=min(total, TOTAL_CAP),
                next_cursor=items[-1].id if has_more and items else None, total_capped=total > TOTAL_CAP)
