"""The hot payment create (services/payments/payment_create_hot.py) reads a common body into the
very request the generic create's checks make (payments.parse_create), field by field, in every
currency; every other body, and every refusal, is the generic create's, with its 400 naming the
field."""
import orjson
import pytest

from models.payments import Payment
from services.payments import payment_create_hot, payments
from tests.conftest import bearer

CARD = {"number": "4242424242424242", "exp_month": 12, "exp_year": 2035, "cvc": "123"}


def body(**extra) -> dict:
    return {"amount": 10000, "currency": "TRY", "payment_method": {"type": "card", "card": dict(CARD)}, **extra}


COMMON = {
    "customer by e-mail": body(customer={"email": "Buyer@Example.com"}),
    "customer by name and phone": body(customer={"name": "  Layla  ", "phone": "+966501234567", "email": None}),
    "customer id, metadata, description": body(customer_id="cus_123", metadata={"order": "A-1"},
                                               description="  Two coffees "),
    "no type, spaces in the number, two-digit year": {
        "amount": 500, "currency": "SAR", "payment_method": {"card": {"number": "4242 4242 4242 4242",
                                                                     "exp_month": 1, "exp_year": 35}}},
    "capture false": body(capture=False),
    "capture_method manual": body(capture_method="manual"),
    "capture true, automatic": body(capture=True, capture_method="automatic"),
    "billing country": body(payment_method={"type": "card", "card": dict(CARD), "billing_country": "sa"}),
    "KWD": body(amount=12345, currency="KWD"), "BHD": body(amount=1005, currency="BHD"),
    "OMR": body(amount=2500, currency="OMR"), "JOD": body(amount=7777, currency="JOD"),
    "IQD": body(amount=250000, currency="IQD"), "AED": body(amount=999, currency="AED"),
    "QAR": body(amount=999, currency="QAR"), "EGP": body(amount=15000, currency="EGP"),
    "declined card": body(payment_method={"type": "card", "card": {**CARD, "number": "4000000000000002"}}),
    "metadata null": body(metadata=None, description=None, customer=None),
}


@pytest.mark.parametrize("name", sorted(COMMON))
async def test_a_common_body_is_read_into_the_generic_request(client, name):     # (the app's clock: card expiry)
    hot = payment_create_hot.request_of(orjson.dumps(COMMON[name]))
    assert hot is not None
    assert hot == payments.parse_create(orjson.loads(orjson.dumps(COMMON[name])))


LEFT = {
    "mada as the type": body(payment_method={"type": "mada", "card": dict(CARD)}),
    "apple pay": body(payment_method={"type": "apple_pay", "apple_pay": {"token": {}}}),
    "installments": body(installments=3), "routing": body(routing="cheapest"), "splits": body(splits=[]),
    "invoice": body(invoice=True), "eta receipt": body(eta_receipt=False), "idempotency_key": body(idempotency_key="k"),
    "customer by id inside": body(customer={"id": "cus_1"}), "tax id": body(customer={"email": "a@b.co", "tax_id": "1"}),
    "an amount as text": body(amount="100"), "a float amount": body(amount=100.0),
    "an unknown field": body(colour="red"),
    "a number failing Luhn": body(payment_method={"type": "card", "card": {**CARD, "number": "4242424242424241"}}),
    "an expired card": body(payment_method={"type": "card", "card": {**CARD, "exp_year": 2001}}),
    "capture and capture_method disagree": body(capture=False, capture_method="automatic"),
    "a bad currency": body(currency="XXX"), "a bad e-mail": body(customer={"email": "not-an-email"}),
    "metadata too long": body(metadata={"k" * 41: "v"}), "a NUL": body(description="a\u0000b"),
}


@pytest.mark.parametrize("name", sorted(LEFT))
async def test_any_other_body_is_left_to_the_generic_create(client, name):
    assert payment_create_hot.request_of(orjson.dumps(LEFT[name])) is None


REFUSED = {"a number failing Luhn": "payment_method.card.number", "an expired card": "payment_method.card.exp_year",
           "capture and capture_method disagree": "capture_method", "a bad currency": "currency",
           "a bad e-mail": "customer.email", "metadata too long": "metadata", "an amount as text": "amount",
           "an unknown field": "colour", "a NUL": "description"}


async def test_over_http_the_generic_create_answers_what_the_hot_one_leaves(client, merchant):
    for name, param in REFUSED.items():
        r = await client.post("/api/payments/create", json=LEFT[name], headers=bearer(merchant.sk))
        assert r.status == 400, name
        assert (await r.json())["error"]["param"] == param, name
    r = await client.post("/api/payments/create", json=COMMON["customer by e-mail"], headers=bearer(merchant.sk))
    made = await r.json()
    assert r.status == 200 and made["status"] == "succeeded" and made["customer_id"].startswith("cus_")
    assert (await Payment.get(id=made["id"])).email.lower() == "buyer@example.com"
    r = await client.post("/api/payments/create", json=COMMON["declined card"], headers=bearer(merchant.sk))
    assert r.status == 402 and (await r.json())["error"]["code"] == "payment_declined"
    # with a key, the generic create (its idempotency) answers, and replays
    for _ in range(2):
        r = await client.post("/api/payments/create", json=COMMON["KWD"],
                              headers={**bearer(merchant.sk), "Idempotency-Key": "hot-1"})
        assert r.status == 200
        replay = (await r.json())["id"]
    assert await Payment.filter(id=replay).count() == 1
