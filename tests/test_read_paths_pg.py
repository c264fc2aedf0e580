"""Issue 26, reads and list pages: what the service's connections are set up with, on PostgreSQL
and Redis (the embedded store and SQLite have neither)."""
from __future__ import annotations

import json

import pytest
from tortoise import Tortoise

from models._lookup import fetch
from models.intents import PaymentIntent
from tests.helpers import bearer
from tests.intents_fixtures import create
from tests.plan_fixtures import capture_page, explained


def _postgres() -> bool:
    return Tortoise.get_connection("default").capabilities.dialect == "postgres"


async def test_postgresql_plans_each_statement_once_per_connection(client, merchant, clock):
    if not _postgres():
        pytest.skip("SQLite has no plan cache mode")
    db = Tortoise.get_connection("default")
    # every pooled connection, not only the first one taken
    seen = {r["plan_cache_mode"] for _ in range(3) for r in await fetch(db, "SHOW plan_cache_mode", [])}
    assert seen == {"force_generic_plan"}
    # and the list page still answers through its generic plan, at the first page and past a cursor
    for i in range(3):
        await create(client, merchant.sk, amount=1000 + i)
        clock.advance(seconds=1)
    ids = [i.id for i in await PaymentIntent.filter(merchant_id=merchant.id).order_by("-created_at", "-id")]
    for _ in range(7):              # past the five custom plans `auto` would have made first
        r = await client.get("/v1/payments", params={"limit": 2}, headers=bearer(merchant.sk))
        body = await r.json()
        assert r.status == 200 and body["total_count"] == 3 and [x["id"] for x in body["data"]] == ids[:2]
        r = await client.get("/v1/payments", params={"limit": 2, "starting_after": ids[1]}, headers=bearer(merchant.sk))
        assert [x["id"] for x in (await r.json())["data"]] == ids[2:]


async def test_postgresql_compiles_no_statement_just_in_time(client, merchant, monkeypatch):
    """A generic plan cannot see a page's LIMIT: it costs a page of 20 as a tenth of the tenant's
    intents, and past about 750,000 of them that estimate crossed jit_above_cost, so every page
    paid 55-60 ms of JIT compilation for 0.05 ms of execution (issue 26, eighth round). The
    service's connections run without JIT; here the threshold is put at 0 for the page's own
    statement, as a table that large would, and the page is still not compiled."""
    if not _postgres():
        pytest.skip("SQLite has no JIT")
    db = Tortoise.get_connection("default")
    assert {r["jit"] for _ in range(3) for r in await fetch(db, "SHOW jit", [])} == {"off"}
    async with db.acquire_connection() as conn, conn.transaction():
        await conn.execute("SET LOCAL jit = on")         # (pg_jit_available() is false while jit is off)
        if not await conn.fetchval("SELECT pg_jit_available()"):
            pytest.skip("this PostgreSQL is built without JIT: nothing could be compiled")
    await create(client, merchant.sk, amount=1000)
    seen = capture_page(monkeypatch, '"payment_intents"')
    r = await client.get("/v1/payments", params={"limit": 20}, headers=bearer(merchant.sk))
    assert r.status == 200 and (await r.json())["total_count"] == 1
    assert len(seen) == 1, seen
    sql, values = seen[0]
    plan = await explained(db, sql, values, jit_above_cost="0")
    assert "JIT" not in plan, plan.get("JIT")


async def test_redis_commands_are_bounded_by_the_store_not_by_a_socket_timer_each(backend):
    kv = backend.runtime.kv
    if kv.name != "redis":
        pytest.skip("the embedded store has no network")
    # redis-py 8's default (5 s) would wrap each send in a task and each read in a timeout; the
    # store's own bound (Deadlines, tests/test_hot_paths.py) is the one limit
    assert kv._redis.connection_pool.connection_kwargs["socket_timeout"] is None
    await kv.set("t:socket-timeout", "x")
    conn = kv._redis.connection_pool._available_connections[-1]
    assert conn.socket_timeout is None and kv._timeout > 0


async def test_the_invoice_jobs_read_only_the_waiting_rows_under_a_generic_plan(client, merchant, clock, monkeypatch):
    """The GİB jobs' reads of the payments and intents still waiting for their invoice run every
    scheduler pass, once per moved test clock: written by the ORM (`invoice_requested = $1`), a
    generic plan could not use the partial index of the waiting rows and scanned the whole intents
    table each time (280,000 intents in a full test run: minutes per global pass). Their statements
    now say the index's predicate as literals; with sequential scans off, the plan must take that
    index (it cannot when the predicate is a parameter)."""
    if not _postgres():
        pytest.skip("the plan of PostgreSQL's generic plans")
    from models import _lookup
    from services import scheduler
    from services.einvoicing.gib import payments as gib_payments

    seen: list[tuple[str, list]] = []
    query_ = _lookup.query

    async def capturing(model, template, values, **options):
        seen.append((_lookup._numbered(template, "postgres"), list(values)))
        return await query_(model, template, values, **options)
    monkeypatch.setattr(_lookup, "query", capturing)
    scope = scheduler.Scope(livemode=False, exclude_merchants=frozenset({merchant.id}))
    await gib_payments._due_intents(scope, clock.now(), 100)
    await gib_payments._due(scope, clock.now(), 100)
    assert len(seen) == 2
    db = Tortoise.get_connection("default")
    for (sql, values), index in zip(seen, ("payment_intents_invoice_wanted", "payments_invoice_wanted")):
        plan = await explained(db, sql, values, enable_seqscan="off")
        assert index in json.dumps(plan), (sql, plan)
