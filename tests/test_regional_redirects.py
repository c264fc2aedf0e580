"""Issue 46, sections 3 and 5: Egypt's mobile wallets (eg_wallet, EGP), NAPS/QPay (naps, QAR) and
OmanNet (omannet, OMR), redirects as KNET's: the registry rows, the sandbox pages over HTTP (pay,
decline, cancel, 410 once finished, the wallet's PIN and code with three attempts, OmanNet's code
step), the wallet request's 3 hours on the test clock, purchase only, OmanNet's full refunds,
GraphQL, idempotent confirms, analytics, the hosted checkout's order, and no card number, PIN or
code stored or logged."""
from __future__ import annotations

import re
from datetime import datetime, timedelta
from html import unescape
from urllib.parse import parse_qs, urlsplit

import orjson
import pytest
from tortoise import Tortoise

from models.events import Event
from models.intents import PaymentIntent
from services.identity.api_keys import issue_key
from services.money import ledger
from tests.checkout_fixtures import make_link, open_page, path_of, submit
from tests.conftest import gql
from tests.helpers import bearer
from tests.intents_fixtures import RETURN_URL, confirm, create, err, get
from tests.payments_fixtures import call, no_exploration  # noqa: F401

APPROVED, DECLINED = "8888880000000001", "8888880000000002"
WALLET = "01010101010"
NEXT_YEAR = "12/39"      # far ahead of every test clock (each test starts a day later than the one before)


async def _events(intent_id: str) -> list[str]:
    return sorted(await Event.filter(object_id=intent_id).values_list("type", flat=True))


async def _page(client, url: str):
    parts = urlsplit(url)
    r = await client.get(f"{parts.path}?{parts.query}")
    return r, parse_qs(parts.query)["token"][0], parts.path


async def _submit(client, path, token, **form):
    return await client.post(path, data={"token": token, **form}, allow_redirects=False)


async def _started(client, key, method, currency, amount, **extra):
    i = await create(client, key, amount=amount, currency=currency, payment_method=method, return_url=RETURN_URL,
                     **extra)
    c = await confirm(client, key, i["id"])
    assert c["status"] == "requires_action", c
    na = c["next_action"]
    assert na["type"] == "redirect" and na["return_url"] == RETURN_URL
    assert na["url"].startswith(f"https://pay.qafila.test/{i['id']}/{method}?token=")
    r, token, path = await _page(client, na["url"])
    assert r.status == 200 and f'data-testid="sandbox-{method}"' in await r.text()
    return i, c, token, path


def _back(r) -> dict:
    assert r.status == 303, r.status
    back = urlsplit(r.headers["Location"])
    assert back.netloc == "merchant.example.com"
    return parse_qs(back.query)


# ---------------------------------------------------------------- the registry

async def test_each_method_is_listed_for_its_currency_only(client, merchant):
    expected = {"EGP": "eg_wallet", "QAR": "naps", "OMR": "omannet"}
    for currency, method in expected.items():
        r = await client.get("/v1/payment_method_types", params={"currency": currency}, headers=bearer(merchant.sk))
        body = await r.json()
        assert r.status == 200, body
        row = next(m for m in body["data"] if m["type"] == method)
        assert row["flow"] == "redirect" and row["currency"] == currency and row["limits"]["minimum"] > 0
        assert set(row["display_name"]) == {"ar", "en", "tr"} and row["fee"]["bps"] > 0 and row["sandbox"]
        assert row["providers"] == (["nilepay"] if method == "eg_wallet" else ["gulfnet"])
        status, out = await gql(client, "query($c: String!) { paymentMethodTypes(currency: $c) { type flow } }",
                                {"c": currency}, key=merchant.sk)
        assert status == 200 and {"type": method, "flow": "redirect"} in out["data"]["paymentMethodTypes"], out
        for other in set(expected) - {currency}:
            r = await client.get("/v1/payment_method_types", params={"currency": other}, headers=bearer(merchant.sk))
            assert method not in [m["type"] for m in (await r.json())["data"]]
        # another currency: 400 naming payment_method
        e = await create(client, merchant.sk, amount=10_000, currency="SAR", payment_method=method, expect=400)
        assert err(e) == ("payment_method_unavailable", "payment_method")


@pytest.mark.parametrize("method,currency,extra", [("naps", "QAR", {}), ("omannet", "OMR", {}),
                                                   ("eg_wallet", "EGP", {"phone": WALLET})])
async def test_purchase_only(client, merchant, method, currency, extra):
    e = await create(client, merchant.sk, amount=10_000, currency=currency, payment_method=method,
                     capture_method="manual", expect=400, **extra)
    assert err(e) == ("capture_not_supported", "capture_method")
    ok = await create(client, merchant.sk, amount=10_000, currency=currency, payment_method=method,
                      capture_method="automatic", **extra)
    assert ok["status"] == "requires_payment_method" and ok["payment_method"] == method


# ---------------------------------------------------------------- NAPS

async def test_naps_pays_declines_and_cancels_on_its_page(client, merchant):
    i, c, token, path = await _started(client, merchant.sk, "naps", "QAR", 25_050)
    html = await (await _page(client, c["next_action"]["url"]))[0].text()
    assert 'name="bank"' in html and 'name="pin"' in html and "Qatar National Bank" in html
    r = await _submit(client, path, token, action="pay", bank="NOPE", card_number=APPROVED, pin="1234")
    assert r.status == 400 and 'data-field="bank"' in await r.text()
    r = await _submit(client, path, token, action="pay", bank="QNB", card_number=APPROVED, pin="12")
    assert r.status == 400 and 'data-field="pin"' in await r.text()
    r = await _submit(client, path, token, action="pay", bank="QNB", card_number=APPROVED, pin="1234")
    assert _back(r) == {"payment_intent": [i["id"]], "redirect_status": ["succeeded"]}
    got = await get(client, merchant.sk, i["id"])
    d = got["payment_method_details"]["naps"]
    assert got["status"] == "succeeded" and got["amount_received"] == 25_050 and d["result"] == "CAPTURED"
    assert d["bank"] == "QNB" and d["transaction_id"].isdigit() and d["payment_id"].isdigit()
    assert await _events(i["id"]) == ["payment.created", "payment.succeeded"]
    assert await ledger.merchant_balance(merchant_id=merchant.id, livemode=False) == \
        {"QAR": 25_050 - i["fee"]["amount"]}
    assert (await PaymentIntent.get(id=i["id"])).provider == "gulfnet"
    assert (await _page(client, c["next_action"]["url"]))[0].status == 410
    r = await _submit(client, path, token, action="pay", bank="QNB", card_number=APPROVED, pin="1234")
    assert r.status == 410
    # declined card, then a new confirm and a cancel
    j, c2, token, path = await _started(client, merchant.sk, "naps", "QAR", 5_000)
    r = await _submit(client, path, token, action="pay", bank="DOHA", card_number=DECLINED, pin="1234")
    assert _back(r)["redirect_status"] == ["failed"]
    got = await get(client, merchant.sk, j["id"])
    assert got["failure_code"] == "NOT CAPTURED" and got["payment_method_details"]["naps"]["result"] == "NOT CAPTURED"
    again = await confirm(client, merchant.sk, j["id"])
    r = await _submit(client, path, token, action="cancel")
    assert _back(r)["redirect_status"] == ["failed"] and again["status"] == "requires_action"
    assert (await get(client, merchant.sk, j["id"]))["failure_code"] == "CANCELED"
    assert await _events(j["id"]) == ["payment.created", "payment.failed", "payment.failed"]
    # a refund as cards: partial
    status, refunded = await call(client, "POST", f"/v1/payments/{i['id']}/refund", merchant.sk, {"amount": 1_000})
    assert status == 200 and refunded["amount_refunded"] == 1_000, refunded


# ---------------------------------------------------------------- OmanNet

async def test_omannet_card_and_expiry_then_the_one_time_code(client, merchant):
    i, c, token, path = await _started(client, merchant.sk, "omannet", "OMR", 12_345)      # 12.345 OMR
    html = await (await _page(client, c["next_action"]["url"]))[0].text()
    assert 'name="expiry"' in html and 'name="pin"' not in html and 'name="code"' not in html
    r = await _submit(client, path, token, action="pay", card_number=APPROVED, expiry="01/20")
    assert r.status == 400 and 'data-field="expiry"' in await r.text()
    r = await _submit(client, path, token, action="pay", card_number="1234", expiry=NEXT_YEAR)
    assert r.status == 400 and 'data-field="card_number"' in await r.text()
    r = await _submit(client, path, token, action="pay", card_number=APPROVED, expiry=NEXT_YEAR)
    assert r.status == 303 and urlsplit(r.headers["Location"]).path == path        # on to the code step
    page, _, _ = await _page(client, r.headers["Location"])
    html = await page.text()
    assert 'name="code"' in html and 'name="card_number"' not in html and 'name="pin"' not in html
    r = await _submit(client, path, token, action="pay", code="12")
    assert r.status == 400 and 'data-field="code"' in await r.text()
    r = await _submit(client, path, token, action="pay", code="123456")
    assert _back(r)["redirect_status"] == ["succeeded"]
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == "succeeded" and got["payment_method_details"]["omannet"]["result"] == "CAPTURED"
    assert (await _page(client, c["next_action"]["url"]))[0].status == 410
    # full refunds only
    status, e = await call(client, "POST", f"/v1/payments/{i['id']}/refund", merchant.sk, {"amount": 1_000})
    assert status == 400 and err(e) == ("partial_refund_not_supported", "amount"), e
    assert (await PaymentIntent.get(id=i["id"])).amount_refunded == 0
    status, full = await call(client, "POST", f"/v1/payments/{i['id']}/refund", merchant.sk, {})
    assert status == 200 and full["status"] == "refunded" and full["amount_refunded"] == 12_345, full


@pytest.mark.parametrize("how", ["declined_card", "wrong_code", "cancel_at_code"])
async def test_omannet_not_captured_or_canceled(client, merchant, how):
    i, c, token, path = await _started(client, merchant.sk, "omannet", "OMR", 2_000)
    card = DECLINED if how == "declined_card" else APPROVED
    r = await _submit(client, path, token, action="pay", card_number=card, expiry=NEXT_YEAR)
    if how != "declined_card":
        assert r.status == 303 and urlsplit(r.headers["Location"]).netloc == "pay.qafila.test"
        r = await _submit(client, path, token, **({"action": "cancel"} if how == "cancel_at_code"
                                                  else {"action": "pay", "code": "654321"}))
    assert _back(r)["redirect_status"] == ["failed"]
    got = await get(client, merchant.sk, i["id"])
    assert got["failure_code"] == ("CANCELED" if how == "cancel_at_code" else "NOT CAPTURED")
    assert (await _page(client, c["next_action"]["url"]))[0].status == 410


# ---------------------------------------------------------------- Egyptian mobile wallets

async def test_eg_wallet_phone_checks(client, merchant):
    for bad in ("0131234567", "01312345678", "0101010101", "+966512345678", "hello", 1010101010):
        e = await create(client, merchant.sk, amount=10_000, currency="EGP", payment_method="eg_wallet", phone=bad,
                         expect=400)
        assert err(e)[1] == "phone", (bad, e)
    for good in ("010 1010 1010", "+20 10 1010 1010", "+201112345678", "01212345678", "01512345678"):
        await create(client, merchant.sk, amount=10_000, currency="EGP", payment_method="eg_wallet", phone=good)
    # no phone on create: confirm asks for it, then takes it
    i = await create(client, merchant.sk, amount=10_000, currency="EGP", payment_method="eg_wallet",
                     return_url=RETURN_URL)
    e = await confirm(client, merchant.sk, i["id"], expect=400)
    assert err(e)[1] == "phone"
    e = await confirm(client, merchant.sk, i["id"], phone="0123", expect=400)
    assert err(e)[1] == "phone"
    c = await confirm(client, merchant.sk, i["id"], phone="+20 101 010 1010")
    assert c["status"] == "requires_action" and c["payment_method_details"]["eg_wallet"]["phone_hint"] == "****1010"
    # phone is for stcpay and eg_wallet only
    e = await create(client, merchant.sk, amount=10_000, currency="QAR", payment_method="naps", phone=WALLET,
                     expect=400)
    assert err(e) == ("payment_method_not_used", "phone")


async def test_eg_wallet_pays_with_pin_and_code_and_refunds_in_parts(client, merchant):
    i, c, token, path = await _started(client, merchant.sk, "eg_wallet", "EGP", 30_000, phone=WALLET)
    html = await (await _page(client, c["next_action"]["url"]))[0].text()
    assert 'name="pin"' in html and 'name="code"' in html and 'id="cancel"' in html and "****1010" in html
    r = await _submit(client, path, token, action="pay", pin="123", code="123456")
    assert r.status == 400 and 'data-field="pin"' in await r.text()                 # malformed: no attempt used
    r = await _submit(client, path, token, action="pay", pin="111111", code="123456")
    assert r.status == 400 and 'data-field="pin"' in await r.text() and "2 attempts left" in await r.text()
    assert (await get(client, merchant.sk, i["id"]))["status"] == "requires_action"
    r = await _submit(client, path, token, action="pay", pin="123456", code="123456")
    assert _back(r)["redirect_status"] == ["succeeded"]
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == "succeeded" and got["payment_method_details"]["eg_wallet"]["result"] == "CAPTURED"
    assert await _events(i["id"]) == ["payment.created", "payment.succeeded"]
    assert (await PaymentIntent.get(id=i["id"])).provider == "nilepay"
    status, part = await call(client, "POST", f"/v1/payments/{i['id']}/refund", merchant.sk, {"amount": 10_000})
    assert status == 200 and part["status"] == "succeeded" and part["amount_refunded"] == 10_000, part
    status, rest = await call(client, "POST", f"/v1/payments/{i['id']}/refund", merchant.sk, {})
    assert status == 200 and rest["status"] == "refunded" and rest["amount_refunded"] == 30_000, rest


async def test_eg_wallet_third_wrong_answer_fails_the_intent(client, merchant):
    i, c, token, path = await _started(client, merchant.sk, "eg_wallet", "EGP", 5_000, phone=WALLET)
    for k, (pin, code) in enumerate((("123456", "000000"), ("999999", "123456"))):
        r = await _submit(client, path, token, action="pay", pin=pin, code=code)
        text = await r.text()
        assert r.status == 400 and f'data-field="{"code" if k == 0 else "pin"}"' in text
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == "requires_action" and got["payment_method_details"]["eg_wallet"]["attempts_left"] == 1
    r = await _submit(client, path, token, action="pay", pin="123456", code="111111")
    assert _back(r)["redirect_status"] == ["failed"]
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == "failed" and got["failure_code"] == "otp_attempts_exceeded"
    assert (await _page(client, c["next_action"]["url"]))[0].status == 410
    # a new confirm: a new request, three attempts again; cancel
    again = await confirm(client, merchant.sk, i["id"])
    assert again["payment_method_details"]["eg_wallet"]["attempts_left"] == 3
    r = await _submit(client, path, token, action="cancel")
    assert _back(r)["redirect_status"] == ["failed"]
    assert (await get(client, merchant.sk, i["id"]))["failure_code"] == "CANCELED"


def _ts(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


async def _advance(client, key, hours: int):
    status, clock = await call(client, "GET", "/api/test-helpers/clock", key)
    assert status == 200, clock
    status, out = await call(client, "POST", "/api/test-helpers/advance-clock", key,
                             {"to": (_ts(clock["now"]) + timedelta(hours=hours)).isoformat().replace("+00:00", "Z")})
    assert status == 200, out


async def test_eg_wallet_request_expires_after_3_hours_on_the_test_clock(client, merchant):
    i, c, token, path = await _started(client, merchant.sk, "eg_wallet", "EGP", 5_000, phone=WALLET)
    status, clock = await call(client, "GET", "/api/test-helpers/clock", merchant.sk)
    left = _ts(c["expires_at"]) - _ts(clock["now"])
    assert timedelta(hours=2, minutes=59) <= left <= timedelta(hours=3), (c["expires_at"], clock)
    await _advance(client, merchant.sk, 2)
    assert (await get(client, merchant.sk, i["id"]))["status"] == "requires_action"
    await _advance(client, merchant.sk, 2)
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == "failed" and got["failure_code"] == "expired", got
    assert await _events(i["id"]) == ["payment.created", "payment.failed"]
    r = await _submit(client, path, token, action="pay", pin="123456", code="123456")
    assert r.status == 410


# ---------------------------------------------------------------- idempotency, GraphQL, analytics

async def test_confirm_is_idempotent(client, merchant):
    for method, currency, extra in (("naps", "QAR", {}), ("omannet", "OMR", {}), ("eg_wallet", "EGP", {"phone": WALLET})):
        i = await create(client, merchant.sk, amount=5_000, currency=currency, payment_method=method,
                         return_url=RETURN_URL, **extra)
        a = await confirm(client, merchant.sk, i["id"], headers={"Idempotency-Key": f"c-{method}"})
        b = await confirm(client, merchant.sk, i["id"], headers={"Idempotency-Key": f"c-{method}"})
        assert a == b and a["status"] == "requires_action"
        assert await _events(i["id"]) == ["payment.created"]


CREATE = """mutation($input: PaymentIntentCreateInput!) { paymentIntentCreate(input: $input) {
  paymentIntent { id status } userErrors { code field message } } }"""
CONFIRM = """mutation($input: PaymentIntentConfirmInput!) { paymentIntentConfirm(input: $input) {
  paymentIntent { id status failureCode paymentMethodDetails nextAction { type url returnUrl } }
  userErrors { code field message } } }"""


async def test_graphql_creates_and_confirms_each(client, merchant):
    async def run(query, **input_):
        status, body = await gql(client, query, {"input": input_}, key=merchant.sk)
        assert status == 200 and "errors" not in body, body
        return next(iter(body["data"].values()))

    bad = await run(CREATE, amount=1000, currency="EGP", paymentMethod="eg_wallet", phone="0191234567")
    assert bad["userErrors"][0]["field"] == "phone"
    bad = await run(CREATE, amount=1000, currency="QAR", paymentMethod="naps", captureMethod="manual")
    assert bad["userErrors"][0]["code"] == "capture_not_supported"
    bad = await run(CREATE, amount=1000, currency="KWD", paymentMethod="omannet")
    assert bad["userErrors"][0]["code"] == "payment_method_unavailable"
    for method, currency, extra in (("naps", "QAR", {}), ("omannet", "OMR", {}), ("eg_wallet", "EGP", {"phone": WALLET})):
        made = await run(CREATE, amount=5_000, currency=currency, paymentMethod=method, returnUrl=RETURN_URL, **extra)
        out = (await run(CONFIRM, id=made["paymentIntent"]["id"]))["paymentIntent"]
        na = out["nextAction"]
        assert out["status"] == "requires_action" and na["type"] == "redirect" and na["returnUrl"] == RETURN_URL
        r, token, path = await _page(client, na["url"])
        form = {"naps": {"bank": "QNB", "card_number": DECLINED, "pin": "1234"},
                "omannet": {"card_number": DECLINED, "expiry": NEXT_YEAR},
                "eg_wallet": {"action": "cancel"}}[method]
        r = await _submit(client, path, token, **{"action": "pay", **form})
        assert _back(r)["redirect_status"] == ["failed"]
    failed = await run(CONFIRM, id=made["paymentIntent"]["id"], phone="0191234567")
    assert failed["userErrors"][0]["field"] == "phone"


async def test_analytics_counts_each_method(client, merchant):
    for method, currency, amount, form in (
            ("naps", "QAR", 10_000, {"bank": "QNB", "card_number": APPROVED, "pin": "1234"}),
            ("eg_wallet", "EGP", 20_000, {"pin": "123456", "code": "123456"})):
        i, c, token, path = await _started(client, merchant.sk, method, currency, amount,
                                           **({"phone": WALLET} if method == "eg_wallet" else {}))
        assert _back(await _submit(client, path, token, action="pay", **form))["redirect_status"] == ["succeeded"]
        status, out = await call(client, "GET", f"/api/analytics/methods?period=7d&currency={currency}", merchant.sk)
        assert status == 200 and out["data"] == [{"method": method, "payments": 1, "volume": amount}], out


# ---------------------------------------------------------------- the hosted checkout

def _choice_types(html: str) -> list[str]:
    return re.findall(r'class="method-choice" data-method="([a-z0-9_]+)"', html)


async def test_checkout_offers_them_in_order_and_pays_with_the_wallet(client, merchant):
    for currency, amount, first in (("QAR", 4_000, ["naps", "card"]), ("OMR", 4_000, ["omannet", "card"]),
                                    ("EGP", 40_000, ["fawry", "eg_wallet", "card"])):
        link = await make_link(client, merchant.sk, amount=amount, currency=currency)
        status, html, _ = await open_page(client, link["url"] + "?locale=en")
        assert status == 200 and _choice_types(html)[:len(first)] == first, _choice_types(html)
    # EGP: the wallet asks the phone on its choose form, then the wallet's page
    link = await make_link(client, merchant.sk, amount=40_000, currency="EGP")
    status, html, _ = await open_page(client, link["url"] + "?method=eg_wallet&locale=en")
    panel = html[html.index('data-testid="panel-eg_wallet"'):]
    assert 'id="eg_wallet-phone"' in panel and "Wallet mobile number" in panel
    path = path_of(link["url"])
    status, html, _ = await submit(client, path, {"action": "choose", "method": "eg_wallet", "phone": "0123",
                                                  "locale": "en"})
    assert status == 400 and "Egyptian mobile" in html                      # the phone, named, nothing made
    status, _, headers = await submit(client, path, {"action": "choose", "method": "eg_wallet",
                                                     "phone": "010 1010 1010", "locale": "en"})
    assert status == 303
    intent_path = urlsplit(headers["Location"]).path
    i = await PaymentIntent.get(id=intent_path.rsplit("/", 1)[1])
    assert i.payment_method == "eg_wallet" and i.method_details == {"phone": "+201010101010"}
    status, _, headers = await submit(client, intent_path, {"action": "local"})
    assert status == 303 and f"{i.id}/eg_wallet?token=" in headers["Location"]
    r, token, wallet_path = await _page(client, unescape(headers["Location"]))
    assert r.status == 200 and "****1010" in await r.text()
    r = await _submit(client, wallet_path, token, action="pay", pin="123456", code="123456")
    result = urlsplit(r.headers["Location"])
    assert r.status == 303 and result.path == f"{intent_path}/result"
    assert parse_qs(result.query)["redirect_status"] == ["succeeded"]
    assert (await PaymentIntent.get(id=i.id)).status == "succeeded"


# ---------------------------------------------------------------- test helpers, secrets

async def test_no_card_number_pin_or_code_stored_or_logged(client, merchant, caplog):
    caplog.set_level("DEBUG")
    _, _, token, path = await _started(client, merchant.sk, "omannet", "OMR", 3_000)
    await _submit(client, path, token, action="pay", card_number=APPROVED, expiry="11/39")
    r = await _submit(client, path, token, action="pay", code="123456")
    assert "8888" not in r.headers["Location"] and "123456" not in r.headers["Location"]
    _, _, token, path = await _started(client, merchant.sk, "eg_wallet", "EGP", 3_000, phone=WALLET)
    await _submit(client, path, token, action="pay", pin="654321", code="123456")
    await _submit(client, path, token, action="pay", pin="123456", code="123456")
    _, _, token, path = await _started(client, merchant.sk, "naps", "QAR", 3_000)
    await _submit(client, path, token, action="pay", bank="QNB", card_number=APPROVED, pin="4321")
    dump = b""
    for app in Tortoise.apps.values():
        for model in app.values():
            if "merchant_id" in model._meta.fields_db_projection:
                dump += orjson.dumps(await model.filter(merchant_id=merchant.id).values(), default=str)
    assert b"pay_" in dump
    for secret in (APPROVED.encode(), b"4321", b"654321", b"123456", b"11/39"):
        found = re.search(rb"(?<![0-9A-Za-z])" + re.escape(secret) + rb"(?![0-9A-Za-z])", dump)
        assert found is None, (secret, dump[max(0, found.start() - 300):found.end() + 50])
    logged = [rec.getMessage() for rec in caplog.records]
    for secret in ("4321", "654321", "123456", APPROVED, "11/39"):
        assert not any(re.search(rf"(?<![0-9A-Za-z]){re.escape(secret)}(?![0-9A-Za-z])", m) for m in logged), secret


async def test_the_pages_404_for_a_wrong_token_and_live_keys_have_no_sandbox(client, merchant):
    i, c, token, path = await _started(client, merchant.sk, "naps", "QAR", 3_000)
    assert (await client.get(f"{path}?token=wrong")).status == 404
    assert (await client.get(f"{path.replace('/naps', '/omannet')}?token={token}")).status == 404
    _, live = await issue_key(merchant_id=merchant.id, kind="secret", livemode=True, name="live")
    status, e = await call(client, "POST", "/api/test-helpers/advance-clock", live, {"days": 1})
    assert status == 403, e
