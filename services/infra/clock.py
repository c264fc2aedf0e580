"""Time, injected: services ask the runtime's clock, so tests move time without sleeping; and a
merchant's test clock (its offset from the real clock, test mode only), the one "now" of every domain.

`running_at(when)` makes every clock read in the current task (and the tasks it starts) answer
`when`: the scheduler runs a job that fell due at `when` -- under a merchant's test clock, in
the past of the real clock's future -- with everything it writes dated then."""
from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from services.principal import Principal

_AT: ContextVar[datetime | None] = ContextVar("qafila_clock_at", default=None)


@contextmanager
def running_at(when: datetime) -> Iterator[datetime]:
    token = _AT.set(when)
    try:
        yield when
    finally:
        _AT.reset(token)


def overridden() -> datetime | None:
    """The time `running_at` set for this task, if any."""
    return _AT.get()


class Clock:
    def now(self) -> datetime:
        return _AT.get() or datetime.now(timezone.utc)

    def time(self) -> float:
        at = _AT.get()
        return at.timestamp() if at is not None else time.time()


class FrozenClock(Clock):
    """A clock that only moves when told to."""

    def __init__(self, start: datetime | None = None):
        self._now = start or datetime(2026, 11, 21, 12, 0, tzinfo=timezone.utc)

    def now(self) -> datetime:
        return _AT.get() or self._now

    def time(self) -> float:
        return self.now().timestamp()

    def advance(self, seconds: float = 0, **kw) -> datetime:
        self._now += timedelta(seconds=seconds, **kw)
        return self._now

    def set(self, when: datetime) -> None:
        self._now = when


# ---------------------------------------------------------------- the process's clock
# The runtime installs its clock here too (services.infra.runtime.install), so this module answers
# a merchant's "now" without importing the runtime (which imports this module).

_PROCESS: Clock | None = None


def install(clock: Clock | None) -> None:
    global _PROCESS
    _PROCESS = clock


def process_clock() -> Clock:
    """The installed runtime's clock (the real clock, or a test's FrozenClock)."""
    if _PROCESS is None:
        raise RuntimeError("no Runtime installed: the application installs one at start-up")
    return _PROCESS


# ---------------------------------------------------------------- a merchant's test clock
# The offset is stored per merchant (models.billing.TestClock); `services.billing.test_clock`
# moves it (advance_clock), everything else only reads it here.

async def offset_of(merchant_id: str) -> timedelta:
    from models import _lookup as lookup
    from models.billing import TestClock
    row = await lookup.first(TestClock, merchant_id=merchant_id)
    return timedelta(seconds=row.offset_seconds) if row else timedelta(0)


async def now_for(principal: Principal) -> datetime:
    """The merchant's time for this caller: the real clock in live mode, the test clock in test mode."""
    at = overridden()
    if at is not None:          # a scheduled job runs at its due time, already on this clock
        return at
    now = process_clock().now()
    if principal.livemode:
        return now
    return now + await offset_of(principal.merchant_id)


async def moved_clocks() -> dict[str, timedelta]:
    """Merchants whose test mode runs on a moved clock (for the scheduler's worker loop)."""
    from models.billing import TestClock
    return {row.merchant_id: timedelta(seconds=row.offset_seconds)
            for row in await TestClock.filter(offset_seconds__gt=0)}
