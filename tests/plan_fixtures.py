"""Helpers for the tests of PostgreSQL plans (issue 26): many rows made at once, and the plan and
the pages a statement reads under the service's own generic plan."""
from __future__ import annotations

import json
from datetime import date, datetime, timedelta

from models._lookup import fetch


def literal(value) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (datetime, date)):
        return f"'{value.isoformat()}'"
    return "'" + str(value).replace("'", "''") + "'"


async def clone(db, table: str, row_id: str, n: int, span: timedelta, column: str = "created_at",
                **fixed: str) -> None:
    """`n` copies of the row, `column` spread over `span` before the row's own, the columns in
    `fixed` set to those SQL expressions; then ANALYZE, as autovacuum would after such a load."""
    cols = [r["column_name"] for r in await fetch(
        db, "SELECT column_name FROM information_schema.columns WHERE table_name = $1 "
            "AND table_schema = current_schema() ORDER BY ordinal_position", [table])]
    step = span.total_seconds() / n
    picked = ", ".join("id || '_' || g" if c == "id"
                       else f'"{column}" - make_interval(secs => g * {step})' if c == column
                       else fixed[c] if c in fixed else f'"{c}"' for c in cols)
    quoted = ", ".join(f'"{c}"' for c in cols)
    await fetch(db, f'INSERT INTO "{table}" ({quoted}) SELECT {picked} FROM "{table}", generate_series(1, {n}) g '
                    f"WHERE id = $1", [row_id])
    await fetch(db, f'ANALYZE "{table}"', [])


async def generic_plan(db, sql: str, values: list) -> dict:
    """EXPLAIN (ANALYZE, BUFFERS) of `sql` with `values`, run as the service runs it: prepared on
    one of its pooled connections (plan_cache_mode=force_generic_plan). The plan's root node."""
    return (await explained(db, sql, values))["Plan"]


async def explained(db, sql: str, values: list, **settings: str) -> dict:
    """`generic_plan`'s whole EXPLAIN document (the plan, its timings, its JIT if any), with
    `settings` set for its transaction only (SET LOCAL), the pooled connection left as it was."""
    async with db.acquire_connection() as conn:
        assert await conn.fetchval("SHOW plan_cache_mode") == "force_generic_plan"
        async with conn.transaction():
            for name, value in settings.items():
                await conn.execute(f"SET LOCAL {name} = {value}")
            await conn.execute(f"PREPARE plan_probe AS {sql}")
            try:
                plan = json.loads(await conn.fetchval(
                    f"EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE plan_probe({', '.join(map(literal, values))})"))
            finally:
                await conn.execute("DEALLOCATE plan_probe")
    return plan[0]


def pages(root: dict) -> int:
    return root["Shared Hit Blocks"] + root["Shared Read Blocks"]


class Seen(list):
    """The statements `capture` saw, and beside them (`options`) the keywords each was read with."""

    def __init__(self):
        super().__init__()
        self.options: list[dict] = []


def capture(monkeypatch, marker: str) -> Seen:
    """The (PostgreSQL text, values) of every hand-written read (models._lookup.query) whose
    template contains `marker`, from here on: the statements the service really runs."""
    from models import _lookup as lookup
    seen = Seen()
    query = lookup.query

    async def capturing(model, template, values, **options):
        if marker in template:
            seen.append((lookup._numbered(template, "postgres"), list(values)))
            seen.options.append(options)
        return await query(model, template, values, **options)
    monkeypatch.setattr(lookup, "query", capturing)
    return seen


def capture_page(monkeypatch, *markers: str) -> list[tuple[str, list]]:
    """The (PostgreSQL text, values) of every list page's statement that contains all of
    `markers`, from here on: the generic pages' (models._keyset.fetch) and the hot `/v1` page's
    (services/payments/intents_hot.py, through models._lookup.fetch)."""
    from models import _keyset, _lookup
    seen: list[tuple[str, list]] = []
    fetch_ = _keyset.fetch

    async def capturing(conn, sql, values):
        if all(m in sql for m in markers):
            seen.append((sql, list(values)))
        return await fetch_(conn, sql, values)
    monkeypatch.setattr(_keyset, "fetch", capturing)
    monkeypatch.setattr(_lookup, "fetch", capturing)
    return seen
