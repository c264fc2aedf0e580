"""Issue 48: every create writes an entry into each index of its rows, so an index no read uses, or
an entry for rows no read looks for, is paid by every create. Events have no object_id index and
attempts no (provider, created_at) one; a payment's link and an intent's scheme reference are
indexed only for the rows that have one. What reads them still reads through an index, and the
reference is still unique."""
from __future__ import annotations

import json
import secrets
from datetime import timedelta

import pytest
from tortoise import Tortoise
from tortoise.exceptions import IntegrityError

from models.intents import PaymentIntent
from services.payments import links
from tests.conftest import bearer
from tests.payments_fixtures import pay
from tests.plan_fixtures import clone, generic_plan
from tests.test_ops_schema import _index_columns

INTENT = {"amount": 10000, "currency": "TRY", "payment_method": "card"}


def _postgres() -> bool:
    return Tortoise.get_connection("default").capabilities.dialect == "postgres"


async def test_no_index_no_read_uses(client):
    assert ["object_id"] not in await _index_columns("events")
    assert ["merchant_id", "livemode", "created_at"] in await _index_columns("events")     # the list's
    assert ["provider", "created_at"] not in await _index_columns("payment_attempts")
    assert ["payment_id", "number"] in await _index_columns("payment_attempts")
    assert ["payment_link", "status"] in await _index_columns("payments")


async def test_a_scheme_reference_is_still_unique_and_none_is_many(client, merchant):
    made = []
    for _ in range(3):          # intents without a reference: as many as wanted
        resp = await client.post("/v1/payments/intent", json=INTENT, headers=bearer(merchant.sk))
        assert resp.status == 201, await resp.text()
        made.append((await resp.json())["id"])
    reference = f"FWR-{secrets.token_hex(8)}"        # its own on a database other runs used
    await PaymentIntent.filter(id=made[0]).update(method_reference=reference)
    with pytest.raises(IntegrityError):
        await PaymentIntent.filter(id=made[1]).update(method_reference=reference)
    assert await PaymentIntent.filter(method_reference=reference).values_list("id", flat=True) == [made[0]]
    assert await PaymentIntent.filter(id__in=made, method_reference__isnull=True).count() == 2


async def _definition(index: str) -> str:
    rows = await Tortoise.get_connection("default").execute_query_dict(
        "SELECT indexdef FROM pg_indexes WHERE indexname = $1", [index])
    return rows[0]["indexdef"] if rows else ""


async def test_only_rows_with_a_value_have_an_entry_and_the_reads_use_it(client, merchant):
    if not _postgres():
        pytest.skip("the partial indexes are PostgreSQL's (the embedded database keeps the table's constraint)")
    assert (await _definition("payments_of_links")).endswith("(payment_link, status) WHERE (payment_link IS NOT NULL)")
    reference = await _definition("payment_intents_method_reference_key")
    assert reference.startswith("CREATE UNIQUE INDEX") and reference.endswith("WHERE (method_reference IS NOT NULL)")
    # a payment and an intent made without either: no entry in those indexes
    status, paid = await pay(client, merchant.sk, customer={"email": "entries@example.com"})
    assert status == 200
    resp = await client.post("/v1/payments/intent", json=INTENT, headers=bearer(merchant.sk))
    assert resp.status == 201
    # tables of a service's size, analyzed (on a few rows a sequential scan is the best plan,
    # whatever the indexes): the plans below are the ones a real table gets. The copies are paid,
    # as most of a real table is: no sweep of a later test finds them open.
    db = Tortoise.get_connection("default")
    await clone(db, "payments", paid["id"], 3000, timedelta(days=30))
    await clone(db, "payment_intents", (await resp.json())["id"], 3000, timedelta(days=30), status="'succeeded'")
    rows = await Tortoise.get_connection("default").execute_query_dict(
        "SELECT (SELECT count(*) FROM payments WHERE payment_link IS NULL) AS payments, "
        "(SELECT count(*) FROM payment_intents WHERE method_reference IS NULL) AS intents")
    assert rows[0]["payments"] >= 1 and rows[0]["intents"] >= 1
    # the link's paid total and the scheme's callback still find their rows through an index
    plan = json.dumps(await generic_plan(db, 'SELECT "amount" FROM "payments" WHERE "payment_link" IN ($1, $2) '
                                             'AND "status" IN ($3, $4, $5)', ["lnk_a", "lnk_b", *links.COLLECTED]))
    assert "payments_of_links" in plan, plan
    plan = json.dumps(await generic_plan(db, 'SELECT "id" FROM "payment_intents" WHERE "method_reference" = $1',
                                         ["FWR-1"]))
    assert "payment_intents_method_reference_key" in plan, plan
