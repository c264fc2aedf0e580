"""Issue 26, the intent create and list: the cheaper ways of building an intent's answer give the
same bytes as before (the client_secret's HMAC, the create's object built once), and the list
counter's slots spread evenly while the total stays exact."""
from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections import Counter

from models.core import ListCount
from models.events import Event
from models._rows import COUNTER_SLOTS, counter_slot
from services.ids import new_id
from services.infra.runtime import runtime
from services.money.currencies import CURRENCIES, LIMITS
from services.payments import intents
from tests.conftest import bearer, gql
from tests.intents_fixtures import create, get

ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
CREATE = """mutation($input: PaymentIntentCreateInput!) {
  paymentIntentCreate(input: $input) { paymentIntent { id clientSecret checkoutUrl createdAt expiresAt netAmount
    fee { amount rate } } userErrors { code field } } }"""


def _amount(currency: str) -> int:
    return min(max(LIMITS[currency].minimum, 10000), LIMITS[currency].maximum)


def _hmac_reference(secret: str, purpose: str, intent_id: str, n: int) -> str:
    """What `_sign` answered before: the standard library's HMAC-SHA256."""
    return hmac.new(secret.encode(), f"{purpose}:{intent_id}".encode(), hashlib.sha256).hexdigest()[:n]


async def test_signatures_are_the_standard_hmac_for_every_key_length(client, monkeypatch):
    # Keys shorter than, equal to and longer than SHA-256's 64-byte block, and a non-ASCII one.
    secrets = ["k", "b" * 63, "b" * 64, "c" * 65, "x" * 200, "ключ-مفتاح-" * 5, os.urandom(24).hex()]
    ids = [new_id("pay") for _ in range(50)] + ["pay_", "pay_" + "z" * 36, "pay_üñí"]
    for secret in secrets:
        monkeypatch.setattr(runtime().config, "secret_key", secret)
        for intent_id in ids:
            for purpose, n in (("client_secret", 24), ("3ds:1", 32), ("knet-page", 32)):
                assert intents._sign(purpose, intent_id, n) == _hmac_reference(secret, purpose, intent_id, n)


async def test_the_create_answers_its_event_object_and_what_a_read_answers_in_every_currency(client, merchant):
    for currency in CURRENCIES:
        made = await create(client, merchant.sk, amount=_amount(currency), currency=currency,
                            metadata={"n": currency}, description="same bytes")
        read = await get(client, merchant.sk, made["id"])
        event = await Event.filter(object_id=made["id"], type="payment.created").first()
        assert json.dumps(made, sort_keys=True) == json.dumps(read, sort_keys=True)
        assert event.data == made
        secret = runtime().config.secret_key
        assert made["client_secret"] == f"{made['id']}_secret_{_hmac_reference(secret, 'client_secret', made['id'], 24)}"
        assert made["created_at"].endswith("Z") and len(made["created_at"]) == 24


async def test_the_list_shows_each_intent_as_its_read_does(client, merchant):
    made = [await create(client, merchant.sk, amount=_amount(c), currency=c) for c in CURRENCIES]
    r = await client.get("/v1/payments", params={"limit": "100"}, headers=bearer(merchant.sk))
    page = await r.json()
    assert r.status == 200 and page["total_count"] == len(made)
    for row in page["data"]:
        assert row == await get(client, merchant.sk, row["id"])


async def test_graphql_create_answers_what_rest_reads(client, merchant):
    status, body = await gql(client, CREATE, {"input": {"amount": 25000, "currency": "KWD", "paymentMethod": "card"}},
                             key=merchant.sk)
    assert status == 200 and body["data"]["paymentIntentCreate"]["userErrors"] == [], body
    got = body["data"]["paymentIntentCreate"]["paymentIntent"]
    read = await get(client, merchant.sk, got["id"])
    assert got["clientSecret"] == read["client_secret"] and got["checkoutUrl"] == read["checkout_url"]
    assert got["createdAt"] == read["created_at"] and got["expiresAt"] == read["expires_at"]
    assert got["netAmount"] == read["net_amount"] and got["fee"]["amount"] == read["fee"]["amount"]


async def test_an_idempotent_replay_answers_the_first_create_byte_for_byte(client, merchant):
    headers = {"X-Idempotency-Key": "shape-replay-1"}
    first = await create(client, merchant.sk, headers=headers, currency="BHD", amount=_amount("BHD"))
    again = await create(client, merchant.sk, headers=headers, currency="BHD", amount=_amount("BHD"), expect=201)
    assert json.dumps(first, sort_keys=True) == json.dumps(again, sort_keys=True)


def test_counter_slots_spread_evenly_over_the_id_characters():
    # Every pair of last characters of a random id: each slot takes 240 or 241 of the 3,844.
    spread = Counter(counter_slot(f"pay_{'x' * 22}{a}{b}") for a in ALPHABET for b in ALPHABET)
    assert set(spread) == set(range(COUNTER_SLOTS))
    assert min(spread.values()) >= 240 and max(spread.values()) <= 241
    # The old slot, ord(last) % 16, gave some slots 5 of the 62 characters and others 2.
    assert max(Counter(ord(c) % 16 for c in ALPHABET).values()) == 5
    # Any other id still has a slot in range, the same each time.
    for odd in ("a", "pay_", "pay_ü", "x_-"):
        assert 0 <= counter_slot(odd) < COUNTER_SLOTS and counter_slot(odd) == counter_slot(odd)


async def test_the_list_total_is_exact_over_the_slots(client, merchant):
    n = 40
    made = [(await create(client, merchant.sk))["id"] for _ in range(n)]
    rows = await ListCount.filter(merchant_id=merchant.id, kind="intents")
    assert sum(r.n for r in rows) == n
    assert {r.slot for r in rows} == {counter_slot(i) for i in made}
    assert len(rows) > 1                      # 40 random ids over 16 slots: never all in one
    r = await client.get("/v1/payments", params={"limit": "1"}, headers=bearer(merchant.sk))
    assert (await r.json())["total_count"] == n
