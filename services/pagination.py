"""Keyset pagination, newest first, shared by every list (REST `starting_after`, GraphQL `after`).

The cursor is the id of the last object seen; ordering is (created_at, id) descending, so a
page never skips or repeats a row when new rows arrive meanwhile.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from tortoise.expressions import Q

from services.errors import ValidationError
from services.ids import check_id

T = TypeVar("T")

MAX_PAGE = 100
DEFAULT_PAGE = 20


@dataclass
class Page(Generic[T]):
    items: list[T]
    has_more: bool
    total: int
    next_cursor: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def check_limit(limit: Any, param: str = "limit", default: int = DEFAULT_PAGE) -> int:
    if limit is None or limit == "":
        return default
    if isinstance(limit, str):
        if not limit.strip().lstrip("-").isdigit():
            raise ValidationError(f"{param} must be an integer from 1 to {MAX_PAGE}", param=param)
        limit = int(limit)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE:
        raise ValidationError(f"{param} must be an integer from 1 to {MAX_PAGE}", param=param)
    return limit


async def paginate(qs, *, limit: int, starting_after: str | None = None,
                   cursor_param: str = "starting_after", count: bool = True) -> Page:
    """qs: a Tortoise queryset already scoped to the tenant and filtered."""
    if starting_after:
        check_id(starting_after, cursor_param)
    total = await qs.count() if count else 0
    page_qs = qs
    if starting_after:
        anchor = await qs.model.filter(id=starting_after).only("id", "created_at").first()
        # The anchor must be visible through the same scope, or another tenant's id would leak.
        if anchor is None or not await qs.filter(id=starting_after).exists():
            raise ValidationError(f"{cursor_param} is not an id from this list", param=cursor_param)
        page_qs = qs.filter(Q(created_at__lt=anchor.created_at) |
                            Q(created_at=anchor.created_at, id__lt=anchor.id))
    rows = await page_qs.order_by("-created_at", "-id").limit(limit + 1)
    has_more = len(rows) > limit
    rows = rows[:limit]
    return Page(items=rows, has_more=has_more, total=total,
                next_cursor=rows[-1].id if has_more and rows else None)
