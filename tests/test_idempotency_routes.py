"""Every keyed POST of /api and /v1 is exactly once: `Idempotency-Key` or `X-Idempotency-Key`,
the answer stored with the route's writes and replayed; secrets are never stored, so a replay
answers without them; a failure that wrote nothing stores nothing."""
from __future__ import annotations

from models.core import ApiKey
from models.idempotency import IdempotencyKey
from models.payments import Customer
from tests.conftest import bearer


async def _post(client, key, path, body, **headers):
    r = await client.post(path, json=body, headers={**bearer(key), **headers})
    return r.status, await r.json()


async def test_a_keyed_customer_create_is_replayed_not_repeated(client, merchant):
    body = {"email": "amina@example.com", "name": "Amina"}
    s1, a = await _post(client, merchant.sk, "/api/customers", body, **{"Idempotency-Key": "cus-1"})
    s2, b = await _post(client, merchant.sk, "/api/customers", body, **{"X-Idempotency-Key": "cus-1"})
    assert s1 == s2 == 200 and a == b
    assert await Customer.filter(merchant_id=merchant.id).count() == 1
    s3, c = await _post(client, merchant.sk, "/api/customers", {**body, "name": "Other"},
                        **{"Idempotency-Key": "cus-1"})
    assert s3 == 409 and c["error"]["code"] == "idempotency_conflict"
    # without a key, the same body is a second customer
    s4, d = await _post(client, merchant.sk, "/api/customers", body)
    assert s4 == 200 and d["id"] != a["id"]


async def test_a_replayed_api_key_creation_never_shows_the_key_again(client, merchant):
    s1, a = await _post(client, merchant.sk, "/api/api-keys", {"name": "ci", "mode": "test"},
                        **{"Idempotency-Key": "key-1"})
    s2, b = await _post(client, merchant.sk, "/api/api-keys", {"name": "ci", "mode": "test"},
                        **{"Idempotency-Key": "key-1"})
    assert s1 == s2 == 200 and a["key"].startswith("sk_test_")
    assert "key" not in b and b["id"] == a["id"] and b["prefix"] == a["prefix"]
    assert await ApiKey.filter(merchant_id=merchant.id, name="ci").count() == 1
    stored = [r.outcome for r in await IdempotencyKey.filter(merchant_id=merchant.id)]
    assert stored and a["key"] not in repr(stored)


async def test_a_refused_keyed_request_stores_its_refusal_and_another_tenant_has_its_own_keys(
        client, merchant, make_merchant):
    s1, e1 = await _post(client, merchant.sk, "/api/customers", {"email": "not-an-email"},
                         **{"Idempotency-Key": "bad-1"})
    s2, e2 = await _post(client, merchant.sk, "/api/customers", {"email": "not-an-email"},
                         **{"Idempotency-Key": "bad-1"})
    assert s1 == s2 == 400 and e1["error"]["param"] == e2["error"]["param"] == "email"
    other = await make_merchant()
    s3, c = await _post(client, other.sk, "/api/customers", {"email": "x@example.com"},
                        **{"Idempotency-Key": "bad-1"})
    assert s3 == 200 and c["email"] == "x@example.com"
    assert await Customer.filter(merchant_id=merchant.id).count() == 0


async def test_an_over_long_key_is_a_400_naming_it(client, merchant):
    s, e = await _post(client, merchant.sk, "/api/customers", {"email": "a@example.com"},
                       **{"Idempotency-Key": "k" * 256})
    assert s == 400 and e["error"]["param"] == "Idempotency-Key"
    assert await Customer.filter(merchant_id=merchant.id).count() == 0
