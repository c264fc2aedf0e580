"""The storage and runtime one process serves from: database, key-value store, clock, mail.

The main and the CRM application share one Backend; whoever creates it starts and stops it.
"""
from __future__ import annotations

import logging
from pathlib import Path

import asyncpg
from tortoise import Tortoise, connections
from tortoise.backends.base.config_generator import expand_db_url
from tortoise.migrations.api import migrate as migrate_api

from app.crm_http import AiohttpSender
from app.jobs import register_job_kinds
from app.settings import Settings
from models import tortoise_config
from services.infra import runtime as rt_mod
from services.infra import faults
from services.infra.clock import Clock
from services.infra.kv import open_store
from services.infra.mail import Mailer
from services.infra.runtime import Runtime, ServiceConfig

log = logging.getLogger("qafila")


def _sqlite_comments_without_semicolons() -> None:
    """Tortoise's SQLite schema editor runs a migration statement by statement, splitting the
    SQL on ";" -- including a ";" inside a table comment taken from a model's docstring. Such a
    comment is harmless text, so it is written with "," instead."""
    from tortoise.migrations.schema_editor.sqlite import SqliteSchemaEditor

    if getattr(SqliteSchemaEditor, "_qafila_patched", False):
        return
    table = SqliteSchemaEditor._get_escape_translation_table.__func__

    def escape_table(cls) -> list[str]:
        t = table(cls)
        t[ord(";")] = ","
        return t
    SqliteSchemaEditor._get_escape_translation_table = classmethod(escape_table)
    SqliteSchemaEditor._qafila_patched = True


class _PooledConnection(asyncpg.Connection):
    """A pooled PostgreSQL connection that goes back to the pool without a reset round trip.

    asyncpg's pool runs `Connection.get_reset_query()` (advisory unlock, CLOSE ALL, UNLISTEN,
    RESET ALL) on every release: a second round trip for every query Tortoise runs outside a
    transaction, which halved the throughput of a read. Qafila never leaves session state on a
    connection (no LISTEN, advisory locks, session SET or open cursors), and asyncpg still rolls
    back an open transaction on release, so the query is empty -- the override asyncpg documents."""

    def get_reset_query(self) -> str:
        return ""


def db_url_for(settings: Settings) -> str:
    url = settings.database_url
    if url.startswith("sqlite://"):
        path = url[len("sqlite://"):].split("?", 1)[0]
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        if "?" not in url:
            url += "?busy_timeout=10000"
    elif "maxsize=" not in url:
        # Tortoise's default pool (1..5) queues requests behind each other under load; the size
        # is QAFILA_DB_POOL_SIZE (a `maxsize=` in DATABASE_URL wins).
        size = settings.db_pool_size
        url += ("&" if "?" in url else "?") + f"minsize={min(2, size)}&maxsize={size}"
    return url


def db_config(settings: Settings) -> dict:
    """The Tortoise configuration; PostgreSQL connections come from `_PooledConnection`, through
    app.pg_engine (a wait for a pooled connection is bounded by QAFILA_POOL_TIMEOUT)."""
    url = db_url_for(settings)
    if url.startswith("sqlite"):
        return tortoise_config(url)
    connection = expand_db_url(url)
    connection["engine"] = "app.pg_engine"
    connection["credentials"]["connection_class"] = _PooledConnection
    connection["credentials"]["acquire_timeout"] = settings.pool_timeout
    return tortoise_config(connection)


async def migrate_database(settings: Settings, *, analyze: bool | None = None) -> list[str]:
    """Apply the committed migrations (idempotent); the ones applied (`app.name`).

    Then, on PostgreSQL, bring the planner's statistics up to date (`ANALYZE`), so a fresh
    database does not run generic plans on never-analyzed tables until autovacuum's first pass:
    always when `analyze` is True (`qafila migrate`), and when a migration was applied otherwise
    (`qafila serve`'s start-up migration: a fresh database, not every restart). SQLite keeps no
    planner statistics until asked and its plans do not need them here: nothing is run there."""
    config = db_config(settings)
    _sqlite_comments_without_semicolons()
    applied: list[str] = []

    def progress(event: str, app: str, name: str) -> None:
        if event == "apply_done":
            applied.append(f"{app}.{name}")

    try:
        await migrate_api(config=config, progress=progress)
        if not settings.sqlite and (analyze or (analyze is None and applied)):
            for name in config["connections"]:
                await connections.get(name).execute_script("ANALYZE")
    finally:
        await Tortoise.close_connections()
    return applied


class Backend:
    def __init__(self, settings: Settings, *, clock: Clock | None = None, mailer: Mailer | None = None):
        self.settings = settings
        self.runtime = Runtime(
            config=ServiceConfig(env=settings.env, secret_key=settings.secret_key,
                                 public_url=settings.public_url, pay_url=settings.pay_url,
                                 rate_limit_scale=settings.rate_limit_scale, zatca_url=settings.zatca_url,
                                 apple_pay_test_roots=settings.apple_pay_test_roots,
                                 google_pay_test_root_keys=settings.google_pay_test_root_keys,
                                 google_pay_root_keys=settings.google_pay_root_keys,
                                 session_idle_seconds=settings.session_idle_seconds,
                                 **{f"messaging_{k}": v for k, v in settings.messaging.items()}),
            kv=open_store(settings.redis_url, pool_size=settings.redis_pool_size,
                          pool_timeout=settings.pool_timeout),
            clock=clock or Clock(),
            mailer=mailer or Mailer(smtp_url=settings.smtp_url),
            http=AiohttpSender(),
        )
        self.started = False

    async def start(self) -> None:
        # While PostgreSQL or Redis is down, asyncpg's pool and the workers log one line per retry.
        faults.quiet_outage_tracebacks("asyncpg.pool", "qafila.workers")
        if self.settings.migrate_on_start:
            await migrate_database(self.settings)
        await Tortoise.init(config=db_config(self.settings), _enable_global_fallback=True)
        rt_mod.install(self.runtime)
        register_job_kinds()
        if self.settings.migrate_on_start:     # a serving process: the Google Pay keys exist from the first start
            from services.payments.wallets.service import ensure_google_pay_keys
            await ensure_google_pay_keys()
        self.started = True

    async def stop(self) -> None:
        if not self.started:
            return
        self.started = False
        rt_mod.install(None)
        await self.runtime.kv.close()
        await Tortoise.close_connections()
