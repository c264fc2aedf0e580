"""Payment links (`lnk_`): create, read, list, cancel, and what each has collected.

A link is reusable: every successful checkout on `{pay_url}/{id}` creates a payment through
services.payments (risk, routing, ledger, events) carrying `payment_link` = the link id.
`status` is `active` or `cancelled` as stored, and reads `expired` once `expires_at` has passed
(computed at read time: nothing is written when a link expires, so no job is needed).
`payments_count` / `amount_collected` come from one grouped, indexed query over payments.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from tortoise.functions import Count, Sum

from models import _lookup as lookup
from models.intents import PaymentIntent
from models.links import PaymentLink
from models.payments import Payment
from services.errors import InvalidState, NotFound, ValidationError
from services.ids import check_id, new_id
from services.infra.runtime import runtime
from services.money.currencies import check_amount, check_currency
from services.payments import locales
from services.pagination import Page, check_limit, paginate
from services.principal import Principal
from services.validation import Fields, check_datetime, one_of

STATUSES = ("active", "cancelled", "expired")
# Payments that collected money: captured at once, captured later, or refunded afterwards.
COLLECTED = ("succeeded", "captured", "refunded")


@dataclass
class Collected:
    payments_count: int = 0
    amount_collected: int = 0      # captured minus refunded, minor units


def status_of(link: PaymentLink, now: datetime | None = None) -> str:
    if link.status == "cancelled":
        return "cancelled"
    now = now or runtime().clock.now()
    if link.expires_at is not None and link.expires_at <= now:
        return "expired"
    return "active"


def url_of(link_id: str) -> str:
    return f"{runtime().config.pay_url.rstrip('/')}/{link_id}"


async def collected(link_ids: list[str]) -> dict[str, Collected]:
    """What each link has collected: one grouped query on the (payment_link, status) index."""
    if not link_ids:
        return {}
    rows = await (Payment.filter(payment_link__in=list(set(link_ids)), status__in=COLLECTED)
                  .annotate(n=Count("id"), captured=Sum("amount_captured"), refunded=Sum("amount_refunded"))
                  .group_by("payment_link").values("payment_link", "n", "captured", "refunded"))
    out = {lid: Collected() for lid in link_ids}
    for r in rows:
        out[r["payment_link"]] = Collected(int(r["n"] or 0), int(r["captured"] or 0) - int(r["refunded"] or 0))
    for r in await _collected_by_intents(list(set(link_ids))):
        c = out[r["link"]]
        c.payments_count += int(r["n"] or 0)
        c.amount_collected += int(r["received"] or 0) - int(r["refunded"] or 0)
    return out


# The link's id in a /v1 intent's metadata, per dialect (the checkout's local methods:
# services.payments.checkout_local.choose).
_LINK_OF_INTENT = {"postgres": '"i"."metadata"->>\'payment_link\'',
                   "sqlite": 'json_extract("i"."metadata", \'$.payment_link\')'}


async def _collected_by_intents(link_ids: list[str]) -> list[dict]:
    """A link paid through a local method (KNET, BenefitPay, Fawry, STC Pay) is paid by a /v1
    intent carrying `metadata.payment_link`: the succeeded (or refunded) ones of the link's own
    merchant, mode and currency, paid with a local method, count as its payments."""
    from services.payments.methods import LOCAL_TYPES
    dialect = PaymentIntent._meta.db.capabilities.dialect
    marks = ", ".join("{}" for _ in link_ids)
    kinds = ", ".join(f"'{t}'" for t in LOCAL_TYPES)
    return await lookup.query(
        PaymentIntent,
        f'SELECT "l"."id" AS "link", COUNT(*) AS "n", SUM("i"."amount_received") AS "received", '
        f'SUM("i"."amount_refunded") AS "refunded" FROM "payment_intents" "i" JOIN "payment_links" "l" '
        f'ON "l"."id" = {_LINK_OF_INTENT[dialect]} AND "l"."merchant_id" = "i"."merchant_id" '
        f'AND "l"."livemode" = "i"."livemode" AND "l"."currency" = "i"."currency" '
        f'WHERE "l"."id" IN ({marks}) AND "i"."status" IN (\'succeeded\', \'refunded\') '
        f'AND "i"."payment_method" IN ({kinds}) GROUP BY "l"."id"', link_ids)


async def create_link(*, principal: Principal, data: dict) -> PaymentLink:
    if not isinstance(data, dict):
        raise ValidationError("request body must be a JSON object")
    f = Fields(data)
    currency = check_currency(f._get("currency", True))
    amount = check_amount(f._get("amount", True), currency)
    description = f.str("description", max_len=500)
    locale = f.enum("locale", locales.LOCALES)       # the pages' language; none: the buyer's
    metadata = f.metadata() or {}
    now = runtime().clock.now()
    expires_at = None
    if f.has("expires_at") and data.get("expires_at") is not None:
        f.seen.add("expires_at")
        raw = data["expires_at"]
        if isinstance(raw, str) and raw.strip().isdigit():
            raw = int(raw.strip())
        expires_at = check_datetime(raw, "expires_at")
        if expires_at <= now:
            raise ValidationError(f"expires_at must be in the future (now is {now.isoformat()})",
                                  param="expires_at")
    f.reject_unknown(also=("idempotency_key", "expires_at"))
    return await PaymentLink.create(id=new_id("lnk"), merchant_id=principal.merchant_id,
                                    livemode=principal.livemode, status="active", amount=amount,
                                    currency=currency, description=description, metadata=metadata, locale=locale,
                                    expires_at=expires_at, created_at=now, updated_at=now)


async def get_link(*, principal: Principal, link_id: str) -> PaymentLink:
    check_id(link_id)
    link = await lookup.first(PaymentLink, id=link_id, **principal.scope)
    if link is None:
        raise NotFound()
    return link


async def public_link(link_id: str) -> PaymentLink:
    """A link by id alone (the checkout page: the id in the URL is the capability)."""
    link = await lookup.first(PaymentLink, id=link_id) if isinstance(link_id, str) else None
    if link is None:
        raise NotFound("No such payment link")
    return link


async def list_links(*, principal: Principal, limit=None, starting_after: str | None = None,
                     status: str | None = None) -> Page:
    """Newest first; `status` filters on the status as read (expired is computed)."""
    qs = PaymentLink.filter(**principal.scope)
    if status not in (None, ""):
        if status not in STATUSES:
            raise one_of("status", STATUSES)
        now = runtime().clock.now()
        if status == "cancelled":
            qs = qs.filter(status="cancelled")
        elif status == "expired":
            qs = qs.filter(status="active", expires_at__lte=now)
        else:
            from tortoise.expressions import Q
            qs = qs.filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now), status="active")
    return await paginate(qs, limit=check_limit(limit), starting_after=starting_after)


async def cancel_link(*, principal: Principal, link_id: str) -> PaymentLink:
    link = await get_link(principal=principal, link_id=link_id)
    now = runtime().clock.now()
    current = status_of(link, now)
    if current != "active":
        raise InvalidState(f"Payment link {link.id} is {current}: only an active link can be cancelled")
    changed = await PaymentLink.filter(id=link.id, status="active").update(status="cancelled", cancelled_at=now,
                                                                          updated_at=now)
    if not changed:
        raise InvalidState(f"Payment link {link.id} is cancelled: only an active link can be cancelled")
    link.status, link.cancelled_at, link.updated_at = "cancelled", now, now
    return link


async def links_by_ids(*, principal: Principal, ids: list[str]) -> dict[str, PaymentLink]:
    rows = await PaymentLink.filter(id__in=list(set(ids)), **principal.scope) if ids else []
    return {r.id: r for r in rows}
