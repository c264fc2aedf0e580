"""The hot intent create (services/payments/intent_create_hot.py) writes the rows and answers the
object the generic create (services.payments.intents.create_intent) does for the same body: every
column of the intent, its event (the payload equal to the answer), the event's waiting row and the
list's total; in 2- and 3-decimal currencies. Bodies it does not take go to the generic create,
which answers their 400s. PostgreSQL only (elsewhere the generic create is the only one)."""
import os

import orjson
import pytest

from models.events import Event, EventWaiting
from models.intents import PaymentIntent
from services.payments import intent_create_hot, intents
from services.principal import Principal
from tests.conftest import bearer
from tests.intents_fixtures import set_country

pytestmark = pytest.mark.skipif(not os.environ.get("DATABASE_URL", "").startswith("postgres"),
                                reason="the hot create runs on PostgreSQL only")

BODIES = {
    "card TRY": {"amount": 10000, "currency": "TRY", "payment_method": "card"},
    "card KWD, everything": {"amount": 12345, "currency": "KWD", "payment_method": "card", "customer_id": "cus_1",
                             "order_id": "  A-1  ", "description": "Qahwa", "statement_descriptor": "QAFILA*SHOP",
                             "metadata": {"k": "v", "ünï": "çödé"}, "locale": "ar"},
    "mada SAR": {"amount": 5000, "currency": "SAR", "payment_method": "mada", "locale": "en", "metadata": {}},
    "troy TRY": {"amount": 999, "currency": "TRY", "payment_method": "troy", "description": None},
    "card BHD": {"amount": 1005, "currency": "BHD", "payment_method": "card"},
    "card OMR": {"amount": 2500, "currency": "OMR", "payment_method": "card"},
    "card IQD": {"amount": 250000, "currency": "IQD", "payment_method": "card"},
    "card JOD": {"amount": 7777, "currency": "JOD", "payment_method": "card"},
    "card EGP": {"amount": 15000, "currency": "EGP", "payment_method": "card"},
}


def _without_ids(obj: dict, iid: str) -> dict:
    """The object with its id (and the client secret derived from it) made alike."""
    assert obj["client_secret"] == intents.client_secret_of(PaymentIntent(id=iid))
    return orjson.loads(orjson.dumps({**obj, "client_secret": None}).replace(iid.encode(), b"pay_X"))


def _row(i: PaymentIntent) -> dict:
    return {f: getattr(i, f) for f in PaymentIntent._meta.db_fields if f != "id"}


@pytest.mark.parametrize("name", sorted(BODIES))
async def test_the_hot_create_writes_and_answers_as_the_generic_one(client, merchant, name):
    await set_country(merchant.id, "TR")
    body = BODIES[name]
    principal = Principal(merchant_id=merchant.id, livemode=False, kind="secret")
    raw = await intent_create_hot.create(principal, orjson.dumps(body), None)
    assert raw is not None
    hot = orjson.loads(raw)
    generic_intent = await intents.create_intent(principal=principal, data=dict(body))
    generic = intents.created_object(generic_intent)
    assert _without_ids(hot, hot["id"]) == _without_ids(generic, generic["id"])      # the clock is frozen
    stored_hot = await PaymentIntent.get(id=hot["id"])
    stored_generic = await PaymentIntent.get(id=generic["id"])
    assert _row(stored_hot) == _row(stored_generic)
    assert _without_ids(intents.intent_object(stored_hot), hot["id"]) == _without_ids(hot, hot["id"])
    events = {e.object_id: e for e in await Event.filter(object_id__in=[hot["id"], generic["id"]])}
    assert events[hot["id"]].type == events[generic["id"]].type == "payment.created"
    assert events[hot["id"]].data == hot                      # the payload is the answer
    assert _without_ids(events[hot["id"]].data, hot["id"]) == _without_ids(events[generic["id"]].data, generic["id"])
    waiting = {w.event_id for w in await EventWaiting.filter(event_id__in=[e.id for e in events.values()])}
    assert waiting == {e.id for e in events.values()}
    r = await client.get("/v1/payments?limit=1", headers=bearer(merchant.sk))
    assert (await r.json())["total_count"] == 2


async def test_over_http_the_common_body_is_created_and_the_rest_refused_as_documented(client, merchant):
    r = await client.post("/v1/payments/intent", json=BODIES["card TRY"], headers=bearer(merchant.sk))
    assert r.status == 201
    made = await r.json()
    assert made["status"] == "requires_payment_method" and made["fee"]["currency"] == "TRY"
    r = await client.get(f"/v1/payments/{made['id']}", headers=bearer(merchant.sk))
    assert (await r.json())["client_secret"] == made["client_secret"]
    refusals = [({"amount": "100", "currency": "TRY", "payment_method": "card"}, "amount"),
                ({"amount": 100, "currency": "XXX", "payment_method": "card"}, "currency"),
                ({"amount": 0, "currency": "TRY", "payment_method": "card"}, "amount"),
                ({"amount": 100, "currency": "TRY", "payment_method": "card", "metadata": {"k" * 41: "v"}}, "metadata"),
                ({"amount": 100, "currency": "TRY", "payment_method": "card", "statement_descriptor": "x" * 23},
                 "statement_descriptor"),
                ({"amount": 100, "currency": "TRY", "payment_method": "card", "locale": "fr"}, "locale"),
                ({"amount": 100, "currency": "TRY", "payment_method": "card", "merchant_id": "mer_other"},
                 "merchant_id"),
                ({"amount": 100, "currency": "TRY", "payment_method": "card", "colour": "red"}, "colour"),
                ({"amount": 100, "currency": "TRY", "payment_method": "card", "order_id": "a\u0000b"}, "order_id")]
    for body, param in refusals:
        r = await client.post("/v1/payments/intent", json=body, headers=bearer(merchant.sk))
        assert r.status == 400, body
        assert (await r.json())["error"]["param"] == param, body


async def test_what_the_hot_create_leaves_to_the_generic_one(merchant):
    principal = Principal(merchant_id=merchant.id, livemode=False, kind="secret")
    base = BODIES["card TRY"]
    assert await intent_create_hot.create(principal, orjson.dumps(base), "key-1") is None          # a key
    publishable = Principal(merchant_id=merchant.id, livemode=False, kind="publishable")
    assert await intent_create_hot.create(publishable, orjson.dumps(base), None) is None
    for extra in ({"payment_method": "qr"}, {"payment_method": "knet", "currency": "KWD"}, {"installments": 3},
                  {"invoice": True}, {"split": []}, {"amount": 100.0}, {"amount": True}, {"idempotency_key": "k"}):
        assert await intent_create_hot.create(principal, orjson.dumps({**base, **extra}), None) is None, extra
    assert await intent_create_hot.create(principal, b"[1, 2]", None) is None
    assert await intent_create_hot.create(principal, b"{not json", None) is None


GQL = """mutation($input: PaymentIntentCreateInput!) { paymentIntentCreate(input: $input) {
  paymentIntent { id status amount currency amountReceived paymentMethod netAmount settlementDate createdAt expiresAt
    metadata locale orderId description statementDescriptor customerId livemode clientSecret checkoutUrl
    fee { amount currency rate breakdown { processing currencyConversion network } } split { amount } }
  userErrors { code field } } }"""


async def test_graphql_takes_the_hot_create_and_answers_as_the_generic_one(client, merchant, monkeypatch):
    from services.payments import intents_hot
    from tests.conftest import gql
    seen = []
    real = intent_create_hot.create_from_input

    async def spy(principal, data):
        made = await real(principal, data)
        seen.append(made is not None)
        return made
    monkeypatch.setattr(intent_create_hot, "create_from_input", spy)
    variables = {"input": {"amount": 12345, "currency": "KWD", "paymentMethod": "card", "metadata": {"k": "v"},
                           "locale": "ar", "orderId": "o-1"}}
    status, hot = await gql(client, GQL, variables, key=merchant.sk)
    assert status == 200 and seen == [True], hot
    monkeypatch.setattr(intents_hot, "available", lambda: False)          # now the generic create
    status, generic = await gql(client, GQL, variables, key=merchant.sk)
    assert seen == [True, False]                                            # the hot create declined it
    a, b = hot["data"]["paymentIntentCreate"], generic["data"]["paymentIntentCreate"]
    assert a["userErrors"] == b["userErrors"] == []
    for o in (a["paymentIntent"], b["paymentIntent"]):
        assert o["clientSecret"].startswith(o["id"]) and o["checkoutUrl"].endswith(o["id"])
        del o["id"], o["clientSecret"], o["checkoutUrl"]
    assert a == b
    monkeypatch.undo()
    status, refused = await gql(client, GQL, {"input": {**variables["input"], "amount": -5}}, key=merchant.sk)
    assert refused["data"]["paymentIntentCreate"]["userErrors"][0]["field"] == "amount"
