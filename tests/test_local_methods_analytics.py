"""Issue 23, the last gaps: analytics by payment method (GET /api/analytics/methods and GraphQL
methodAnalytics) over /api payments and /v1 intents -- KNET in KWD (3 decimals), mada and cards
in SAR; a mada card sent as `card` counts as mada; declines and other currencies are left out."""
from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from tests.conftest import gql
from tests.intents_fixtures import RETURN_URL, confirm, create, get, set_country
from tests.payments_fixtures import call, no_exploration, pay  # noqa: F401
from tests.test_local_methods_flows import APPROVED as KNET_APPROVED, PIN, _open_page, _submit
from tests.test_local_methods_registry import _challenge

MADA, CARD, MADA_DECLINED = "5888450000000003", "4242424242424242", "9682010000000005"

QUERY = """query($currency: String) { methodAnalytics(period: "7d", currency: $currency) {
  currency period from to data { method payments volume } } }"""


async def _knet(client, key, amount: int) -> None:
    i = await create(client, key, amount=amount, currency="KWD", payment_method="knet", return_url=RETURN_URL)
    c = await confirm(client, key, i["id"])
    r, token, path = await _open_page(client, c["next_action"]["url"])
    r = await _submit(client, path, token, action="pay", bank="NBK", card_number=KNET_APPROVED, pin=PIN)
    assert r.status == 303
    assert (await get(client, key, i["id"]))["status"] == "succeeded"


async def test_analytics_by_method_for_payments_and_intents(client, merchant):
    await set_country(merchant.id, "SA")
    await _knet(client, merchant.sk, 12_345)                              # 12.345 KWD
    await _knet(client, merchant.sk, 1_005)                               # 1.005 KWD
    k = await create(client, merchant.sk, amount=7_000, currency="KWD", payment_method="knet")   # never paid
    await confirm(client, merchant.sk, k["id"], return_url=RETURN_URL)
    for number, amount in ((MADA, 25_000), (MADA, 1_000), (CARD, 40_000), (MADA_DECLINED, 9_900)):
        status, p = await pay(client, merchant.sk, amount, currency="SAR", number=number)
        assert status in (200, 402), p
    # a /v1 intent saying `card`, paid with a co-badged mada card (3-D Secure): mada
    i = await create(client, merchant.sk, amount=3_000, currency="SAR", payment_method="card")
    c = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_mada_visa", return_url=RETURN_URL)
    back = await _challenge(client, c["next_action"]["redirect_to_url"]["url"])
    assert parse_qs(urlsplit(back).query)["redirect_status"] == ["succeeded"]
    # a /v1 card intent with a Visa card: card
    v = await create(client, merchant.sk, amount=2_000, currency="SAR", payment_method="card")
    assert (await confirm(client, merchant.sk, v["id"], payment_method_id="pm_card_visa"))["status"] == "succeeded"

    status, sar = await call(client, "GET", "/api/analytics/methods?period=7d&currency=SAR", merchant.sk)
    assert status == 200, sar
    assert sar["object"] == "method_analytics" and sar["currency"] == "SAR" and sar["period"] == "7d"
    assert sar["data"] == [{"method": "card", "payments": 2, "volume": 42_000},
                           {"method": "mada", "payments": 3, "volume": 29_000}]
    status, kwd = await call(client, "GET", "/api/analytics/methods?period=7d&currency=KWD", merchant.sk)
    assert status == 200 and kwd["data"] == [{"method": "knet", "payments": 2, "volume": 13_350}], kwd
    status, egp = await call(client, "GET", "/api/analytics/methods?period=7d&currency=EGP", merchant.sk)
    assert status == 200 and egp["data"] == []
    # GraphQL says the same
    for body in (sar, kwd):
        s, out = await gql(client, QUERY, {"currency": body["currency"]}, key=merchant.sk)
        assert s == 200 and "errors" not in out, out
        assert out["data"]["methodAnalytics"] == {"currency": body["currency"], "period": "7d", "from": body["from"],
                                                  "to": body["to"], "data": body["data"]}
    # the window's errors name their field, on both
    status, bad = await call(client, "GET", "/api/analytics/methods?period=8d", merchant.sk)
    assert status == 400 and bad["error"]["param"] == "period"
    status, bad = await call(client, "GET", "/api/analytics/methods?currency=XXX", merchant.sk)
    assert status == 400 and bad["error"]["param"] == "currency"
    s, out = await gql(client, 'query { methodAnalytics(period: "8d") { currency } }', key=merchant.sk)
    assert out["errors"] and "period" in out["errors"][0]["message"]


# ---------------------------------------------------------------- the receipt of a Fawry payment

async def test_fawry_receipt_shows_the_reference_and_where_it_was_paid(client, merchant):
    from tests.checkout_fixtures import open_page
    i = await create(client, merchant.sk, amount=25_000, currency="EGP", payment_method="fawry")
    ref = (await confirm(client, merchant.sk, i["id"]))["next_action"]["reference"]
    status, paid = await call(client, "POST", "/api/test-helpers/fawry/pay", merchant.sk, {"reference": ref})
    assert status == 200 and paid["status"] == "succeeded"
    url = (await get(client, merchant.sk, i["id"]))["receipt_url"]
    for lang, method, where in (("en", "Fawry", "A Fawry outlet, in cash"), ("ar", "فوري", "منفذ فوري، نقدًا"),
                                ("tr", "Fawry", "Bir Fawry noktası, nakit")):
        status, html, _ = await open_page(client, url, **{"Accept-Language": lang})
        assert status == 200 and f'data-testid="receipt-reference">{ref}<' in html, (lang, html)
        assert f'data-testid="receipt-paid-where">{where}<' in html and method in html, lang
    r = await client.get(urlsplit(url).path, headers={"Accept": "text/plain", "Accept-Language": "en"})
    text = await r.text()
    assert r.status == 200 and f"Fawry reference: {ref}\n" in text and "Paid at: A Fawry outlet, in cash\n" in text
    # a card payment's receipt has neither line
    c = await create(client, merchant.sk, amount=2_000, currency="EGP", payment_method="card")
    await confirm(client, merchant.sk, c["id"], payment_method_id="pm_card_visa")
    status, html, _ = await open_page(client, (await get(client, merchant.sk, c["id"]))["receipt_url"])
    assert status == 200 and "receipt-reference" not in html and "receipt-paid-where" not in html


# ---------------------------------------------------------------- a link paid through a local method

async def _link_paid_by_knet(client, link, amount_pin=PIN) -> str:
    import re
    from html import unescape
    from tests.checkout_fixtures import open_page, path_of, submit
    path = path_of(link["url"])
    status, _, headers = await submit(client, path, {"action": "choose", "method": "knet", "locale": "en"})
    assert status == 303
    intent_path = urlsplit(headers["Location"]).path
    _, _, headers = await submit(client, intent_path, {"action": "local"})
    bank = headers["Location"]
    _, html, _ = await open_page(client, bank)
    token = unescape(re.search(r'name="token" value="([^"]+)"', html).group(1))
    r = await client.post(urlsplit(bank).path, data={"token": token, "action": "pay", "bank": "NBK",
                                                     "card_number": KNET_APPROVED, "pin": amount_pin},
                          allow_redirects=False)
    assert r.status == 303
    return intent_path.rsplit("/", 1)[1]


async def test_a_kwd_link_paid_through_knet_counts_the_intent_in_its_totals(client, merchant):
    from tests.checkout_fixtures import make_link
    link = await make_link(client, merchant.sk, amount=12_500, currency="KWD")
    other = await make_link(client, merchant.sk, amount=12_500, currency="KWD")
    intent_id = await _link_paid_by_knet(client, link)
    assert (await get(client, merchant.sk, intent_id))["status"] == "succeeded"
    # an unpaid KNET try on the same link does not count
    from tests.checkout_fixtures import path_of, submit
    await submit(client, path_of(link["url"]), {"action": "choose", "method": "knet", "locale": "en"})
    # a card payment of the link still counts, next to the intent
    from tests.checkout_fixtures import card_form
    status, _, _ = await submit(client, path_of(link["url"]), card_form())
    assert status in (200, 303)
    card_counted = 1
    status, got = await call(client, "GET", f"/api/payment-links/{link['id']}", merchant.sk)
    assert status == 200
    assert got["payments_count"] == 1 + card_counted and got["amount_collected"] == 12_500 * (1 + card_counted)
    # refunded in part: collected is what stays
    status, _ = await call(client, "POST", f"/v1/payments/{intent_id}/refund", merchant.sk, {"amount": 2_005})
    assert status == 200
    status, got = await call(client, "GET", f"/api/payment-links/{link['id']}", merchant.sk)
    assert got["payments_count"] == 1 + card_counted
    assert got["amount_collected"] == 12_500 * (1 + card_counted) - 2_005
    status, listed = await call(client, "GET", "/api/payment-links", merchant.sk)
    by_id = {x["id"]: x for x in listed["data"]}
    assert by_id[link["id"]]["amount_collected"] == got["amount_collected"]
    assert by_id[other["id"]]["payments_count"] == 0 and by_id[other["id"]]["amount_collected"] == 0
