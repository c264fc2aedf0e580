"""PostgreSQL or Redis down: every interface answers 503 with Retry-After and the documented error
body (never 500), and heals by itself once the dependency is back.

The app reaches PostgreSQL and Redis through a FaultProxy (tests/robustness/faultproxy.py) that
the test cuts and restores; the machine's shared services are never stopped. On the embedded
store there is no Redis to lose and SQLite is a file: those outages are skipped, and SQLite's
own failure mode (a writer holding the lock past the busy timeout) is tested instead.
"""
from __future__ import annotations

import asyncio
import os
import sqlite3
from dataclasses import dataclass, replace

import aiohttp
import pytest
import redis.exceptions as redis_errors
from multidict import CIMultiDict

from app.backend import Backend
from app.serving import Servers, start_servers
from services.errors import ServiceUnavailable
from services.infra import faults
from services.infra.faults import PoolTimeout
from tests.robustness.faultproxy import FaultProxy

EMAIL_N = iter(range(10**6))
VIEWER = "{ viewer { id } }"
CREATE = """mutation($input: PaymentIntentCreateInput!) { paymentIntentCreate(input: $input) {
  paymentIntent { id } userErrors { code message field } } }"""


@dataclass
class Stack:
    servers: Servers
    http: aiohttp.ClientSession
    db: FaultProxy | None
    kv: FaultProxy | None
    backend: Backend

    def main(self, path: str) -> str:
        return f"http://127.0.0.1:{self.servers.main_port}{path}"

    def crm(self, path: str) -> str:
        return f"http://127.0.0.1:{self.servers.crm_port}{path}"


@pytest.fixture
async def stack(base_settings, clock):
    """Main and CRM applications served on real ports by `start_servers` (what `qafila serve` runs),
    with PostgreSQL and Redis (when configured) behind fault proxies."""
    db = await FaultProxy.for_url(base_settings.database_url).start() if not base_settings.sqlite else None
    kv = await FaultProxy.for_url(base_settings.redis_url).start() if base_settings.redis_url else None
    settings = replace(base_settings, pool_timeout=2.0,
                       database_url=db.url(base_settings.database_url) if db else base_settings.database_url,
                       redis_url=kv.url(base_settings.redis_url) if kv else None)
    backend = Backend(settings, clock=clock)
    await backend.start()
    servers = await start_servers(settings, backend, port=0, crm_port=0)
    http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30))
    try:
        yield Stack(servers, http, db, kv, backend)
    finally:
        await http.close()
        for proxy in (db, kv):
            if proxy:
                await proxy.up()          # let the shutdown close its connections cleanly
        await servers.close()
        await backend.stop()
        for proxy in (db, kv):
            if proxy:
                await proxy.close()


async def _merchant_key() -> str:
    from services.identity.merchants import create_merchant
    _, keys = await create_merchant(email=f"outage{next(EMAIL_N)}-{os.urandom(4).hex()}@example.com", name="Shop")
    return keys["secret_key"]


async def _crm_token(stack: Stack) -> str:
    body = {"email": f"crm-outage{next(EMAIL_N)}-{os.urandom(4).hex()}@example.com",
            "password": "Correct-Horse-9-Battery", "name": "Ada", "company_name": "Acme"}
    async with stack.http.post(stack.crm("/api/auth/signup"), json=body) as r:
        assert r.status == 201, await r.text()
        return (await r.json())["access_token"]


async def _requests(stack: Stack, sk: str, crm_token: str) -> dict[str, tuple[int, CIMultiDict, dict]]:
    """One request on each interface: REST /api, /v1, CRM /api, and GraphQL on both ports."""
    auth = {"Authorization": f"Bearer {sk}"}
    crm_auth = {"Authorization": f"Bearer {crm_token}"}
    calls = {
        "api": ("GET", stack.main("/api/api-keys"), auth, None),
        "v1": ("GET", stack.main("/v1/payments?limit=3"), auth, None),
        "v1 create": ("POST", stack.main("/v1/payments/intent"), auth,
                      {"amount": 1000, "currency": "TRY", "payment_method": "card"}),
        "crm": ("GET", stack.crm("/api/customers"), crm_auth, None),
        "graphql": ("POST", stack.main("/graphql"), auth, {"query": VIEWER}),
        "graphql mutation": ("POST", stack.main("/graphql"), auth, {"query": CREATE, "variables": {
            "input": {"amount": 1000, "currency": "TRY", "paymentMethod": "card"}}}),
        "crm graphql": ("POST", stack.crm("/graphql"), crm_auth, {"query": "{ crm { customers(first: 1) { totalCount } } }"}),
    }
    out = {}
    for name, (method, url, headers, body) in calls.items():
        async with stack.http.request(method, url, headers=headers, json=body) as r:
            out[name] = (r.status, r.headers.copy(), await r.json(content_type=None))
    return out


def _assert_unavailable(answers: dict[str, tuple[int, CIMultiDict, dict]]) -> None:
    for name, (status, headers, body) in answers.items():
        assert status == 503, (name, status, body)
        assert int(headers["Retry-After"]) >= 1, name
        if "graphql" in name:
            (err,) = body["errors"]
            assert err["extensions"]["code"] == "service_unavailable", (name, body)
            assert err["extensions"]["status"] == 503
            assert err["extensions"]["request_id"] == headers["X-Request-Id"]
            assert err["message"] == "Service temporarily unavailable"
        else:
            error = body["error"]
            assert {k: error[k] for k in ("type", "code", "message", "param")} == {
                "type": "api_error", "code": "service_unavailable",
                "message": "Service temporarily unavailable", "param": None}, (name, body)
            assert error["request_id"] == headers["X-Request-Id"], name


def _assert_served(answers: dict[str, tuple[int, CIMultiDict, dict]]) -> None:
    for name, (status, _, body) in answers.items():
        assert status in (200, 201), (name, status, body)
        if "graphql" in name:
            assert "errors" not in body, (name, body)


async def _health(stack: Stack) -> tuple[int, dict]:
    async with stack.http.get(stack.main("/health")) as r:
        return r.status, await r.json()


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="the embedded store lives in the process: it cannot go away")
async def test_redis_down_answers_503_everywhere_and_recovers(stack):
    sk, token = await _merchant_key(), await _crm_token(stack)
    _assert_served(await _requests(stack, sk, token))

    await stack.kv.down()
    _assert_unavailable(await _requests(stack, sk, token))
    assert await _health(stack) == (503, {"status": "degraded", "database": "ok", "kv": "down"})

    await stack.kv.up()
    _assert_served(await _requests(stack, sk, token))      # the very first requests: no restart, no retry
    assert await _health(stack) == (200, {"status": "ok", "database": "ok", "kv": "ok"})


@pytest.mark.skipif(not os.environ.get("DATABASE_URL", "").startswith("postgres"),
                    reason="SQLite is a file, not a server that can go away (its lock timeout is tested below)")
async def test_postgresql_down_answers_503_everywhere_and_recovers(stack):
    sk, token = await _merchant_key(), await _crm_token(stack)
    _assert_served(await _requests(stack, sk, token))

    await stack.db.down()
    _assert_unavailable(await _requests(stack, sk, token))
    assert (await _health(stack))[1]["database"] == "down"

    await stack.db.up()
    _assert_served(await _requests(stack, sk, token))
    assert await _health(stack) == (200, {"status": "ok", "database": "ok", "kv": "ok"})


@pytest.mark.skipif(not os.environ.get("DATABASE_URL", "").startswith("postgres"),
                    reason="PostgreSQL connections only")
async def test_postgresql_lost_in_the_middle_of_requests_is_503_not_500(stack):
    """The connections drop while requests are running (not only between them)."""
    sk = await _merchant_key()
    auth = {"Authorization": f"Bearer {sk}"}

    async def create(i: int) -> tuple[int, CIMultiDict, dict]:
        async with stack.http.post(stack.main("/v1/payments/intent"), headers=auth,
                                   json={"amount": 1000 + i, "currency": "TRY", "payment_method": "card"}) as r:
            return r.status, r.headers.copy(), await r.json(content_type=None)
    running = [asyncio.ensure_future(create(i)) for i in range(20)]
    await stack.db.next_request()            # a query is on its way to PostgreSQL: cut it now
    await stack.db.down()
    answers = await asyncio.gather(*running)
    for status, headers, body in answers:
        assert status in (201, 503), body
        if status == 503:
            assert headers["Retry-After"] and body["error"]["code"] == "service_unavailable"
    assert any(status == 503 for status, _, _ in answers)
    await stack.db.up()
    status, _, body = await create(99)
    assert status == 201, body


async def test_sqlite_writer_lock_past_the_busy_timeout_is_503_busy(base_settings, clock, tmp_path):
    """SQLite's outage: another writer holds the database lock longer than the busy timeout."""
    if not base_settings.sqlite:
        pytest.skip("SQLite only")
    path = base_settings.database_url[len("sqlite://"):].split("?", 1)[0]
    settings = replace(base_settings, database_url=f"sqlite://{path}?busy_timeout=200")   # a short wall-clock wait
    backend = Backend(settings, clock=clock)
    await backend.start()
    servers = await start_servers(settings, backend, port=0, crm_port=0)
    sk = await _merchant_key()
    url = f"http://127.0.0.1:{servers.main_port}/v1/payments/intent"
    body = {"amount": 1000, "currency": "TRY", "payment_method": "card"}
    locker = sqlite3.connect(path, timeout=5)
    try:
        async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {sk}"}) as http:
            locker.execute("BEGIN EXCLUSIVE")
            try:
                async with http.post(url, json=body) as r:
                    assert r.status == 503, await r.text()
                    assert r.headers["Retry-After"] == str(faults.RETRY_AFTER_BUSY)
                    assert (await r.json())["error"]["code"] == "service_unavailable"
            finally:
                locker.rollback()
            async with http.post(url, json=body) as r:
                assert r.status == 201, await r.text()
    finally:
        locker.close()
        await servers.close()
        await backend.stop()


@pytest.mark.parametrize("exc, kind", [
    (redis_errors.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused."), "down"),
    (redis_errors.ConnectionError("No connection available."), "busy"),
    (redis_errors.TimeoutError("Timeout reading from socket"), "down"),
    (PoolTimeout("PostgreSQL", 5), "busy"),
    (ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 5432)"), "down"),
    (ServiceUnavailable("Service temporarily unavailable"), "down"),
    (ServiceUnavailable("Messaging is not configured", code="messaging_not_configured"), None),
    (ValueError("a bug"), None),
    (FileNotFoundError(2, "No such file"), None),
    (KeyError("x"), None),
])
def test_one_place_decides_what_an_outage_is(exc, kind):
    assert faults.classify(exc) == kind
    wrapped = RuntimeError("wrapper")
    wrapped.__cause__ = exc
    assert faults.classify(wrapped) == kind          # also when the ORM or a library wrapped it
    assert faults.classify(ExceptionGroup("g", [ValueError(), exc])) == kind
