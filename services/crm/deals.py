"""Deals in the sales funnel and the commissions a won deal pays its owner.

A move to `won` starts a new won-cycle and creates the owner's commission for it, exactly once
however often the deal is saved as won: the deal row is locked for the update, the stage
change is conditional, and (deal, cycle) is unique in the database. A move out of `won`
reverses the cycle's commission."""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from tortoise.transactions import in_transaction

from models.crm import Commission, Company, Deal, User
from services.crm.accounts import CrmPrincipal
from services.crm.currency import check_currency
from services.crm.customers import _scope, get_customer
from services.errors import NotFound, ValidationError
from services.ids import check_id, new_id
from services.infra.runtime import runtime
from services.pagination import Page, check_limit, paginate
from services.validation import Fields, MAX_INT, check_enum, check_int, check_str, one_of

STAGES = ("lead", "qualified", "proposal", "negotiation", "won", "lost")
OPEN_STAGES = ("lead", "qualified", "proposal", "negotiation")
# When a deal is created or moved without a probability, the stage's usual one (percent).
DEFAULT_PROBABILITY = {"lead": 10, "qualified": 25, "proposal": 50, "negotiation": 75, "won": 100, "lost": 0}


async def _owner(principal: CrmPrincipal, owner_id: Any) -> User:
    user = await User.get_or_none(id=owner_id, company_id=principal.company_id) if isinstance(owner_id, str) else None
    if user is None:
        raise NotFound(param="owner_id")
    return user


async def get_deal(*, principal: CrmPrincipal, deal_id: Any) -> Deal:
    scope = _scope(principal)
    deal = await Deal.get_or_none(id=deal_id, **scope) if isinstance(deal_id, str) and len(deal_id) <= 40 else None
    if deal is None:
        raise NotFound()
    return deal


def _commission_amount(value: int, rate: Decimal) -> int:
    return int((Decimal(value) * rate).quantize(Decimal(1), rounding=ROUND_HALF_UP))


async def _enter_won(deal: Deal) -> None:
    """Called inside the transaction, with the deal locked, when it moves into `won`."""
    company = await Company.get(id=deal.company_id)
    rate = Decimal(company.commission_rate)
    now = runtime().clock.now()
    deal.won_cycle += 1
    deal.won_at = now
    if not await Commission.filter(deal_id=deal.id, cycle=deal.won_cycle).exists():
        await Commission.create(id=new_id("com"), company_id=deal.company_id, deal_id=deal.id,
                                user_id=deal.owner_id, cycle=deal.won_cycle,
                                amount=_commission_amount(deal.value, rate), currency=deal.currency,
                                rate=str(rate), created_at=now)


async def _leave_won(deal: Deal) -> None:
    await Commission.filter(deal_id=deal.id, status="active").update(status="reversed",
                                                                     reversed_at=runtime().clock.now())
    deal.won_at = None


async def create_deal(*, principal: CrmPrincipal, data: dict) -> Deal:
    scope = _scope(principal)
    f = Fields(data)
    title = f.str("title", required=True, min_len=1, max_len=200)
    customer_id = f.str("customer_id", required=True, max_len=40)
    owner_id = f.str("owner_id", max_len=40)
    stage = f.enum("stage", STAGES, default="lead")
    value = f.int("value", required=True, min=0, max=MAX_INT)
    currency = check_currency(f.str("currency", required=True, max_len=3))
    probability = f.int("probability", min=0, max=100, default=DEFAULT_PROBABILITY[stage])
    f.reject_unknown()
    customer = await get_customer(principal=principal, customer_id=customer_id, param="customer_id")
    owner = await _owner(principal, owner_id) if owner_id else await _owner(principal, principal.user_id)
    now = runtime().clock.now()
    async with in_transaction():
        deal = await Deal.create(id=new_id("deal"), customer_id=customer.id, owner_id=owner.id, title=title,
                                 stage=stage, value=value, currency=currency, probability=probability,
                                 created_at=now, updated_at=now, **scope)
        if stage == "won":
            await _enter_won(deal)
            await deal.save(update_fields=["won_cycle", "won_at"])
    return deal


async def update_deal(*, principal: CrmPrincipal, deal_id: str, data: dict) -> Deal:
    f = Fields(data)
    title = f.str("title", min_len=1, max_len=200)
    stage = f.enum("stage", STAGES)
    value = f.int("value", min=0, max=MAX_INT)
    currency = f.str("currency", max_len=3)
    currency = check_currency(currency) if currency is not None else None
    probability = f.int("probability", min=0, max=100)
    owner_id = f.str("owner_id", max_len=40)
    customer_id = f.str("customer_id", max_len=40)
    f.reject_unknown()
    await get_deal(principal=principal, deal_id=deal_id)      # 404 before any lock
    owner = await _owner(principal, owner_id) if owner_id else None
    customer = (await get_customer(principal=principal, customer_id=customer_id, param="customer_id")
                if customer_id else None)
    async with in_transaction():
        deal = await Deal.filter(id=deal_id, company_id=principal.company_id).select_for_update().first()
        if deal is None:
            raise NotFound()
        was_won = deal.stage == "won"
        if title is not None:
            deal.title = title
        if owner is not None:
            deal.owner_id = owner.id
        if customer is not None:
            deal.customer_id = customer.id
        if was_won and stage in (None, "won") and (value not in (None, deal.value) or
                                                   currency not in (None, deal.currency)):
            raise ValidationError("The value of a won deal cannot change: move it out of won first",
                                  param="value", code="deal_won")
        if value is not None:
            deal.value = value
        if currency is not None:
            deal.currency = currency
        if stage is not None and stage != deal.stage:
            deal.stage = stage
            deal.probability = probability if probability is not None else DEFAULT_PROBABILITY[stage]
            if stage == "won" and not was_won:
                await _enter_won(deal)
            elif was_won and stage != "won":
                await _leave_won(deal)
        elif probability is not None:
            deal.probability = probability
        deal.updated_at = runtime().clock.now()
        await deal.save()
    return deal


def _ref(value: Any, param: str) -> str:
    """An id filter from the query string: a malformed id (longer than any, or not prefix_...)
    is a 400 naming it, as billing's filters; an unknown one just matches nothing."""
    return check_id(check_str(value, param, max_len=40), param)


async def list_deals(*, principal: CrmPrincipal, query: dict) -> Page:
    """Filters: stage, owner_id, customer_id, currency, value_gte, value_lte."""
    qs = Deal.filter(**_scope(principal))
    if query.get("stage"):
        stages = query["stage"].split(",")
        for s in stages:
            if s not in STAGES:
                raise one_of("stage", STAGES)
        qs = qs.filter(stage__in=stages)
    if query.get("owner_id") or query.get("owner"):
        qs = qs.filter(owner_id=_ref(query.get("owner_id") or query.get("owner"), "owner_id"))
    if query.get("customer_id"):
        qs = qs.filter(customer_id=_ref(query["customer_id"], "customer_id"))
    if query.get("currency"):
        qs = qs.filter(currency=check_currency(query["currency"]))
    for key, op in (("value_gte", "gte"), ("value_lte", "lte"), ("min_value", "gte"), ("max_value", "lte")):
        if query.get(key) is not None and query.get(key) != "":
            raw = query[key]
            if not raw.isdigit():
                raise ValidationError(f"{key} must be an integer (minor units)", param=key)
            qs = qs.filter(**{f"value__{op}": check_int(int(raw), key)})
    return await paginate(qs, limit=check_limit(query.get("limit")), starting_after=query.get("starting_after"))


async def commissions_of(*, principal: CrmPrincipal, deal_ids: list[str]) -> dict[str, list[Commission]]:
    rows = await Commission.filter(company_id=principal.company_id, deal_id__in=deal_ids).order_by("created_at", "cycle")
    out: dict[str, list[Commission]] = {d: [] for d in deal_ids}
    for r in rows:
        out[r.deal_id].append(r)
    return out


async def list_commissions(*, principal: CrmPrincipal, query: dict) -> Page:
    """The company's commissions, newest first. Filters: deal_id, owner_id (the deal's owner when it
    was won, who earns it: the commission's user_id; `user_id` is accepted as the same filter),
    status (active | reversed)."""
    qs = Commission.filter(**_scope(principal))
    if principal.own_commissions_only:        # a sales member sees what it earns, nobody else's
        qs = qs.filter(user_id=principal.user_id)
    if query.get("deal_id"):
        qs = qs.filter(deal_id=_ref(query["deal_id"], "deal_id"))
    for param in ("owner_id", "user_id"):
        if query.get(param):
            qs = qs.filter(user_id=_ref(query[param], param))
    if query.get("status"):
        qs = qs.filter(status=check_enum(query["status"], "status", ("active", "reversed")))
    return await paginate(qs, limit=check_limit(query.get("limit")), starting_after=query.get("starting_after"))
