"""Rate limits, idempotency, bad input, unexpected errors, CORS."""
import asyncio
import logging
import os

import pytest

from services import idempotency
from services.errors import DomainError, IdempotencyConflict, PaymentDeclined
from services.principal import Principal
from tests.conftest import bearer, gql


# ------------------------------------------------------------------ rate limits

async def test_the_101st_request_in_a_minute_is_429_and_another_credential_is_unaffected(client, merchant, make_merchant):
    for i in range(100):
        resp = await client.get("/api/api-keys?limit=1", headers=bearer(merchant.sk))
        assert resp.status == 200, i
        assert resp.headers["X-RateLimit-Limit"] == "100"
        assert resp.headers["X-RateLimit-Remaining"] == str(99 - i)
    resp = await client.get("/api/api-keys", headers=bearer(merchant.sk))
    assert resp.status == 429
    err = (await resp.json())["error"]
    assert err["message"] == "Rate limit exceeded (100/min)" and err["code"] == "rate_limit_exceeded"
    assert 1 <= int(resp.headers["Retry-After"]) <= 60
    assert resp.headers["X-RateLimit-Remaining"] == "0"

    other = await make_merchant()
    assert (await client.get("/api/api-keys", headers=bearer(other.sk))).status == 200
    # GraphQL shares the caller's bucket
    status, body = await gql(client, "{ viewer { id } }", key=merchant.sk)
    assert status == 429 and body["errors"][0]["extensions"]["code"] == "rate_limit_exceeded"


async def test_the_window_resets_after_a_minute(client, merchant, clock):
    clock.set(clock.now().replace(second=0, microsecond=0))
    for _ in range(100):
        await client.get("/api/api-keys?limit=1", headers=bearer(merchant.sk))
    assert (await client.get("/api/api-keys", headers=bearer(merchant.sk))).status == 429
    clock.advance(seconds=60)
    assert (await client.get("/api/api-keys", headers=bearer(merchant.sk))).status == 200


async def test_rate_limit_counts_atomically_under_concurrency(client, merchant):
    results = await asyncio.gather(*[client.get("/api/api-keys?limit=1", headers=bearer(merchant.sk))
                                     for _ in range(120)])
    statuses = sorted(r.status for r in results)
    assert statuses.count(200) == 100 and statuses.count(429) == 20


# ------------------------------------------------------------------ idempotency guard

P = Principal(merchant_id="mer_idem", livemode=False, kind="secret", key_id="key_idem")


@pytest.fixture
async def idem_merchant(client, clock):
    """Keys are stored with their merchant (a foreign key): the principal above names a real one."""
    from models.core import Merchant
    await Merchant.get_or_create(id="mer_idem", defaults={"email": "idem@example.com", "name": "Idem",
                                                          "created_at": clock.now()})


RUN = os.urandom(4).hex()     # keys are durable: a run on the same database must not meet old ones


async def _run(key, params, execute, principal=P):
    if key and len(key) < 200:
        key = f"{RUN}-{key}"
    async def decode(stored):
        return {"replayed": stored}
    return await idempotency.run(principal=principal, operation="test.op", key=key, params=params,
                                 execute=execute, encode=lambda r: r["id"], decode=decode)


async def test_idempotency_replays_the_first_outcome(client, idem_merchant):
    calls = []

    async def execute():
        calls.append(1)
        return {"id": f"obj_{len(calls)}"}
    first = await _run("k-1", {"amount": 100}, execute)
    second = await _run("k-1", {"amount": 100}, execute)
    assert first == {"id": "obj_1"} and second == {"replayed": "obj_1"} and len(calls) == 1
    # another mode, merchant or key is another slot
    other = Principal(merchant_id="mer_idem", livemode=True, kind="secret", key_id="key_live")
    assert await _run("k-1", {"amount": 100}, execute, principal=other) == {"id": "obj_2"}
    assert await _run(None, {"amount": 100}, execute) == {"id": "obj_3"}


async def test_idempotency_conflict_on_other_parameters(client, idem_merchant):
    async def execute():
        return {"id": "obj_a"}
    await _run("k-2", {"amount": 100}, execute)
    with pytest.raises(IdempotencyConflict) as e:
        await _run("k-2", {"amount": 101}, execute)
    assert e.value.status == 409 and e.value.code == "idempotency_conflict"


async def test_idempotency_in_flight_request_is_409_and_stores_nothing(client, idem_merchant):
    started, release = asyncio.Event(), asyncio.Event()

    async def slow():
        started.set()
        await release.wait()
        return {"id": "obj_slow"}
    first = asyncio.create_task(_run("k-3", {"a": 1}, slow))
    await started.wait()
    with pytest.raises(IdempotencyConflict) as e:
        await _run("k-3", {"a": 1}, slow)
    assert "still being processed" in e.value.message and e.value.headers == {"Retry-After": "1"}
    release.set()
    assert await first == {"id": "obj_slow"}
    assert await _run("k-3", {"a": 1}, slow) == {"replayed": "obj_slow"}


@pytest.mark.skipif(not os.environ.get("DATABASE_URL", "").startswith("postgres"), reason="PostgreSQL row locks")
async def test_idempotency_key_held_by_another_process_is_409_and_the_claim_restores_lock_timeout(
        client, idem_merchant):
    """Another process holds the key (its claim not yet committed): this one waits at most
    IN_FLIGHT_WAIT on the row, answers 409 and stores nothing; once the holder is gone the key
    runs. Inside a claimed operation lock_timeout is the session's again (the claim sets and
    resets it in its one statement), so the operation's own writes wait as they always did."""
    import asyncpg

    from models.idempotency import IdempotencyKey
    from services.infra.runtime import runtime

    key = f"{RUN}-held"
    row_id = idempotency._row_id(P, "test.op", key)
    holder = await asyncpg.connect(os.environ["DATABASE_URL"])
    try:
        default = await holder.fetchval("SHOW lock_timeout")     # the session's own value
        tx = holder.transaction()
        await tx.start()
        await holder.execute(
            'INSERT INTO "idempotency_keys" ("id", "merchant_id", "livemode", "operation", "key", "fingerprint", '
            '"outcome", "created_at") VALUES ($1, $2, $3, $4, $5, $6, NULL, $7)', row_id, P.merchant_id,
            P.livemode, "test.op", key, idempotency.fingerprint({"a": 1}), runtime().clock.now())

        async def never():
            raise AssertionError("the operation ran while another process held its key")
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        with pytest.raises(IdempotencyConflict) as e:
            await _run("held", {"a": 1}, never)
        assert "still being processed" in e.value.message and loop.time() - t0 < 5
        await tx.rollback()       # the holder crashed before its commit: nothing of it stays
    finally:
        await holder.close()
    seen = []

    async def ok():
        seen.append((await IdempotencyKey._meta.db.execute_query_dict("SHOW lock_timeout"))[0]["lock_timeout"])
        return {"id": "obj_held"}
    assert await _run("held", {"a": 1}, ok) == {"id": "obj_held"}
    assert await _run("held", {"a": 1}, ok) == {"replayed": "obj_held"}
    assert seen == [default] and default != idempotency.IN_FLIGHT_WAIT


async def test_idempotency_replays_a_domain_error_but_not_an_unexpected_one(client, idem_merchant):
    async def decline():
        raise PaymentDeclined("Card declined")
    for _ in range(2):
        with pytest.raises(DomainError) as e:
            await _run("k-4", {"a": 1}, decline)
        assert e.value.status == 402 and e.value.code == "payment_declined" and e.value.type == "card_error"

    async def boom():
        raise RuntimeError("database went away")

    async def ok():
        return {"id": "obj_retry"}
    with pytest.raises(RuntimeError):
        await _run("k-5", {"a": 1}, boom)
    assert await _run("k-5", {"a": 1}, ok) == {"id": "obj_retry"}


async def test_idempotency_key_must_be_sane(client, idem_merchant):
    async def execute():
        return {"id": "x"}
    with pytest.raises(DomainError) as e:
        await _run("k" * 256, {}, execute)
    assert e.value.param == "idempotency_key"


# ------------------------------------------------------------------ bad input

@pytest.mark.parametrize("raw,param", [
    (b'{"name": "x"', None),                      # malformed JSON
    (b'[1, 2]', None),                            # not an object
    (b'"text"', None),
    (b'{"name": 123}', "name"),                   # wrong type
    (b'{"name": "' + b"x" * 101 + b'"}', "name"),  # over-long string
    (b'{"mode": "staging"}', "mode"),             # unknown enum value
    (b'{"type": ["secret"]}', "type"),
    (b'{"nmae": "typo"}', "nmae"),                # unknown field
    (b'{"name": "a\\u0000b"}', "name"),
])
async def test_bad_bodies_are_400_naming_the_field(client, merchant, raw, param):
    resp = await client.post("/api/api-keys", data=raw, headers={**bearer(merchant.sk), "Content-Type": "application/json"})
    assert resp.status == 400
    err = (await resp.json())["error"]
    assert err["message"] == "Invalid request body"
    assert err["param"] == param
    assert err["detail"]


@pytest.mark.parametrize("query", ["limit=-1", "limit=0", "limit=101", "limit=99999999999999999999999",
                                   "limit=abc", "starting_after=key_nothere"])
async def test_bad_query_parameters_are_400(client, merchant, query):
    resp = await client.get(f"/api/api-keys?{query}", headers=bearer(merchant.sk))
    assert resp.status == 400
    assert (await resp.json())["error"]["param"] in ("limit", "starting_after")


def test_integer_checks_refuse_negative_huge_and_non_integers():
    from services.errors import ValidationError
    from services.validation import Fields
    for value in (-1, 10**16, "5", True, 1.5, None):
        with pytest.raises(ValidationError) as e:
            Fields({"amount": value}).int("amount", required=True, min=1)
        assert e.value.param == "amount"
    assert Fields({"amount": 5.0}).int("amount") == 5


async def test_unknown_paths_and_methods(client, merchant):
    resp = await client.get("/api/nothing-here", headers=bearer(merchant.sk))
    assert resp.status == 404 and (await resp.json())["error"]["message"] == "Resource not found"
    resp = await client.delete("/api/api-keys", headers=bearer(merchant.sk))
    assert resp.status == 405 and (await resp.json())["error"]["code"] == "method_not_allowed"


async def test_unexpected_error_is_500_with_request_id_and_no_traceback(client, merchant, monkeypatch, caplog):
    from services.identity import api_keys

    async def broken(**kw):
        raise RuntimeError("secret internals sk_test_should_not_leak")
    monkeypatch.setattr(api_keys, "list_api_keys", broken)
    with caplog.at_level(logging.ERROR):
        resp = await client.get("/api/api-keys", headers=bearer(merchant.sk))
    assert resp.status == 500
    body = await resp.json()
    text = await resp.text()
    assert body["error"]["message"] == "Internal server error"
    rid = body["error"]["request_id"]
    assert rid and resp.headers["X-Request-Id"] == rid
    assert "Traceback" not in text and "sk_test_should_not_leak" not in text
    assert any(rid in r.getMessage() for r in caplog.records)


async def test_graphql_unexpected_error_is_masked(client, merchant, monkeypatch):
    from services.identity import merchants

    async def broken(**kw):
        raise RuntimeError("boom")
    monkeypatch.setattr(merchants, "get_viewer", broken)
    _, body = await gql(client, "{ viewer { id } }", key=merchant.sk)
    assert body["errors"][0]["message"] == "Internal server error"
    assert body["errors"][0]["extensions"]["code"] == "internal_error"
    assert body["errors"][0]["extensions"]["request_id"]


async def test_graphql_alias_and_token_limits(client, merchant):
    aliases = "{ " + " ".join(f"a{i}: viewer {{ id }}" for i in range(40)) + " }"
    _, body = await gql(client, aliases, key=merchant.sk)
    assert body["data"] is None and "aliases" in body["errors"][0]["message"].lower()
    q = "fragment F on Query { apiKeys { edges { node { id } } } } query { ...F }"
    _, body = await gql(client, q, key=merchant.sk)
    assert "errors" not in body
    huge = "{ " + " ".join("viewer { id email name createdAt livemode }" for _ in range(800)) + " }"
    _, body = await gql(client, huge, key=merchant.sk)
    assert body["data"] is None and "token" in body["errors"][0]["message"].lower()


async def test_graphiql_is_served_outside_production(client):
    resp = await client.get("/graphql", headers={"Accept": "text/html"})
    assert resp.status == 200 and "graphiql" in (await resp.text()).lower()


# ------------------------------------------------------------------ CORS

async def test_cors_preflight_on_graphql_and_v1(client):
    for path in ("/graphql", "/v1/payments/intent"):
        resp = await client.options(path, headers={"Origin": "https://shop.example.com",
                                                    "Access-Control-Request-Method": "POST",
                                                    "Access-Control-Request-Headers": "Authorization, Content-Type"})
        if path.startswith("/v1") and resp.status == 404:
            pytest.skip("no /v1 routes mounted yet")
        assert resp.status == 200, path
        assert resp.headers["Access-Control-Allow-Origin"] in ("*", "https://shop.example.com")
        assert "POST" in resp.headers["Access-Control-Allow-Methods"]


async def test_a_cross_origin_answer_carries_the_cors_headers_and_a_server_call_none(client, merchant):
    body = {"amount": 1000, "currency": "TRY", "payment_method": "card"}
    resp = await client.post("/v1/payments/intent", json=body,
                             headers={**bearer(merchant.sk), "Origin": "https://shop.example.com"})
    assert resp.status == 201
    assert resp.headers["Access-Control-Allow-Origin"] in ("*", "https://shop.example.com")
    exposed = {h.strip() for h in resp.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"X-Request-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining"} <= exposed
    resp = await client.post("/v1/payments/intent", json=body, headers=bearer(merchant.sk))
    assert resp.status == 201
    assert not [h for h in resp.headers if h.lower().startswith("access-control-")]
    resp = await client.post("/graphql", json={"query": "{ __typename }"},
                             headers={**bearer(merchant.sk), "Origin": "https://shop.example.com"})
    assert resp.headers["Access-Control-Allow-Origin"] in ("*", "https://shop.example.com")


async def test_cors_in_production_allows_only_listed_origins(aiohttp_client, settings, clock):
    from dataclasses import replace

    from app.server import create_app
    prod = replace(settings, env="production", cors_origins=["https://app.qafila.example"])
    client = await aiohttp_client(create_app(prod, clock=clock))
    pre = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "Content-Type"}
    resp = await client.options("/graphql", headers={"Origin": "https://app.qafila.example", **pre})
    assert resp.status == 200 and resp.headers["Access-Control-Allow-Origin"] == "https://app.qafila.example"
    resp = await client.options("/graphql", headers={"Origin": "https://evil.example", **pre})
    assert "Access-Control-Allow-Origin" not in resp.headers
    # and no GraphiQL or introspection in production
    resp = await client.get("/graphql", headers={"Accept": "text/html"})
    assert "graphiql" not in (await resp.text()).lower()
    _, body = await gql(client, "{ __schema { types { name } } }")
    assert body.get("errors")
