"""Split lines (`spl_`) of a payment (`POST /api/payments/create`) or an intent (`POST
/v1/payments/intent`): each line names a seller and either its share (`amount`: no fee) or the
line's price (`line_amount`) with the platform's fee (`fee_percent`, `fee_fixed`, default the
seller's `default_fee`): fee = half-up(line_amount x percent / 100) + fixed, the seller gets
exactly line_amount - fee. Lines sum to at most the payment amount; the rest and the fees are the
platform's.

States: `pending` (payment not captured) -> at capture `released` (release `on_capture`) or
`held` (`manual`; auto-released `auto_release_days` after capture) -> `held` again by a hold
while not paid out; `canceled` when the payment is voided or declined."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from tortoise.transactions import in_transaction

from models import _lookup as lookup
from models._rows import new
from models.marketplace import SellerEntry, Split, SubMerchant
from services import events, scheduler
from services.errors import InvalidState, NotFound, ValidationError
from services.ids import check_id, new_id
from services.infra import clock
from services.money.marketplace import sellers, seller_ledger as sl
from services.pagination import Page, check_limit, paginate
from services.principal import Principal
from services.timestamps import iso
from services.validation import Fields, check_enum

MAX_LINES = 20
RELEASES = ("on_capture", "manual")
STATUSES = ("pending", "held", "released", "canceled")


@dataclass
class Line:
    sub_merchant: SubMerchant
    reference: str | None
    line_amount: int
    fee: int
    amount: int
    release: str


def half_up(value: Decimal) -> int:
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def fee_of(line_amount: int, percent: str, fixed: int) -> int:
    return half_up(Decimal(line_amount) * Decimal(percent) / 100) + fixed


def split_object(s: Split) -> dict:
    return {"id": s.id, "object": "split", "payment": s.payment_id, "sub_merchant": s.sub_merchant_id,
            "reference": s.reference, "currency": s.currency, "line_amount": s.line_amount, "fee": s.fee,
            "amount": s.amount, "release": s.release, "status": s.status, "auto_release_at": iso(s.auto_release_at),
            "released_at": iso(s.released_at), "amount_refunded": s.amount_refunded,
            "amount_reversed": s.amount_reversed, "fee_refunded": s.fee_refunded,
            "amount_disputed": s.amount_disputed, "livemode": s.livemode, "created_at": iso(s.created_at)}


# ---------------------------------------------------------------- parse (before anything is charged)

async def parse(raw: Any, *, principal: Principal, amount: int, currency: str, param: str = "splits") -> list[Line]:
    """The `splits` of a create, checked against the sellers; a bad line is a 400 naming it
    (`splits[1].line_amount`), so a bad split charges nothing."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ValidationError(f"{param} must be an array", param=param)
    if len(raw) > MAX_LINES:
        raise ValidationError(f"{param} may hold at most {MAX_LINES} lines", param=param)
    parsed: list[tuple[Fields, str, dict]] = []
    for i, entry in enumerate(raw):
        p = f"{param}[{i}]"
        f = Fields(entry, p)
        smr = f.str("sub_merchant", required=True, max_len=40)
        check_id(smr, f"{p}.sub_merchant")
        reference = f.str("reference", max_len=140)
        release = f.enum("release", RELEASES, default="on_capture")
        share = f.int("amount", min=1)
        line_amount = f.int("line_amount", min=1)
        percent = f._get("fee_percent", False) if f.has("fee_percent") else None
        fixed = f.int("fee_fixed", min=0)
        f.reject_unknown()
        if (share is None) == (line_amount is None):
            raise ValidationError(f"{p}: give amount (the seller's share) or line_amount (the line's price), "
                                  "one of them", param=f"{p}.amount")
        if share is not None and (percent is not None or fixed is not None):
            raise ValidationError(f"{p}.fee_percent and fee_fixed go with line_amount, not amount",
                                  param=f"{p}.fee_percent" if percent is not None else f"{p}.fee_fixed")
        if percent is not None:
            percent = sellers.check_percent(percent, f"{p}.fee_percent")
        parsed.append((f, smr, {"reference": reference, "release": release, "share": share,
                                "line_amount": line_amount, "percent": percent, "fixed": fixed}))
    found = {s.id: s for s in await SubMerchant.filter(id__in=list({smr for _, smr, _ in parsed}), **principal.scope)}
    now = await clock.now_for(principal)
    lines: list[Line] = []
    for i, (_, smr, d) in enumerate(parsed):
        p = f"{param}[{i}]"
        s = found.get(smr)
        if s is None:
            raise ValidationError(f"{p}.sub_merchant: no such sub-merchant", param=f"{p}.sub_merchant",
                                  code="resource_missing")
        if s.currency != currency:
            raise ValidationError(f"{p}.sub_merchant is paid in {s.currency}, not {currency}: a split is in the "
                                  "sub-merchant's currency only", param=f"{p}.sub_merchant", code="sub_merchant_currency")
        if sellers.status_of(s, now) == "disabled":
            raise ValidationError(f"{p}.sub_merchant is disabled ({sellers.requirements(s, now)['disabled_reason']})",
                                  param=f"{p}.sub_merchant", code="sub_merchant_disabled")
        if d["share"] is not None:
            line_amount, fee = d["share"], 0
        else:
            line_amount = d["line_amount"]
            percent = d["percent"] if d["percent"] is not None else s.default_fee.get("percent", "0")
            fixed = d["fixed"] if d["fixed"] is not None else int(s.default_fee.get("fixed") or 0)
            fee = fee_of(line_amount, percent, fixed)
            if fee > line_amount:
                raise ValidationError(f"{p}: the fee {fee} exceeds the line_amount {line_amount}",
                                      param=f"{p}.fee_fixed" if fixed else f"{p}.fee_percent")
        lines.append(Line(s, d["reference"], line_amount, fee, line_amount - fee, d["release"]))
    total = sum(x.line_amount for x in lines)
    if total > amount:
        raise ValidationError(f"{param} add up to {total}, more than the amount {amount}", param=param,
                              code="splits_exceed_amount")
    return lines


# ---------------------------------------------------------------- capture, cancel

def _capture_rows(s: Split, sub: SubMerchant | None, *, now: datetime, available_on: date) -> list:
    """A split's money at capture: held for the seller, and released at once (`on_capture`)."""
    s.available_on = available_on
    out: list = sl.rows(merchant_id=s.merchant_id, livemode=s.livemode, sub_merchant_id=s.sub_merchant_id,
                        currency=s.currency, kind="capture", legs=[(sl.PLATFORM, s.amount), (sl.HELD, -s.amount)],
                        split_id=s.id, payment_id=s.payment_id)
    if s.release == "on_capture":
        out += _release_rows(s, now)
    else:
        s.status = "held"
        days = sub.auto_release_days if sub is not None else None
        s.auto_release_at = now + timedelta(days=days) if days else None
    return out


def _release_rows(s: Split, now: datetime, held: int | None = None) -> list:
    """Held -> seller_balance (a statement line `split`, pending until the payment's settlement date)."""
    amount = s.amount if held is None else held
    s.status, s.released_at, s.auto_release_at, s.updated_at = "released", now, None, now
    rows: list = sl.rows(merchant_id=s.merchant_id, livemode=s.livemode, sub_merchant_id=s.sub_merchant_id,
                         currency=s.currency, kind="split", legs=[(sl.HELD, amount), (sl.BALANCE, -amount)],
                         split_id=s.id, payment_id=s.payment_id, line_amount=s.line_amount, fee=s.fee,
                         available_on=s.available_on)
    rows += events.rows(merchant_id=s.merchant_id, livemode=s.livemode, type="split.released", obj=split_object(s))
    return rows


def rows_for_create(lines: list[Line], *, merchant_id: str, livemode: bool, payment_id: str, status: str,
                    now: datetime, available_on: date | None) -> tuple[list, list[Split]]:
    """The split rows of a new payment (with their ledger legs when it is captured at once),
    for the payment's own write. `status`: captured | pending | canceled."""
    splits = [new(Split, id=new_id("spl"), merchant_id=merchant_id, livemode=livemode, payment_id=payment_id,
                  position=i, sub_merchant_id=x.sub_merchant.id, reference=x.reference,
                  currency=x.sub_merchant.currency, line_amount=x.line_amount, fee=x.fee, amount=x.amount,
                  release=x.release, status="canceled" if status == "canceled" else "pending", auto_release_at=None,
                  released_at=None, available_on=None, amount_refunded=0, amount_reversed=0, fee_refunded=0,
                  amount_disputed=0, created_at=now, updated_at=now)
              for i, x in enumerate(lines)]
    rows: list = []
    if status == "captured":
        for s, x in zip(splits, lines):
            rows += _capture_rows(s, x.sub_merchant, now=now, available_on=available_on)
    return [*splits, *rows], splits


async def on_capture(*, payment_id: str, captured: int, now: datetime, available_on: date) -> None:
    """Inside the capture's transaction: the payment's pending splits are captured."""
    pending = await Split.filter(payment_id=payment_id, status="pending").order_by("position")
    if not pending:
        return
    total = sum(s.line_amount for s in pending)
    if total > captured:
        raise ValidationError(f"the splits add up to {total}, more than the captured {captured}",
                              param="amount", code="splits_exceed_amount")
    subs = {s.id: s for s in await SubMerchant.filter(id__in=[s.sub_merchant_id for s in pending])}
    rows: list = []
    for s in pending:
        rows += _capture_rows(s, subs.get(s.sub_merchant_id), now=now, available_on=available_on)
        await Split.filter(id=s.id, status="pending").update(
            status=s.status, auto_release_at=s.auto_release_at, released_at=s.released_at,
            available_on=s.available_on, updated_at=now)
    await _write(rows)


async def on_cancel(*, payment_id: str, now: datetime) -> None:
    await Split.filter(payment_id=payment_id, status="pending").update(status="canceled", updated_at=now)


async def _write(rows: list) -> None:
    if rows:
        await lookup.insert_all(rows)


def attach(obj: Any, splits: list[Split]) -> None:
    """Keeps the new payment's splits on it for the create's answer (`splits_of`)."""
    obj.__dict__["_marketplace_splits"] = splits


def attached(obj: Any) -> list[dict] | None:
    splits = obj.__dict__.get("_marketplace_splits")
    return [split_object(s) for s in splits] if splits is not None else None


# ---------------------------------------------------------------- reads

async def get_split(*, principal: Principal, split_id: str) -> Split:
    s = await Split.get_or_none(id=split_id, **principal.scope) if isinstance(split_id, str) else None
    if s is None:
        raise NotFound()
    return s


async def splits_of_payment(*, principal: Principal, payment_id: str) -> list[Split]:
    return await Split.filter(payment_id=payment_id, **principal.scope).order_by("position")


async def splits_of_payments(*, principal: Principal, ids: list[str]) -> dict[str, list[Split]]:
    out: dict[str, list[Split]] = {i: [] for i in ids}
    for s in await Split.filter(payment_id__in=ids, **principal.scope).order_by("position"):
        out[s.payment_id].append(s)
    return out


async def list_splits(*, principal: Principal, limit=None, starting_after: str | None = None,
                      payment: str | None = None, sub_merchant: str | None = None, status: str | None = None) -> Page:
    qs = Split.filter(**principal.scope)
    if payment:
        qs = qs.filter(payment_id=check_id(payment, "payment"))
    if sub_merchant:
        qs = qs.filter(sub_merchant_id=check_id(sub_merchant, "sub_merchant"))
    if status:
        qs = qs.filter(status=check_enum(status, "status", STATUSES))
    return await paginate(qs, limit=check_limit(limit), starting_after=starting_after)


# ---------------------------------------------------------------- release, hold

async def _locked(principal: Principal, split_id: str) -> Split:
    s = await Split.filter(id=split_id, **principal.scope).select_for_update().first()
    if s is None:
        raise NotFound()
    return s


async def _held_amount(split_id: str) -> int:
    legs = await SellerEntry.filter(split_id=split_id, account=sl.HELD).values_list("amount", flat=True)
    return -sum(legs)


async def _release(s: Split, now: datetime) -> None:
    held = await _held_amount(s.id)
    await _write(_release_rows(s, now, held=held))
    await Split.filter(id=s.id).update(status="released", released_at=now, auto_release_at=None, updated_at=now)


async def release_split(*, principal: Principal, split_id: str, data: Any = None) -> Split:
    Fields(data or {}).reject_unknown()
    now = await clock.now_for(principal)
    async with in_transaction():
        s = await _locked(principal, split_id)
        if s.status != "held":
            raise InvalidState(f"Split {s.id} cannot be released: its status is {s.status}; only a held split "
                               "(captured, release manual or put on hold) can be released")
        await _release(s, now)
    return s


async def hold_split(*, principal: Principal, split_id: str, data: Any = None) -> Split:
    """Takes a released split back (its money held again) while it is not paid out; a held split
    stays held with its auto-release stopped."""
    Fields(data or {}).reject_unknown()
    now = await clock.now_for(principal)
    async with in_transaction():
        s = await _locked(principal, split_id)
        if s.status not in ("held", "released"):
            raise InvalidState(f"Split {s.id} cannot be held: its status is {s.status}")
        if s.status == "released":
            legs = await SellerEntry.filter(split_id=s.id, account=sl.BALANCE, excluded=False)
            if any(e.payout_id for e in legs):
                raise InvalidState(f"Split {s.id} is paid out: it can no longer be held", code="split_paid_out")
            back = -sum(e.amount for e in legs)
            await SellerEntry.filter(id__in=[e.id for e in legs]).update(excluded=True)
            await _write(sl.rows(merchant_id=s.merchant_id, livemode=s.livemode, sub_merchant_id=s.sub_merchant_id,
                                 currency=s.currency, kind="hold", legs=[(sl.BALANCE, back), (sl.HELD, -back)],
                                 split_id=s.id, payment_id=s.payment_id, available_on=s.available_on,
                                 excluded=True))
        s.status, s.auto_release_at, s.released_at, s.updated_at = "held", None, None, now
        await Split.filter(id=s.id).update(status="held", auto_release_at=None, released_at=None, updated_at=now)
    return s


# ---------------------------------------------------------------- auto-release (a scheduler job)

async def _due_release(scope: scheduler.Scope, until: datetime, limit: int) -> list[tuple[datetime, str]]:
    rows = await (scope.apply(Split.filter(status="held", auto_release_at__lte=until))
                  .order_by("auto_release_at").limit(limit).values_list("auto_release_at", "id"))
    return [(when, sid) for when, sid in rows]


async def auto_release(split_id: str, due: datetime) -> str | None:
    async with in_transaction():
        s = await Split.filter(id=split_id).select_for_update(skip_locked=True).first()
        if s is None or s.status != "held" or s.auto_release_at is None or s.auto_release_at > due:
            return None
        await _release(s, due)
    return f"split {s.id} released: {s.amount} {s.currency} to {s.sub_merchant_id}"


def register_jobs() -> None:
    scheduler.register(scheduler.JobKind("marketplace.split_release", _due_release, auto_release, schedules=False))
