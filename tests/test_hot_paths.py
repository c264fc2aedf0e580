"""The hot-path building blocks: the one-round-trip request gate in the key-value store, the
compiled lookup, and the pooled PostgreSQL connection. Each runs on both backends in CI."""
import os

import pytest
from tortoise.transactions import in_transaction

from models import _lookup as lookup
from models.payments import Payment
from services.identity import api_keys, ratelimit
from tests.conftest import bearer
from tests.payments_fixtures import pay


async def test_get_incr_mark_counts_and_marks_only_an_existing_entry(backend):
    kv = backend.runtime.kv
    tag = os.urandom(4).hex()
    entry, counter, marker = f"t:{tag}:entry", f"t:{tag}:count", f"t:{tag}:mark"
    assert await kv.get_incr_mark(entry, counter, 60, marker, 60) == (None, 0, False)
    assert await kv.get(counter) is None and await kv.get(marker) is None      # a miss touches nothing
    await kv.set(entry, "value")
    assert await kv.get_incr_mark(entry, counter, 60, marker, 60) == ("value", 1, True)
    assert await kv.get_incr_mark(entry, counter, 60, marker, 60) == ("value", 2, False)
    assert await kv.incr(counter, ttl=60) == 3                                # the same counter as incr


async def test_admit_key_counts_one_request_per_call_and_fills_a_cold_cache(client, merchant, backend):
    digest = api_keys.key_hash(merchant.sk)
    await backend.runtime.kv.delete(f"apikey:{digest}")                        # cold cache: the database answers
    principal, state = await api_keys.admit_key(merchant.sk, rule=ratelimit.MERCHANT_API)
    assert principal.merchant_id == merchant.id and principal.kind == "secret"
    assert principal.credential_id == f"key:{digest}"
    assert state.allowed and state.remaining == state.limit - 1              # counted once, not twice
    _, state = await api_keys.admit_key(merchant.sk, rule=ratelimit.MERCHANT_API)
    assert state.remaining == state.limit - 2
    # REST counts into the same bucket
    resp = await client.get("/api/api-keys?limit=1", headers=bearer(merchant.sk))
    assert resp.headers["X-RateLimit-Remaining"] == str(state.limit - 3)


async def test_a_publishable_key_is_refused_where_a_secret_key_is_needed(client, merchant):
    resp = await client.get("/api/api-keys", headers=bearer(merchant.pk))
    assert resp.status == 401
    assert (await resp.json())["error"]["message"] == "Invalid API key"     # the documented /api message


async def test_lookup_first_agrees_with_tortoise(client, merchant, make_merchant):
    status, body = await pay(client, merchant.sk)
    assert status == 200
    p = await lookup.first(Payment, id=body["id"], merchant_id=merchant.id, livemode=False)
    orm = await Payment.get(id=body["id"])
    assert p is not None and p.pk == orm.pk
    for field in Payment._meta.fields_map:
        if field in Payment._meta.db_fields:
            assert getattr(p, field) == getattr(orm, field), field
    other = await make_merchant()
    assert await lookup.first(Payment, id=body["id"], merchant_id=other.id, livemode=False) is None
    assert await lookup.first(Payment, id=body["id"], merchant_id=merchant.id, livemode=True) is None
    assert await lookup.first(Payment, id="pay_missing", merchant_id=merchant.id, livemode=False) is None


async def test_lookup_first_reads_inside_the_callers_transaction(client, merchant):
    status, body = await pay(client, merchant.sk)
    assert status == 200

    class Rollback(Exception):
        pass
    with pytest.raises(Rollback):
        async with in_transaction():
            await Payment.filter(id=body["id"]).update(description="inside")
            p = await lookup.first(Payment, id=body["id"], merchant_id=merchant.id, livemode=False)
            assert p.description == "inside"
            raise Rollback
    p = await lookup.first(Payment, id=body["id"], merchant_id=merchant.id, livemode=False)
    assert p.description != "inside"


async def test_a_pooled_connection_comes_back_clean_after_a_failed_transaction(client, merchant):
    """The pool returns connections without a reset query; asyncpg still ends an open
    transaction, so the next borrower never inherits it."""
    for _ in range(25):          # more than the pool holds, so connections are reused
        with pytest.raises(ZeroDivisionError):
            async with in_transaction():
                await Payment.filter(id="pay_none").update(description="x")
                1 / 0
    status, body = await pay(client, merchant.sk)
    assert status == 200
    assert (await Payment.get(id=body["id"])).status == "succeeded"


async def test_insert_all_writes_every_row_or_none(client, merchant):
    from tortoise.exceptions import IntegrityError

    from models.events import Event
    from services import events
    from services.money import ledger

    status, body = await pay(client, merchant.sk)
    assert status == 200
    legs = ledger.entries(merchant_id=merchant.id, livemode=False, currency="KWD", kind="capture",
                          legs=ledger.capture_legs(1234, 34), payment_id=body["id"])
    event = events.build(merchant_id=merchant.id, livemode=False, type="payment.captured", obj={"id": body["id"]})
    clash = events.build(merchant_id=merchant.id, livemode=False, type="payment.captured", obj={"id": body["id"]})
    clash.id = event.id                                     # the same primary key twice: the write must fail
    with pytest.raises(IntegrityError):
        await lookup.insert_all([*legs, event, clash])
    assert not await Event.filter(id=event.id).exists()
    assert not await ledger.LedgerEntry.filter(txn_id=legs[0].txn_id).exists()

    await lookup.insert_all([*legs, event])
    stored = await ledger.LedgerEntry.filter(txn_id=legs[0].txn_id).order_by("id")
    assert [(e.account, e.amount, e.currency) for e in stored] == [(e.account, e.amount, e.currency) for e in legs]
    assert sum(e.amount for e in stored) == 0
    assert (await Event.get(id=event.id)).data == {"id": body["id"]}


def test_random_ids_are_uniform_over_62_characters():
    from services.ids import new_id, random_token

    ids = {new_id("pay") for _ in range(2000)}
    assert len(ids) == 2000 and all(len(i) == 28 and i.startswith("pay_") for i in ids)
    text = "".join(random_token(24) for _ in range(4000))          # 96,000 characters, ~1,548 of each
    counts = {c: text.count(c) for c in set(text)}
    assert len(counts) == 62 and min(counts.values()) > 1300 and max(counts.values()) < 1800


async def test_a_payment_and_its_receipt_are_read_in_one_statement_as_the_orm_reads_them(client, merchant,
                                                                                        make_merchant):
    from models.receipts import Receipt
    from services.payments import receipts
    from tests.payments_fixtures import count_statements

    status, body = await pay(client, merchant.sk, customer={"email": "reader@example.com"})
    assert status == 200
    with count_statements() as seen:
        found = await lookup.first_with(Payment, Receipt, "payment_id", receipts.RECEIPT_COLUMNS, as_view=True,
                                        id=body["id"], merchant_id=merchant.id, livemode=False)
    assert len(seen) == 1, seen
    view, joined = found
    orm = await Payment.get(id=body["id"])
    for key, attr, _ in (*Payment._meta.db_native_fields, *Payment._meta.db_default_fields,
                         *Payment._meta.db_complex_fields):
        assert getattr(view, attr) == getattr(orm, attr), attr        # the values Tortoise gives
    receipt = await Receipt.get(payment_id=body["id"])
    assert joined == {"payment_id": body["id"], "channel": receipt.channel, "sent_to": receipt.sent_to,
                      "status": receipt.status}
    model, joined_too = await lookup.first_with(Payment, Receipt, "payment_id", receipts.RECEIPT_COLUMNS,
                                                id=body["id"], merchant_id=merchant.id, livemode=False)
    assert isinstance(model, Payment) and model.pk == orm.pk and joined_too == joined

    status, bare = await pay(client, merchant.sk)                      # no customer: no receipt
    found = await lookup.first_with(Payment, Receipt, "payment_id", receipts.RECEIPT_COLUMNS, as_view=True,
                                    id=bare["id"], merchant_id=merchant.id, livemode=False)
    assert found[0].id == bare["id"] and found[1] is None
    other = await make_merchant()                                      # another tenant's id: nothing
    assert await lookup.first_with(Payment, Receipt, "payment_id", receipts.RECEIPT_COLUMNS, as_view=True,
                                   id=body["id"], merchant_id=other.id, livemode=False) is None


async def _pg_pool():
    """The PostgreSQL pool (made on first use); skips the embedded database, which has none."""
    db = Payment._meta.db
    await db.execute_query("SELECT 1")
    pool = getattr(db, "_pool", None)
    if pool is None or not hasattr(pool, "has_idle_connection"):
        pytest.skip("the embedded database has no connection pool")
    return db, pool


async def test_an_idle_pooled_connection_is_taken_without_a_timer_and_a_busy_pool_still_times_out(backend):
    from services.infra.faults import PoolTimeout

    _, pool = await _pg_pool()
    held = []
    try:
        while pool.has_idle_connection():          # take every connected holder
            held.append(await pool.acquire())
        size = pool._pool.get_max_size()
        while len(held) < size:                    # and every holder not yet connected
            held.append(await pool.acquire())
        with pytest.raises(PoolTimeout):
            await pool.acquire(timeout=0.2)        # nothing idle: the bounded wait applies
    finally:
        for con in held:
            await pool.release(con)
    assert pool.has_idle_connection()


async def test_a_connection_given_back_clean_is_kept_and_one_left_in_a_transaction_is_rolled_back(backend):
    import asyncio

    from app.health import db_pool_use

    db, pool = await _pg_pool()
    con = await pool.acquire()
    await con.fetchval("SELECT 1")
    await pool.release(con)
    assert await pool.acquire() is con                  # kept as it was, handed out again
    await con.execute("BEGIN")
    await con.execute("CREATE TEMP TABLE t_left_open (x int)")
    await pool.release(con)                             # in a transaction: asyncpg's release rolls it back
    assert con not in [c for c, _ in pool._kept]
    assert db_pool_use().in_use == 0                    # kept connections count as idle
    got = [await pool.acquire() for _ in range(pool._pool.get_max_size())]     # every connection: none has the table
    for c in got:
        assert not c.is_in_transaction()
        assert await c.fetchval("SELECT to_regclass('pg_temp.t_left_open')") is None
    waiting = asyncio.ensure_future(pool.acquire(timeout=5))      # a burst past the pool: it waits in asyncpg's queue
    await asyncio.sleep(0.05)
    assert not waiting.done()
    await pool.release(got.pop())                       # given to the waiting request, not kept
    got.append(await asyncio.wait_for(waiting, 1))
    for c in got:
        await pool.release(c)
    with pytest.raises(ZeroDivisionError):
        async with in_transaction() as tx:              # a transaction that fails: nothing kept open
            await tx.execute_query("SELECT 1")
            raise ZeroDivisionError
    assert all(not c.is_in_transaction() for c, _ in pool._kept)
    assert await db.execute_query_dict("SELECT 1 AS one") == [{"one": 1}]


async def test_a_kept_connection_unused_for_a_minute_goes_back_to_asyncpg(backend):
    import time

    from app import pg_engine

    _, pool = await _pg_pool()
    first, second = await pool.acquire(), await pool.acquire()
    await pool.release(first)
    await pool.release(second)
    assert [c for c, _ in pool._kept][-2:] == [first, second]
    now = time.monotonic()              # first: unused for over a minute, the oldest; the others just used
    pool._kept = [(first, now - pg_engine.IDLE_KEPT - 1)] + [(c, now) for c, _ in pool._kept if c is not first]
    again = await pool.acquire()
    assert again is second                              # the most recently used first
    await pool.release(again)
    kept = [c for c, _ in pool._kept]
    assert first not in kept and second in kept         # the idle one went back to asyncpg
    assert first._con is None                           # released there (its proxy detached)
    assert all(t >= time.monotonic() - pg_engine.IDLE_KEPT for _, t in pool._kept)


async def test_a_redis_command_that_does_not_answer_is_an_outage_and_frees_its_connection(backend):
    import asyncio

    from services.infra import faults

    kv = backend.runtime.kv
    if kv.name != "redis":
        pytest.skip("the embedded store has no network")
    key = f"t:{os.urandom(4).hex()}"
    timeout = kv._timeout
    kv._timeout = 0.3
    try:
        # BLPOP on an empty list blocks in Redis for 2 s: longer than the command bound.
        with pytest.raises(Exception) as raised:
            await kv._bounded(kv._redis.blpop([key], timeout=2))
        assert faults.is_outage(raised.value) and faults.classify(raised.value) == "down"
    finally:
        kv._timeout = timeout
    await kv.set(key, "after")                     # the pool serves the next command cleanly
    assert await kv.get(key) == "after"
    assert await asyncio.gather(*(kv.incr(key + ":n", ttl=5) for _ in range(20))) is not None
    assert await kv.get(key + ":n") == "20"


async def test_a_row_view_of_some_columns_decodes_json_only_when_read(client):    # the ORM set up
    row = {"id": "pay_x", "status": "succeeded", "metadata": '{"order": "7"}', "routing_decision": None}
    v = lookup.view(Payment, row)
    assert v.id == "pay_x" and v.status == "succeeded" and v.routing_decision is None
    assert "metadata" not in v.__dict__                      # not decoded yet
    assert v.metadata == {"order": "7"} and v.__dict__["metadata"] == {"order": "7"}
    with pytest.raises(AttributeError):
        v.amount                                             # not selected: absent, not None


async def test_deadlines_time_out_an_await_and_leave_other_cancellations_alone():
    import asyncio

    from services.infra.kv import Deadlines

    deadlines = Deadlines(0.08)
    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(TimeoutError):
        await deadlines.run(asyncio.Event().wait())          # never set: cut off by the watchdog
    took = loop.time() - started
    assert 0.08 <= took < 0.08 * 1.125 + 0.05               # within an eighth of the limit (plus scheduling)
    assert not deadlines._due and not deadlines._expired
    assert asyncio.current_task().cancelling() == 0          # the watchdog's cancel was taken back

    assert await deadlines.run(asyncio.sleep(0, "answer")) == "answer"

    # A cancellation from elsewhere (a client gone) stays a cancellation, not a timeout.
    waiting = asyncio.ensure_future(deadlines.run(asyncio.Event().wait()))
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert not deadlines._due


async def test_the_gate_calls_of_one_loop_turn_are_each_counted_once_and_share_one_round_trip(backend, monkeypatch):
    import asyncio

    kv = backend.runtime.kv
    tag = os.urandom(4).hex()
    entry, counter, marker = f"t:{tag}:entry", f"t:{tag}:count", f"t:{tag}:mark"
    await kv.set(entry, "value")
    taken = []
    if kv.name == "redis":
        pool = kv._redis.connection_pool
        take = pool.get_connection

        async def counted(*a, **kw):
            taken.append(1)
            return await take(*a, **kw)
        monkeypatch.setattr(pool, "get_connection", counted)
    got = await asyncio.gather(*(kv.get_incr_mark(entry, counter, 60, marker, 60) for _ in range(50)))
    assert {v for v, _, _ in got} == {"value"}
    assert sorted(n for _, n, _ in got) == list(range(1, 51))     # each call counted once, none lost
    assert [m for _, _, m in got].count(True) == 1                  # one caller marks the minute
    if kv.name == "redis":
        assert len(taken) == 1                                      # fifty calls, one connection, one write
    assert await kv.get(counter) == "50"


async def _redis_gate(backend):
    """The Redis store and the keys of a fresh gate whose entry exists (skips the embedded store)."""
    kv = backend.runtime.kv
    if kv.name != "redis":
        pytest.skip("the embedded store has no scripts and queues nothing")
    tag = os.urandom(4).hex()
    keys = f"t:{tag}:entry", f"t:{tag}:count", f"t:{tag}:mark"
    await kv.set(keys[0], "value")
    return kv, keys


async def test_the_gate_reloads_its_script_when_redis_has_lost_it(backend):
    import asyncio

    kv, (entry, counter, marker) = await _redis_gate(backend)
    assert (await kv.get_incr_mark(entry, counter, 60, marker, 60))[1] == 1
    await kv._redis.script_flush()                  # as after a Redis restart
    got = await asyncio.gather(*(kv.get_incr_mark(entry, counter, 60, marker, 60) for _ in range(5)))
    assert sorted(n for _, n, _ in got) == [2, 3, 4, 5, 6]          # refused, reloaded, sent again: once each
    assert await kv.get(counter) == "6"


async def test_a_gate_call_left_queued_by_a_stopped_loop_does_not_hold_up_the_next(backend):
    import asyncio

    kv, (entry, counter, marker) = await _redis_gate(backend)
    gone = asyncio.new_event_loop()
    # what a loop that stopped between a gate call and its send leaves behind
    kv._gates, kv._gates_loop = [((entry, counter, marker, 60_000, 60_000), gone.create_future())], gone
    gone.close()
    got = await asyncio.wait_for(kv.get_incr_mark(entry, counter, 60, marker, 60), 2)
    assert got == ("value", 1, True)                # sent, and the stale call was not
    assert not kv._gates
