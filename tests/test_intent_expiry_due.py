"""Issue 26: which intents the expiry sweep and the scheduler's `intent.expire` read
(services/payments/expiry_due.py) -- only those expiry may still cancel, and on PostgreSQL
through the partial index of open intents, however many terminal ones the table holds."""
from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from tortoise import Tortoise

from models._lookup import fetch
from models.intents import PaymentIntent
from services.payments import expiry_due, intents
from tests.intents_fixtures import create
from tests.plan_fixtures import capture, clone, explained, generic_plan, pages


async def _intents(client, merchant, n: int) -> list[str]:
    ids = []
    for i in range(n):
        ids.append((await create(client, merchant.sk, amount=1000 + i))["id"])
    return ids


def test_the_read_names_the_statuses_of_the_index():
    """The statement's literals are the partial index's predicate, character for character."""
    from importlib import import_module
    index_sql = import_module("migrations.intents.0008_open_expiry_index").Migration.operations[0].sql
    assert index_sql.endswith("WHERE " + expiry_due.OPEN)


async def test_intents_that_can_never_expire_are_not_read(client, merchant, clock):
    unpaid, ran_out, cod, declined, crypto_waiting = await _intents(client, merchant, 5)
    # a Fawry reference that ran out (failed for good), a cash-on-delivery order on its way,
    # a declined card that may still be retried, crypto still waiting for its deposit
    await PaymentIntent.filter(id=ran_out).update(status="failed", failure_code="expired", payment_method="fawry")
    await PaymentIntent.filter(id=cod).update(status="processing", payment_method="cod")
    await PaymentIntent.filter(id=declined).update(status="failed", failure_code="card_declined")
    await PaymentIntent.filter(id=crypto_waiting).update(status="processing", payment_method="crypto")
    assert await expiry_due.due(clock.now(), 10, merchant_id=merchant.id) == []     # none past expires_at yet
    clock.advance(days=2)
    due = [iid for _, iid in await expiry_due.due(clock.now(), 10, merchant_id=merchant.id)]
    assert sorted(due) == sorted([unpaid, declined, crypto_waiting])
    # ordered by expires_at (the order they were made in, a second apart at most)
    when = [w for w, _ in await expiry_due.due(clock.now(), 10, merchant_id=merchant.id)]
    assert when == sorted(when)
    # the sweep cancels what is due and leaves the others as they were
    while await intents.expire_intents(clock.now()) >= intents.EXPIRY_BATCH:
        pass
    states = {i.id: (i.status, i.cancellation_reason) for i in await PaymentIntent.filter(merchant_id=merchant.id)}
    assert states[unpaid] == states[declined] == states[crypto_waiting] == ("canceled", "expired")
    assert states[ran_out] == ("failed", None) and states[cod] == ("processing", None)


async def test_the_due_read_skips_terminal_intents_on_postgresql(client, merchant, clock, monkeypatch):
    db = Tortoise.get_connection("default")
    if db.capabilities.dialect != "postgres":
        pytest.skip("the plans are PostgreSQL's")
    done, = await _intents(client, merchant, 1)
    await PaymentIntent.filter(id=done).update(status="succeeded")
    # 50,000 paid intents whose expires_at passed long ago: what a busy table is mostly made of
    await clone(db, "payment_intents", done, 50_000, timedelta(days=30), column="expires_at",
                method_reference="NULL")
    table_pages = (await fetch(db, "SELECT relpages FROM pg_class WHERE relname = 'payment_intents'", []))[0][0]
    clock.advance(days=2)
    seen = capture(monkeypatch, "ORDER BY expires_at, id")
    await expiry_due.due(clock.now(), 500, livemode=False)
    (sql, values), = seen
    root = await generic_plan(db, sql, values)
    text = json.dumps(root)
    assert "payment_intents_open_expiry" in text and "Seq Scan" not in text, text[:3000]
    # the open intents of every test before this one are read (each is due by now), not the paid ones
    assert pages(root) < table_pages / 4, (pages(root), table_pages)


async def test_one_merchants_read_is_planned_for_that_merchant_among_many_merchants_open_intents(
        client, merchant, clock, monkeypatch):
    """A merchant whose test clock moved is read on its own every scheduler pass. Under the
    connections' generic plan `merchant_id` is a parameter costed as the average merchant, and the
    plan walked every merchant's open intents in expiry order, filtering them down to this one's
    (35,317 rows removed per read on the benchmark database, issue 26). The read is planned for the
    merchant's own value: with 40,000 open intents of 400 other merchants due before its own, it
    reads its own few."""
    db = Tortoise.get_connection("default")
    if db.capabilities.dialect != "postgres":
        pytest.skip("the plans are PostgreSQL's")
    mine = await _intents(client, merchant, 3)
    try:
        # 40,000 open intents of 400 other merchants, all due, expiring before this merchant's
        await clone(db, "payment_intents", mine[0], 40_000, timedelta(hours=12), column="expires_at",
                    merchant_id="'mer_many' || lpad((g % 400)::text, 18, '0')", method_reference="NULL")
        clock.advance(days=2)
        seen = capture(monkeypatch, "ORDER BY expires_at, id")
        due = await expiry_due.due(clock.now(), 500, merchant_id=merchant.id)
        assert sorted(iid for _, iid in due) == sorted(mine)
        (sql, values), = seen
        assert seen.options == [{"custom_plan": True}]
        custom = (await explained(db, sql, values, plan_cache_mode="force_custom_plan"))["Plan"]
        text = json.dumps(custom)
        assert custom["Actual Rows"] == 3 and pages(custom) < 50, (pages(custom), text[:3000])
        removed = sum(int(n) for n in re.findall(r'"Rows Removed by Filter": (\d+)', text))
        assert removed < 100, text[:3000]
        # the scheduler's read of all merchants (no merchant named) keeps the generic plan
        seen.clear(), seen.options.clear()
        await expiry_due.due(clock.now(), 10, livemode=False)
        assert seen.options == [{"custom_plan": False}]
    finally:
        await fetch(db, "DELETE FROM payment_intents WHERE merchant_id LIKE 'mer_many%'", [])
        await fetch(db, "ANALYZE payment_intents", [])
