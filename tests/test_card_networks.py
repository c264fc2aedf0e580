"""Issue 43, item 4: `card.networks` is always the card's list -- `["visa"]`, `["mastercard"]`,
`["mada"]`, `["mada", "visa"]` -- on `/api` payments (create, read, list, the webhook), `/v1`
payment methods and `payment_method_details`, GraphQL, and wallet payments (the device card's);
rows stored before (no networks kept for a non-mada card) read with their brand's network, and a
payment method without a card shows no card."""
from __future__ import annotations

import json

import pytest

from models.intents import PaymentIntent, PaymentMethod
from models.payments import Payment
from services import webhooks
from services.payments import cards
from tests.conftest import bearer, gql
from tests.intents_fixtures import confirm, create, get
from tests.payments_fixtures import call, card
from tests.test_openapi import Contract, document, resolve
from tests.test_wallets import (  # noqa: F401 - fixtures: the test roots for the wallets
    APPLE,
    DPAN,
    GOOGLE,
    MERCHANT_IDENTIFIER,
    _apple_cert,
    _google_key,
    settings,
    wallet_roots,
)
from tests.webhooks_fixtures import receiver  # noqa: F401

VISA, MASTERCARD, TROY, AMEX = "4242424242424242", "5555555555554444", "9792000000000003", "378282246310005"
MADA, MADA_VISA = "5888450000000003", "4464040000000007"
CARDS = [(VISA, "TRY", "visa", ["visa"]), (MASTERCARD, "TRY", "mastercard", ["mastercard"]),
         (TROY, "TRY", "troy", ["troy"]), (MADA, "SAR", "mada", ["mada"]),
         (MADA_VISA, "SAR", "mada", ["mada", "visa"])]

PAYMENT = """query($id: ID!) { payment(id: $id) { card { brand networks } } }"""
PAYMENTS = """{ payments(first: 10) { edges { node { id card { networks } } } } }"""
PAY = """mutation($input: PaymentCreateInput!) { paymentCreate(input: $input) {
  payment { id card { brand networks } } userErrors { code field message } } }"""
INTENT = """query($id: ID!) { paymentIntent(id: $id) { paymentMethodDetails } }"""


async def _pay(client, key, number, currency="TRY", amount=10_000):
    status, body = await call(client, "POST", "/api/payments/create", key,
                              {"amount": amount, "currency": currency, "payment_method": card(number)})
    assert status == 200, body
    return body


async def _gql(client, key, query, variables=None):
    status, body = await gql(client, query, variables, key=key)
    assert status == 200 and "errors" not in body, body
    return body["data"]


async def _deliveries(client, merchant, receiver, events=("payment.succeeded",)):  # noqa: F811
    r = await client.post("/api/webhooks/configure", json={"url": receiver.url(), "events": list(events)},
                          headers=bearer(merchant.sk))
    assert r.status == 200, await r.text()


async def _delivered(merchant, receiver) -> dict:  # noqa: F811
    """Every webhook sent so far: object id -> data.object, as the receiver got it."""
    await webhooks.run_once(owner="card-networks", merchant_id=merchant.id)
    return {o["id"]: o for o in (json.loads(r.body)["data"]["object"] for r in receiver.got)}


def test_the_networks_of_a_card_are_the_stored_list_else_its_brand():
    assert cards.card_networks("visa") == ["visa"] and cards.card_networks("visa", None) == ["visa"]
    assert cards.card_networks("mada", ("mada", "visa")) == ["mada", "visa"]
    assert cards.card_networks("mada", []) == ["mada"]
    assert [cards.card_networks(cards.brand_of(n)) for n in (AMEX, "6011111111111117", "6200000000000005")] == \
        [["amex"], ["discover"], ["unionpay"]]
    assert cards.card_networks("unknown") == [] and cards.card_networks(None) == []     # none to name


@pytest.mark.parametrize("number,currency,brand,networks", CARDS)
async def test_api_payment_shows_the_cards_networks_on_create_read_list_webhook_and_graphql(
        client, merchant, receiver, number, currency, brand, networks):  # noqa: F811
    await _deliveries(client, merchant, receiver)
    doc = await document(client)
    contract = Contract(client, doc)
    made = await contract("POST", "/api/payments/create", expect=200, headers=bearer(merchant.sk),
                          json={"amount": 10_000, "currency": currency, "payment_method": card(number)})
    assert made["payment_method"]["card"]["brand"] == brand and made["payment_method"]["card"]["networks"] == networks
    got = await contract("GET", f"/api/payments/{made['id']}", expect=200, headers=bearer(merchant.sk))
    assert got["payment_method"] == made["payment_method"]
    listed = await contract("GET", "/api/payments/list", expect=200, headers=bearer(merchant.sk))
    (item,) = listed["data"]
    assert item["payment_method"] == made["payment_method"]          # the list shows the same payment_method
    hooked = (await _delivered(merchant, receiver))[made["id"]]
    assert hooked["payment_method"] == made["payment_method"]
    data = await _gql(client, merchant.sk, PAYMENT, {"id": made["id"]})
    assert data["payment"]["card"] == {"brand": brand, "networks": networks}
    assert (await Payment.get(id=made["id"])).card_networks == networks      # stored as shown


async def test_graphql_payment_create_and_list_show_the_networks(client, merchant):
    data = await _gql(client, merchant.sk, PAY, {"input": {"amount": 5_000, "currency": "TRY", "paymentMethod": {
        "card": {"number": MASTERCARD, "expMonth": 12, "expYear": 2030, "cvc": "123"}}}})
    out = data["paymentCreate"]
    assert out["userErrors"] == [] and out["payment"]["card"] == {"brand": "mastercard", "networks": ["mastercard"]}
    visa = await _pay(client, merchant.sk, VISA)
    data = await _gql(client, merchant.sk, PAYMENTS)
    assert {e["node"]["id"]: e["node"]["card"]["networks"] for e in data["payments"]["edges"]} == {
        out["payment"]["id"]: ["mastercard"], visa["id"]: ["visa"]}


async def test_a_payment_stored_without_networks_reads_with_its_brands(client, merchant, receiver):  # noqa: F811
    visa, mada = await _pay(client, merchant.sk, VISA), await _pay(client, merchant.sk, MADA, "SAR")
    await Payment.filter(id__in=[visa["id"], mada["id"]]).update(card_networks=None)     # as rows before were
    for p, networks in ((visa, ["visa"]), (mada, ["mada"])):
        _, got = await call(client, "GET", f"/api/payments/{p['id']}", merchant.sk)
        assert got["payment_method"]["card"]["networks"] == networks
        data = await _gql(client, merchant.sk, PAYMENT, {"id": p["id"]})
        assert data["payment"]["card"]["networks"] == networks
    _, listed = await call(client, "GET", "/api/payments/list", merchant.sk)
    assert {x["id"]: x["payment_method"]["card"]["networks"] for x in listed["data"]} == {
        visa["id"]: ["visa"], mada["id"]: ["mada"]}
    # A refund's webhook carries the payment as it is read now.
    await _deliveries(client, merchant, receiver, events=("payment.refunded",))
    status, _ = await call(client, "POST", f"/api/payments/{visa['id']}/refund", merchant.sk, {"amount": 1_000})
    assert status == 200
    assert (await _delivered(merchant, receiver))[visa["id"]]["payment_method"]["card"]["networks"] == ["visa"]


# ---------------------------------------------------------------- /v1

@pytest.mark.parametrize("number,networks", [(VISA, ["visa"]), (MASTERCARD, ["mastercard"]), (MADA, ["mada"]),
                                             (MADA_VISA, ["mada", "visa"])])
async def test_v1_payment_method_shows_the_cards_networks(client, merchant, number, networks):
    contract = Contract(client, await document(client))
    pm = await contract("POST", "/v1/payment_methods", expect=200, headers=bearer(merchant.pk),
                        json={"type": "card", "card": {"number": number, "exp_month": 12, "exp_year": 2030}})
    assert pm["card"]["networks"] == networks


@pytest.mark.parametrize("pm_id,brand,networks", [("pm_card_visa", "visa", ["visa"]),
                                                  ("pm_card_mastercard", "mastercard", ["mastercard"]),
                                                  ("created", "visa", ["visa"])])
async def test_v1_intent_payment_method_details_show_the_cards_networks(client, merchant, pm_id, brand, networks):
    if pm_id == "created":
        r = await client.post("/v1/payment_methods", headers=bearer(merchant.pk),
                              json={"card": {"number": VISA, "exp_month": 12, "exp_year": 2030}})
        pm_id = (await r.json())["id"]
    contract = Contract(client, await document(client))
    i = await create(client, merchant.sk, amount=10_000, currency="TRY")
    c = await contract("POST", f"/v1/payments/{i['id']}/confirm", expect=200, headers=bearer(merchant.sk),
                       json={"payment_method_id": pm_id})
    assert c["status"] == "succeeded", c
    want = {"type": "card", "card": {"brand": brand, "last4": c["payment_method_details"]["card"]["last4"],
                                     "networks": networks}}
    assert c["payment_method_details"] == want
    got = await contract("GET", f"/v1/payments/{i['id']}", expect=200, headers=bearer(merchant.sk))
    assert got["payment_method_details"] == want
    data = await _gql(client, merchant.sk, INTENT, {"id": i["id"]})
    assert data["paymentIntent"]["paymentMethodDetails"] == want


async def test_v1_rows_stored_without_networks_read_with_their_brands(client, merchant):
    r = await client.post("/v1/payment_methods", headers=bearer(merchant.pk),
                          json={"card": {"number": MASTERCARD, "exp_month": 12, "exp_year": 2030}})
    pm = await r.json()
    await PaymentMethod.filter(id=pm["id"]).update(networks=None)          # a method stored before
    i = await create(client, merchant.sk, amount=10_000, currency="TRY")
    c = await confirm(client, merchant.sk, i["id"], payment_method_id=pm["id"])
    assert c["payment_method_details"]["card"]["networks"] == ["mastercard"]
    # An intent confirmed before: its card kept `networks: []`.
    await PaymentIntent.filter(id=i["id"]).update(method_details={"card": {"brand": "mastercard", "last4": "4444",
                                                                           "networks": []}})
    assert (await get(client, merchant.sk, i["id"]))["payment_method_details"]["card"]["networks"] == ["mastercard"]


async def test_a_method_without_a_card_shows_no_card(client, merchant):
    cod = await create(client, merchant.sk, amount=10_000, currency="TRY", payment_method="cod",
                       cod_address={"line1": "Istiklal 1", "city": "Istanbul", "country": "TR"})
    pending = await create(client, merchant.sk, amount=10_000, currency="TRY")
    for i in (cod, pending):
        got = await get(client, merchant.sk, i["id"])
        assert "card" not in (got.get("payment_method_details") or {}), got


# ---------------------------------------------------------------- wallets

async def test_apple_pay_and_google_pay_payments_show_the_device_cards_networks(
        client, merchant, receiver, clock):  # noqa: F811
    await _deliveries(client, merchant, receiver)
    pem = await _apple_cert(client, merchant.sk)
    pub = await _google_key(client, merchant.pk)
    tokens = [("apple_pay", APPLE.token(pem, MERCHANT_IDENTIFIER, amount=10_000, currency="SAR", number=DPAN,
                                        signed_at=clock.now()), ["visa"]),
              ("apple_pay", APPLE.token(pem, MERCHANT_IDENTIFIER, amount=10_000, currency="SAR", number=MASTERCARD,
                                        network="MasterCard", signed_at=clock.now()), ["mastercard"]),
              ("apple_pay", APPLE.token(pem, MERCHANT_IDENTIFIER, amount=10_000, currency="SAR", number=MADA_VISA,
                                        network="mada", signed_at=clock.now()), ["mada", "visa"]),
              ("google_pay", GOOGLE.token(pub, gateway_merchant_id=merchant.id, now=clock.now(), number=MASTERCARD),
               ["mastercard"])]
    made = []
    for kind, token, networks in tokens:
        status, body = await call(client, "POST", "/api/payments/create", merchant.sk, {
            "amount": 10_000, "currency": "SAR", "payment_method": {"type": kind, kind: {"token": token}}})
        assert status == 200 and body["payment_method"]["type"] == kind, body
        assert body["payment_method"]["card"]["networks"] == networks
        _, got = await call(client, "GET", f"/api/payments/{body['id']}", merchant.sk)
        assert got["payment_method"] == body["payment_method"]
        data = await _gql(client, merchant.sk, PAYMENT, {"id": body["id"]})
        assert data["payment"]["card"]["networks"] == networks
        made.append((body["id"], networks))
    hooked = await _delivered(merchant, receiver)
    assert {pid: hooked[pid]["payment_method"]["card"]["networks"] for pid, _ in made} == dict(made)


async def test_wallet_intents_show_the_device_cards_networks(client, merchant, clock):
    pem = await _apple_cert(client, merchant.sk)
    token = APPLE.token(pem, MERCHANT_IDENTIFIER, amount=25_000, currency="SAR", number=DPAN, signed_at=clock.now())
    i = await create(client, merchant.sk, amount=25_000, currency="SAR", payment_method="apple_pay",
                     apple_pay={"token": token})
    assert i["status"] == "succeeded" and i["payment_method_details"]["card"]["networks"] == ["visa"]
    pub = await _google_key(client, merchant.pk)
    g = await create(client, merchant.sk, amount=3_750, currency="KWD", payment_method="google_pay")
    token = GOOGLE.token(pub, gateway_merchant_id=merchant.id, now=clock.now(), number=MASTERCARD)
    c = await confirm(client, merchant.pk, g["id"], client_secret=g["client_secret"], google_pay={"token": token})
    assert c["status"] == "succeeded" and c["payment_method_details"]["card"]["networks"] == ["mastercard"]
    data = await _gql(client, merchant.sk, INTENT, {"id": g["id"]})
    assert data["paymentIntent"]["paymentMethodDetails"]["card"]["networks"] == ["mastercard"]
    # A wallet intent stored before kept `networks: []` for its Visa device card.
    row = await PaymentIntent.get(id=i["id"])
    await PaymentIntent.filter(id=i["id"]).update(
        method_details={**row.method_details, "card": {**row.method_details["card"], "networks": []}})
    assert (await get(client, merchant.sk, i["id"]))["payment_method_details"]["card"]["networks"] == ["visa"]


async def test_the_document_names_networks_wherever_it_shows_a_card(client):
    doc = await document(client)

    def card_of(schema: dict, *path: str) -> dict:
        for key in path:
            schema = schema["properties"][key]
        return schema

    payment = doc["paths"]["/api/payments/{id}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    listed = doc["paths"]["/api/payments/list"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    pm = doc["paths"]["/v1/payment_methods"]["post"]["responses"]["200"]["content"]["application/json"]["schema"]
    intent = doc["paths"]["/v1/payments/{id}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    payment, listed, pm, intent = (resolve(doc, s) for s in (payment, listed, pm, intent))
    item = resolve(doc, listed["properties"]["data"]["items"])
    for shown in (card_of(payment, "payment_method", "card"), card_of(item, "payment_method", "card"),
                  card_of(pm, "card")):
        assert "networks" in shown["required"] and shown["properties"]["networks"]["type"] == "array"
    assert card_of(intent, "payment_method_details", "card")["required"] == ["brand", "last4", "networks"]
