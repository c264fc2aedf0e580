"""Payouts to sellers (`po_`) in batches (`pb_`, one per currency): what a seller may be paid
(payable = available - reserve; 3-decimal currencies in multiples of 10 fils, the rest stays),
the scheduled runs at the start of each platform-local day (daily; weekly on `weekly_anchor`;
monthly on `monthly_anchor`, the month's last day when shorter), `POST /api/payout-batches`, the
test helpers (paid, failed, returned) and the statement of a payout.

A payout takes every available `seller_balance` leg not in a payout yet (its statement lines)
plus what the last payout left (`carried_in`), and leaves `carried_forward` (the reserve and the
fils below 10, or a negative rest): lines + carried_in - carried_forward = amount."""
from __future__ import annotations

import calendar
import csv
import io
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from tortoise.expressions import Q
from tortoise.transactions import in_transaction

from models import _lookup as lookup
from models.marketplace import Payout, PayoutBatch, SellerEntry, SubMerchant
from services import events, scheduler
from services.errors import InvalidState, NotFound, ValidationError
from services.ids import check_id, new_id
from services.money import markets
from services.money.currencies import EXPONENTS
from services.money.marketplace import seller_ledger as sl
from services.money.marketplace import sellers
from services.pagination import Page, check_limit, paginate
from services.principal import Principal
from services.timestamps import iso
from services.validation import Fields, check_enum

STATUSES = ("pending", "paid", "failed", "returned")
LINE_KINDS = ("split", "reversal", "fee_refund", "dispute", "dispute_won")
STATEMENT_COLUMNS = ("type", "split", "payment", "refund", "line_amount", "fee", "amount", "created_at")


def major(amount: int, currency: str) -> str:
    """Minor units as the currency's decimals: 8750 KWD -> "8.750", 1050 SAR -> "10.50"."""
    exp = EXPONENTS[currency]
    return f"{Decimal(amount).scaleb(-exp):.{exp}f}"


def payout_object(p: Payout) -> dict:
    return {"id": p.id, "object": "payout", "batch": p.batch_id, "sub_merchant": p.sub_merchant_id,
            "amount": p.amount, "currency": p.currency, "iban": p.iban, "holder_name": p.holder_name,
            "purpose": p.purpose, "reference": p.reference, "status": p.status,
            "commission_invoice": p.commission_invoice, "paid_at": iso(p.paid_at), "livemode": p.livemode,
            "created_at": iso(p.created_at)}


def batch_object(b: PayoutBatch, payouts: list[Payout] | None = None) -> dict:
    out = {"id": b.id, "object": "payout_batch", "currency": b.currency, "count": b.count, "total": b.total,
           "livemode": b.livemode, "created_at": iso(b.created_at)}
    if payouts is not None:
        out["payouts"] = [payout_object(p) for p in payouts]
    return out


# ---------------------------------------------------------------- what is payable

@dataclass
class Payable:
    lines: list[SellerEntry]
    total: int          # the lines plus the carry: what is available
    amount: int         # what a payout would pay now


async def payable_of(s: SubMerchant, today: date) -> Payable:
    lines = await (SellerEntry.filter(sub_merchant_id=s.id, account=sl.BALANCE, payout_id__isnull=True,
                                      excluded=False)
                   .filter(Q(available_on__isnull=True) | Q(available_on__lte=today)).order_by("created_at", "id"))
    total = -sum(e.amount for e in lines) + s.carry
    amount = total - int((s.payout_schedule or {}).get("reserve") or 0)
    if EXPONENTS.get(s.currency) == 3:
        amount -= amount % 10              # in multiples of 10 fils: the rest stays
    return Payable(lines, total, max(amount, 0))


def _due_by_schedule(schedule: dict, day: date) -> bool:
    interval = schedule.get("interval", "daily")
    if interval == "daily":
        return True
    if interval == "weekly":
        return sellers.WEEKDAYS[day.weekday()] == schedule.get("weekly_anchor", "monday")
    if interval == "monthly":
        anchor = int(schedule.get("monthly_anchor") or 1)
        return day.day == min(anchor, calendar.monthrange(day.year, day.month)[1])
    return False


async def _pay_out(s: SubMerchant, batch: PayoutBatch, due: Payable, now: datetime) -> Payout:
    """One payout of `due.amount` (inside the caller's transaction, the seller locked)."""
    payout = s.payout or {}
    commission = sum(e.fee or 0 for e in due.lines if e.kind in ("split", "fee_refund"))
    p = Payout(id=new_id("po"), merchant_id=s.merchant_id, livemode=s.livemode, batch_id=batch.id,
               sub_merchant_id=s.id, amount=due.amount, currency=s.currency, iban=payout["iban"],
               holder_name=payout["holder_name"], bic=payout.get("bic"),
               purpose=payout.get("purpose") or sellers.DEFAULT_PURPOSE, reference="",
               status="pending", carried_in=s.carry, carried_forward=due.total - due.amount, commission=commission,
               created_at=now, updated_at=now)
    p.reference = f"Payout {p.id}"
    await p.save(force_create=True)
    if due.lines:
        await SellerEntry.filter(id__in=[e.id for e in due.lines]).update(payout_id=p.id)
    await lookup.insert_all(sl.rows(merchant_id=s.merchant_id, livemode=s.livemode, sub_merchant_id=s.id,
                                    currency=s.currency, kind="payout", payout_id=p.id,
                                    legs=[(sl.BALANCE, p.amount), (sl.IN_PAYOUT, -p.amount)]))
    s.carry = p.carried_forward
    await SubMerchant.filter(id=s.id).update(carry=s.carry)
    return p


async def _new_batch(*, merchant_id: str, livemode: bool, currency: str, now: datetime,
                     run_day: date | None = None) -> PayoutBatch:
    b = PayoutBatch(id=new_id("pb"), merchant_id=merchant_id, livemode=livemode, currency=currency, count=0,
                    total=0, run_day=run_day, created_at=now)
    await b.save(force_create=True)
    return b


async def _finish_batch(b: PayoutBatch, payouts: list[Payout]) -> None:
    b.count += len(payouts)
    b.total += sum(p.amount for p in payouts)
    await PayoutBatch.filter(id=b.id).update(count=b.count, total=b.total)


# ---------------------------------------------------------------- POST /api/payout-batches

async def create_batch(*, principal: Principal, data: Any) -> tuple[PayoutBatch, list[Payout]]:
    """A batch now, of the given sub-merchants (default: all) of `currency` whose payouts are
    enabled and whose payable reaches their schedule's minimum; none: 400 nothing_to_pay."""
    f = Fields(data)
    currency = f.enum("currency", sorted(set(sellers.COUNTRY_CURRENCY.values())), required=True)
    ids = f.list("sub_merchants", max_items=500)
    f.reject_unknown()
    if ids is not None:
        for i, v in enumerate(ids):
            check_id(v, f"sub_merchants[{i}]")
    now = await sellers.now_for(principal)
    today = await sellers.today_of(principal.merchant_id, now)
    async with in_transaction():
        qs = SubMerchant.filter(currency=currency, **principal.scope)
        if ids is not None:
            qs = qs.filter(id__in=ids)
        subs = await qs.select_for_update().order_by("created_at", "id")
        if ids is not None:
            found = {s.id for s in subs}
            for i, v in enumerate(ids):
                if v not in found:
                    raise ValidationError(f"sub_merchants[{i}] is not a sub-merchant of {currency}",
                                          param=f"sub_merchants[{i}]", code="resource_missing")
        batch: PayoutBatch | None = None
        made: list[Payout] = []
        for s in subs:
            if not sellers.payouts_enabled(s, now):
                continue
            due = await payable_of(s, today)
            if due.amount <= 0 or due.amount < int(s.payout_schedule.get("minimum") or 0):
                continue
            if batch is None:
                batch = await _new_batch(merchant_id=principal.merchant_id, livemode=principal.livemode,
                                         currency=currency, now=now)
            made.append(await _pay_out(s, batch, due, now))
        if batch is None:
            raise InvalidState(f"Nothing to pay in {currency}: no sub-merchant with payouts enabled has a payable "
                               "amount reaching its minimum", code="nothing_to_pay", param="currency")
        await _finish_batch(batch, made)
        await events.emit(merchant_id=batch.merchant_id, livemode=batch.livemode, type="payout_batch.created",
                          obj=batch_object(batch, made))
    return batch, made


# ---------------------------------------------------------------- the schedule (a scheduler job)

async def _due_runs(scope: scheduler.Scope, until: datetime, limit: int) -> list[tuple[datetime, str]]:
    """Each scheduled sub-merchant's next local day not run yet, from its start (platform time)."""
    horizon = until.date() + timedelta(days=1)
    rows = await scope.apply(SubMerchant.filter(last_payout_on__lt=horizon)).order_by("last_payout_on").limit(
        limit * 4)
    out: list[tuple[datetime, str]] = []
    market_of: dict[str, str] = {}
    for s in rows:         # manual ones too: their day passes (a run that pays nothing), so none starves
        if s.merchant_id not in market_of:
            market_of[s.merchant_id] = await markets.market_of(s.merchant_id)
        day = s.last_payout_on + timedelta(days=1)
        when = markets.day_start(market_of[s.merchant_id], day)
        if when <= until:
            out.append((when, s.id))
    out.sort()
    return out[:limit]


async def run_schedule(sub_merchant_id: str, due: datetime) -> str | None:
    """The start of a local day for one seller: a payout when its schedule says so, its payouts are
    enabled and its payable reaches its minimum, in the day's batch of its currency."""
    async with in_transaction():
        s = await SubMerchant.filter(id=sub_merchant_id).select_for_update(skip_locked=True).first()
        if s is None or s.last_payout_on is None:
            return None
        day = markets.local_date(await markets.market_of(s.merchant_id), due)
        if s.last_payout_on >= day:
            return None
        s.last_payout_on = day
        await SubMerchant.filter(id=s.id).update(last_payout_on=day)
        if not _due_by_schedule(s.payout_schedule or {}, day) or not sellers.payouts_enabled(s, due):
            return f"{s.id}: no payout on {day}"
        payable = await payable_of(s, day)
        if payable.amount <= 0 or payable.amount < int(s.payout_schedule.get("minimum") or 0):
            return f"{s.id}: {payable.amount} {s.currency} payable on {day}, under the minimum"
        batch = await PayoutBatch.filter(merchant_id=s.merchant_id, livemode=s.livemode, currency=s.currency,
                                         run_day=day).select_for_update().first()
        created = batch is None
        if batch is None:
            batch = await _new_batch(merchant_id=s.merchant_id, livemode=s.livemode, currency=s.currency, now=due,
                                     run_day=day)
        p = await _pay_out(s, batch, payable, due)
        await _finish_batch(batch, [p])
        if created:
            await events.emit(merchant_id=batch.merchant_id, livemode=batch.livemode, type="payout_batch.created",
                              obj=batch_object(batch, [p]))
    return f"{s.id}: payout {p.id} of {p.amount} {p.currency} in {batch.id}"


def register_jobs() -> None:
    scheduler.register(scheduler.JobKind("marketplace.payouts", _due_runs, run_schedule))


# ---------------------------------------------------------------- reads

async def get_payout(*, principal: Principal, payout_id: str) -> Payout:
    p = await Payout.get_or_none(id=payout_id, **principal.scope) if isinstance(payout_id, str) else None
    if p is None:
        raise NotFound()
    return p


async def list_payouts(*, principal: Principal, limit=None, starting_after: str | None = None,
                       sub_merchant: str | None = None, batch: str | None = None, status: str | None = None) -> Page:
    qs = Payout.filter(**principal.scope)
    if sub_merchant:
        qs = qs.filter(sub_merchant_id=check_id(sub_merchant, "sub_merchant"))
    if batch:
        qs = qs.filter(batch_id=check_id(batch, "batch"))
    if status:
        qs = qs.filter(status=check_enum(status, "status", STATUSES))
    return await paginate(qs, limit=check_limit(limit), starting_after=starting_after)


async def get_batch(*, principal: Principal, batch_id: str) -> tuple[PayoutBatch, list[Payout]]:
    b = await PayoutBatch.get_or_none(id=batch_id, **principal.scope) if isinstance(batch_id, str) else None
    if b is None:
        raise NotFound()
    return b, await Payout.filter(batch_id=b.id).order_by("created_at", "id")


async def list_batches(*, principal: Principal, limit=None, starting_after: str | None = None) -> Page:
    return await paginate(PayoutBatch.filter(**principal.scope), limit=check_limit(limit),
                          starting_after=starting_after)


# ---------------------------------------------------------------- statement

async def statement_rows(p: Payout) -> list[dict]:
    """The payout's statement: its lines, what came in from before and what is carried forward,
    adding up to the payout's amount."""
    out: list[dict] = []
    if p.carried_in:
        out.append({"type": "carried_in", "amount": p.carried_in, "created_at": p.created_at})
    for e in await SellerEntry.filter(payout_id=p.id, account=sl.BALANCE, kind__in=LINE_KINDS).order_by(
            "created_at", "id"):
        out.append({"type": e.kind, "split": e.split_id, "payment": e.payment_id, "refund": e.refund_id,
                    "line_amount": e.line_amount, "fee": e.fee, "amount": -e.amount, "created_at": e.created_at})
    if p.carried_forward:
        out.append({"type": "carried_forward", "amount": -p.carried_forward, "created_at": p.created_at})
    return out


async def statement_csv(*, principal: Principal, payout_id: str) -> str:
    p = await get_payout(principal=principal, payout_id=payout_id)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(STATEMENT_COLUMNS)
    for r in await statement_rows(p):
        w.writerow([r["type"], r.get("split") or "", r.get("payment") or "", r.get("refund") or "",
                    major(r["line_amount"], p.currency) if r.get("line_amount") is not None else "",
                    major(r["fee"], p.currency) if r.get("fee") is not None else "",
                    major(r["amount"], p.currency), iso(r["created_at"])])
    return buf.getvalue()


# ---------------------------------------------------------------- test helpers: the bank's answers

def _test_only(principal: Principal) -> None:
    if principal.livemode:
        raise ValidationError("Test helpers work with test keys only", code="test_mode_only")


async def settle_payout(*, principal: Principal, payout_id: str, outcome: str,
                        on_paid=None) -> Payout:
    """pending -> paid or failed (the money back to available); paid -> returned (credited again,
    the seller's `payout.iban` due again); else 400 invalid_state. `on_paid(payout, seller)`: what a
    paid payout also does (its commission invoice), inside the same transaction."""
    _test_only(principal)
    now = await sellers.now_for(principal)
    async with in_transaction():
        p = await Payout.filter(id=payout_id, **principal.scope).select_for_update().first()
        if p is None:
            raise NotFound()
        allowed = {"paid": ("pending",), "failed": ("pending",), "returned": ("paid",)}[outcome]
        if p.status not in allowed:
            raise InvalidState(f"Payout {p.id} is {p.status}: it cannot become {outcome} (from "
                               f"{' or '.join(allowed)} only)")
        s = await SubMerchant.filter(id=p.sub_merchant_id).select_for_update().first()
        if outcome == "paid":
            legs = [(sl.IN_PAYOUT, p.amount), (sl.BANK, -p.amount)]
            p.paid_at = now
        elif outcome == "failed":
            legs = [(sl.IN_PAYOUT, p.amount), (sl.BALANCE, -p.amount)]
        else:
            legs = [(sl.BANK, p.amount), (sl.BALANCE, -p.amount)]
        await lookup.insert_all(sl.rows(merchant_id=p.merchant_id, livemode=p.livemode,
                                        sub_merchant_id=p.sub_merchant_id, currency=p.currency,
                                        kind=f"payout_{outcome}", payout_id=p.id, legs=legs))
        if outcome in ("failed", "returned"):
            s.carry += p.amount
            updates: dict[str, Any] = {"carry": s.carry}
            if outcome == "returned":
                s.iban_due, s.due_since, s.past_due_notified_at = True, now, None
                updates.update(iban_due=True, due_since=now, past_due_notified_at=None)
            await SubMerchant.filter(id=s.id).update(**updates)
        p.status, p.updated_at = outcome, now
        if outcome == "paid" and on_paid is not None:
            p.commission_invoice = await on_paid(p, s)
        await p.save(update_fields=["status", "paid_at", "updated_at", "commission_invoice"])
        await events.emit(merchant_id=p.merchant_id, livemode=p.livemode, type=f"payout.{outcome}",
                          obj=payout_object(p))
        if outcome == "returned":
            await events.emit(merchant_id=s.merchant_id, livemode=s.livemode, type="sub_merchant.updated",
                              obj=sellers.sub_merchant_object(s, now))
    return p
