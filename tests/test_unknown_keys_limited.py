"""Issue 35, "Hardening": a request with an API key that no merchant has is limited per client
address (like the one-time-password requests). Each unknown key costs a database read; beyond
the limit the address's 401s answer 429 with Retry-After, without reading the database, until
the window ends. A known key is never slowed by another address's guesses."""
from __future__ import annotations

import os

import aiohttp
import pytest

from services.identity import api_keys
from tests.conftest import bearer
from tests.payments_fixtures import count_statements

LIMIT = api_keys.UNKNOWN_KEYS.limit          # 20 per 10 minutes
MESSAGE = "Rate limit exceeded (20/10min)"


def unknown_key() -> str:
    return "sk_test_" + os.urandom(16).hex()


@pytest.fixture
async def elsewhere(client):
    """Requests from another client address (127.0.0.2: a different `request.remote`)."""
    session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=("127.0.0.2", 0)))

    async def get(path: str, key: str, **kw):
        return await session.get(client.make_url(path), headers=bearer(key), **kw)

    async def post(path: str, key: str, **kw):
        return await session.post(client.make_url(path), headers=bearer(key), **kw)
    yield get, post
    await session.close()


async def test_an_address_guessing_keys_gets_429_beyond_the_limit_and_costs_no_read(client, merchant, backend,
                                                                                    clock, elsewhere):
    get, _ = elsewhere
    assert LIMIT == 20 and api_keys.UNKNOWN_KEYS.window == 600
    with count_statements() as reads:
        for _ in range(LIMIT):
            r = await get("/api/api-keys", unknown_key())
            assert r.status == 401 and (await r.json())["error"]["message"] == "Invalid API key"
    assert len(reads) == LIMIT                                    # one read per unknown key, no more
    with count_statements() as reads:
        r = await get("/api/api-keys", unknown_key())
        body = await r.json()
    assert r.status == 429 and reads == [], body
    assert (body["error"]["code"], body["error"]["message"], body["error"]["param"]) == \
        ("rate_limit_exceeded", MESSAGE, None)
    assert body["error"]["detail"].startswith(f"{MESSAGE}: too many unknown API keys from this address (limit "
                                              f"20 per 10 minutes); retry after ")
    assert 0 < int(r.headers["Retry-After"]) <= 600
    # the same on /v1 and GraphQL, from that address
    r = await get("/v1/payments", unknown_key())
    body = await r.json()
    assert (r.status, body["error"]["code"], body["error"]["message"]) == (429, "rate_limit_exceeded", MESSAGE)
    assert int(r.headers["Retry-After"]) > 0
    _, post = elsewhere
    r = await post("/graphql", unknown_key(), json={"query": "{ apiKeys(first: 1) { totalCount } }"})
    body = await r.json()
    assert r.status == 429 and int(r.headers["Retry-After"]) > 0, body
    assert body["errors"][0]["message"] == MESSAGE and body["errors"][0]["extensions"]["code"] == "rate_limit_exceeded"
    # the window ends: the address is served again (its unknown keys are 401 again)
    clock.advance(seconds=int(r.headers["Retry-After"]))
    r = await get("/api/api-keys", unknown_key())
    assert r.status == 401


async def test_a_known_key_is_never_slowed_by_another_addresss_guesses(client, merchant, backend, elsewhere):
    get, _ = elsewhere
    for _ in range(LIMIT + 3):
        await get("/api/api-keys", unknown_key())
    assert (await get("/api/api-keys", unknown_key())).status == 429
    # the merchant's key from its own address, even when it must be read from the database
    await backend.runtime.kv.delete(api_keys._cache_slot(api_keys.key_hash(merchant.sk)))
    r = await client.get("/api/api-keys", headers=bearer(merchant.sk))
    assert r.status == 200, await r.text()
    r = await client.get("/v1/payments", headers=bearer(merchant.sk))
    assert r.status == 200
    # this address's own unknown keys have their own budget: a plain 401
    r = await client.get("/api/api-keys", headers=bearer(unknown_key()))
    assert r.status == 401 and (await r.json())["error"]["message"] == "Invalid API key"
    # a known key counts nothing against an address: the guessing address itself still uses a known
    # key it holds (cached), and many known-key requests never make an address's unknown key a 429
    r = await get("/api/api-keys", merchant.sk)
    assert r.status == 200
    for _ in range(LIMIT + 5):
        assert (await client.get("/api/api-keys", headers=bearer(merchant.sk))).status == 200
    assert (await client.get("/api/api-keys", headers=bearer(unknown_key()))).status == 401


async def test_malformed_keys_and_revoked_keys_cost_no_read_and_are_not_counted(client, merchant, elsewhere):
    get, _ = elsewhere
    new = await (await client.post("/api/api-keys", json={"name": "old"}, headers=bearer(merchant.sk))).json()
    await client.put(f"/api/api-keys/{new['id']}/revoke", headers=bearer(merchant.sk))
    for _ in range(LIMIT + 5):
        assert (await get("/api/api-keys", "sk_nope")).status == 401         # not a key's form: no read
        assert (await get("/api/api-keys", new["key"])).status == 401        # revoked: its tombstone, no read
    assert (await get("/api/api-keys", unknown_key())).status == 401         # the budget is untouched
