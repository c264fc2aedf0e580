"""The service's own health, for the people who run it: `/health` (the state of each backing
service), `/health/live` (the process answers: no dependency is checked) and `/health/ready` (it
can serve: database and store reachable, migrations applied), on the main and the CRM port.

A busy pool is not a down database: when every pooled connection is checked out, the probe does
not queue behind the requests (that would wait QAFILA_POOL_TIMEOUT and then call the database
"down"); it asks the server on a connection of its own and reports `busy` if it answers."""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass

from aiohttp import web

from rest_compat.routing import json_response
from services.infra.faults import PoolTimeout

log = logging.getLogger("qafila.health")

PROBE_TIMEOUT = 2.0          # seconds a probe of its own may take to connect and answer


@dataclass(frozen=True)
class PoolUse:
    in_use: int
    open: int
    max: int

    @property
    def saturated(self) -> bool:
        return self.in_use >= self.max


def _db_client():
    from tortoise import connections
    return connections.get("default")


def db_pool_use() -> PoolUse | None:
    """The PostgreSQL pool of this process (None on SQLite, or before the pool exists)."""
    pool = getattr(_db_client(), "_pool", None)
    if pool is None or not hasattr(pool, "get_max_size"):
        return None
    size = pool.get_size()
    return PoolUse(in_use=size - pool.get_idle_size(), open=size, max=pool.get_max_size())


def kv_pool_use(store) -> PoolUse | None:
    """The Redis pool of this process (None for the embedded store)."""
    pool = getattr(getattr(store, "_redis", None), "connection_pool", None)
    if pool is None:
        return None
    in_use = len(pool._in_use_connections)
    idle = sum(1 for c in pool._available_connections if c is not None)
    return PoolUse(in_use=in_use, open=in_use + idle, max=pool.max_connections)


async def _db_own_probe(client) -> None:
    """SELECT 1 on a connection of its own (not the pool's). A server that refuses it for too many
    connections has answered: it is up."""
    import asyncpg
    try:
        conn = await asyncpg.connect(host=client.host, port=client.port, user=client.user, password=client.password,
                                     database=client.database, timeout=PROBE_TIMEOUT)
    except asyncpg.TooManyConnectionsError:
        return
    try:
        await asyncio.wait_for(conn.fetchval("SELECT 1"), PROBE_TIMEOUT)
    finally:
        await conn.close(timeout=PROBE_TIMEOUT)


async def database_state() -> str:
    """ok | busy (every pooled connection checked out, the server answers) | down."""
    try:
        client = _db_client()
        use = db_pool_use()
        if use is not None and use.saturated:
            await _db_own_probe(client)
            return "busy"
        try:
            await client.execute_query("SELECT 1")
        except PoolTimeout:                  # filled up meanwhile: ask the server directly
            await _db_own_probe(client)
            return "busy"
        return "ok"
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        log.warning("health: database down: %s", type(exc).__name__)
        return "down"


async def _kv_own_probe(store) -> None:
    pool = store._redis.connection_pool
    conn = pool.connection_class(**pool.connection_kwargs)
    try:
        await asyncio.wait_for(conn.connect(), PROBE_TIMEOUT)
        await conn.send_command("PING")
        await asyncio.wait_for(conn.read_response(), PROBE_TIMEOUT)
    finally:
        await conn.disconnect()


async def store_state(store) -> str:
    """ok | busy | down, as for the database."""
    try:
        use = kv_pool_use(store)
        if use is not None and use.saturated:
            await _kv_own_probe(store)
            return "busy"
        await store.ping()
        return "ok"
    except Exception as exc:  # noqa: BLE001
        log.warning("health: kv down: %s", type(exc).__name__)
        return "down"


_MIGRATED: set[str] = set()       # database URLs this process saw fully migrated


class Migrations:
    """Whether every committed migration is applied. Once it is, it stays so for this process
    (a migration is never rolled back under a running server): later probes skip the look-up."""

    def __init__(self, settings):
        self.settings = settings

    async def state(self) -> str:
        """applied | pending | unknown (the database did not answer)."""
        if self.settings.database_url in _MIGRATED:
            return "applied"
        from tortoise.migrations.executor import MigrationExecutor

        from app.backend import db_config
        try:
            executor = MigrationExecutor(_db_client(), db_config(self.settings)["apps"])
            pending = [step for step in await executor.plan() if not step.backward]
        except Exception as exc:  # noqa: BLE001
            log.warning("health: migrations unknown: %s", type(exc).__name__)
            return "unknown"
        if pending:
            return "pending"
        _MIGRATED.add(self.settings.database_url)
        return "applied"


def install(app: web.Application, backend_of: Callable[[web.Application], object]) -> None:
    """/health, /health/live and /health/ready on `app`."""
    migrations: Migrations | None = None

    async def health(request: web.Request) -> web.Response:
        kv = backend_of(request.app).runtime.kv
        database, store = await asyncio.gather(database_state(), store_state(kv))
        down = "down" in (database, store)
        return json_response({"status": "degraded" if down else "ok", "database": database, "kv": store},
                             status=503 if down else 200)

    async def live(request: web.Request) -> web.Response:
        return json_response({"status": "ok"})

    async def ready(request: web.Request) -> web.Response:
        nonlocal migrations
        backend = backend_of(request.app)
        if migrations is None:
            migrations = Migrations(backend.settings)
        database, store = await asyncio.gather(database_state(), store_state(backend.runtime.kv))
        applied = await migrations.state() if database != "down" else "unknown"
        not_ready = [name for name, bad in (("database", database == "down"), ("kv", store == "down"),
                                            ("migrations", applied != "applied")) if bad]
        body = {"status": "not_ready" if not_ready else "ready", "database": database, "kv": store,
                "migrations": applied, "not_ready": not_ready}
        return json_response(body, status=503 if not_ready else 200)

    async def check_migrations_once(app: web.Application) -> None:
        """At start, while the pool is still free: a process whose pool is busy from its first
        readiness probe on still knows its migrations are applied."""
        nonlocal migrations
        migrations = Migrations(backend_of(app).settings)
        await migrations.state()

    app.on_startup.append(check_migrations_once)
    app.router.add_get("/health", health)
    app.router.add_get("/health/live", live)
    app.router.add_get("/health/ready", ready)
