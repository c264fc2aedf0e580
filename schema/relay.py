"""Relay pieces shared by every domain: Node, connections over service pages, node(id:)."""
from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

import strawberry

from services.pagination import MAX_PAGE, Page
from services.errors import ValidationError

T = TypeVar("T")


@strawberry.interface(description="An object with a prefixed id (the same id the REST API uses).")
class Node:
    id: strawberry.ID


@strawberry.type
class PageInfo:
    has_next_page: bool
    has_previous_page: bool
    start_cursor: str | None
    end_cursor: str | None


@strawberry.type
class Edge(Generic[T]):
    cursor: str
    node: T


@strawberry.type
class Connection(Generic[T]):
    edges: list[Edge[T]]
    page_info: PageInfo
    page: strawberry.Private[Any]

    @strawberry.field
    async def total_count(self) -> int:
        return await self.page.count()           # counted only when asked for (services.pagination)


def check_first(first: int | None) -> int:
    if first is None:
        return 20
    if not 1 <= first <= MAX_PAGE:
        raise ValidationError(f"first must be from 1 to {MAX_PAGE}", param="first")
    return first


def connection(p: Page, to_node: Callable[[Any], T], *, after: str | None = None) -> Connection[T]:
    edges = [Edge(cursor=row.id, node=to_node(row)) for row in p.items]
    return Connection(edges=edges, page=p,
                      page_info=PageInfo(has_next_page=p.has_more, has_previous_page=after is not None,
                                         start_cursor=edges[0].cursor if edges else None,
                                         end_cursor=edges[-1].cursor if edges else None))


# prefix ("key", "pay", ...) -> async resolver(info, id) returning a Node or None
NODE_RESOLVERS: dict[str, Callable[[Any, str], Awaitable[Any]]] = {}


def node_resolver(prefix: str):
    def deco(fn):
        NODE_RESOLVERS[prefix] = fn
        return fn
    return deco
