"""A merchant's test clock (Stripe-style time travel, test mode only).

Test-mode billing time is the real clock plus the merchant's offset. `advance_clock` moves it
forward (never back) and runs, through the scheduler, everything of the merchant's test mode
that fell due meanwhile -- renewals, dunning retries, and whatever else registers a job kind --
each at its own due time. Live mode always runs on the real clock."""
from __future__ import annotations

import time
from datetime import datetime, timedelta

from models import _lookup as lookup
from models.billing import TestClock
from services import scheduler
from services.errors import Conflict, PermissionDenied, ValidationError
from services.infra.clock import overridden
from services.infra.runtime import runtime
from services.principal import Principal
from services.validation import Fields, check_datetime

MAX_DAYS = 3660            # ten years per call
_LOCK_SECONDS = 300


_OFFSETS: dict[str, tuple[float, timedelta]] = {}     # merchant -> (good until, monotonic; offset)
OFFSET_TTL = 5.0


async def cached_offset_of(merchant_id: str) -> timedelta:
    """`offset_of`, remembered for OFFSET_TTL seconds (hot paths such as an intent create must
    not add a read); an advance in this process forgets it at once, other processes within the TTL."""
    hit = _OFFSETS.get(merchant_id)
    mono = time.monotonic()
    if hit is not None and hit[0] > mono:
        return hit[1]
    offset = await offset_of(merchant_id)
    if len(_OFFSETS) >= 10_000:
        _OFFSETS.clear()
    _OFFSETS[merchant_id] = (mono + OFFSET_TTL, offset)
    return offset


async def offset_of(merchant_id: str) -> timedelta:
    row = await lookup.first(TestClock, merchant_id=merchant_id)
    return timedelta(seconds=row.offset_seconds) if row else timedelta(0)


async def now_for(principal: Principal) -> datetime:
    """The billing time of this caller: the real clock in live mode, the test clock in test mode."""
    at = overridden()
    if at is not None:          # a scheduled job runs at its due time, already on this clock
        return at
    now = runtime().clock.now()
    if principal.livemode:
        return now
    return now + await offset_of(principal.merchant_id)


def _refuse_live(principal: Principal) -> None:
    if principal.livemode:
        raise PermissionDenied("The test clock exists in test mode only: call it with a test key (sk_test_...)",
                               code="test_mode_only")


async def get_clock(*, principal: Principal) -> dict:
    _refuse_live(principal)
    now = await now_for(principal)
    return {"object": "test_clock", "now": now, "livemode": False,
            "offset_seconds": int((now - runtime().clock.now()).total_seconds())}


async def advance_clock(*, principal: Principal, data: dict) -> dict:
    _refuse_live(principal)
    f = Fields(data)
    days = f.int("days", min=1, max=MAX_DAYS)
    to = f.datetime("to")
    f.reject_unknown()
    if (days is None) == (to is None):
        raise ValidationError("give exactly one of days or to", param="days" if days is None else "to")
    before = await now_for(principal)
    target = before + timedelta(days=days) if days is not None else to
    if target < before:
        raise ValidationError(f"to must not be before the clock's current time {before.isoformat()}: "
                              "a test clock never goes back", param="to")
    if target - before > timedelta(days=MAX_DAYS):
        raise ValidationError(f"a clock moves at most {MAX_DAYS} days per call", param="to")
    kv = runtime().kv
    lock = f"testclock:{principal.merchant_id}"
    if not await kv.set(lock, "1", ttl=_LOCK_SECONDS, nx=True):
        raise Conflict("This merchant's test clock is already being advanced; retry when it finishes",
                       code="clock_busy")
    try:
        ran = await scheduler.run_due(scheduler.Scope(livemode=False, merchant_id=principal.merchant_id), target)
        offset = int((target - runtime().clock.now()).total_seconds())
        now = runtime().clock.now()
        if not await TestClock.filter(merchant_id=principal.merchant_id).update(offset_seconds=offset,
                                                                                updated_at=now):
            await TestClock.create(merchant_id=principal.merchant_id, offset_seconds=offset, updated_at=now)
    finally:
        _OFFSETS.pop(principal.merchant_id, None)
        await kv.delete(lock)
    summary: dict[str, int] = {}
    for r in ran:
        summary[r.kind] = summary.get(r.kind, 0) + 1
    return {"object": "test_clock", "now": target, "previous": before, "livemode": False, "offset_seconds": offset,
            "ran": [{"kind": r.kind, "id": r.id, "at": r.at, "outcome": r.outcome} for r in ran],
            "summary": summary}


async def clocks() -> dict[str, timedelta]:
    """Merchants whose test mode runs on a moved clock (for the worker loop)."""
    return {row.merchant_id: timedelta(seconds=row.offset_seconds)
            for row in await TestClock.filter(offset_seconds__gt=0)}
