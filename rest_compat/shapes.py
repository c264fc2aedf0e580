"""Small helpers the REST shapers share."""
from __future__ import annotations

from datetime import date, datetime, timezone


def ts(value: datetime | None) -> str | None:
    """ISO 8601 UTC, second precision with milliseconds: 2026-11-21T12:00:00.000Z."""
    if value is None:
        return None
    return value.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def day(value: date | None) -> str | None:
    return value.isoformat() if value is not None else None


def page(items: list, p, **extra) -> dict:
    return {"data": items, "has_more": p.has_more, **extra}
