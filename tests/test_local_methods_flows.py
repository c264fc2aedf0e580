"""Issue 23: KNET and BenefitPay (redirect and sandbox page), Fawry (reference, outlet payment,
expiry on the test clock, no refund through Fawry), STC Pay (one-time code with attempts),
through REST and GraphQL; idempotent confirms; no card number, PIN or code stored or sent."""
from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import orjson
import pytest
from tortoise import Tortoise

from models.events import Event
from models.intents import PaymentIntent
from services.identity.api_keys import issue_key
from services.money import ledger
from services.payments import local_methods
from services.payments.intents import expire_intents
from tests.conftest import gql
from tests.helpers import bearer
from tests.intents_fixtures import RETURN_URL, confirm, create, err, get, post
from tests.payments_fixtures import call, no_exploration  # noqa: F401

APPROVED, DECLINED, PIN = "8888880000000001", "8888880000000002", "1234"
PHONE = "+966550001122"


async def _events(intent_id: str) -> list[str]:
    return sorted(await Event.filter(object_id=intent_id).values_list("type", flat=True))


async def _open_page(client, url: str):
    parts = urlsplit(url)
    r = await client.get(f"{parts.path}?{parts.query}")
    return r, parse_qs(parts.query)["token"][0], parts.path


async def _submit(client, path, token, **form):
    return await client.post(path, data={"token": token, **form}, allow_redirects=False)


# ---------------------------------------------------------------- KNET and BenefitPay

@pytest.mark.parametrize("method,currency,amount", [("knet", "KWD", 12_345), ("benefit", "BHD", 5_250)])
async def test_redirect_method_succeeds_through_the_sandbox_page(client, merchant, method, currency, amount):
    i = await create(client, merchant.sk, amount=amount, currency=currency, payment_method=method,
                     return_url=RETURN_URL)
    c = await confirm(client, merchant.sk, i["id"])
    assert c["status"] == "requires_action"
    na = c["next_action"]
    assert na["type"] == "redirect" and na["return_url"] == RETURN_URL
    assert na["url"].startswith(f"https://pay.qafila.test/{i['id']}/{method}?token=")
    r, token, path = await _open_page(client, na["url"])
    html = await r.text()
    assert r.status == 200 and f'data-testid="sandbox-{method}"' in html and 'name="pin"' in html
    assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]
    assert "form-action 'self' https://merchant.example.com" in r.headers["Content-Security-Policy"]
    r = await _submit(client, path, token, action="pay", bank=local_methods.BANKS[method][0][0],
                      card_number=APPROVED, pin=PIN)
    assert r.status == 303
    back = urlsplit(r.headers["Location"])
    assert back.netloc == "merchant.example.com"
    assert parse_qs(back.query) == {"payment_intent": [i["id"]], "redirect_status": ["succeeded"]}
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == "succeeded" and got["amount_received"] == amount and got["next_action"] is None
    d = got["payment_method_details"][method]
    assert d["result"] == "CAPTURED" and d["payment_id"].isdigit() and d["transaction_id"].isdigit()
    assert d["reference_number"].isdigit() and d["bank"] == local_methods.BANKS[method][0][0]
    assert got["fee"]["amount"] == i["fee"]["amount"]
    assert await _events(i["id"]) == ["payment.created", "payment.succeeded"]
    bal = await ledger.merchant_balance(merchant_id=merchant.id, livemode=False)
    assert bal == {currency: amount - i["fee"]["amount"]}
    assert (await PaymentIntent.get(id=i["id"])).provider == "gulfnet"
    # The page of a finished payment says so; an unknown one is 404.
    r, _, _ = await _open_page(client, na["url"])
    assert r.status == 410
    r = await client.get(f"{path.replace(i['id'], 'pay_unknown000')}?token={token}")
    assert r.status == 404
    r = await client.get(f"{path}?token=wrong")
    assert r.status == 404
    # every method but Fawry refunds as cards do: a partial refund, on the ledger
    status, refunded = await call(client, "POST", f"/v1/payments/{i['id']}/refund", merchant.sk, {"amount": 1_000})
    assert status == 200 and refunded["amount_refunded"] == 1_000 and refunded["status"] == "succeeded", refunded
    bal = await ledger.merchant_balance(merchant_id=merchant.id, livemode=False)
    assert bal == {currency: amount - i["fee"]["amount"] - 1_000}


@pytest.mark.parametrize("action,card,code", [("pay", DECLINED, "NOT CAPTURED"), ("pay", APPROVED + "x", None),
                                              ("cancel", None, "CANCELED")])
async def test_knet_decline_and_cancel_fail_the_intent_with_the_scheme_result(client, merchant, action, card, code):
    i = await create(client, merchant.sk, amount=10_000, currency="KWD", payment_method="knet")
    e = await confirm(client, merchant.sk, i["id"], expect=400)
    assert err(e) == ("return_url_required", "return_url")
    c = await confirm(client, merchant.sk, i["id"], return_url=RETURN_URL)
    r, token, path = await _open_page(client, c["next_action"]["url"])
    form = {"action": action, "bank": "NBK"}
    if card:
        form.update(card_number=card, pin=PIN)
    r = await _submit(client, path, token, **form)
    if code is None:                       # a bad card number: the page again, 400, nothing changed
        assert r.status == 400 and "card_number must be 16 digits" in await r.text()
        assert (await get(client, merchant.sk, i["id"]))["status"] == "requires_action"
        return
    assert r.status == 303 and parse_qs(urlsplit(r.headers["Location"]).query)["redirect_status"] == ["failed"]
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == "failed" and got["failure_code"] == code
    assert got["payment_method_details"]["knet"]["result"] == code
    assert await _events(i["id"]) == ["payment.created", "payment.failed"]
    assert await ledger.merchant_balance(merchant_id=merchant.id, livemode=False) == {}
    # A failed KNET payment can be confirmed again: a new page visit.
    c = await confirm(client, merchant.sk, i["id"])
    assert c["status"] == "requires_action" and c["next_action"]["return_url"] == RETURN_URL


async def test_wrong_pin_is_not_captured(client, merchant):
    i = await create(client, merchant.sk, amount=10_000, currency="KWD", payment_method="knet", return_url=RETURN_URL)
    c = await confirm(client, merchant.sk, i["id"])
    _, token, path = await _open_page(client, c["next_action"]["url"])
    r = await _submit(client, path, token, action="pay", bank="KFH", card_number=APPROVED, pin="9999")
    assert r.status == 303
    assert (await get(client, merchant.sk, i["id"]))["failure_code"] == "NOT CAPTURED"


# ---------------------------------------------------------------- Fawry

async def test_fawry_reference_paid_at_an_outlet(client, merchant, clock):
    i = await create(client, merchant.sk, amount=25_000, currency="EGP", payment_method="fawry")
    c = await confirm(client, merchant.sk, i["id"])
    na = c["next_action"]
    assert c["status"] == "requires_action" and na["type"] == "display_reference"
    assert na["reference"].isdigit() and len(na["reference"]) == 10
    assert na["expires_at"] == (clock.now() + timedelta(hours=48)).isoformat(timespec="milliseconds").replace(
        "+00:00", "Z")
    assert c["expires_at"] == na["expires_at"]
    # Still waiting after the generic one-hour expiry of unpaid intents.
    clock.advance(hours=2)
    await expire_intents()
    assert (await get(client, merchant.sk, i["id"]))["status"] == "requires_action"
    status, paid = await call(client, "POST", "/api/test-helpers/fawry/pay", merchant.sk, {"reference": na["reference"]})
    assert status == 200 and paid["status"] == "succeeded" and paid["id"] == i["id"]
    assert paid["payment_method_details"]["fawry"]["reference"] == na["reference"]
    assert await _events(i["id"]) == ["payment.created", "payment.succeeded"]
    status, again = await call(client, "POST", "/api/test-helpers/fawry/pay", merchant.sk,
                               {"reference": na["reference"]})
    assert status == 400 and again["error"]["code"] == "reference_already_paid"
    assert again["error"]["param"] == "reference" and "already paid" in again["error"]["detail"]
    # Fawry cannot pay cash back: the /v1 refund is refused and changes nothing
    status, refused = await call(client, "POST", f"/v1/payments/{i['id']}/refund", merchant.sk, {})
    assert status == 400 and refused["error"]["code"] == "refund_not_supported", refused
    after = await PaymentIntent.get(id=i["id"])
    assert after.status == "succeeded" and after.amount_refunded == 0


async def test_fawry_expires_on_the_test_clock_by_the_scheduler(client, merchant):
    i = await create(client, merchant.sk, amount=25_000, currency="EGP", payment_method="fawry", expires_in_hours=2)
    c = await confirm(client, merchant.sk, i["id"])
    ref = c["next_action"]["reference"]
    status, out = await call(client, "POST", "/api/test-helpers/advance-clock", merchant.sk, {"days": 1})
    assert status == 200 and [r["kind"] for r in out["ran"] if r["kind"] == "fawry.expire"] == ["fawry.expire"]
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == "failed" and got["failure_code"] == "expired"
    assert await _events(i["id"]) == ["payment.created", "payment.failed"]
    status, e = await call(client, "POST", "/api/test-helpers/fawry/pay", merchant.sk, {"reference": ref})
    assert status == 400 and e["error"]["code"] == "reference_expired"


async def test_fawry_input_checks_and_live_keys(client, merchant):
    for hours in (0, 169, "x"):
        e = await create(client, merchant.sk, currency="EGP", amount=10_000, payment_method="fawry",
                         expires_in_hours=hours, expect=400)
        assert err(e)[1] == "expires_in_hours"
    e = await create(client, merchant.sk, currency="EGP", amount=10_000, payment_method="card", expires_in_hours=5,
                     expect=400)
    assert err(e) == ("payment_method_not_used", "expires_in_hours")      # fawry's field, like phone for stcpay
    status, e = await call(client, "POST", "/api/test-helpers/fawry/pay", merchant.sk, {"reference": "1234567890"})
    assert status == 404 and e["error"]["param"] == "reference"
    status, e = await call(client, "POST", "/api/test-helpers/fawry/pay", merchant.sk, {})
    assert status == 400 and e["error"]["param"] == "reference"
    _, live = await issue_key(merchant_id=merchant.id, kind="secret", livemode=True, name="live")
    status, e = await call(client, "POST", "/api/test-helpers/fawry/pay", live, {"reference": "1234567890"})
    assert status == 403 and e["error"]["code"] == "test_mode_only"


# ---------------------------------------------------------------- STC Pay

@pytest.mark.parametrize("phone", ["+966412345678", "+9665123456", "+97150123456", "0512", 966512345678, "abc"])
async def test_stcpay_phone_must_be_a_saudi_mobile(client, merchant, phone):
    e = await create(client, merchant.sk, currency="SAR", amount=10_000, payment_method="stcpay", phone=phone,
                     expect=400)
    assert err(e) == ("invalid_request", "phone")


async def test_stcpay_otp_with_attempts_and_idempotent_steps(client, merchant):
    e = await create(client, merchant.sk, currency="SAR", amount=10_000, payment_method="stcpay", expect=400)
    assert err(e) == ("invalid_request", "phone")
    i = await create(client, merchant.sk, currency="SAR", amount=10_000, payment_method="stcpay", phone="0550001122")
    c = await confirm(client, merchant.sk, i["id"], headers={"Idempotency-Key": "send-1"})
    assert c["status"] == "requires_action" and c["next_action"] == {"type": "otp", "phone_hint": "****1122"}
    e = await confirm(client, merchant.sk, i["id"], otp="000000", expect=402, headers={"Idempotency-Key": "otp-1"})
    assert e["error"]["decline_code"] == "invalid_otp" and e["error"]["attempts_left"] == 2
    assert e["error"]["param"] == "otp"
    # The same key again: the same answer, no attempt spent.
    e = await confirm(client, merchant.sk, i["id"], otp="000000", expect=402, headers={"Idempotency-Key": "otp-1"})
    assert e["error"]["attempts_left"] == 2
    got = await get(client, merchant.sk, i["id"])
    assert got["payment_method_details"]["stcpay"] == {"phone_hint": "****1122", "attempts_left": 2}
    c = await confirm(client, merchant.sk, i["id"], otp="123456", headers={"Idempotency-Key": "otp-2"})
    assert c["status"] == "succeeded"
    again = await confirm(client, merchant.sk, i["id"], otp="123456", headers={"Idempotency-Key": "otp-2"})
    assert again["status"] == "succeeded" and again["succeeded_at"] == c["succeeded_at"]
    assert await _events(i["id"]) == ["payment.created", "payment.succeeded"]
    assert (await PaymentIntent.get(id=i["id"])).provider == "gulfnet"


async def test_three_wrong_codes_fail_the_intent(client, merchant):
    i = await create(client, merchant.sk, currency="SAR", amount=10_000, payment_method="stcpay", phone=PHONE)
    e = await confirm(client, merchant.sk, i["id"], otp="123456", expect=400)       # no code was sent yet
    assert err(e) == ("invalid_request", "otp")
    await confirm(client, merchant.sk, i["id"])
    for left in (2, 1, 0):
        e = await confirm(client, merchant.sk, i["id"], otp="000000", expect=402)
        assert e["error"]["attempts_left"] == left
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == "failed" and got["failure_code"] == "otp_attempts_exceeded"
    assert await _events(i["id"]) == ["payment.created", "payment.failed"]
    e = await confirm(client, merchant.sk, i["id"], otp="123456", expect=400)
    assert err(e) == ("invalid_request", "otp")
    c = await confirm(client, merchant.sk, i["id"])                                  # a new code, three attempts
    assert c["status"] == "requires_action" and c["payment_method_details"]["stcpay"]["attempts_left"] == 3


# ---------------------------------------------------------------- GraphQL agrees

CREATE = """mutation($input: PaymentIntentCreateInput!) { paymentIntentCreate(input: $input) {
  paymentIntent { id status } userErrors { code field message } } }"""
CONFIRM = """mutation($input: PaymentIntentConfirmInput!) { paymentIntentConfirm(input: $input) {
  paymentIntent { id status failureCode paymentMethodDetails
                  nextAction { type url returnUrl reference expiresAt phoneHint } }
  userErrors { code field message declineCode attemptsLeft } } }"""
FAWRY_PAY = """mutation($input: FawryPayInput!) { fawryPay(input: $input) {
  paymentIntent { id status } userErrors { code field message } } }"""


async def _gql_create(client, key, **input_):
    status, body = await gql(client, CREATE, {"input": input_}, key=key)
    assert status == 200 and "errors" not in body, body
    return body["data"]["paymentIntentCreate"]


async def _gql_confirm(client, key, **input_):
    status, body = await gql(client, CONFIRM, {"input": input_}, key=key)
    assert status == 200 and "errors" not in body, body
    return body["data"]["paymentIntentConfirm"]


async def test_graphql_runs_every_flow_with_the_same_errors(client, merchant):
    bad = await _gql_create(client, merchant.sk, amount=1000, currency="SAR", paymentMethod="knet")
    assert bad["userErrors"][0]["code"] == "payment_method_unavailable" and bad["userErrors"][0]["field"] == "paymentMethod"
    bad = await _gql_create(client, merchant.sk, amount=1000, currency="SAR", paymentMethod="stcpay", phone="123")
    assert bad["userErrors"][0]["field"] == "phone"
    # KNET
    k = (await _gql_create(client, merchant.sk, amount=10_000, currency="KWD", paymentMethod="knet",
                           returnUrl=RETURN_URL))["paymentIntent"]
    out = (await _gql_confirm(client, merchant.sk, id=k["id"]))["paymentIntent"]
    assert out["status"] == "requires_action" and out["nextAction"]["type"] == "redirect"
    assert out["nextAction"]["returnUrl"] == RETURN_URL and f"/{k['id']}/knet?token=" in out["nextAction"]["url"]
    # Fawry
    f = (await _gql_create(client, merchant.sk, amount=10_000, currency="EGP", paymentMethod="fawry",
                           expiresInHours=24))["paymentIntent"]
    out = (await _gql_confirm(client, merchant.sk, id=f["id"]))["paymentIntent"]
    assert out["nextAction"]["type"] == "display_reference" and out["nextAction"]["reference"].isdigit()
    status, body = await gql(client, FAWRY_PAY, {"input": {"reference": out["nextAction"]["reference"]}},
                             key=merchant.sk)
    assert body["data"]["fawryPay"]["paymentIntent"]["status"] == "succeeded"
    status, body = await gql(client, FAWRY_PAY, {"input": {"reference": out["nextAction"]["reference"]}},
                             key=merchant.sk)
    assert body["data"]["fawryPay"]["userErrors"][0]["code"] == "reference_already_paid"
    # STC Pay
    s = (await _gql_create(client, merchant.sk, amount=10_000, currency="SAR", paymentMethod="stcpay",
                           phone=PHONE))["paymentIntent"]
    out = (await _gql_confirm(client, merchant.sk, id=s["id"]))["paymentIntent"]
    assert out["nextAction"] == {"type": "otp", "url": None, "returnUrl": None, "reference": None, "expiresAt": None,
                                 "phoneHint": "****1122"}
    wrong = await _gql_confirm(client, merchant.sk, id=s["id"], otp="999999")
    assert wrong["userErrors"][0]["code"] == "payment_declined" and wrong["userErrors"][0]["attemptsLeft"] == 2
    assert wrong["userErrors"][0]["declineCode"] == "invalid_otp" and wrong["userErrors"][0]["field"] == "otp"
    ok = await _gql_confirm(client, merchant.sk, id=s["id"], otp="123456")
    assert ok["paymentIntent"]["status"] == "succeeded" and ok["userErrors"] == []


# ---------------------------------------------------------------- nothing secret is kept

async def test_no_card_number_pin_or_code_in_any_row_event_url_or_log(client, merchant, caplog):
    caplog.set_level("DEBUG")
    k = await create(client, merchant.sk, amount=10_000, currency="KWD", payment_method="knet", return_url=RETURN_URL)
    c = await confirm(client, merchant.sk, k["id"])
    _, token, path = await _open_page(client, c["next_action"]["url"])
    r = await _submit(client, path, token, action="pay", bank="NBK", card_number=APPROVED, pin="4321")
    assert r.status == 303 and "8888" not in r.headers["Location"] and "4321" not in r.headers["Location"]
    s = await create(client, merchant.sk, amount=10_000, currency="SAR", payment_method="stcpay", phone="+966550001122")
    await confirm(client, merchant.sk, s["id"])
    await confirm(client, merchant.sk, s["id"], otp="246802", expect=402, headers={"Idempotency-Key": "k1"})
    await confirm(client, merchant.sk, s["id"], otp="123456", headers={"Idempotency-Key": "k2"})
    dump = b""                      # every row of this merchant, in every table that has one
    for app in Tortoise.apps.values():
        for model in app.values():
            if "merchant_id" in model._meta.fields_db_projection:
                dump += orjson.dumps(await model.filter(merchant_id=merchant.id).values(), default=str)
    assert b"pay_" in dump and b"evt_" in dump
    for secret in (APPROVED.encode(), b"4321", b"246802", b"123456"):
        # as a value of its own (not a run of digits inside a longer reference number or a hash)
        found = re.search(rb"(?<![0-9A-Za-z])" + secret + rb"(?![0-9A-Za-z])", dump)
        assert found is None, (secret, dump[max(0, found.start() - 300):found.end() + 50])
    logged = [r.getMessage() for r in caplog.records]
    for secret in ("4321", "246802", "123456", APPROVED):
        assert not any(re.search(rf"(?<![0-9A-Za-z]){secret}(?![0-9A-Za-z])", m) for m in logged), secret


# ---------------------------------------------------------------- races (run on PostgreSQL too)

async def test_a_reference_paid_twice_at_once_is_paid_once(client, merchant):
    import asyncio
    i = await create(client, merchant.sk, amount=25_000, currency="EGP", payment_method="fawry")
    ref = (await confirm(client, merchant.sk, i["id"]))["next_action"]["reference"]
    answers = await asyncio.gather(*(call(client, "POST", "/api/test-helpers/fawry/pay", merchant.sk,
                                          {"reference": ref}) for _ in range(4)))
    statuses = sorted(s for s, _ in answers)
    assert statuses.count(200) == 1 and all(s in (400, 409) for s in statuses if s != 200), answers
    assert await _events(i["id"]) == ["payment.created", "payment.succeeded"]
    bal = await ledger.merchant_balance(merchant_id=merchant.id, livemode=False)
    assert bal == {"EGP": 25_000 - i["fee"]["amount"]}


async def test_wrong_codes_at_once_never_spend_more_attempts_than_answers_say(client, merchant):
    import asyncio
    i = await create(client, merchant.sk, currency="SAR", amount=10_000, payment_method="stcpay", phone=PHONE)
    await confirm(client, merchant.sk, i["id"])
    answers = await asyncio.gather(*(client.post(f"/v1/payments/{i['id']}/confirm", json={"otp": "000000"},
                                                 headers=bearer(merchant.sk)) for _ in range(3)))
    spent = [r.status for r in answers].count(402)
    assert all(r.status in (402, 409) for r in answers)
    left = (await PaymentIntent.get(id=i["id"])).method_details.get("attempts_left")
    assert left == 3 - spent
