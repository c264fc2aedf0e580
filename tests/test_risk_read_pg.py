"""Issue 26: the one read of a payment create (its risk signals) costs the same however many
payments the merchant, the card and the address already have -- on PostgreSQL, whose generic
plans (app/pg_engine.py) the service's statements run on."""
from __future__ import annotations

import json
from datetime import date, datetime, timedelta

import pytest
from tortoise import Tortoise

from models import _lookup as lookup
from models._lookup import fetch
from tests.payments_fixtures import pay

PRIOR = 20_000          # earlier payments: one card, one address, all TRY, all in the last ten minutes


def _literal(value) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (datetime, date)):
        return f"'{value.isoformat()}'"
    return "'" + str(value).replace("'", "''") + "'"


async def _clone(db, payment_id: str, n: int, span: timedelta) -> None:
    """`n` copies of the payment, spread over `span` before it (as a busy integration makes them)."""
    cols = [r["column_name"] for r in await fetch(
        db, "SELECT column_name FROM information_schema.columns WHERE table_name = 'payments' "
            "AND table_schema = current_schema() ORDER BY ordinal_position", [])]
    step = span.total_seconds() / n
    picked = ", ".join("id || '_' || g" if c == "id"
                       else f"created_at - make_interval(secs => g * {step})" if c == "created_at"
                       else f'"{c}"' for c in cols)
    quoted = ", ".join(f'"{c}"' for c in cols)
    await fetch(db, f"INSERT INTO payments ({quoted}) SELECT {picked} FROM payments, generate_series(1, {n}) g "
                    f"WHERE id = $1", [payment_id])
    await fetch(db, "ANALYZE payments", [])


async def test_the_create_read_touches_few_pages_whatever_the_history(client, merchant, clock, monkeypatch):
    db = Tortoise.get_connection("default")
    if db.capabilities.dialect != "postgres":
        pytest.skip("the plans are PostgreSQL's")
    status, first = await pay(client, merchant.sk, customer={"email": "busy@example.com"})
    assert status == 200 and first["status"] == "succeeded"
    await _clone(db, first["id"], PRIOR, timedelta(minutes=9))

    seen: list[tuple[str, list]] = []
    query = lookup.query

    async def capture(model, template, values):
        if "history_n" in template:
            seen.append((lookup._numbered(template, "postgres"), list(values)))
        return await query(model, template, values)
    monkeypatch.setattr(lookup, "query", capture)
    # the merchant's first QAR payment (no history in it), from the same card and address
    status, body = await pay(client, merchant.sk, amount=5000, currency="QAR", customer={"email": "busy@example.com"})
    assert status == 200 and body["status"] == "succeeded"
    (sql, values), = seen

    async with db.acquire_connection() as conn:
        assert await conn.fetchval("SHOW plan_cache_mode") == "force_generic_plan"
        await conn.execute(f"PREPARE risk_probe AS {sql}")
        try:
            plan = json.loads(await conn.fetchval(
                f"EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE risk_probe({', '.join(map(_literal, values))})"))
        finally:
            await conn.execute("DEALLOCATE risk_probe")
    root = plan[0]["Plan"]
    pages = root["Shared Hit Blocks"] + root["Shared Read Blocks"]
    # The velocity reads stop at their caps (200 card payments, 100 from the address) and the
    # amount history at 50 payments in the currency, each walking its index from now: a few
    # hundred pages. Leaving an equality to a filter made the generic plan read all 20,000.
    assert pages < 1_000, json.dumps(plan, indent=1)[:4000]
    # and what it read is what the signals say
    row = (await fetch(db, sql, values))[0]
    assert (row["history_n"], row["card_n"], row["address_n"]) == (1, 200, 100)     # the QAR one, since committed
    assert body["risk_score"] == 40         # card velocity (50 or more) 20 + address velocity (100) 20
