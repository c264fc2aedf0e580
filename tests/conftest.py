"""Test fixtures: the real app from create_app() on the embedded default, or on PostgreSQL and
Redis when DATABASE_URL and REDIS_URL are set. The database is migrated once per session;
tenants keep tests apart (each test makes its own merchants). Time is a FrozenClock."""
from __future__ import annotations

import asyncio
import itertools
import os
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone

import pytest

from app.backend import migrate_database
from app.server import BACKEND, create_app
from app.settings import load_settings
from services.infra.clock import FrozenClock

_clock_starts = itertools.count()


@pytest.fixture(scope="session")
def base_settings(tmp_path_factory):
    env = {"QAFILA_ENV": "test", "QAFILA_VAR_DIR": str(tmp_path_factory.mktemp("var"))}
    env["DATABASE_URL"] = os.environ.get("DATABASE_URL") or f"sqlite://{tmp_path_factory.mktemp('db')}/test.sqlite3"
    if os.environ.get("REDIS_URL"):
        env["REDIS_URL"] = os.environ["REDIS_URL"]
    env["QAFILA_PUBLIC_URL"] = "http://api.qafila.test"
    env["QAFILA_PAY_URL"] = "https://pay.qafila.test"
    settings = load_settings(env)
    asyncio.run(migrate_database(settings))
    if settings.redis_url:
        async def flush():
            import redis.asyncio as redis
            r = redis.from_url(settings.redis_url)
            await r.flushdb()
            await r.aclose()
        asyncio.run(flush())
    return replace(settings, migrate_on_start=False)


@pytest.fixture
def settings(base_settings):
    return base_settings


@pytest.fixture
def clock():
    # Each test starts on its own day, so fixed windows in a shared Redis never overlap.
    return FrozenClock(datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc) + timedelta(days=next(_clock_starts)))


@pytest.fixture
def app(settings, clock):
    return create_app(settings, clock=clock)


@pytest.fixture(autouse=True)
def _apps_are_freed():
    """aiohttp keeps each (handler, application) it served in a module-level cache of 1,024
    entries (`web_app._cached_build_middleware`): one serving process has one app, but the suite
    makes one per test, and the cache held hundreds of them with their GraphQL schemas (4.6
    million objects by the robustness tests; one full collection then stalled the event loop 3 s,
    longer than a slowloris test's 2 s cut). Emptied after each test, every test's app is freed."""
    yield
    from aiohttp import web_app
    web_app._cached_build_middleware.cache_clear()


@pytest.fixture
async def client(aiohttp_client, app):
    return await aiohttp_client(app)


@pytest.fixture
def backend(client):
    return client.app[BACKEND]


@pytest.fixture
def mailer(backend):
    return backend.runtime.mailer


@dataclass
class M:
    id: str
    email: str
    sk: str
    pk: str


@pytest.fixture
def make_merchant(client):
    from services.identity.merchants import create_merchant

    counter = itertools.count()

    async def make(name: str = "Shop") -> M:
        email = f"m{next(counter)}-{os.urandom(4).hex()}@example.com"
        m, keys = await create_merchant(email=email, name=name)
        return M(m.id, email, keys["secret_key"], keys["publishable_key"])
    return make


@pytest.fixture
async def merchant(make_merchant) -> M:
    return await make_merchant()


def bearer(key: str) -> dict:
    return {"Authorization": f"Bearer {key}"}


async def gql(client, query: str, variables: dict | None = None, key: str | None = None):
    resp = await client.post("/graphql", json={"query": query, "variables": variables or {}},
                             headers=bearer(key) if key else {})
    return resp.status, await resp.json()


@pytest.fixture
def smtp_sink(mailer):
    """A real SMTP server on loopback (aiosmtpd) that keeps what it receives; the app's mailer
    sends to it. `.messages` is a list of (recipients, raw message bytes)."""
    import socket

    from aiosmtpd.controller import Controller

    class Sink:
        def __init__(self):
            self.messages: list[tuple[list[str], bytes]] = []

        async def handle_DATA(self, server, session, envelope):
            self.messages.append((envelope.rcpt_tos, envelope.content))
            return "250 OK"

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    sink = Sink()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    mailer.smtp_url = f"smtp://127.0.0.1:{port}"
    yield sink
    controller.stop()

