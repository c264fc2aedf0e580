"""Time, injected: services ask the runtime's clock, so tests move time without sleeping."""
from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone


class Clock:
    def now(self) -> datetime:
        return datetime.now(timezone.utc)

    def time(self) -> float:
        return time.time()


class FrozenClock(Clock):
    """A clock that only moves when told to."""

    def __init__(self, start: datetime | None = None):
        self._now = start or datetime(2026, 11, 21, 12, 0, tzinfo=timezone.utc)

    def now(self) -> datetime:
        return self._now

    def time(self) -> float:
        return self._now.timestamp()

    def advance(self, seconds: float = 0, **kw) -> datetime:
        self._now += timedelta(seconds=seconds, **kw)
        return self._now

    def set(self, when: datetime) -> None:
        self._now = when
