"""The schema says what the models say: the committed migrations describe the models exactly (so
`makemigrations` finds nothing to write), and the migrated database, embedded or PostgreSQL, has
every index and every unique constraint the models declare."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tortoise import Tortoise
from tortoise.indexes import Index

from models._lookup import fetch

ROOT = Path(__file__).resolve().parent.parent

# What `tortoise -c models.TORTOISE_ORM makemigrations` would write, without writing it: the
# autodetector compares the state the migrations on disk build with the models.
_PENDING = """
import asyncio
from tortoise.cli.cli import CLIContext, _ensure_migrations_package, _load_config, tortoise_cli_context
from tortoise.migrations.autodetector import MigrationAutodetector

async def main():
    config = _load_config(CLIContext("models.TORTOISE_ORM", None))
    apps = {label: app.to_dict() for label, app in config.apps.items()}
    for label, app in apps.items():
        app["migrations"] = _ensure_migrations_package(label, app)[0]
    whole = config.to_dict()
    whole["apps"] = apps
    async with tortoise_cli_context(whole) as ctx:
        for writer in await MigrationAutodetector(ctx.apps, apps).changes():
            for op in writer.operations:
                print(writer.app_label, op.describe())

asyncio.run(main())
"""


def test_the_migrations_describe_the_models_exactly():
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}     # the state, not a database
    done = subprocess.run([sys.executable, "-c", _PENDING], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "", f"models changed without a migration (run makemigrations):\n{done.stdout}"


def _declared() -> set[tuple[str, tuple[str, ...], bool]]:
    """(table, columns, unique) of every index and unique constraint the models declare."""
    out = set()
    for models in Tortoise.apps.values():
        for model in models.values():
            meta = model._meta
            for entry in meta.indexes:
                fields = entry.fields if isinstance(entry, Index) else entry
                out.add((meta.db_table, tuple(fields), False))
            for fields in meta.unique_together:
                columns = tuple(meta.fields_map[f].source_field or f for f in fields)
                out.add((meta.db_table, columns, True))
    return out


async def _present(db) -> set[tuple[str, tuple[str, ...], bool]]:
    if db.capabilities.dialect == "postgres":
        rows = await fetch(db, """
            SELECT t.relname, ix.indisunique,
                   array(SELECT a.attname FROM unnest(ix.indkey) WITH ORDINALITY k(n, o)
                         JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.n ORDER BY k.o)
            FROM pg_index ix JOIN pg_class t ON t.oid = ix.indrelid
            WHERE t.relnamespace = current_schema()::regnamespace AND NOT ix.indisprimary""", [])
        return {(r[0], tuple(r[2]), r[1]) for r in rows}
    out = set()
    for (table,) in await fetch(db, "SELECT name FROM sqlite_master WHERE type = 'table'", []):
        for index in await fetch(db, f"PRAGMA index_list('{table}')", []):
            if index[3] == "pk":
                continue
            columns = tuple(c[2] for c in await fetch(db, f"PRAGMA index_info('{index[1]}')", []))
            out.add((table, columns, bool(index[2])))
    return out


async def test_the_database_has_every_index_the_models_declare(client):
    present = await _present(Tortoise.get_connection("default"))
    columns = {(table, cols) for table, cols, _ in present}
    unique = {(table, cols) for table, cols, is_unique in present if is_unique}
    missing = sorted((table, cols) for table, cols, must_be_unique in _declared()
                     if (table, cols) not in (unique if must_be_unique else columns))
    assert missing == []
    assert ("payment_intents", ("merchant_id", "livemode", "created_at", "id")) in columns    # the intent list's


async def test_the_write_paths_lock_no_merchant_or_customer_row(client, merchant):
    """PostgreSQL: an intent create, a card payment by e-mail (customer made, card saved) and a
    repeat payment leave the merchant's and the customer's rows unlocked (`xmax` 0). A foreign
    key to them would lock each FOR KEY SHARE once per row written (docs/decisions.md)."""
    import pytest
    from tests.intents_fixtures import create
    from tests.payments_fixtures import pay
    db = Tortoise.get_connection("default")
    if db.capabilities.dialect != "postgres":
        pytest.skip("row locks are PostgreSQL's (the embedded database keeps its constraints)")
    await create(client, merchant.sk)
    for _ in range(2):
        status, paid = await pay(client, merchant.sk, customer={"email": "buyer@example.com"})
        assert status == 200, paid
    locks = await fetch(db, "SELECT m.xmax::text, c.xmax::text FROM payments p JOIN merchants m ON m.id = p.merchant_id "
                            "JOIN customers c ON c.id = p.customer_id WHERE p.id = $1", [paid["id"]])
    assert [tuple(r) for r in locks] == [("0", "0")]
    keys = await fetch(db, "SELECT conrelid::regclass::text FROM pg_constraint WHERE contype = 'f' "
                           "AND confrelid IN ('merchants'::regclass, 'customers'::regclass) ORDER BY 1", [])
    assert [k[0] for k in keys] == ["merchant_profiles", "test_clocks"]   # one row each, written rarely


async def test_a_payment_and_an_event_are_written_without_a_key_check(client, merchant):
    """PostgreSQL: a card payment leaves its own row and its event's unlocked (`xmax` 0): the
    attempt and the event's waiting row, written in the same statement, check no foreign key
    (whose plan, made while a table was small, read the whole table: docs/decisions.md)."""
    import pytest
    from tests.payments_fixtures import pay
    db = Tortoise.get_connection("default")
    if db.capabilities.dialect != "postgres":
        pytest.skip("row locks are PostgreSQL's (the embedded database keeps its constraints)")
    status, paid = await pay(client, merchant.sk)
    assert status == 200, paid
    rows = await fetch(db, 'SELECT p.xmax::text, e.xmax::text, w.event_id IS NOT NULL, a.payment_id IS NOT NULL '
                           'FROM payments p JOIN events e ON e.object_id = p.id '
                           'LEFT JOIN events_waiting w ON w.event_id = e.id '
                           'JOIN payment_attempts a ON a.payment_id = p.id WHERE p.id = $1', [paid["id"]])
    assert rows and {(r[0], r[1], r[3]) for r in rows} == {("0", "0", True)}
    keys = await fetch(db, "SELECT conrelid::regclass::text FROM pg_constraint WHERE contype = 'f' "
                           "AND conrelid IN ('events_waiting'::regclass, 'payment_attempts'::regclass)", [])
    assert keys == []
