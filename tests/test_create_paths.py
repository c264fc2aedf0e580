"""The create paths of issue 16: a payment create reads once and writes once (its customer, risk
signals, rules and market in one statement; the customer it makes in the write), an intent
create only writes, and rows built with `models._rows.new` are what the models' constructors
make. Each runs on both backends; the round-trip counts on PostgreSQL."""
from __future__ import annotations

from contextlib import contextmanager
from datetime import date, datetime, timezone

import asyncpg
import pytest
from tortoise import Tortoise

from models._rows import new
from models.payments import Customer, Payment
from services.money import markets
from tests.conftest import bearer
from tests.intents_fixtures import create as create_intent
from tests.payments_fixtures import call, no_exploration, pay  # noqa: F401


def _postgres() -> bool:
    return Tortoise.get_connection("default").capabilities.dialect == "postgres"


@contextmanager
def round_trips(monkeypatch):
    """The statements sent to PostgreSQL (asyncpg's extended and simple query paths)."""
    sent: list[str] = []
    extended, simple = asyncpg.Connection._execute, asyncpg.Connection.execute

    async def _execute(self, query, *args, **kw):
        sent.append(query)
        return await extended(self, query, *args, **kw)

    async def execute(self, query, *args, **kw):
        if not args:
            sent.append(query)
        return await simple(self, query, *args, **kw)
    monkeypatch.setattr(asyncpg.Connection, "_execute", _execute)
    monkeypatch.setattr(asyncpg.Connection, "execute", execute)
    yield sent


def test_new_rows_are_what_the_constructors_make(client):
    now = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
    samples = {str: "x", int: 7, bool: True, datetime: now, date: now.date()}
    checked = 0
    for app in Tortoise.apps.values():
        for model in app.values():
            meta = model._meta
            values = {}
            for name in meta.fields_db_projection:
                field = meta.fields_map[name]
                if field.pk and field.generated:
                    continue
                if "JSON" in type(field).__name__:
                    values[name] = {"k": [1]}
                elif field.field_type in samples:
                    values[name] = samples[field.field_type]
            made, built = model(**values), new(model, **values)
            assert built.__dict__ == made.__dict__, model.__name__
            bare, made_bare = new(model), model()          # the defaults, mutable ones not shared
            assert bare.__dict__ == made_bare.__dict__, model.__name__
            checked += 1
    assert checked > 20
    with pytest.raises(ValueError):
        new(Customer, id=None)


async def test_payment_create_is_one_read_and_one_write(client, merchant, monkeypatch):
    if not _postgres():
        pytest.skip("the one-statement write is PostgreSQL's (SQLite: one ORM transaction)")
    status, _ = await pay(client, merchant.sk, customer={"email": "one@example.com"})     # makes the customer
    assert status == 200
    with round_trips(monkeypatch) as sent:
        status, body = await pay(client, merchant.sk, customer={"email": "one@example.com"})
    assert status == 200 and body["status"] == "succeeded"
    assert len(sent) == 2, sent
    assert sent[0].lstrip().startswith("SELECT") and sent[1].startswith("WITH w0 AS (INSERT")


async def test_intent_create_is_one_write(client, merchant, monkeypatch):
    if not _postgres():
        pytest.skip("the one-statement write is PostgreSQL's")
    await create_intent(client, merchant.sk)                         # the merchant's market is now known
    with round_trips(monkeypatch) as sent:
        await create_intent(client, merchant.sk)
    # one statement (services/payments/intent_create_hot.py's): the intent, its event, the event's
    # waiting row and the list's counter slot
    assert len(sent) == 1 and sent[0].startswith("WITH "), sent
    assert all(f'INSERT INTO "{t}"' in sent[0] for t in ("payment_intents", "events", "events_waiting", "list_counts"))


async def test_a_new_customer_is_written_with_its_payment(client, merchant):
    status, body = await pay(client, merchant.sk, customer={"email": "new@example.com", "name": "New"})
    assert status == 200
    c = await Customer.get(merchant_id=merchant.id, email="new@example.com")
    assert c.name == "New" and (await Payment.get(id=body["id"])).customer_id == c.id
    status, again = await pay(client, merchant.sk, customer={"email": "new@example.com"})
    assert status == 200 and (await Payment.get(id=again["id"])).customer_id == c.id     # reused
    # Refused after the read (the pinned provider does not serve TRY): no customer is left behind.
    status, out = await pay(client, merchant.sk, customer={"email": "gone@example.com"}, routing="gulfnet")
    assert status == 400 and out["error"]["param"] == "routing.provider"
    assert not await Customer.filter(merchant_id=merchant.id, email="gone@example.com").exists()


async def test_a_customer_given_by_id_is_judged_by_its_email(client, merchant):
    status, c = await call(client, "POST", "/api/customers", merchant.sk, {"email": "x@mailinator.com"})
    assert status == 200
    status, body = await pay(client, merchant.sk, customer_id=c["id"])
    assert status == 200
    p = await Payment.get(id=body["id"])
    assert p.customer_id == c["id"] and p.email == "x@mailinator.com"
    assert {s["signal"]: s["points"] for s in p.risk_signals}["email"] == 20          # disposable domain
    status, out = await pay(client, merchant.sk, customer={"id": "cus_missing"})
    assert status == 404 and out["error"]["param"] == "customer.id"


async def test_routing_rules_read_with_the_create_apply(client, merchant):
    for name, priority, provider in (("second", 20, "anatolia"), ("first", 10, "atlas")):
        status, _ = await call(client, "POST", "/api/routing/rules", merchant.sk,
                               {"name": name, "strategy": "fixed", "provider": provider, "priority": priority,
                                "conditions": [{"field": "currency", "operator": "equals", "value": "TRY"}]})
        assert status == 200
    status, body = await pay(client, merchant.sk)
    assert status == 200 and body["provider"] == "atlas" and "rule 'first'" in body["routing_decision"]["reason"]
    status, body = await pay(client, merchant.sk, routing="anatolia")           # an explicit choice wins
    assert status == 200 and body["provider"] == "anatolia"


async def test_a_country_change_reaches_the_next_intent_at_once(client, merchant):
    # Issue 22: an intent without `locale` keeps none (null), so the market shows in the fee: a
    # TRY payment is in a TR merchant's home currency, not in an SA merchant's (conversion fee).
    first = await create_intent(client, merchant.sk, currency="TRY")
    assert first["locale"] is None and first["fee"]["breakdown"]["currency_conversion"] == 0    # TR by default
    r = await client.put("/api/merchant", json={"country": "SA"}, headers=bearer(merchant.sk))
    assert r.status == 200
    second = await create_intent(client, merchant.sk, currency="TRY")
    assert second["fee"]["breakdown"]["currency_conversion"] > 0        # the SA market, not the cached TR
    assert markets.COUNTRY_TTL <= 5
