"""The key-value store: Redis when REDIS_URL is set, else an in-process store.

Shared, short-lived state lives here (rate-limit counters, idempotency records, OTPs). Every
operation that must be atomic across processes is one Redis command or one Lua script.
Expiry here is garbage collection only; rules that depend on time compare against the
injected clock, so they behave the same on both stores.
"""
from __future__ import annotations

import asyncio
import copy
import time
from typing import Protocol


class KeyValueStore(Protocol):
    name: str

    async def ping(self) -> bool: ...
    async def get(self, key: str) -> str | None: ...
    async def set(self, key: str, value: str, *, ttl: float | None = None, nx: bool = False) -> bool: ...
    async def delete(self, key: str) -> int: ...
    async def incr(self, key: str, *, ttl: float, by: int = 1) -> int: ...
    async def get_incr_mark(self, key: str, counter: str, counter_ttl: float, marker: str,
                            marker_ttl: float) -> tuple[str | None, int, bool]: ...
    async def close(self) -> None: ...


class MemoryStore:
    """The embedded store: one process only (the app refuses to start several workers on it)."""

    name = "memory"

    def __init__(self):
        self._data: dict[str, tuple[str, float | None]] = {}
        self._ops = 0

    def _live(self, key: str) -> str | None:
        item = self._data.get(key)
        if item is None:
            return None
        value, expires = item
        if expires is not None and expires <= time.monotonic():
            del self._data[key]
            return None
        return value

    def _sweep(self) -> None:
        self._ops += 1
        if self._ops % 4096 == 0:
            now = time.monotonic()
            for k in [k for k, (_, e) in self._data.items() if e is not None and e <= now]:
                del self._data[k]

    async def ping(self) -> bool:
        return True

    async def get(self, key: str) -> str | None:
        return self._live(key)

    async def set(self, key: str, value: str, *, ttl: float | None = None, nx: bool = False) -> bool:
        self._sweep()
        if nx and self._live(key) is not None:
            return False
        self._data[key] = (value, time.monotonic() + ttl if ttl else None)
        return True

    async def delete(self, key: str) -> int:
        return 1 if self._data.pop(key, None) is not None else 0

    async def incr(self, key: str, *, ttl: float, by: int = 1) -> int:
        self._sweep()
        current = self._live(key)
        n = int(current) + by if current is not None else by
        expires = self._data[key][1] if current is not None else time.monotonic() + ttl
        self._data[key] = (str(n), expires)
        return n

    async def get_incr_mark(self, key: str, counter: str, counter_ttl: float, marker: str,
                            marker_ttl: float) -> tuple[str | None, int, bool]:
        value = self._live(key)
        if value is None:
            return None, 0, False
        return value, await self.incr(counter, ttl=counter_ttl), await self.set(marker, "1", ttl=marker_ttl, nx=True)

    async def close(self) -> None:
        self._data.clear()


_INCR_SCRIPT = """
local by = tonumber(ARGV[2] or '1')
local n = redis.call('INCRBY', KEYS[1], by)
if n == by then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n
"""


# One round trip for a request's gate: read `key`; when it exists, count the request in
# `counter` (expiring with its window) and set `marker` if absent. Returns {} on a miss.
_GET_INCR_MARK_SCRIPT = """
local v = redis.call('GET', KEYS[1])
if not v then return {} end
local n = redis.call('INCR', KEYS[2])
if n == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[1]) end
local marked = redis.call('SET', KEYS[3], '1', 'PX', ARGV[2], 'NX')
return {v, n, marked and 1 or 0}
"""


def _fast_pool_class():
    import redis.asyncio as redis

    class FastBlockingPool(redis.BlockingConnectionPool):
        """redis-py's BlockingConnectionPool, taking an idle connection without the wait
        machinery (a condition, a timeout and metrics calls per command) when one is there; the
        bounded wait applies only when every connection is in use."""

        async def get_connection(self, command_name=None, *keys, **options):
            if not self._available_connections:
                return await super().get_connection(command_name, *keys, **options)
            connection = self._available_connections.pop()
            self._in_use_connections.add(connection)
            try:
                await self.ensure_connection(connection)
            except BaseException:
                await self.release(connection)
                raise
            return connection

    return FastBlockingPool


class Deadlines:
    """Time limits for awaits on one event loop, kept by one watchdog instead of a timer each.

    asyncio.timeout schedules and cancels a loop timer per use; on uvloop that is a libuv timer
    handle made, started and stopped for every Redis command (measured: 13.9 us per use against
    1.2 us here, on this project's 2-core machine). Here an await in flight is one dict entry
    (its task and its deadline); a watchdog wakes every `timeout / 8` seconds while anything is in
    flight and cancels the tasks past their deadline, whose await then raises TimeoutError, as
    asyncio.timeout's does. A limit is therefore kept to within an eighth of itself (5 s: by
    5.6 s at the latest)."""

    def __init__(self, timeout: float):
        self.timeout = timeout
        self._due: dict[asyncio.Task, float] = {}
        self._expired: set[asyncio.Task] = set()
        self._watch: asyncio.TimerHandle | None = None
        self._watch_loop: asyncio.AbstractEventLoop | None = None

    async def run(self, awaitable):
        task = asyncio.current_task()
        loop = asyncio.get_running_loop()
        self._due[task] = loop.time() + self.timeout
        if self._watch is None or self._watch_loop is not loop:     # (a store outlives a test's loop)
            self._watch, self._watch_loop = loop.call_later(self.timeout / 8, self._sweep, loop), loop
        try:
            return await awaitable
        except asyncio.CancelledError:
            if task in self._expired:
                self._expired.discard(task)
                if task.uncancel() == 0:        # cancelled only by the watchdog: a timeout
                    raise TimeoutError() from None
            raise
        finally:
            self._due.pop(task, None)
            self._expired.discard(task)

    def _sweep(self, loop) -> None:
        self._watch = None
        now = loop.time()
        for task, deadline in list(self._due.items()):
            if task.get_loop() is not loop:          # left by a loop that is gone (tests)
                del self._due[task]
            elif deadline <= now and task not in self._expired:
                self._expired.add(task)
                task.cancel()
        if self._due:
            self._watch = loop.call_later(self.timeout / 8, self._sweep, loop)


class RedisStore:
    """Redis through a bounded, blocking pool: a burst waits up to `pool_timeout` for a free
    connection (then redis raises ConnectionError("No connection available."), answered 503 by
    services.infra.faults) instead of opening connections without limit. A failed command is
    retried once at once (a connection left stale by a Redis restart), never with long backoffs:
    while Redis is down a request fails fast, and the pool reconnects when it is back.

    Each command is bounded by `command_timeout` (`Deadlines`: one watchdog timer for all commands
    in flight, not a timer per command, and not redis-py's socket timeout, which wraps every send in
    a task of its own); a command cut off disconnects its connection (redis-py closes a connection
    interrupted mid-command), and the timeout is raised as redis' own TimeoutError, an outage for
    services.infra.faults."""

    name = "redis"

    def __init__(self, url: str, *, pool_size: int = 50, pool_timeout: float = 5.0, command_timeout: float = 5.0):
        import redis.asyncio as redis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        pool = _fast_pool_class().from_url(
            url, max_connections=pool_size, timeout=pool_timeout, decode_responses=True,
            socket_connect_timeout=min(5.0, pool_timeout), retry=Retry(NoBackoff(), 1),
            # redis-py 8 gives every connection a 5 s socket timeout by default: a task and a
            # timer for each send and a timeout context for each read, on top of `Deadlines`
            # (issue 26's profile of a read). The commands are bounded here, so none of its own.
            socket_timeout=None)
        self._redis = redis.Redis.from_pool(pool)
        self._incr = self._redis.register_script(_INCR_SCRIPT)
        self._get_incr_mark = self._redis.register_script(_GET_INCR_MARK_SCRIPT)
        self._deadlines = Deadlines(command_timeout)
        self._gates: list[tuple[tuple, asyncio.Future]] = []    # this turn of the loop's gate calls
        self._gates_loop: asyncio.AbstractEventLoop | None = None

    @property
    def _timeout(self) -> float:
        return self._deadlines.timeout

    @_timeout.setter
    def _timeout(self, seconds: float) -> None:
        self._deadlines.timeout = seconds

    async def _bounded(self, awaitable):
        try:
            return await self._deadlines.run(awaitable)
        except TimeoutError:
            import redis.exceptions as rx
            raise rx.TimeoutError(f"Redis did not answer within {self._timeout:g} s") from None

    async def ping(self) -> bool:
        return bool(await asyncio.wait_for(self._redis.ping(), 2))

    async def get(self, key: str) -> str | None:
        return await self._bounded(self._redis.get(key))

    async def set(self, key: str, value: str, *, ttl: float | None = None, nx: bool = False) -> bool:
        px = int(ttl * 1000) if ttl else None
        return bool(await self._bounded(self._redis.set(key, value, px=px, nx=nx)))

    async def delete(self, key: str) -> int:
        return int(await self._bounded(self._redis.delete(key)))

    async def incr(self, key: str, *, ttl: float, by: int = 1) -> int:
        return int(await self._bounded(self._incr(keys=[key], args=[int(ttl * 1000), by])))

    async def get_incr_mark(self, key: str, counter: str, counter_ttl: float, marker: str,
                            marker_ttl: float) -> tuple[str | None, int, bool]:
        """The gate (see `_GET_INCR_MARK_SCRIPT`). The calls made in one turn of the event loop
        go to Redis together, in one write and one connection (`_send_gates`): each is still its
        own script call, run atomically and answered to its own caller, as ioredis' auto-pipelining
        does. Under load the requests whose bytes arrived together share one round trip instead
        of each paying redis-py's command path and two system calls."""
        loop = asyncio.get_running_loop()
        if self._gates_loop is not loop:     # calls left queued by a loop that stopped first (tests)
            self._gates, self._gates_loop = [], loop
        waiter = loop.create_future()
        self._gates.append(((key, counter, marker, int(counter_ttl * 1000), int(marker_ttl * 1000)), waiter))
        if len(self._gates) == 1:
            loop.call_soon(self._send_gates)
        got = await waiter
        if not got:
            return None, 0, False
        value, count, marked = got
        return value, int(count), bool(marked)

    def _send_gates(self) -> None:
        batch, self._gates = self._gates, []
        asyncio.ensure_future(self._answer_gates(batch))

    async def _answer_gates(self, batch: list[tuple[tuple, asyncio.Future]]) -> None:
        try:
            replies = await self._bounded(self._run_gates([args for args, _ in batch]))
        except BaseException as exc:        # every caller gets the failure (an outage: a 503)
            for _, waiter in batch:
                if waiter.done():
                    pass
                elif isinstance(exc, Exception):
                    waiter.set_exception(_fresh(exc))
                else:                       # the loop is shutting down
                    waiter.cancel()
            if not isinstance(exc, Exception):
                raise
            return
        for (_, waiter), reply in zip(batch, replies):
            if waiter.done():               # its caller went away meanwhile
                continue
            if isinstance(reply, Exception):
                waiter.set_exception(reply)
            else:
                waiter.set_result(reply)

    async def _run_gates(self, calls: list[tuple]) -> list:
        """EVALSHA of the gate script for each call, written at once on one pooled connection and
        the replies read in order; a script Redis does not hold (after a restart or SCRIPT FLUSH)
        is loaded and the calls it refused are sent again (a refused call ran nothing). A
        connection that fails before any reply is read is replaced once, as redis-py retries a
        stale connection after a Redis restart; a failure while replies are read is not retried
        (the counters may already have moved)."""
        import redis.exceptions as rx

        script = self._get_incr_mark
        pool = self._redis.connection_pool
        replies: list = [None] * len(calls)
        todo = list(range(len(calls)))
        for _ in range(2):
            conn = await pool.get_connection()
            try:
                packed = conn.pack_commands([("EVALSHA", script.sha, 3, *calls[i]) for i in todo])
                try:
                    await conn.send_packed_command(packed)
                except (rx.ConnectionError, rx.TimeoutError):
                    await conn.disconnect()                 # connected afresh by the next send
                    await conn.send_packed_command(packed)
                for i in todo:
                    try:
                        replies[i] = await conn.read_response()
                    except rx.ResponseError as err:     # that call's own error; the others' replies follow
                        replies[i] = err
            finally:
                await pool.release(conn)
            todo = [i for i in todo if isinstance(replies[i], rx.NoScriptError)]
            if not todo:
                return replies
            script.sha = await self._redis.script_load(script.script)
        return replies

    async def close(self) -> None:
        await self._redis.aclose()


def _fresh(exc: BaseException) -> BaseException:
    """`exc` again, for one more awaiting caller: one exception object raised in many tasks would
    gather every task's traceback."""
    try:
        return copy.copy(exc)
    except Exception:  # noqa: BLE001 - an exception that cannot be copied: the same one
        return exc


def open_store(url: str | None, *, pool_size: int = 50, pool_timeout: float = 5.0) -> KeyValueStore:
    return RedisStore(url, pool_size=pool_size, pool_timeout=pool_timeout) if url else MemoryStore()
