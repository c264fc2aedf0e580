"""Time, injected: services ask the runtime's clock, so tests move time without sleeping.

`running_at(when)` makes every clock read in the current task (and the tasks it starts) answer
`when`: the scheduler runs a job that fell due at `when` -- under a merchant's test clock, in
the past of the real clock's future -- with everything it writes dated then."""
from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime, timedelta, timezone

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
