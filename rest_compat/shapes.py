"""Small helpers the REST shapers share."""
from __future__ import annotations

from datetime import date, datetime

from services.timestamps import iso


def ts(value: datetime | None) -> str | None:
    """ISO 8601 UTC with milliseconds and Z: 2026-11-21T12:00:00.000Z (services.timestamps.iso)."""
    return iso(value)


def day(value: date | None) -> str | None:
    return value.isoformat() if value is not None else None


def page(items: list, p, **extra) -> dict:
    out = {"data": items, "has_more": p.has_more, **extra}
    if p.total_capped:             # more rows match than a filtered total counts (services.pagination)
        out["total_capped"] = True
    return out
