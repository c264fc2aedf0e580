"""Issue 23, part 1 and 2: the method registry (GET /v1/payment_method_types, GraphQL
paymentMethodTypes), BHD/OMR/JOD, method/currency checks, and mada on /v1 and /api."""
from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from models.events import Event
from models.intents import PaymentIntent
from models.payments import Payment
from services.money import ledger
from services.payments import methods, pricing
from tests.helpers import bearer
from tests.conftest import gql
from tests.intents_fixtures import RETURN_URL, confirm, create, err, get, set_country
from tests.payments_fixtures import call, card, no_exploration  # noqa: F401

TYPES_QUERY = """query($currency: String!, $amount: MinorAmount, $country: String) {
  paymentMethodTypes(currency: $currency, amount: $amount, country: $country) {
    type flow currency displayName { ar en tr } fee { bps fixed cap } limits { minimum maximum } providers
  }
}"""


async def _types(client, key, **query):
    r = await client.get("/v1/payment_method_types", params=query, headers=bearer(key))
    return r.status, await r.json()


# ---------------------------------------------------------------- the registry

@pytest.mark.parametrize("currency,local", [("SAR", ["mada", "stcpay", "sadad"]), ("KWD", ["knet"]), ("BHD", ["benefit"]),
                                            ("EGP", ["meeza", "fawry", "eg_wallet"]), ("TRY", ["troy"]), ("OMR", ["omannet"]), ("QAR", ["naps"]),
                                            ("JOD", ["cliq"])])
async def test_method_types_per_currency_card_first(client, merchant, currency, local):
    status, body = await _types(client, merchant.sk, currency=currency)
    assert status == 200 and body["object"] == "list"
    types = [m["type"] for m in body["data"]]
    assert types[0] == "card"
    assert [t for t in types if t in methods.LOCAL_TYPES] == local
    for m in body["data"]:
        assert m["currency"] == currency and set(m["display_name"]) == {"ar", "en", "tr"}
        assert m["limits"]["minimum"] <= m["limits"]["maximum"]
    by = {m["type"]: m for m in body["data"]}
    assert by["card"]["flow"] == "card" and by["card"]["display_name"] == {"ar": "بطاقة", "en": "Card", "tr": "Kart"}
    if currency == "SAR":
        assert by["mada"]["flow"] == "card" and by["mada"]["fee"] == {"bps": 80, "fixed": 0, "cap": 20000}
        assert by["mada"]["fee"]["bps"] < by["card"]["fee"]["bps"] and by["mada"]["providers"] == ["gulfnet"]
        assert by["stcpay"]["flow"] == "otp" and by["stcpay"]["limits"] == {"minimum": 100, "maximum": 2_000_000}
    if currency == "KWD":
        assert by["knet"]["flow"] == "redirect" and by["knet"]["fee"] == {"bps": 100, "fixed": 100, "cap": 2000}
        assert by["knet"]["display_name"]["ar"] == "كي نت"
    if currency == "EGP":
        assert by["fawry"]["flow"] == "reference" and by["fawry"]["providers"] == ["nilepay"]


async def test_method_types_filter_by_amount_and_country_and_take_a_publishable_key(client, merchant):
    status, body = await _types(client, merchant.pk, currency="sar", amount="2500000")   # 25,000 SAR > STC Pay's cap
    assert status == 200 and [m["type"] for m in body["data"]][:2] == ["card", "mada"]
    assert "stcpay" not in [m["type"] for m in body["data"]]
    status, body = await _types(client, merchant.sk, currency="KWD", country="SA")
    assert "knet" not in [m["type"] for m in body["data"]]
    status, body = await _types(client, merchant.sk, currency="KWD", country="kw")
    assert "knet" in [m["type"] for m in body["data"]]


@pytest.mark.parametrize("query,param,code", [({"currency": "EUR"}, "currency", "invalid_currency"),
                                              ({}, "currency", "invalid_currency"),
                                              ({"currency": "SAR", "amount": "abc"}, "amount", "invalid_amount"),
                                              ({"currency": "SAR", "amount": "1"}, "amount", "invalid_amount"),
                                              ({"currency": "SAR", "country": "SAU"}, "country", "invalid_request"),
                                              ({"currency": "SAR", "foo": "1"}, "foo", "invalid_request")])
async def test_method_types_bad_input_is_400_naming_the_field(client, merchant, query, param, code):
    status, body = await _types(client, merchant.sk, **query)
    assert status == 400 and err(body) == (code, param), body


async def test_graphql_method_types_agree_with_rest(client, merchant):
    _, rest = await _types(client, merchant.sk, currency="SAR", amount="10000")
    status, body = await gql(client, TYPES_QUERY, {"currency": "SAR", "amount": 10000}, key=merchant.sk)
    assert status == 200 and "errors" not in body, body
    got = body["data"]["paymentMethodTypes"]
    assert [m["type"] for m in got] == [m["type"] for m in rest["data"]]
    assert [(m["fee"]["bps"], m["fee"]["fixed"], m["fee"]["cap"]) for m in got] == \
        [(m["fee"]["bps"], m["fee"]["fixed"], m["fee"]["cap"]) for m in rest["data"]]
    assert got[1]["displayName"] == {"ar": "مدى", "en": "mada", "tr": "mada"}
    status, body = await gql(client, TYPES_QUERY, {"currency": "EUR"}, key=merchant.sk)
    assert body["errors"][0]["extensions"]["code"] == "invalid_currency"


# ---------------------------------------------------------------- currencies with 3 decimals

@pytest.mark.parametrize("currency,amount,fee", [("BHD", 10_000, 315), ("OMR", 10_000, 315), ("JOD", 10_000, 315),
                                                 ("KWD", 10_000, 315)])
async def test_three_decimal_currencies_take_card_intents_with_limits(client, merchant, currency, amount, fee):
    i = await create(client, merchant.sk, amount=amount, currency=currency)
    # 10.000 in the currency: 2.9% = 0.290 plus the fixed 0.025, plus 1.5% conversion for a TR merchant
    assert i["fee"]["breakdown"]["processing"] == fee and i["fee"]["breakdown"]["currency_conversion"] == 150
    e = await create(client, merchant.sk, amount=99, currency=currency, expect=400)
    assert err(e) == ("invalid_amount", "amount") and "0.100 " + currency in e["error"]["message"]
    c = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_visa")
    assert c["status"] == "succeeded"
    assert (await ledger.merchant_balance(merchant_id=merchant.id, livemode=False))[currency] == amount - i["fee"]["amount"]


@pytest.mark.parametrize("method,currency", [("knet", "SAR"), ("benefit", "KWD"), ("fawry", "SAR"),
                                             ("stcpay", "EGP"), ("mada", "KWD"), ("cod", "BHD")])
async def test_a_method_in_a_currency_it_does_not_serve_is_400_naming_payment_method(client, merchant, method,
                                                                                    currency):
    e = await create(client, merchant.sk, currency=currency, amount=100_000, payment_method=method, expect=400)
    assert err(e) == ("payment_method_unavailable", "payment_method")
    assert await PaymentIntent.filter(merchant_id=merchant.id).count() == 0


def test_fees_are_capped_per_currency_and_rounded_once():
    # mada: 0.80% of the amount, at most 200.00 SAR
    assert pricing.compute_fee(amount=10_000, currency="SAR", method="mada").amount == 80
    assert pricing.compute_fee(amount=2_500_000, currency="SAR", method="mada").amount == 20_000
    assert pricing.compute_fee(amount=5_000_000, currency="SAR", method="mada").amount == 20_000
    # knet: 1% + 0.100 KWD, at most 2.000 KWD; benefit the same in BHD; fawry 2% + 2.50 EGP, at most 30 EGP
    assert pricing.compute_fee(amount=10_000, currency="KWD", method="knet").amount == 200
    assert pricing.compute_fee(amount=1_000_000, currency="KWD", method="knet").amount == 2_000
    assert pricing.compute_fee(amount=10_005, currency="BHD", method="benefit").amount == 200   # 100.05 + 100
    assert pricing.compute_fee(amount=100_000, currency="EGP", method="fawry").amount == 2_250
    assert pricing.compute_fee(amount=1_000_000, currency="EGP", method="fawry").amount == 3_000
    assert pricing.compute_fee(amount=10_000, currency="SAR", method="stcpay").amount == 150


def test_configured_fees_replace_the_registry_and_pricing_reads_it():
    old = methods.METHODS["knet"].fee
    try:
        methods.configure(fees={"knet": methods.MethodFee(50, {"KWD": 0}, {})})
        assert pricing.compute_fee(amount=10_000, currency="KWD", method="knet").amount == 50
        assert pricing.FEE_SCHEDULE["knet"].rate == pricing.Decimal("0.005")
    finally:
        methods.configure(fees={"knet": old})
    assert pricing.compute_fee(amount=10_000, currency="KWD", method="knet").amount == 200


# ---------------------------------------------------------------- mada on /v1

async def test_mada_cards_tokenize_with_brand_and_networks(client, merchant):
    for number, networks in (("5888450000000003", ["mada"]), ("4464040000000007", ["mada", "visa"])):
        r = await client.post("/v1/payment_methods", headers=bearer(merchant.pk),
                              json={"type": "card", "card": {"number": number, "exp_month": 12, "exp_year": 2030}})
        pm = await r.json()
        assert r.status == 200 and pm["card"]["brand"] == "mada" and pm["card"]["networks"] == networks, pm
    r = await client.post("/v1/payment_methods", headers=bearer(merchant.pk),
                          json={"type": "mada", "card": {"number": "4242424242424242", "exp_month": 12, "exp_year": 2030}})
    assert r.status == 400 and err(await r.json()) == ("not_a_mada_card", "card.number")


async def _challenge(client, url):
    parts = urlsplit(url)
    token = parse_qs(parts.query)["token"][0]
    r = await client.post(parts.path, data={"token": token, "outcome": "succeed"}, allow_redirects=False)
    assert r.status == 303
    return r.headers["Location"]


@pytest.mark.parametrize("method", ["card", "mada"])
async def test_mada_on_v1_goes_through_3ds_to_a_mada_provider_with_the_mada_fee(client, merchant, method):
    await set_country(merchant.id, "SA")
    i = await create(client, merchant.sk, amount=3_000_000, currency="SAR", payment_method=method)
    assert i["fee"]["amount"] == (87_025 if method == "card" else 20_000)       # shown upfront for the method
    c = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_mada_visa", return_url=RETURN_URL)
    assert c["status"] == "requires_action" and c["next_action"]["type"] == "redirect_to_url"
    back = await _challenge(client, c["next_action"]["redirect_to_url"]["url"])
    assert parse_qs(urlsplit(back).query)["redirect_status"] == ["succeeded"]
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == "succeeded"
    assert got["fee"]["amount"] == 20_000 and got["net_amount"] == 3_000_000 - 20_000     # mada's, capped
    assert got["payment_method_details"] == {"type": "card", "card": {"brand": "mada", "last4": "0007",
                                                                     "networks": ["mada", "visa"]}}
    row = await PaymentIntent.get(id=i["id"])
    assert row.provider == "gulfnet"
    assert (await ledger.merchant_balance(merchant_id=merchant.id, livemode=False)) == {"SAR": 3_000_000 - 20_000}


async def test_mada_intent_refuses_a_non_mada_card_and_mada_declines_are_stored(client, merchant):
    i = await create(client, merchant.sk, amount=10_000, currency="SAR", payment_method="mada")
    e = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_visa", expect=400)
    assert err(e) == ("invalid_request", "payment_method_id")
    c = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_mada_insufficientFunds",
                      return_url=RETURN_URL)
    back = await _challenge(client, c["next_action"]["redirect_to_url"]["url"])
    assert parse_qs(urlsplit(back).query)["redirect_status"] == ["failed"]
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == "failed" and got["failure_code"] == "insufficient_funds"
    # Again with another mada card: 3-D Secure again, back to the return_url the intent keeps.
    c = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_mada")
    assert c["status"] == "requires_action" and c["next_action"]["redirect_to_url"]["return_url"] == RETURN_URL
    i2 = await create(client, merchant.sk, amount=10_000, currency="SAR", payment_method="mada")
    e = await confirm(client, merchant.sk, i2["id"], payment_method_id="pm_card_mada", expect=400)
    assert err(e) == ("return_url_required", "return_url")     # mada always needs 3-D Secure: a return_url


# ---------------------------------------------------------------- mada on /api

async def test_api_mada_card_is_routed_to_mada_providers_and_charged_the_mada_fee(client, merchant):
    for kind in ("card", "mada"):
        status, body = await call(client, "POST", "/api/payments/create", merchant.sk,
                                  {"amount": 3_000_000, "currency": "SAR",
                                   "payment_method": card("4464040000000007", type=kind)})
        assert status == 200 and body["status"] == "succeeded", body
        assert body["payment_method"]["type"] == "mada"
        assert body["payment_method"]["card"]["brand"] == "mada"
        assert body["payment_method"]["card"]["networks"] == ["mada", "visa"]
        assert body["payment_method"]["card"]["country"] == "SA"
        assert body["provider"] == "gulfnet"
        assert "mada: only providers that support mada (gulfnet)" in body["routing_decision"]["reason"]
        assert body["routing_decision"]["alternatives_considered"] == []
        p = await Payment.get(id=body["id"])
        assert p.fee == 20_000            # 0.8% capped at 200.00 SAR (a card at gulfnet would cost 66,050)
    status, body = await call(client, "POST", "/api/payments/create", merchant.sk,
                              {"amount": 10_000, "currency": "SAR", "payment_method": card("9682010000000005")})
    assert status == 402 and "insufficient_funds" in body["error"]["detail"]


async def test_api_refuses_mada_with_another_card_and_methods_with_a_buyer_step(client, merchant):
    status, body = await call(client, "POST", "/api/payments/create", merchant.sk,
                              {"amount": 10_000, "currency": "SAR", "payment_method": card(type="mada")})
    assert status == 400 and body["error"]["param"] == "payment_method.card.number"
    for kind in ("knet", "benefit", "fawry", "stcpay"):
        status, body = await call(client, "POST", "/api/payments/create", merchant.sk,
                                  {"amount": 10_000, "currency": "KWD", "payment_method": card(type=kind)})
        assert status == 400 and body["error"]["param"] == "payment_method.type", body
        assert "/v1/payments/intent" in body["error"]["detail"]
    status, body = await call(client, "POST", "/api/payments/create", merchant.sk,
                              {"amount": 10_000, "currency": "KWD", "payment_method": card("5888450000000003")})
    assert status == 400 and body["error"]["param"] == "payment_method.card.number"
    assert await Payment.filter(merchant_id=merchant.id).count() == 0
    assert await Event.filter(merchant_id=merchant.id).count() == 0


PAY = """mutation($input: PaymentCreateInput!) { paymentCreate(input: $input) {
  payment { id status provider card { brand networks country } }
  userErrors { code field message } } }"""


async def test_graphql_payment_create_takes_mada_and_refuses_a_buyer_step_as_rest_does(client, merchant):
    card_in = {"number": "4464040000000007", "expMonth": 12, "expYear": 2030, "cvc": "123"}
    status, body = await gql(client, PAY, {"input": {"amount": 10_000, "currency": "SAR",
                                                     "paymentMethod": {"type": "mada", "card": card_in}}},
                             key=merchant.sk)
    out = body["data"]["paymentCreate"]
    assert out["userErrors"] == [] and out["payment"]["provider"] == "gulfnet", body
    assert out["payment"]["card"] == {"brand": "mada", "networks": ["mada", "visa"], "country": "SA"}
    status, body = await gql(client, PAY, {"input": {"amount": 10_000, "currency": "KWD",
                                                     "paymentMethod": {"type": "knet", "card": card_in}}},
                             key=merchant.sk)
    e = body["data"]["paymentCreate"]["userErrors"][0]
    assert e["field"] == "paymentMethod.type" and "/v1/payments/intent" in e["message"]
