"""Keyset pagination, newest first, shared by every list (REST `starting_after`, GraphQL `after`).

The cursor is the id of the last object seen; ordering is (created_at, id) descending, so a
page never skips or repeats a row when new rows arrive meanwhile.

`keyset` is the hot-path form (one statement, SQL written once: models._keyset) for lists whose
filters are comparisons on columns; `paginate` takes a Tortoise queryset for the others.
A list's total (docs/decisions.md, "Issue 16: lists"): the list's counter when unfiltered and
the list keeps one (intents, payments), else the matching rows counted up to TOTAL_CAP; above it
the total is TOTAL_CAP and `Page.total_capped` is set.
"""
from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from tortoise.expressions import Q

from models import _keyset
from services.errors import ValidationError
from services.ids import check_id

T = TypeVar("T")

MAX_PAGE = 100
DEFAULT_PAGE = 20
TOTAL_CAP = 1_000           # a total that is counted is exact up to here (~1 ms at the bound)


@dataclass
class Page(Generic[T]):
    items: list[T]
    has_more: bool
    total: int | None                   # None until `count()` (a list whose total is counted on request)
    next_cursor: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    total_capped: bool = False          # more than TOTAL_CAP rows match: `total` is TOTAL_CAP
    counter: Callable[[], Awaitable[int]] | None = None

    async def count(self) -> int:
        """The list's total: read with the page, or counted now (once) if the page left it."""
        if self.total is None:
            self.total = await self.counter() if self.counter is not None else 0
        return self.total


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
    """qs: a Tortoise queryset already scoped to the tenant and filtered. The total is counted
    only when asked (`await page.count()`: GraphQL's totalCount, a REST list documenting one);
    count=False: never (0)."""
    if starting_after:
        check_id(starting_after, cursor_param)
    total = None if count else 0
    page_qs = qs
    if starting_after:
        # The anchor must be visible through the same scope, or another tenant's id would leak.
        anchor = await qs.filter(id=starting_after).only("id", "created_at").first()
        if anchor is None:
            raise ValidationError(f"{cursor_param} is not an id from this list", param=cursor_param)
        page_qs = qs.filter(Q(created_at__lt=anchor.created_at) |
                            Q(created_at=anchor.created_at, id__lt=anchor.id))
    rows = await page_qs.order_by("-created_at", "-id").limit(limit + 1)
    has_more = len(rows) > limit
    rows = rows[:limit]
    return Page(items=rows, has_more=has_more, total=total,
                next_cursor=rows[-1].id if has_more and rows else None, counter=qs.count if count else None)


async def keyset(model, *, scope: dict[str, Any], filters=(), limit: int, starting_after: str | None = None,
                 cursor_param: str = "starting_after", counter: str | None = None, total: bool = True,
                 columns: tuple[str, ...] | None = None) -> Page:
    """A page of `model` rows in `scope` (tenant equalities) matching `filters` ((field, op,
    value), op one of = >= <= <), in one statement. `counter`: the list's kind in
    models.core.ListCount, read as the total when there are no filters. `columns`: read only
    these (id and created_at included), for a shaper that needs no more."""
    if starting_after:
        check_id(starting_after, cursor_param)
    if not total:
        mode: tuple = ("none",)
    elif counter is not None and not filters:
        mode = ("counter", counter)
    else:
        mode = ("count", TOTAL_CAP)
    rows, found, n = await _keyset.page(model, scope=scope, filters=filters, limit=limit,
                                        after=starting_after or None, total=mode, columns=columns)
    if starting_after and not found:
        raise ValidationError(f"{cursor_param} is not an id from this list", param=cursor_param)
    has_more = len(rows) > limit
    items = rows[:limit]
    return Page(items=items, has_more=has_more, total=min(n, TOTAL_CAP) if mode[0] == "count" else n,
                next_cursor=items[-1].id if has_more and items else None,
                total_capped=mode[0] == "count" and n > TOTAL_CAP)
