"""Issue 26: the one read of a payment create (its risk signals) costs the same however many
payments the merchant, the card and the address already have -- on PostgreSQL, whose generic
plans (app/pg_engine.py) the service's statements run on."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest
from tortoise import Tortoise

from models._lookup import fetch
from tests.payments_fixtures import pay
from tests.plan_fixtures import capture, clone, generic_plan, pages

PRIOR = 20_000          # earlier payments: one card, one address, all TRY, all in the last ten minutes


async def test_the_create_read_touches_few_pages_whatever_the_history(client, merchant, clock, monkeypatch):
    db = Tortoise.get_connection("default")
    if db.capabilities.dialect != "postgres":
        pytest.skip("the plans are PostgreSQL's")
    status, first = await pay(client, merchant.sk, customer={"email": "busy@example.com"})
    assert status == 200 and first["status"] == "succeeded"
    await clone(db, "payments", first["id"], PRIOR, timedelta(minutes=9))

    seen = capture(monkeypatch, "history_n")
    # the merchant's first QAR payment (no history in it), from the same card and address
    status, body = await pay(client, merchant.sk, amount=5000, currency="QAR", customer={"email": "busy@example.com"})
    assert status == 200 and body["status"] == "succeeded"
    (sql, values), = seen

    root = await generic_plan(db, sql, values)
    # The velocity reads stop at their caps (200 card payments, 100 from the address) and the
    # amount history at 50 payments in the currency, each walking its index from now: a few
    # hundred pages. Leaving an equality to a filter made the generic plan read all 20,000.
    assert pages(root) < 1_000, json.dumps(root, indent=1)[:4000]
    # and what it read is what the signals say
    row = (await fetch(db, sql, values))[0]
    assert (row["history_n"], row["card_n"], row["address_n"]) == (1, 200, 100)     # the QAR one, since committed
    assert body["risk_score"] == 40         # card velocity (50 or more) 20 + address velocity (100) 20
