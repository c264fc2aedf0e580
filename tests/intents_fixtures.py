"""Helpers for the /v1 payment-intent tests."""
from __future__ import annotations

from models.core import Merchant
from tests.helpers import bearer

RETURN_URL = "https://merchant.example.com/return"


async def create(client, key, *, expect=201, headers=None, **body):
    body.setdefault("amount", 10000)
    body.setdefault("currency", "TRY")
    body.setdefault("payment_method", "card")
    r = await client.post("/v1/payments/intent", json=body, headers={**bearer(key), **(headers or {})})
    data = await r.json()
    assert r.status == expect, data
    return data


async def confirm(client, key, intent_id, *, expect=200, headers=None, **body):
    r = await client.post(f"/v1/payments/{intent_id}/confirm", json=body, headers={**bearer(key), **(headers or {})})
    data = await r.json()
    assert r.status == expect, data
    return data


async def get(client, key, intent_id, *, expect=200, **query):
    r = await client.get(f"/v1/payments/{intent_id}", params=query, headers=bearer(key))
    data = await r.json()
    assert r.status == expect, data
    return data


async def post(client, key, path, body=None, *, expect=200):
    r = await client.post(path, json=body or {}, headers=bearer(key))
    data = await r.json()
    assert r.status == expect, data
    return data


async def set_country(merchant_id: str, country: str) -> None:
    """As PUT /api/merchant does it: the country, and the process's cached market forgotten."""
    from services.money import markets
    await Merchant.filter(id=merchant_id).update(country=country)
    markets.forget(merchant_id)


def err(data) -> tuple:
    e = data["error"]
    return e["code"], e["param"]
