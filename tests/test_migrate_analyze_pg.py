"""Issue 35, "Hardening": `qafila migrate` leaves the planner's statistics current (ANALYZE on
PostgreSQL after migrating), so a fresh database does not run plans made for never-analyzed
tables until autovacuum's first pass. Run against a fresh database created for the test (the
real command, in its own process); skipped on the embedded default."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest


URL = os.environ.get("DATABASE_URL", "")
pytestmark = pytest.mark.skipif(not URL.startswith(("postgres://", "postgresql://")),
                                reason="ANALYZE is PostgreSQL's: DATABASE_URL is not PostgreSQL")
TABLES = ("merchants", "api_keys", "payments", "payment_intents")


def _with_db(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


@pytest.fixture
async def fresh_db(tmp_path):
    name = f"{urlsplit(URL).path.lstrip('/')}_analyze_{os.urandom(3).hex()}"
    admin = await asyncpg.connect(URL)
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield _with_db(URL, name)
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


def _qafila(*args: str, url: str, tmp_path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("QAFILA_") and k not in ("DATABASE_URL", "REDIS_URL")}
    env.update({"QAFILA_ENV": "test", "QAFILA_VAR_DIR": str(tmp_path / "var"), "DATABASE_URL": url,
                "PYTHONPATH": os.getcwd()})
    return subprocess.run([sys.executable, "-m", "app.cli", *args], env=env, capture_output=True, text=True,
                          timeout=300)


async def _reltuples(url: str) -> dict[str, float]:
    """pg_class.reltuples: -1 for a table never analyzed (PostgreSQL 14+), else the row estimate
    of its last ANALYZE (or VACUUM): read at once, unlike the cumulative statistics views."""
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch("SELECT relname, reltuples FROM pg_class WHERE relkind = 'r' AND relname = ANY($1)",
                                list(TABLES))
        return {r["relname"]: r["reltuples"] for r in rows}
    finally:
        await conn.close()


async def test_qafila_migrate_analyzes_a_fresh_database_and_again_when_nothing_is_applied(fresh_db, tmp_path):
    r = _qafila("migrate", url=fresh_db, tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "migrations applied; statistics analyzed"
    assert await _reltuples(fresh_db) == {t: 0 for t in TABLES}        # analyzed (never analyzed: -1)
    # a merchant written afterwards (its start-up migration applies nothing: no ANALYZE there)
    r = _qafila("create-merchant", "--email", "analyze@example.com", url=fresh_db, tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.strip().splitlines()[-1])["merchant_id"].startswith("mer_")
    before = await _reltuples(fresh_db)
    assert (before["merchants"], before["api_keys"]) == (0, 0)          # the statistics lag the rows
    # `qafila migrate` with nothing to apply still brings them up to date
    r = _qafila("migrate", url=fresh_db, tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    after = await _reltuples(fresh_db)
    assert (after["merchants"], after["api_keys"]) == (1, 2)             # its test secret and publishable keys


async def test_a_start_up_migration_analyzes_only_when_it_applied_something(fresh_db, tmp_path):
    # create-merchant migrates first, as serve does: on a fresh database it applies every
    # migration, then analyzes (before its merchant is written)
    r = _qafila("create-merchant", "--email", "first@example.com", url=fresh_db, tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert await _reltuples(fresh_db) == {t: 0 for t in TABLES}
    # a restart applies nothing: no ANALYZE (the estimate still says 0 merchants for 2)
    r = _qafila("create-merchant", "--email", "second@example.com", url=fresh_db, tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (await _reltuples(fresh_db))["merchants"] == 0
