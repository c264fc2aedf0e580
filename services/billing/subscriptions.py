"""Subscriptions: create (the first period is billed at once), read, list, pause, resume, cancel;
and the two scheduler job kinds that bill them: renewals and dunning retries.

Billing dates keep the anchor day (services/billing/dates.py). Each billing creates an invoice
for the period and charges the customer's saved card (the card of their last successful
payment with this merchant) through the payment service, with an idempotency key derived from
the subscription and the period, so no period is ever charged twice -- not by a retry after a
crash, not by a second scheduler process. Without a saved card the invoice is sent to the
customer with its payment page instead.

States: active -> paused -> active; active -> past_due (a declined renewal; retries 1, 3 and 5
days after it) -> active (a retry succeeds) or unpaid (all retries declined: no further
charges); any -> cancelled (permanent). Other moves: 400 naming the current status."""
from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

from tortoise.transactions import in_transaction

from models import _lookup as lookup
from models.billing import Subscription
from models.payments import Customer
from services import events, scheduler
from services.payments import payments
from services.billing import dates, invoices
from services.errors import InvalidState, NotFound, PaymentDeclined, ValidationError
from services.ids import check_id, new_id
from services.money.currencies import check_amount, check_currency
from services.pagination import Page, check_limit, paginate
from services.principal import Principal
from services.timestamps import iso
from services.validation import Fields, check_enum
from services.infra import clock

STATUSES = ("active", "past_due", "unpaid", "paused", "cancelled")
RETRY_DAYS = (1, 3, 5)            # after the declined renewal
MAX_SPAN_DAYS = 3 * 366           # interval x interval_count: at most about three years
_DAYS = {"day": 1, "week": 7, "month": 31, "year": 366}


def subscription_object(s: Subscription) -> dict:
    return {"id": s.id, "object": "subscription", "status": s.status, "customer_id": s.customer_id,
            "plan": s.plan, "amount": s.amount, "currency": s.currency, "interval": s.interval,
            "interval_count": s.interval_count,
            "next_billing": s.next_billing_at.date().isoformat() if s.next_billing_at else None,
            "current_period_start": iso(s.current_period_start),
            "current_period_end": iso(s.current_period_end), "latest_invoice": s.latest_invoice_id,
            "livemode": s.livemode, "created_at": iso(s.created_at)}


def _principal(s: Subscription) -> Principal:
    return Principal(merchant_id=s.merchant_id, livemode=s.livemode, kind="scheduler")


def _start(s: Subscription, n: int) -> datetime:
    return dates.period_start(s.anchor_at, s.interval, s.interval_count, n)


# ---------------------------------------------------------------- create and read

async def create_subscription(*, principal: Principal, data: dict) -> Subscription:
    f = Fields(data)
    customer_id = f.str("customer_id", required=True, max_len=64)
    plan = f.str("plan", required=True, min_len=1, max_len=200)
    currency = check_currency(f._get("currency", True))
    amount = check_amount(f._get("amount", True), currency)
    interval = f.enum("interval", dates.INTERVALS, required=True)
    count = f.int("interval_count", default=1, min=1, max=MAX_SPAN_DAYS)
    metadata = f.metadata() or {}
    f.reject_unknown()
    if count * _DAYS[interval] > MAX_SPAN_DAYS:
        raise ValidationError(f"interval_count {count} x {interval} is longer than three years",
                              param="interval_count")
    try:
        check_id(customer_id, "customer_id")
        customer = await lookup.first(Customer, id=customer_id, **principal.scope)
    except ValidationError:
        customer = None
    if customer is None:
        raise ValidationError("customer_id is not a customer of this merchant in this mode", param="customer_id")
    now = await clock.now_for(principal)
    sub = Subscription(id=new_id("sub"), merchant_id=principal.merchant_id, livemode=principal.livemode,
                       customer_id=customer.id, plan=plan, amount=amount, currency=currency, interval=interval,
                       interval_count=count, status="active", anchor_at=now, period=-1, current_period_start=now,
                       current_period_end=now, next_billing_at=now, metadata=metadata, created_at=now,
                       updated_at=now)
    sub.current_period_end = _start(sub, 1)
    async with in_transaction():
        await sub.save(force_create=True)
        await events.emit(merchant_id=sub.merchant_id, livemode=sub.livemode, type="subscription.created",
                          obj=subscription_object(sub))
    # The first period is billed at once, by the same code as every renewal.
    await renew(sub.id, now)
    return await get_subscription(principal=principal, subscription_id=sub.id)


async def get_subscription(*, principal: Principal, subscription_id: str) -> Subscription:
    check_id(subscription_id)
    s = await lookup.first(Subscription, id=subscription_id, **principal.scope)
    if s is None:
        raise NotFound()
    return s


async def list_subscriptions(*, principal: Principal, limit=None, starting_after: str | None = None,
                             status: str | None = None, customer_id: str | None = None) -> Page:
    qs = Subscription.filter(**principal.scope)
    if status:
        qs = qs.filter(status=check_enum(status, "status", STATUSES))
    if customer_id:
        qs = qs.filter(customer_id=check_id(customer_id, "customer_id"))
    return await paginate(qs, limit=check_limit(limit), starting_after=starting_after)


# ---------------------------------------------------------------- moves

async def _move(principal: Principal, subscription_id: str, allowed: tuple[str, ...], verb: str,
                changes, event: str) -> Subscription:
    s = await get_subscription(principal=principal, subscription_id=subscription_id)
    if s.status not in allowed:
        if s.status == "cancelled":
            raise InvalidState(f"Subscription {s.id} is cancelled: a cancelled subscription cannot be {verb}")
        raise InvalidState(f"Subscription {s.id} cannot be {verb}: its status is {s.status}; "
                           f"only {' or '.join(allowed)} subscriptions can be")
    now = await clock.now_for(principal)
    values = {**changes(s, now), "updated_at": now}
    async with in_transaction():
        if not await Subscription.filter(id=s.id, status=s.status, updated_at=s.updated_at).update(**values):
            raise InvalidState(f"Subscription {s.id} changed meanwhile; read it again")
        for k, v in values.items():
            setattr(s, k, v)
        await events.emit(merchant_id=s.merchant_id, livemode=s.livemode, type=event, obj=subscription_object(s))
    return s


async def pause_subscription(*, principal: Principal, subscription_id: str) -> Subscription:
    return await _move(principal, subscription_id, ("active",), "paused",
                       lambda s, now: {"status": "paused", "paused_at": now, "next_billing_at": None},
                       "subscription.paused")


def _resumed(s: Subscription, now: datetime) -> dict:
    """Billing restarts at the next anchor date after now; the periods missed are not billed."""
    n = dates.first_period_after(s.anchor_at, s.interval, s.interval_count, now)
    return {"status": "active", "paused_at": None, "period": n - 1, "current_period_start": _start(s, n - 1),
            "current_period_end": _start(s, n), "next_billing_at": _start(s, n)}


async def resume_subscription(*, principal: Principal, subscription_id: str) -> Subscription:
    return await _move(principal, subscription_id, ("paused",), "resumed", _resumed, "subscription.resumed")


async def cancel_subscription(*, principal: Principal, subscription_id: str) -> Subscription:
    return await _move(principal, subscription_id, ("active", "past_due", "unpaid", "paused"), "cancelled",
                       lambda s, now: {"status": "cancelled", "cancelled_at": now, "next_billing_at": None,
                                       "next_retry_at": None},
                       "subscription.cancelled")


# ---------------------------------------------------------------- billing (scheduler jobs)

async def _claim(subscription_id: str) -> Subscription | None:
    """The row, locked until the end of the caller's transaction; None if another process
    holds it (PostgreSQL SKIP LOCKED: that process bills it)."""
    return await Subscription.filter(id=subscription_id).select_for_update(skip_locked=True).first()


async def _charge(s: Subscription, inv, attempt: str) -> str:
    """Charge the saved card for `inv`; answers an outcome line. Declines raise PaymentDeclined."""
    principal = _principal(s)
    saved = await payments.saved_card_of(principal=principal, customer_id=s.customer_id)
    if saved is None:
        customer = await Customer.get(id=s.customer_id)
        channel = "email" if customer.email else "messaging" if customer.phone else None
        if channel is None:
            return f"invoice {inv.number} left open: the customer has no saved card, e-mail or phone"
        try:
            await invoices.send_invoice(principal=principal, invoice_id=inv.id, data={"channel": channel})
        except Exception as exc:  # noqa: BLE001 - the invoice stays open; the merchant can send it again
            return f"invoice {inv.number} open: sending it by {channel} failed ({type(exc).__name__})"
        return f"invoice {inv.number} sent by {channel}: no saved card"
    p = await payments.charge_saved_card(
        principal=principal, saved=saved, amount=inv.total, currency=inv.currency,
        idempotency_key=f"subscription:{s.id}:period:{s.period}:{attempt}",
        description=f"{s.plan} ({inv.number})", metadata={"subscription": s.id, "invoice": inv.id})
    await invoices.mark_paid(principal=principal, invoice_id=inv.id, payment_id=p.id)
    return f"invoice {inv.number} paid by {p.id}"


async def renew(subscription_id: str, due: datetime) -> str | None:
    """Bill the period that starts at `due` (a job run)."""
    async with in_transaction():
        s = await _claim(subscription_id)
        if s is None or s.status != "active" or s.next_billing_at is None or s.next_billing_at > due:
            return None
        n = s.period + 1                     # `period` is the last one billed (-1 before the first)
        start, end = _start(s, n), _start(s, n + 1)
        principal = _principal(s)
        customer = await Customer.get(id=s.customer_id)
        inv = await invoices.create_for(
            principal=principal, customer=customer, currency=s.currency,
            items=[invoices.Item(s.plan, s.amount, 1)], tax_rate=Decimal(0), due_date=start.date(), now=due,
            subscription_id=s.id, period=(start, end))
        s.period, s.current_period_start, s.current_period_end = n, start, end
        s.next_billing_at, s.latest_invoice_id, s.updated_at = end, inv.id, due
        try:
            outcome = await _charge(s, inv, "renewal")
        except PaymentDeclined as exc:
            s.status, s.retry_count, s.next_retry_at = "past_due", 0, due + timedelta(days=RETRY_DAYS[0])
            await s.save()
            await _emit(s, "subscription.payment_failed", inv, reason=exc)
            return f"invoice {inv.number}: charge declined ({getattr(exc, 'decline_code', None) or exc.code}); past_due"
        await s.save()
        await _emit(s, "subscription.renewed", await inv.refresh_from_db() or inv)
        return outcome


async def retry(subscription_id: str, due: datetime) -> str | None:
    """A dunning retry of a past-due subscription's latest invoice (a job run)."""
    async with in_transaction():
        s = await _claim(subscription_id)
        if s is None or s.status != "past_due" or s.next_retry_at is None or s.next_retry_at > due:
            return None
        inv = await invoices.get_invoice(principal=_principal(s), invoice_id=s.latest_invoice_id)
        attempt = s.retry_count + 1
        s.updated_at = due
        if inv.status == "paid":                    # paid meanwhile (by hand, or on its page)
            s.status, s.next_retry_at = "active", None
            await s.save()
            return f"invoice {inv.number} was paid meanwhile; active"
        try:
            outcome = await _charge(s, inv, f"retry{attempt}")
        except PaymentDeclined as exc:
            s.retry_count = attempt
            if attempt < len(RETRY_DAYS):
                declined_at = s.next_retry_at - timedelta(days=RETRY_DAYS[attempt - 1])
                s.next_retry_at = declined_at + timedelta(days=RETRY_DAYS[attempt])
                state = "past_due"
            else:
                s.status, s.next_retry_at, s.next_billing_at = "unpaid", None, None
                state = "unpaid: no further charges"
            await s.save()
            await _emit(s, "subscription.payment_failed", inv, reason=exc)
            return f"retry {attempt} of invoice {inv.number} declined; {state}"
        s.status, s.next_retry_at = "active", None
        await s.save()
        await _emit(s, "subscription.renewed", await inv.refresh_from_db() or inv)
        return f"retry {attempt}: {outcome}; active"


async def _emit(s: Subscription, type_: str, inv, reason: Exception | None = None) -> None:
    obj = {**subscription_object(s), "invoice": invoices.invoice_object(inv)}
    if reason is not None:
        obj["failure"] = {"code": getattr(reason, "decline_code", None) or getattr(reason, "code", None),
                          "message": getattr(reason, "message", str(reason)), "attempt": s.retry_count}
    await events.emit(merchant_id=s.merchant_id, livemode=s.livemode, type=type_, obj=obj)


async def _due_renewals(scope: scheduler.Scope, until: datetime, limit: int) -> list[tuple[datetime, str]]:
    rows = await (scope.apply(Subscription.filter(status="active", next_billing_at__lte=until))
                  .order_by("next_billing_at").limit(limit).values_list("next_billing_at", "id"))
    return [(when, sid) for when, sid in rows]


async def _due_retries(scope: scheduler.Scope, until: datetime, limit: int) -> list[tuple[datetime, str]]:
    rows = await (scope.apply(Subscription.filter(status="past_due", next_retry_at__lte=until))
                  .order_by("next_retry_at").limit(limit).values_list("next_retry_at", "id"))
    return [(when, sid) for when, sid in rows]


def register_jobs() -> None:
    """This domain's job kinds, registered with the scheduler when the app starts (app/jobs.py)."""
    scheduler.register(scheduler.JobKind("subscription.renewal", _due_renewals, renew))
    scheduler.register(scheduler.JobKind("subscription.dunning_retry", _due_retries, retry))
