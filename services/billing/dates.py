"""Billing dates: period n of a subscription starts at the anchor plus n intervals, computed from
the anchor each time (not chained), so a month-end anchor keeps its day where the month has it:
Jan 31 -> Feb 28 (29 in a leap year) -> Mar 31."""
from __future__ import annotations

import calendar
from datetime import datetime, timedelta

INTERVALS = ("day", "week", "month", "year")


def _add_months(when: datetime, months: int) -> datetime:
    month0 = when.month - 1 + months
    year, month = when.year + month0 // 12, month0 % 12 + 1
    day = min(when.day, calendar.monthrange(year, month)[1])
    return when.replace(year=year, month=month, day=day)


def period_start(anchor: datetime, interval: str, count: int, n: int) -> datetime:
    """The start of period `n` (0 = the first) of a subscription anchored at `anchor`."""
    steps = count * n
    if interval == "day":
        return anchor + timedelta(days=steps)
    if interval == "week":
        return anchor + timedelta(weeks=steps)
    if interval == "month":
        return _add_months(anchor, steps)
    if interval == "year":
        return _add_months(anchor, 12 * steps)
    raise ValueError(f"unknown interval {interval!r}")


def first_period_after(anchor: datetime, interval: str, count: int, now: datetime) -> int:
    """The smallest n whose period starts strictly after `now`."""
    n = 1
    # Jump close first (days are exact; months and years are approximate), then step.
    span = (period_start(anchor, interval, count, 1) - anchor).total_seconds()
    if span > 0 and now > anchor:
        n = max(1, int((now - anchor).total_seconds() // span) - 1)
    while period_start(anchor, interval, count, n) <= now:
        n += 1
    while n > 1 and period_start(anchor, interval, count, n - 1) > now:
        n -= 1
    return n
