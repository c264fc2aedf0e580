"""Schema for the people who run it (issue 22): the foreign keys a cascade follows are indexed."""
from __future__ import annotations

from tortoise import connections


async def _index_columns(table: str) -> list[list[str]]:
    conn = connections.get("default")
    if conn.capabilities.dialect == "postgres":
        rows = await conn.execute_query_dict(
            "SELECT array_agg(a.attname ORDER BY k.n) AS cols FROM pg_index i "
            "JOIN pg_class t ON t.oid = i.indrelid "
            "CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n) "
            "JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum "
            "WHERE t.relname = $1 GROUP BY i.indexrelid", [table])
        return [list(r["cols"]) for r in rows]
    out = []
    for index in await conn.execute_query_dict(f"PRAGMA index_list('{table}')"):
        cols = await conn.execute_query_dict(f"PRAGMA index_info('{index['name']}')")
        out.append([c["name"] for c in sorted(cols, key=lambda c: c["seqno"])])
    return out


async def test_payment_attempts_are_indexed_by_payment(client):
    """Deleting a merchant cascades to its payments and their attempts: each payment's attempts
    are found through an index led by payment_id (not a scan of every attempt)."""
    indexes = await _index_columns("payment_attempts")
    assert ["payment_id", "number"] in indexes
    assert ["merchant_id", "livemode", "created_at"] in indexes          # the checker reads real indexes


async def test_invoice_deliveries_are_claimed_through_an_index(client):
    indexes = await _index_columns("invoice_deliveries")
    assert ["status", "next_attempt_at"] in indexes and ["invoice_id"] in indexes
