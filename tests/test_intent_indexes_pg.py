"""Issue 26: the reads of payment intents that are not keyed by id or by the list's keyset read
through a partial index on PostgreSQL (intents migrations 0008-0010), however many other intents
the table holds: analytics by method and by installment count through the approved intents
(`payment_intents_approved`), the Fawry expiry through the open ones (`payment_intents_open_expiry`),
a payment link's totals through the intents that paid a link (`payment_intents_link`); and the
list filtered by a status through the keyset within that status (intents migration 0011)."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest
from tortoise import Tortoise

from models._lookup import fetch
from models.intents import PaymentIntent
from services import scheduler
from services.payments import local_methods
from tests.helpers import bearer
from tests.intents_fixtures import confirm, create
from tests.payments_fixtures import call
from tests.plan_fixtures import capture, capture_page, clone, generic_plan, pages

pytestmark = pytest.mark.usefixtures("clock")


def _postgres():
    db = Tortoise.get_connection("default")
    if db.capabilities.dialect != "postgres":
        pytest.skip("the plans are PostgreSQL's")
    return db


async def _table_pages(db) -> int:
    return (await fetch(db, "SELECT relpages FROM pg_class WHERE relname = 'payment_intents'", []))[0][0]


async def test_analytics_read_the_approved_intents_of_the_window_not_the_table(client, merchant, make_merchant,
                                                                               monkeypatch):
    db = _postgres()
    other = await make_merchant()
    paid = await create(client, merchant.sk, amount=2_000, currency="TRY", payment_method="card")
    assert (await confirm(client, merchant.sk, paid["id"], payment_method_id="pm_card_visa"))["status"] == "succeeded"
    unpaid = await create(client, merchant.sk, amount=3_000, currency="TRY", payment_method="card")
    # 40,000 intents of another merchant, paid, and 40,000 of this one canceled unpaid: neither is read
    await clone(db, "payment_intents", paid["id"], 40_000, timedelta(days=20), merchant_id=f"'{other.id}'",
                method_reference="NULL")
    await clone(db, "payment_intents", unpaid["id"], 40_000, timedelta(days=20), method_reference="NULL",
                status="'canceled'")
    table_pages = await _table_pages(db)

    seen = capture(monkeypatch, 'FROM "payment_intents" WHERE "merchant_id"')
    status, methods = await call(client, "GET", "/api/analytics/methods?period=7d&currency=TRY", merchant.sk)
    assert status == 200 and methods["data"] == [{"method": "card", "payments": 1, "volume": 2_000}], methods
    status, counts = await call(client, "GET", "/api/analytics/installments?period=7d&currency=TRY", merchant.sk)
    assert status == 200, counts
    assert [(r["count"], r["payments"], r["volume"]) for r in counts["data"]] == [(1, 1, 2_000)], counts
    assert len(seen) == 2, seen
    for sql, values in seen:
        root = await generic_plan(db, sql, values)
        text = json.dumps(root)
        assert "payment_intents_approved" in text and "Seq Scan" not in text, text[:3000]
        assert pages(root) < table_pages / 20, (pages(root), table_pages)


async def test_the_fawry_expiry_reads_the_open_intents_index(client, merchant, clock, monkeypatch):
    db = _postgres()
    done = await create(client, merchant.sk, amount=1_000, currency="TRY", payment_method="card")
    await PaymentIntent.filter(id=done["id"]).update(status="succeeded")
    await clone(db, "payment_intents", done["id"], 40_000, timedelta(days=30), column="expires_at",
                method_reference="NULL")
    table_pages = await _table_pages(db)
    waiting = await create(client, merchant.sk, amount=5_000, currency="EGP", payment_method="fawry")
    await PaymentIntent.filter(id=waiting["id"]).update(status="requires_action")
    clock.advance(days=3)

    seen = capture(monkeypatch, "ORDER BY expires_at, id")
    # a test clock's pass (one merchant) and the real clock's (every merchant but some)
    due = await local_methods._due_references(scheduler.Scope(livemode=False, merchant_id=merchant.id),
                                              clock.now(), 100)
    assert [i for _, i in due] == [waiting["id"]]
    due = await local_methods._due_references(scheduler.Scope(livemode=False, exclude_merchants=frozenset({"mer_x"})),
                                              clock.now(), 10_000)
    assert waiting["id"] in [i for _, i in due] and done["id"] not in [i for _, i in due]
    assert len(seen) == 2
    for sql, values in seen:
        root = await generic_plan(db, sql, values)
        text = json.dumps(root)
        # the merchant's pass reads its intents of that status; the global one the open intents
        assert "Seq Scan" not in text, text[:3000]
        if "NOT IN" in sql:
            assert "payment_intents_open_expiry" in text, text[:3000]
        assert pages(root) < table_pages / 4, (pages(root), table_pages)


async def test_a_links_totals_read_the_intents_that_paid_links(client, merchant, monkeypatch):
    db = _postgres()
    status, link = await call(client, "POST", "/api/payment-links", merchant.sk,
                              {"amount": 7_500, "currency": "KWD", "description": "Dishdasha"})
    assert status in (200, 201), link
    paid = await create(client, merchant.sk, amount=7_500, currency="KWD", payment_method="knet")
    # as the link's checkout leaves it: paid with KNET, the link's id in its metadata
    await PaymentIntent.filter(id=paid["id"]).update(status="succeeded", amount_received=7_500,
                                                     metadata={"payment_link": link["id"]})
    other = await create(client, merchant.sk, amount=1_000, currency="KWD", payment_method="knet")
    await clone(db, "payment_intents", other["id"], 40_000, timedelta(days=20), method_reference="NULL",
                status="'succeeded'")
    table_pages = await _table_pages(db)

    seen = capture(monkeypatch, 'JOIN "payment_links"')
    status, got = await call(client, "GET", f"/api/payment-links/{link['id']}", merchant.sk)
    assert status == 200, got
    assert (got["payments_count"], got["amount_collected"]) == (1, 7_500), got
    (sql, values), = seen
    root = await generic_plan(db, sql, values)
    text = json.dumps(root)
    assert "payment_intents_link" in text, text[:3000]
    # No whole read of the intents (the links' own table may be read whole: a handful of rows here,
    # the planner's choice since the links table has more columns)
    assert not _seq_scans_of(root, "payment_intents"), text[:3000]
    assert pages(root) < table_pages / 20, (pages(root), table_pages)


def _seq_scans_of(node: dict, table: str) -> list[dict]:
    found = [node] if node.get("Node Type") == "Seq Scan" and node.get("Relation Name") == table else []
    for child in node.get("Plans", ()):
        found += _seq_scans_of(child, table)
    return found


async def test_the_list_filtered_by_a_rare_status_reads_that_status_only(client, merchant, monkeypatch):
    db = _postgres()
    paid = await create(client, merchant.sk, amount=2_000, currency="TRY", payment_method="card")
    await PaymentIntent.filter(id=paid["id"]).update(status="succeeded")
    await clone(db, "payment_intents", paid["id"], 40_000, timedelta(days=20), method_reference="NULL")
    failed = await create(client, merchant.sk, amount=3_000, currency="TRY", payment_method="card")
    await PaymentIntent.filter(id=failed["id"]).update(status="failed", failure_code="card_declined")
    table_pages = await _table_pages(db)

    seen = capture_page(monkeypatch, '"_total"', '"status"')
    r = await client.get("/v1/payments", params={"status": "failed", "limit": 10}, headers=bearer(merchant.sk))
    body = await r.json()
    assert r.status == 200 and [i["id"] for i in body["data"]] == [failed["id"]], body
    assert body["total_count"] == 1
    (sql, values), = seen
    root = await generic_plan(db, sql, values)
    text = json.dumps(root)
    assert "Seq Scan" not in text and pages(root) < table_pages / 20, (pages(root), table_pages, text[:3000])
