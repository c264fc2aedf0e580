"""The service's own health for the people who run it: /health/live, /health/ready, and a busy
pool that is not a down database (issue 22)."""
from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from app.server import create_app

LIVE = {"status": "ok"}
READY = {"status": "ready", "database": "ok", "kv": "ok", "migrations": "applied", "not_ready": []}


@pytest.mark.parametrize("kind", ["main", "crm"])
async def test_live_and_ready_answer_on_both_ports(kind, aiohttp_client, settings, clock):
    client = await aiohttp_client(create_app(settings, kind=kind, clock=clock))
    resp = await client.get("/health/live")
    assert resp.status == 200 and await resp.json() == LIVE
    resp = await client.get("/health/ready")
    assert resp.status == 200 and await resp.json() == READY
    resp = await client.get("/health")
    assert resp.status == 200 and await resp.json() == {"status": "ok", "database": "ok", "kv": "ok"}


async def test_ready_names_the_store_that_is_down_and_live_still_answers(client, backend, monkeypatch):
    async def down():
        raise ConnectionError("kv gone")
    monkeypatch.setattr(backend.runtime.kv, "ping", down)
    resp = await client.get("/health/ready")
    assert resp.status == 503
    assert await resp.json() == {**READY, "status": "not_ready", "kv": "down", "not_ready": ["kv"]}
    resp = await client.get("/health/live")         # the process answers: no dependency is checked
    assert resp.status == 200 and await resp.json() == LIVE


async def test_ready_is_503_until_the_migrations_are_applied(aiohttp_client, settings, clock, tmp_path):
    """A database nobody migrated: reachable, but the service cannot serve from it."""
    if not settings.database_url.startswith("sqlite"):
        pytest.skip("a fresh, unmigrated database is made on the embedded default")
    fresh = replace(settings, database_url=f"sqlite://{tmp_path}/fresh.sqlite3", migrate_on_start=False)
    client = await aiohttp_client(create_app(fresh, clock=clock))
    resp = await client.get("/health/ready")
    assert resp.status == 503
    assert await resp.json() == {**READY, "status": "not_ready", "migrations": "pending",
                                 "not_ready": ["migrations"]}
    assert (await client.get("/health/live")).status == 200


async def test_a_busy_pool_is_not_a_down_database(aiohttp_client, settings, clock):
    """Every pooled PostgreSQL connection checked out by requests in flight: /health answers at once
    with database "busy" (the server answers on the probe's own connection), not "down" after the
    pool's wait; the instance stays ready (taking busy instances out of rotation would move their
    load onto the others until all are out)."""
    if settings.database_url.startswith("sqlite"):
        pytest.skip("the embedded database has no connection pool")
    from tortoise import connections
    small = replace(settings, db_pool_size=2, pool_timeout=3.0)
    client = await aiohttp_client(create_app(small, clock=clock))
    assert (await client.get("/health")).status == 200          # the pool exists once used
    pool = connections.get("default")._pool
    assert pool.get_max_size() == 2
    held = [await pool.acquire() for _ in range(pool.get_max_size())]
    try:
        loop = asyncio.get_running_loop()
        started = loop.time()
        resp = await client.get("/health")
        assert await resp.json() == {"status": "ok", "database": "busy", "kv": "ok"}
        assert resp.status == 200
        assert loop.time() - started < small.pool_timeout      # it did not queue behind the pool
        resp = await client.get("/health/ready")
        assert resp.status == 200 and await resp.json() == {**READY, "database": "busy"}
    finally:
        for conn in held:
            await pool.release(conn)
    resp = await client.get("/health")
    assert await resp.json() == {"status": "ok", "database": "ok", "kv": "ok"}
