"""Tortoise's asyncpg engine with a bounded wait for a pooled PostgreSQL connection.

Tortoise acquires from asyncpg's pool without a timeout: in a burst larger than the pool every
request queued behind the others for as long as it took. Here the wait is bounded by
QAFILA_POOL_TIMEOUT; past it the request fails with `PoolTimeout`, which the edges answer with
503 and `Retry-After` (services.infra.faults). Used as the `engine` of the connection config
(app.backend.db_config), with the extra credential `acquire_timeout` in seconds.
"""
from __future__ import annotations

import asyncio
from typing import Any

from tortoise.backends.asyncpg.client import AsyncpgDBClient

from services.infra.faults import PoolTimeout

PLAN_CACHE_MODE = "force_generic_plan"


class _TimedPool:
    """asyncpg's Pool whose `acquire()` waits at most `timeout` seconds (connecting included)."""

    def __init__(self, pool, timeout: float | None):
        self._pool = pool
        self._timeout = timeout

    async def acquire(self, *, timeout: float | None = None):
        if self.has_idle_connection():
            # A connected holder waits in the pool: taking it cannot block, so no timer is armed
            # (asyncpg bounds a wait with asyncio.wait_for, a task per acquire: a tenth of a read).
            return await self._pool.acquire()
        limit = timeout if timeout is not None else self._timeout
        try:
            return await self._pool.acquire(timeout=limit)
        except asyncio.TimeoutError:
            raise PoolTimeout("PostgreSQL", limit or 0) from None

    def has_idle_connection(self) -> bool:
        """True when an idle holder in the pool is connected (asyncpg hands those out first)."""
        try:
            holders = self._pool._queue._queue
            return any(h.is_connected() for h in reversed(holders))
        except AttributeError:          # another asyncpg layout: always take the bounded path
            return False

    def __getattr__(self, name: str) -> Any:     # release, close, terminate, expire_connections, ...
        return getattr(self._pool, name)


class TimedAsyncpgClient(AsyncpgDBClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        raw = self.extra.pop("acquire_timeout", None)
        self.acquire_timeout = float(raw) if raw else None
        # Every statement is prepared once per connection (asyncpg's statement cache); left to
        # `auto`, PostgreSQL plans a statement afresh on each execution whenever its generic plan
        # looks dearer than the custom ones -- as it does for a list page, whose planning then cost
        # as much as its execution (656 against 341 us a page, one connection in a loop). The
        # service's statements are keyed by primary keys and by the (tenant, created_at, id)
        # indexes, whose generic plans are the custom ones (docs/decisions.md, issue 26).
        self.server_settings.setdefault("plan_cache_mode", PLAN_CACHE_MODE)

    async def create_pool(self, **kwargs):
        return _TimedPool(await super().create_pool(**kwargs), self.acquire_timeout)


client_class = TimedAsyncpgClient
