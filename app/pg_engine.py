"""Tortoise's asyncpg engine with a bounded wait for a pooled PostgreSQL connection.

Tortoise acquires from asyncpg's pool without a timeout: in a burst larger than the pool every
request queued behind the others for as long as it took. Here the wait is bounded by
QAFILA_POOL_TIMEOUT; past it the request fails with `PoolTimeout`, which the edges answer with
503 and `Retry-After` (services.infra.faults). Used as the `engine` of the connection config
(app.backend.db_config), with the extra credential `acquire_timeout` in seconds.
"""
from __future__ import annotations

import asyncio
import time
from typing import Any

from tortoise.backends.asyncpg.client import AsyncpgDBClient

from services.infra.faults import PoolTimeout

PLAN_CACHE_MODE = "force_generic_plan"
JIT = "off"
IDLE_KEPT = 60.0        # seconds a kept connection may go unused before asyncpg gets it back


class _TimedPool:
    """asyncpg's Pool whose `acquire()` waits at most `timeout` seconds (connecting included), and
    whose released connections wait in a list of their own for the next `acquire()`.

    asyncpg's `release()` runs a task of its own (`asyncio.shield`) and a reset per connection,
    and its `acquire()` a queue and a holder's checks: about a tenth of the CPU of an intent read
    or create (issue 26's profiles). A connection given back clean -- open, no transaction, no
    cancellation under way, of the pool's generation, under its query limit, no listeners (what
    asyncpg's reset would restore; `_PooledConnection` has no reset query) -- is kept here as it
    is and handed out again, unless a request waits in asyncpg's queue for a connection (a burst
    larger than the pool): that one gets it. Any other goes through asyncpg's release, which rolls
    back, closes or replaces it. A kept connection that is lost (PostgreSQL went away) is taken
    back by asyncpg itself, which detaches it: it is passed over. asyncpg still counts a kept
    connection as in use: `close()`, `expire_connections()` and `terminate()` hand the kept ones
    back first, and the idle count includes them."""

    def __init__(self, pool, timeout: float | None):
        self._pool = pool
        self._timeout = timeout
        self._kept: list[tuple[Any, float]] = []     # (connection, when it was given back), oldest first

    async def acquire(self, *, timeout: float | None = None):
        while self._kept:
            con, _ = self._kept.pop()
            if not _attached(con):          # its connection was lost: asyncpg has taken it back already
                continue
            if not con._con.is_closed():
                return con
            await self._pool.release(con)           # closed meanwhile: asyncpg replaces it
        if self._pool_has_idle_connection():
            # A connected holder waits in the pool: taking it cannot block, so no timer is armed
            # (asyncpg bounds a wait with asyncio.wait_for, a task per acquire: a tenth of a read).
            return await self._pool.acquire()
        limit = timeout if timeout is not None else self._timeout
        try:
            return await self._pool.acquire(timeout=limit)
        except asyncio.TimeoutError:
            raise PoolTimeout("PostgreSQL", limit or 0) from None

    async def release(self, con, *, timeout: float | None = None) -> None:
        if self._clean(con) and not self._pool_has_waiters():
            now = time.monotonic()
            self._kept.append((con, now))
            if self._kept[0][1] < now - IDLE_KEPT:
                # Unused that long (the pool grew in a burst): back to asyncpg, whose inactivity
                # limit then closes it, so an idle process shrinks its pool as it did before.
                idle, _ = self._kept.pop(0)
                await self._pool.release(idle)
        else:       # a request waiting in asyncpg's queue (a burst past the pool) gets this one
            await self._pool.release(con, timeout=timeout)

    def _pool_has_waiters(self) -> bool:
        try:
            return any(not w.done() for w in self._pool._queue._getters)
        except AttributeError:          # another asyncpg layout: as if some were waiting
            return True

    def _clean(self, con) -> bool:
        try:
            raw, holder = con._con, con._holder
            return (raw is not None and holder._pool is self._pool and not raw.is_closed()
                    and raw._top_xact is None and not raw._protocol.is_in_transaction()
                    and not raw._protocol._is_cancelling() and not raw._listeners and not raw._log_listeners
                    and holder._generation == self._pool._generation
                    and raw._protocol.queries_count < holder._max_queries and not self._pool._closing)
        except AttributeError:          # another asyncpg layout: asyncpg's own release
            return False

    async def _give_back(self) -> None:
        kept, self._kept = self._kept, []
        for con, _ in kept:
            if _attached(con):
                await self._pool.release(con)

    def has_idle_connection(self) -> bool:
        """True when a connection can be had without waiting or connecting."""
        return (any(_attached(c) and not c._con.is_closed() for c, _ in self._kept)
                or self._pool_has_idle_connection())

    def _pool_has_idle_connection(self) -> bool:
        """True when an idle holder in asyncpg's pool is connected (asyncpg hands those out first)."""
        try:
            holders = self._pool._queue._queue
            return any(h.is_connected() for h in reversed(holders))
        except AttributeError:          # another asyncpg layout: always take the bounded path
            return False

    def get_idle_size(self) -> int:
        return self._pool.get_idle_size() + sum(1 for c, _ in self._kept if _attached(c))

    async def close(self) -> None:
        await self._give_back()
        await self._pool.close()

    async def expire_connections(self) -> None:
        await self._give_back()
        await self._pool.expire_connections()

    def terminate(self) -> None:
        self._kept.clear()
        self._pool.terminate()

    def __getattr__(self, name: str) -> Any:     # get_size, get_max_size, ...
        return getattr(self._pool, name)


def _attached(con) -> bool:
    """False once asyncpg has detached a pooled connection's proxy (it took the holder back)."""
    return getattr(con, "_con", None) is not None


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
        # No JIT compilation. A generic plan cannot see a page's LIMIT, so it costs a page of 20 as
        # a tenth of the tenant's rows; past about 750,000 intents of one merchant that estimate
        # crossed jit_above_cost and PostgreSQL compiled the page's expressions on every execution:
        # 55-60 ms of JIT for a page that executes in 0.05 ms (docs/decisions.md, issue 26, eighth
        # round). The service's statements are short reads and writes by key, keyset and rollup, where
        # compiling costs far more than it could save.
        self.server_settings.setdefault("jit", JIT)

    async def create_pool(self, **kwargs):
        return _TimedPool(await super().create_pool(**kwargs), self.acquire_timeout)


client_class = TimedAsyncpgClient
