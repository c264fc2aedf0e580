"""Issue 26: a filtered list page's total (counted up to its cap) reads the merchant's own rows,
not the table's -- on PostgreSQL, under the service's generic plans."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest
from tortoise import Tortoise

from models._lookup import fetch
from tests.helpers import bearer
from tests.payments_fixtures import no_exploration, pay  # noqa: F401
from tests.plan_fixtures import capture_page, clone, generic_plan, pages


async def test_a_small_merchants_filtered_total_reads_its_own_rows(client, merchant, make_merchant, monkeypatch):
    db = Tortoise.get_connection("default")
    if db.capabilities.dialect != "postgres":
        pytest.skip("the plans are PostgreSQL's")
    big = await make_merchant()
    status, first = await pay(client, big.sk)
    assert status == 200
    await clone(db, "payments", first["id"], 50_000, timedelta(days=30))     # a busy merchant's history
    status, mine = await pay(client, merchant.sk)
    assert status == 200

    seen = capture_page(monkeypatch, '"_total"', "provider")
    r = await client.get("/api/payments/list", params={"provider": mine["provider"], "limit": 10},
                         headers=bearer(merchant.sk))
    body = await r.json()
    assert r.status == 200 and [p["id"] for p in body["data"]] == [mine["id"]], body
    (sql, values), = seen

    table_pages = (await fetch(db, "SELECT relpages FROM pg_class WHERE relname = 'payments'", []))[0][0]
    root = await generic_plan(db, sql, values)
    text = json.dumps(root)
    assert "Seq Scan" not in text and pages(root) < table_pages / 20, (pages(root), table_pages, text[:3000])
