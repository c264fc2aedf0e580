"""Issue 46, parts 1, 2 and 7: Troy by the Turkish 8-digit BIN table (TRY), Meeza (EGP) and STC
Pay's sandbox failure codes, through the real app: /api payments, /v1 intents (3-D Secure),
installments, the method listing, analytics by method and the hosted checkout."""
from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from models.events import Event
from models.intents import PaymentIntent
from models.payments import Payment
from tests.checkout_fixtures import card_form, make_link, open_page, path_of, submit
from tests.conftest import gql
from tests.helpers import bearer
from tests.intents_fixtures import RETURN_URL, confirm, create, err, get
from tests.payments_fixtures import call, card, no_exploration, pay  # noqa: F401
from tests.test_local_methods_registry import _challenge

# (number, networks, card_type, bank, program)
TROY = [
    ("9792072000017956", ["troy"], "credit", "Akbank", "axess"),
    ("9792030000000000", ["troy"], "credit", "QNB", "cardfinans"),
    ("9792020000000001", ["troy"], "debit", "QNB", None),
    ("9792278565746927", ["troy"], "debit", "Halkbank", None),
    ("9792395412651264", ["troy"], "prepaid", "Papara", None),
    ("6501700194147183", ["troy", "discover"], "credit", "Vakıfbank", "world"),
    ("6501738564461396", ["troy", "discover"], "credit", "İş Bankası", "maximum"),
    ("6500528865390837", ["troy", "discover"], "debit", "Vakıfbank", None),
    ("6504576578126549", ["troy", "discover"], "prepaid", "Papara", None),
]
DISCOVER = ["6011003179988686", "6599000000000004"]
MEEZA_OK = ["5078036246600381", "5078086700053445"]
MEEZA_DECLINED = [("5078036231985581", "insufficient_funds"), ("5078036242783546", "expired_card")]


async def _options(client, key, bin_, amount=120_000, currency="TRY"):
    r = await client.get("/v1/installments", params={"bin": bin_, "amount": str(amount), "currency": currency},
                         headers=bearer(key))
    return r.status, await r.json()


# ---------------------------------------------------------------- Troy: the BIN table

@pytest.mark.parametrize("number,networks,card_type,bank,program", TROY)
async def test_troy_cards_answer_brand_networks_type_and_installments(client, merchant, number, networks,
                                                                      card_type, bank, program):
    status, body = await _options(client, merchant.pk, number[:8])
    assert status == 200, body
    assert (body["brand"], body["networks"], body["card_type"], body["bank"], body["program"]) == \
        ("troy", networks, card_type, bank, program)
    counts = [o["count"] for o in body["options"]]
    assert counts == ([1, 2, 3, 6, 9, 12] if card_type == "credit" else [1])
    s, out = await gql(client, 'query($bin: String!) { installmentOptions(bin: $bin, amount: 120000, currency: "TRY") '
                               '{ brand networks cardType bank program options { count } } }', {"bin": number[:8]},
                       key=merchant.sk)
    assert s == 200 and out["data"]["installmentOptions"] == {
        "brand": "troy", "networks": networks, "cardType": card_type, "bank": bank, "program": program,
        "options": [{"count": c} for c in counts]}, out
    # paid on /api in TRY: a troy payment at a Troy acquirer, the card's brand and networks shown
    status, paid = await pay(client, merchant.sk, 120_000, currency="TRY", number=number)
    assert status == 200 and paid["status"] == "succeeded", paid
    assert paid["payment_method"]["type"] == "troy" and paid["provider"] == "anatolia"
    assert paid["payment_method"]["card"]["brand"] == "troy"
    assert paid["payment_method"]["card"]["networks"] == networks
    assert paid["payment_method"]["card"]["country"] == "TR"
    # debit and prepaid: count 1 only, the existing refusal listing the valid counts
    status, bad = await pay(client, merchant.sk, 120_000, currency="TRY", number=number,
                            installments=3 if card_type == "credit" else 2)
    if card_type == "credit":
        assert status == 200 and bad["installments"]["count"] == 3 and bad["installments"]["program"] == program
    else:
        assert status == 400 and bad["error"]["code"] == "invalid_installments", bad
        assert bad["error"]["param"] == "installments" and bad["error"]["detail"] == "installments must be one of 1"


@pytest.mark.parametrize("number", DISCOVER)
async def test_discover_numbers_outside_the_troy_rows_stay_discover(client, merchant, number):
    status, body = await _options(client, merchant.pk, number[:8])
    assert status == 200 and body["brand"] == "discover" and body["networks"] == ["discover"]
    assert body["card_type"] is None and [o["count"] for o in body["options"]] == [1]
    status, paid = await pay(client, merchant.sk, 10_000, currency="USD", number=number)
    assert status == 200 and paid["payment_method"]["card"]["brand"] == "discover", paid
    assert paid["payment_method"]["card"]["networks"] == ["discover"] and paid["payment_method"]["type"] == "card"
    # a 6-digit 65... BIN cannot tell Troy Global from Discover: the table's rows are 8 digits
    status, body = await _options(client, merchant.pk, "650170")
    assert status == 200 and body["brand"] == "discover"


async def test_troy_yerel_pays_try_only_global_any_currency(client, merchant):
    status, bad = await pay(client, merchant.sk, 10_000, currency="USD", number="9792072000017956")
    assert status == 400 and (bad["error"]["code"], bad["error"]["param"]) == \
        ("card_currency_not_supported", "payment_method.card.number"), bad
    status, ok = await pay(client, merchant.sk, 10_000, currency="USD", number="6501700194147183")
    assert status == 200 and ok["status"] == "succeeded" and ok["payment_method"]["type"] == "card", ok
    assert ok["payment_method"]["card"]["networks"] == ["troy", "discover"]
    # /v1: a Yerel card on a USD intent
    i = await create(client, merchant.sk, amount=10_000, currency="USD")
    e = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_troy", return_url=RETURN_URL,
                      expect=400)
    assert err(e) == ("card_currency_not_supported", "payment_method_id")
    assert await Payment.filter(merchant_id=merchant.id, currency="USD", card_brand="troy").count() == 1


@pytest.mark.parametrize("number", ["9792072000017957",            # the Luhn digit wrong
                                    "979207200001796",             # 15 digits (Luhn valid)
                                    "9792072000017956008"])        # 19 digits (Luhn valid)
async def test_a_troy_number_is_16_digits_with_a_valid_luhn_digit(client, merchant, number):
    status, bad = await pay(client, merchant.sk, 10_000, currency="TRY", number=number)
    assert status == 400 and bad["error"]["param"] == "payment_method.card.number", bad
    r = await client.post("/v1/payment_methods", headers=bearer(merchant.pk),
                          json={"type": "card", "card": {"number": number, "exp_month": 12, "exp_year": 2030}})
    assert r.status == 400 and (await r.json())["error"]["param"] == "card.number"
    assert await Payment.filter(merchant_id=merchant.id).count() == 0


async def test_troy_type_refusals_on_api_and_v1(client, merchant):
    status, bad = await call(client, "POST", "/api/payments/create", merchant.sk,
                             {"amount": 10_000, "currency": "TRY", "payment_method": card(type="troy")})
    assert status == 400 and (bad["error"]["code"], bad["error"]["param"]) == \
        ("not_a_troy_card", "payment_method.card.number"), bad
    status, bad = await call(client, "POST", "/api/payments/create", merchant.sk,
                             {"amount": 10_000, "currency": "USD",
                              "payment_method": card("6501700194147183", type="troy")})
    assert status == 400 and (bad["error"]["code"], bad["error"]["param"]) == \
        ("payment_method_unavailable", "payment_method.type"), bad
    e = await create(client, merchant.sk, amount=10_000, currency="USD", payment_method="troy", expect=400)
    assert err(e) == ("payment_method_unavailable", "payment_method")
    i = await create(client, merchant.sk, amount=10_000, currency="TRY", payment_method="troy")
    e = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_visa", expect=400)
    assert err(e) == ("invalid_request", "payment_method_id")
    r = await client.post("/v1/payment_methods", headers=bearer(merchant.pk),
                          json={"type": "troy", "card": {"number": "4242424242424242", "exp_month": 12,
                                                         "exp_year": 2030}})
    assert r.status == 400 and err(await r.json()) == ("not_a_troy_card", "card.number")
    assert await Payment.filter(merchant_id=merchant.id).count() == 0


@pytest.mark.parametrize("method", ["card", "troy"])
async def test_troy_on_v1_always_3ds_with_installments(client, merchant, method):
    i = await create(client, merchant.sk, amount=120_000, currency="TRY", payment_method=method, installments=6)
    e = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_troy", expect=400)
    assert err(e) == ("return_url_required", "return_url")
    c = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_troy", return_url=RETURN_URL)
    assert c["status"] == "requires_action" and c["next_action"]["type"] == "redirect_to_url"
    back = await _challenge(client, c["next_action"]["redirect_to_url"]["url"])
    assert parse_qs(urlsplit(back).query)["redirect_status"] == ["succeeded"]
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == "succeeded" and got["installments"]["count"] == 6
    assert got["installments"]["program"] == "axess" and got["amount_received"] == got["installments"]["total_amount"]
    assert got["payment_method_details"]["card"] == {"brand": "troy", "last4": "7956", "networks": ["troy"]}
    assert (await PaymentIntent.get(id=i["id"])).provider == "anatolia"
    # a Troy debit card: count 1 only
    i2 = await create(client, merchant.sk, amount=120_000, currency="TRY", payment_method=method)
    e = await confirm(client, merchant.sk, i2["id"], payment_method_id="pm_card_troy_debit", installments=3,
                      return_url=RETURN_URL, expect=400)
    assert e["error"]["code"] == "invalid_installments" and e["error"]["message"] == "installments must be one of 1"


# ---------------------------------------------------------------- Meeza

@pytest.mark.parametrize("number", MEEZA_OK)
async def test_meeza_cards_pay_egp(client, merchant, number):
    status, paid = await pay(client, merchant.sk, 50_000, currency="EGP", number=number)
    assert status == 200 and paid["status"] == "succeeded", paid
    assert paid["payment_method"]["type"] == "meeza" and paid["provider"] == "nilepay"
    assert paid["payment_method"]["card"]["brand"] == "meeza" and paid["payment_method"]["card"]["networks"] == ["meeza"]
    assert paid["payment_method"]["card"]["country"] == "EG"
    status, bad = await pay(client, merchant.sk, 50_000, currency="USD", number=number)
    assert status == 400 and (bad["error"]["code"], bad["error"]["param"]) == \
        ("card_currency_not_supported", "payment_method.card.number"), bad


@pytest.mark.parametrize("number,code", MEEZA_DECLINED)
async def test_meeza_declines_are_402_on_api(client, merchant, number, code):
    status, bad = await pay(client, merchant.sk, 50_000, currency="EGP", number=number)
    assert status == 402 and bad["error"]["decline_code"] == code, bad
    p = await Payment.get(merchant_id=merchant.id)
    assert p.status == "failed" and p.decline_code == code and p.card_brand == "meeza"


@pytest.mark.parametrize("extra,param", [({"capture": False}, "capture"),
                                         ({"capture_method": "manual"}, "capture_method")])
async def test_meeza_is_purchase_only(client, merchant, extra, param):
    status, bad = await pay(client, merchant.sk, 50_000, currency="EGP", number=MEEZA_OK[0], **extra)
    assert status == 400 and (bad["error"]["code"], bad["error"]["param"]) == ("capture_not_supported", param), bad
    assert await Payment.filter(merchant_id=merchant.id).count() == 0
    status, ok = await pay(client, merchant.sk, 50_000, currency="EGP", number="4242424242424242", **extra)
    assert status == 200 and ok["status"] == "authorized"        # another card: a separate capture is fine


async def test_meeza_type_refusals(client, merchant):
    status, bad = await call(client, "POST", "/api/payments/create", merchant.sk,
                             {"amount": 50_000, "currency": "EGP", "payment_method": card(type="meeza")})
    assert status == 400 and (bad["error"]["code"], bad["error"]["param"]) == \
        ("not_a_meeza_card", "payment_method.card.number"), bad
    e = await create(client, merchant.sk, amount=10_000, currency="SAR", payment_method="meeza", expect=400)
    assert err(e) == ("payment_method_unavailable", "payment_method")
    i = await create(client, merchant.sk, amount=10_000, currency="USD")
    e = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_meeza", return_url=RETURN_URL,
                      expect=400)
    assert err(e) == ("card_currency_not_supported", "payment_method_id")


@pytest.mark.parametrize("pm,outcome,code", [("pm_card_meeza", "succeeded", None),
                                             ("pm_card_meeza_insufficientFunds", "failed", "insufficient_funds"),
                                             ("pm_card_meeza_expiredCard", "failed", "expired_card")])
@pytest.mark.parametrize("method", ["card", "meeza"])
async def test_meeza_on_v1_always_3ds(client, merchant, pm, outcome, code, method):
    i = await create(client, merchant.sk, amount=50_000, currency="EGP", payment_method=method)
    e = await confirm(client, merchant.sk, i["id"], payment_method_id=pm, expect=400)
    assert err(e) == ("return_url_required", "return_url")
    c = await confirm(client, merchant.sk, i["id"], payment_method_id=pm, return_url=RETURN_URL)
    assert c["status"] == "requires_action"
    back = await _challenge(client, c["next_action"]["redirect_to_url"]["url"])
    assert parse_qs(urlsplit(back).query)["redirect_status"] == [outcome]
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == outcome and got["failure_code"] == code
    assert got["payment_method_details"]["card"]["brand"] == "meeza"
    assert (await PaymentIntent.get(id=i["id"])).provider == "nilepay"


# ---------------------------------------------------------------- everywhere: listing, analytics, checkout

async def test_method_types_list_troy_and_meeza_for_their_currency(client, merchant):
    for currency, t in (("TRY", "troy"), ("EGP", "meeza")):
        r = await client.get("/v1/payment_method_types", params={"currency": currency}, headers=bearer(merchant.pk))
        body = await r.json()
        by = {m["type"]: m for m in body["data"]}
        assert r.status == 200 and by[t]["flow"] == "card" and by[t]["currency"] == currency, body
        assert set(by[t]["display_name"]) == {"ar", "en", "tr"} and by[t]["sandbox"]["cards"]
        s, out = await gql(client, 'query($c: String!) { paymentMethodTypes(currency: $c) { type flow } }',
                           {"c": currency}, key=merchant.sk)
        assert {"type": t, "flow": "card"} in out["data"]["paymentMethodTypes"]
    r = await client.get("/v1/payment_method_types", params={"currency": "USD"}, headers=bearer(merchant.pk))
    assert not {"troy", "meeza"} & {m["type"] for m in (await r.json())["data"]}


async def test_analytics_count_troy_paying_try_and_meeza_paying_egp(client, merchant):
    await pay(client, merchant.sk, 10_000, currency="TRY", number="9792072000017956")      # /api: troy
    await pay(client, merchant.sk, 20_000, currency="TRY", number="4242424242424242")      # a card
    await pay(client, merchant.sk, 30_000, currency="USD", number="6501700194147183")      # Global in USD: card
    i = await create(client, merchant.sk, amount=40_000, currency="TRY")                   # /v1 card intent
    c = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_troy_global", return_url=RETURN_URL)
    await _challenge(client, c["next_action"]["redirect_to_url"]["url"])
    i = await create(client, merchant.sk, amount=50_000, currency="EGP")
    c = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_meeza", return_url=RETURN_URL)
    await _challenge(client, c["next_action"]["redirect_to_url"]["url"])
    await pay(client, merchant.sk, 60_000, currency="EGP", number="5078086700053445")      # /api: meeza
    status, tr = await call(client, "GET", "/api/analytics/methods?period=7d&currency=TRY", merchant.sk)
    assert status == 200 and tr["data"] == [{"method": "troy", "payments": 2, "volume": 50_000},
                                            {"method": "card", "payments": 1, "volume": 20_000}], tr
    status, eg = await call(client, "GET", "/api/analytics/methods?period=7d&currency=EGP", merchant.sk)
    assert status == 200 and eg["data"] == [{"method": "meeza", "payments": 2, "volume": 110_000}], eg
    status, us = await call(client, "GET", "/api/analytics/methods?period=7d&currency=USD", merchant.sk)
    assert us["data"] == [{"method": "card", "payments": 1, "volume": 30_000}]


def _choices(html: str) -> list[str]:
    import re
    return re.findall(r'<li data-method="([a-z_]+)"', html)


async def test_checkout_egp_order_and_scheme_cards_go_through_3ds(client, merchant):
    link = await make_link(client, merchant.sk, amount=50_000, currency="EGP")
    status, html, _ = await open_page(client, link["url"] + "?locale=en")
    offered = _choices(html)
    assert status == 200 and offered.index("fawry") < offered.index("eg_wallet") < offered.index("card"), offered
    assert "meeza" not in offered                   # a Meeza card pays through the card form
    status, body, _ = await submit(client, path_of(link["url"]), card_form("5078 0362 4660 0381"), fetch=True)
    assert status == 200 and 'data-testid="challenge"' in body["html"], body
    link = await make_link(client, merchant.sk, amount=120_000, currency="TRY")
    status, body, _ = await submit(client, path_of(link["url"]), card_form("6500 5288 6539 0837"), fetch=True)   # debit: no pick
    assert status == 200 and 'data-testid="challenge"' in body["html"], body
    assert await Payment.filter(merchant_id=merchant.id).count() == 0         # nothing charged before 3-D Secure


# ---------------------------------------------------------------- STC Pay's sandbox failure codes

@pytest.mark.parametrize("otp,code", [("111111", "insufficient_funds"), ("222222", "daily_limit_exceeded"),
                                      ("333333", "transaction_limit_exceeded"), ("444444", "timeout")])
async def test_stcpay_sandbox_codes_fail_the_intent(client, merchant, otp, code):
    i = await create(client, merchant.sk, currency="SAR", amount=10_000, payment_method="stcpay",
                     phone="+966512345678")
    c = await confirm(client, merchant.sk, i["id"])
    assert c["status"] == "requires_action"
    e = await confirm(client, merchant.sk, i["id"], otp=otp, expect=402)
    assert e["error"]["decline_code"] == code and e["error"]["param"] == "otp", e
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == "failed" and got["failure_code"] == code
    assert await Event.filter(merchant_id=merchant.id, type="payment.failed").count() == 1
    # confirmed again: a new code, and the right one pays
    c = await confirm(client, merchant.sk, i["id"])
    assert c["status"] == "requires_action"
    done = await confirm(client, merchant.sk, i["id"], otp="123456")
    assert done["status"] == "succeeded"
