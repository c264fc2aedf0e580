"""A merchant's test clock (Stripe-style time travel, test mode only): reading and moving it.

Test-mode time is the real clock plus the merchant's offset (kept and read by
`services.infra.clock`: `now_for`, the one "now" of every domain). `advance_clock` moves it
forward (never back) and runs, through the scheduler, everything of the merchant's test mode
that fell due meanwhile -- renewals, dunning retries, and whatever else registers a job kind --
each at its own due time. Live mode always runs on the real clock."""
from __future__ import annotations

from datetime import timedelta

from models.billing import TestClock
from services import scheduler
from services.errors import Conflict, PermissionDenied, ValidationError
from services.infra.clock import now_for
from services.infra.runtime import runtime
from services.principal import Principal
from services.validation import Fields, check_datetime

MAX_DAYS = 3660            # ten years per call
_LOCK_SECONDS = 300


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
        await kv.delete(lock)
    summary: dict[str, int] = {}
    for r in ran:
        summary[r.kind] = summary.get(r.kind, 0) + 1
    return {"object": "test_clock", "now": target, "previous": before, "livemode": False, "offset_seconds": offset,
            "ran": [{"kind": r.kind, "id": r.id, "at": r.at, "outcome": r.outcome} for r in ran],
            "summary": summary}

