"""Issue 35, "Refusals that say what is allowed": an installment count the card and plan do not
offer is a 400 naming `installments` whose message lists the valid counts for that card and
amount, whatever the reason; every other refusal of a value from a closed set names the set the
same way (`currency must be one of TRY, SAR, ...`)."""
from __future__ import annotations

import pytest

from models.intents import PaymentIntent
from models.payments import Payment
from services.events import EVENT_TYPES
from tests.crm_fixtures import acct, crm, make_account  # noqa: F401
from tests.helpers import bearer
from tests.intents_fixtures import confirm, create
from tests.payments_fixtures import call, no_exploration, pay  # noqa: F401

BONUS, MAXIMUM, DEBIT, FOREIGN = "5549600000000004", "4183420000000001", "9792000000000003", "4242424242424242"
ALL = "installments must be one of 1, 2, 3, 6, 9, 12"
CURRENCIES = "TRY, SAR, AED, KWD, QAR, EGP, IQD, BHD, OMR, JOD, USD"

PAYMENT_CREATE = """mutation($input: PaymentCreateInput!) { paymentCreate(input: $input) {
  payment { id } userErrors { code field message } } }"""


async def gql(client, query, variables, key):
    r = await client.post("/graphql", json={"query": query, "variables": variables}, headers=bearer(key))
    return await r.json()


# ---------------------------------------------------------------- installments, whatever the reason

@pytest.mark.parametrize("number,amount,currency,count,message", [
    (BONUS, 120000, "TRY", 13, ALL),                                   # above the most
    (BONUS, 120000, "TRY", 24, ALL),
    (BONUS, 120000, "TRY", 4, ALL),                                    # not in the plan
    (BONUS, 120000, "TRY", 0, ALL),                                    # no count at all
    (BONUS, 120000, "TRY", -3, ALL),
    (BONUS, 500, "TRY", 6, "installments must be one of 1, 2, 3"),   # 6 x under 1 TRY
    (BONUS, 1000, "TRY", 12, "installments must be one of 1, 2, 3, 6, 9"),
    (DEBIT, 120000, "TRY", 2, "installments must be one of 1"),       # a debit card
    (FOREIGN, 120000, "TRY", 3, "installments must be one of 1"),     # no program
    (BONUS, 12000, "KWD", 3, "installments must be one of 1"),        # 3-decimal currency: no installments
    (BONUS, 120000, "SAR", 13, "installments must be one of 1"),
])
async def test_api_payment_refuses_a_count_listing_the_valid_ones(client, merchant, number, amount, currency, count,
                                                                   message):
    status, body = await pay(client, merchant.sk, amount, currency=currency, number=number, installments=count)
    assert status == 400, body
    assert (body["error"]["param"], body["error"]["code"], body["error"]["message"], body["error"]["detail"]) == \
        ("installments", "invalid_installments", "Invalid request body", message)
    assert await Payment.filter(merchant_id=merchant.id).count() == 0


async def test_the_list_follows_the_merchants_plan(client, merchant):
    status, _ = await call(client, "PUT", "/api/installments/plans", merchant.sk, {"plans": [
        {"program": "maximum", "paid_by": "merchant", "options": [{"count": 6, "commission_bps": 700},
                                                                  {"count": 10, "commission_bps": 900}]}]})
    assert status == 200
    status, body = await pay(client, merchant.sk, 120000, number=MAXIMUM, installments=3)
    assert (status, body["error"]["detail"]) == (400, "installments must be one of 1, 6, 10")
    status, body = await pay(client, merchant.sk, 120000, number=BONUS, installments=3)   # bonus: left out
    assert (status, body["error"]["detail"]) == (400, "installments must be one of 1")


async def test_a_count_of_another_type_is_refused_as_such(client, merchant):
    status, body = await pay(client, merchant.sk, 120000, number=BONUS, installments="3")
    assert (status, body["error"]["param"], body["error"]["detail"]) == (400, "installments",
                                                                         "installments must be an integer")


async def test_graphql_payment_create_names_the_valid_counts(client, merchant):
    card = {"card": {"number": BONUS, "expMonth": 12, "expYear": 2030}}
    out = await gql(client, PAYMENT_CREATE, {"input": {"amount": 120000, "currency": "TRY", "paymentMethod": card,
                                                       "installments": 13}}, merchant.sk)
    assert out["data"]["paymentCreate"] == {"payment": None, "userErrors": [
        {"code": "invalid_installments", "field": "installments", "message": ALL}]}


async def test_intent_create_refuses_a_count_no_card_gets_for_the_amount(client, merchant):
    bad = await create(client, merchant.sk, expect=400, amount=120000, installments=13)
    assert (bad["error"]["param"], bad["error"]["code"], bad["error"]["message"]) == \
        ("installments", "invalid_installments", ALL)
    bad = await create(client, merchant.sk, expect=400, amount=120000, installments=4)
    assert bad["error"]["message"] == ALL
    bad = await create(client, merchant.sk, expect=400, amount=500, installments=9)
    assert bad["error"]["message"] == "installments must be one of 1, 2, 3"
    bad = await create(client, merchant.sk, expect=400, amount=12000, currency="KWD", installments=2)
    assert bad["error"]["message"] == "installments must be one of 1"
    assert await PaymentIntent.filter(merchant_id=merchant.id).count() == 0
    # a count some card gets: asked for now, judged with the card at confirm
    intent = await create(client, merchant.sk, amount=120000, installments=9)
    bad = await confirm(client, merchant.sk, intent["id"], expect=400, payment_method_id="pm_card_tr_debit")
    assert (bad["error"]["param"], bad["error"]["message"]) == ("installments", "installments must be one of 1")
    bad = await confirm(client, merchant.sk, intent["id"], expect=400, payment_method_id="pm_card_tr_bonus",
                        installments=13)
    assert bad["error"]["message"] == ALL
    done = await confirm(client, merchant.sk, intent["id"], payment_method_id="pm_card_tr_bonus")
    assert done["status"] == "succeeded" and done["installments"]["count"] == 9


# ---------------------------------------------------------------- the other closed sets

async def test_intent_create_names_currencies_methods_networks_and_countries(client, merchant):
    bad = await create(client, merchant.sk, expect=400, currency="EUR")
    assert (bad["error"]["param"], bad["error"]["code"], bad["error"]["message"]) == \
        ("currency", "invalid_currency", f"currency must be one of {CURRENCIES}")
    bad = await create(client, merchant.sk, expect=400, currency="SAR", payment_method="knet")
    assert (bad["error"]["param"], bad["error"]["code"], bad["error"]["message"]) == \
        ("payment_method", "payment_method_unavailable",
         "payment_method must be one of card, crypto, cod, qr, tap_to_pay, mada, stcpay, sadad, apple_pay, google_pay, "
         "bnpl_split4, bnpl_split3 for SAR")
    bad = await create(client, merchant.sk, expect=400, payment_method="crypto", crypto_asset="BTC",
                       crypto_network="trc20")
    assert (bad["error"]["param"], bad["error"]["message"]) == ("crypto_network",
                                                                "crypto_network must be one of bitcoin for BTC")
    bad = await create(client, merchant.sk, expect=400, payment_method="cod",
                       cod_address={"line1": "x", "city": "Kuwait City", "country": "US"})
    assert (bad["error"]["param"], bad["error"]["message"]) == (
        "cod_address.country", "cod_address.country must be one of SA, KW, QA, IQ, EG, AE, TR")
    bad = await create(client, merchant.sk, expect=400, payment_method="cod", currency="TRY",
                       cod_address={"line1": "x", "city": "Cairo", "country": "EG"})
    assert (bad["error"]["param"], bad["error"]["code"], bad["error"]["message"]) == (
        "currency", "invalid_currency", "currency must be one of EGP for cash on delivery in EG")
    assert await PaymentIntent.filter(merchant_id=merchant.id).count() == 0


@pytest.mark.parametrize("path,param,message", [
    ("/v1/payments?status=done", "status",
     "status must be one of requires_payment_method, requires_confirmation, requires_action, processing, "
     "succeeded, failed, canceled, refunded, requires_capture"),
    ("/v1/payments?currency=eur", "currency", f"currency must be one of {CURRENCIES}"),
    ("/api/payments/list?status=paid", "status",
     "status must be one of authorized, succeeded, captured, voided, refunded, failed, disputed"),
    ("/api/payments/list?provider=stripe", "provider", "provider must be one of anatolia, gulfnet, nilepay, atlas"),
    ("/api/payment-links?status=open", "status", "status must be one of active, cancelled, expired"),
    ("/api/webhooks/events?type=payment.done", "type", f"type must be one of {', '.join(EVENT_TYPES)}"),
    ("/api/analytics?period=1y", "period", "period must be one of 7d, 30d, 90d"),
    ("/api/settlements/set_0000000000000000/transactions?format=xml", "format", "format must be one of json, csv"),
])
async def test_list_filters_name_their_set(client, merchant, path, param, message):
    r = await client.get(path, headers=bearer(merchant.sk))
    body = await r.json()
    assert r.status == 400, body
    err = body["error"]
    assert (err["param"], err.get("detail") or err["message"]) == (param, message)


async def test_an_event_type_filter_of_the_set_still_filters(client, merchant):
    r = await client.get("/api/webhooks/events?type=payment.succeeded", headers=bearer(merchant.sk))
    assert r.status == 200 and (await r.json())["data"] == []


async def test_webhook_events_and_routing_name_their_set(client, merchant):
    status, bad = await call(client, "POST", "/api/webhooks/configure", merchant.sk,
                             {"url": "https://example.com/hook", "events": ["payment.succeeded", "payment.done"]})
    assert (status, bad["error"]["param"], bad["error"]["detail"]) == (
        400, "events[1]", f"events[1] must be one of *, {', '.join(EVENT_TYPES)}")
    status, bad = await pay(client, merchant.sk, 10000, routing="fastest")
    assert (status, bad["error"]["param"], bad["error"]["detail"]) == (
        400, "routing", "routing must be one of smart, lowest_cost, highest_approval, anatolia, gulfnet, nilepay, atlas")
    status, bad = await call(client, "POST", "/api/routing/rules", merchant.sk, {
        "name": "x", "conditions": [{"field": "currency", "operator": "gt", "value": "TRY"}]})
    assert (status, bad["error"]["param"], bad["error"]["detail"]) == (
        400, "conditions[0].operator", "conditions[0].operator must be one of equals, not_equals, in, not_in "
                                       "for currency")
    status, bad = await call(client, "POST", "/api/routing/rules", merchant.sk, {
        "name": "x", "conditions": [{"field": "colour", "operator": "equals", "value": "red"}]})
    assert (status, bad["error"]["param"], bad["error"]["detail"]) == (
        400, "conditions[0].field", "conditions[0].field must be one of country, currency, amount, card_brand, "
                                    "payment_method, installments")


async def test_crm_filters_name_their_set(crm, acct):
    r = await crm.get("/api/deals?stage=lead,closed", headers=acct.h)
    body = await r.json()
    assert (r.status, body["error"]["param"], body["error"]["message"]) == (
        400, "stage", "stage must be one of lead, qualified, proposal, negotiation, won, lost")
    r = await crm.get("/api/messaging/inbox?unread=yes", headers=acct.h)
    body = await r.json()
    assert (r.status, body["error"]["param"], body["error"]["message"]) == (
        400, "unread", "unread must be one of 1, true, 0, false")
    r = await crm.get("/api/reports/pipeline?currency=XYZ", headers=acct.h)
    body = await r.json()
    assert (r.status, body["error"]["param"]) == (400, "currency")
    assert body["error"]["message"].startswith("currency must be one of AED, BHD, EGP, ")
