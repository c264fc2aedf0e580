"""Helpers for the billing tests: customers with or without a saved card, the test clock."""
from __future__ import annotations

from tests.helpers import bearer
from tests.payments_fixtures import APPROVED, card

DUNNING = "4000000000000341"


async def call(client, method: str, path: str, key: str, body: dict | None = None):
    r = await client.request(method, path, json=body, headers=bearer(key))
    return r.status, await r.json()


async def customer(client, key: str, *, email: str | None = "buyer@example.com", phone: str | None = None,
                   name: str = "Buyer", saved_card: str | None = APPROVED, currency: str = "TRY",
                   metadata: dict | None = None) -> str:
    """A customer; with `saved_card`, one successful payment with that card saves it."""
    body = {"name": name, "email": email, "phone": phone}
    if metadata:
        body["metadata"] = metadata
    status, c = await call(client, "POST", "/api/customers", key, {k: v for k, v in body.items() if v is not None})
    assert status == 200, c
    if saved_card:
        amount = {"KWD": 1000, "IQD": 250000}.get(currency, 1000)
        status, p = await call(client, "POST", "/api/payments/create", key,
                               {"amount": amount, "currency": currency, "payment_method": card(saved_card),
                                "customer_id": c["id"]})
        assert status == 200, p
    return c["id"]


async def subscribe(client, key: str, customer_id: str, *, expect: int = 200, **body):
    body = {"customer_id": customer_id, "plan": "Pro", "amount": 9900, "currency": "TRY", "interval": "month",
            **body}
    status, s = await call(client, "POST", "/api/subscriptions", key, body)
    assert status == expect, s
    return s


async def advance(client, key: str, expect: int = 200, **body):
    status, out = await call(client, "POST", "/api/test-helpers/advance-clock", key, body)
    assert status == expect, out
    if status == 200:
        # Settlements, payouts and disputes run on the same clock; billing tests look at billing's jobs.
        out["ran"] = [r for r in out["ran"] if r["kind"].startswith("subscription.")]
    return out
