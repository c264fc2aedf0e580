"""The one rendering of a point in time, for REST, GraphQL and webhook payloads alike:
ISO 8601 in UTC with millisecond precision and a `Z` suffix (`2026-01-05T09:00:00.000Z`).

The only other form is the documented integer `created` (Unix seconds) of the `/v1` webhook
envelope (services.webhooks.envelope). Dates (`YYYY-MM-DD`) are `date.isoformat()`.
"""
from __future__ import annotations

from datetime import datetime, timezone


def iso(value: datetime | None) -> str | None:
    """An aware datetime (a naive one is taken as UTC) -> `YYYY-MM-DDTHH:MM:SS.mmmZ`."""
    if value is None:
        return None
    if value.tzinfo is not timezone.utc:        # the driver's own UTC needs no conversion
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        value = value.astimezone(timezone.utc)
    # = isoformat(timespec="milliseconds") with Z, ~3 times faster (a list page formats 40 or more)
    return "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ" % (value.year, value.month, value.day, value.hour, value.minute,
                                                    value.second, value.microsecond // 1000)
