"""Issue 39: buy now, pay later (bnpl_split4, bnpl_split3): the registry, eligibility and its
schedule, the create's buyer/items/shipping checks, the provider's sandbox page, capture in
parts, release (cancel, 7 days on the test clock), refunds, webhooks and ledger, REST and GraphQL."""
from __future__ import annotations

import asyncio
import calendar
import os
from datetime import date, datetime, timedelta, timezone
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo

import pytest

from models.events import Event
from models.intents import PaymentIntent
from models.payments import LedgerEntry
from services.money import ledger
from tests.conftest import gql
from tests.helpers import bearer
from tests.intents_fixtures import RETURN_URL, confirm, create, err, get, set_country
from tests.payments_fixtures import call, no_exploration  # noqa: F401

APPROVED, REJECTED, DECLINES = "+966500000001", "+966500000002", "+966500000003"
PG = os.environ.get("DATABASE_URL", "").startswith("postgres")
AUTH_DAYS = 7


def bnpl_body(amount=100_000, currency="SAR", method="bnpl_split4", phone=APPROVED, **extra):
    body = {"amount": amount, "currency": currency, "payment_method": method, "return_url": RETURN_URL,
            "buyer": {"phone": phone, "email": "buyer@example.com", "name": "Sara Al-Harbi"},
            "items": [{"name": "Abaya", "quantity": 1, "unit_amount": amount}],
            "shipping_address": {"line1": "King Fahd Rd 12", "city": "Riyadh", "country": "SA",
                                 "postal_code": "12271"}}
    body.update(extra)
    return body


async def _events(intent_id: str) -> list[str]:
    return sorted(await Event.filter(object_id=intent_id).values_list("type", flat=True))


async def _kinds(merchant_id: str, intent_id: str) -> dict[str, int]:
    """The merchant-balance side of each ledger kind written for the intent."""
    out: dict[str, int] = {}
    for e in await LedgerEntry.filter(merchant_id=merchant_id, account=ledger.MERCHANT_BALANCE):
        out[e.kind] = out.get(e.kind, 0) - e.amount
    return out


async def _authorized(client, merchant, **kw) -> dict:
    """A BNPL intent taken through the provider's page with `approve`."""
    i = await create(client, merchant.sk, **bnpl_body(**kw))
    c = await confirm(client, merchant.sk, i["id"])
    r = await _page_post(client, c["next_action"]["url"], "approve")
    assert r.status == 303, await r.text()
    return await get(client, merchant.sk, i["id"])


async def _page_post(client, url: str, action: str):
    parts = urlsplit(url)
    token = parse_qs(parts.query)["token"][0]
    return await client.post(parts.path, data={"token": token, "action": action}, allow_redirects=False)


def _today(clock, tz: str) -> date:
    return clock.now().astimezone(ZoneInfo(tz)).date()


def _plus_months(d: date, n: int) -> date:
    y, m = divmod(d.month - 1 + n, 12)
    return date(d.year + y, m + 1, min(d.day, calendar.monthrange(d.year + y, m + 1)[1]))


# ---------------------------------------------------------------- registry

@pytest.mark.parametrize("currency,expected", [("SAR", ["bnpl_split4", "bnpl_split3"]), ("KWD", ["bnpl_split4"]),
                                               ("EGP", ["bnpl_split3"]), ("TRY", []), ("OMR", [])])
async def test_method_types_list_bnpl_with_their_schedule_rule(client, merchant, currency, expected):
    r = await client.get("/v1/payment_method_types", params={"currency": currency}, headers=bearer(merchant.sk))
    body = await r.json()
    by = {m["type"]: m for m in body["data"]}
    assert [t for t in by if t.startswith("bnpl_")] == expected
    if "bnpl_split4" in by:
        m = by["bnpl_split4"]
        assert m["flow"] == "bnpl" and m["schedule"] == {"installments": 4, "interval": "day", "interval_count": 14}
        assert m["fee"]["bps"] > by["card"]["fee"]["bps"] and m["providers"] == ["splitpay"]
        assert m["limits"] == {"minimum": 5_000, "maximum": 500_000}
    if "bnpl_split3" in by:
        assert by["bnpl_split3"]["schedule"] == {"installments": 3, "interval": "month", "interval_count": 1}
    assert "schedule" not in by["card"]
    status, g = await gql(client, """query($c: String!) { paymentMethodTypes(currency: $c) {
        type schedule { installments interval intervalCount } } }""", {"c": currency}, key=merchant.sk)
    rows = {m["type"]: m["schedule"] for m in g["data"]["paymentMethodTypes"]}
    assert rows["card"] is None
    for t in expected:
        assert rows[t]["installments"] == by[t]["schedule"]["installments"]


async def test_amount_filter_leaves_out_bnpl_outside_its_limits(client, merchant):
    r = await client.get("/v1/payment_method_types", params={"currency": "SAR", "amount": "4999"},
                         headers=bearer(merchant.sk))
    assert not [m for m in (await r.json())["data"] if m["type"].startswith("bnpl_")]


# ---------------------------------------------------------------- eligibility

async def _eligibility(client, key, **q):
    r = await client.get("/v1/bnpl/eligibility", params=q, headers=bearer(key))
    return r.status, await r.json()


async def test_split4_schedule_every_14_days_from_today_in_the_merchants_zone(client, merchant, clock):
    await set_country(merchant.id, "SA")
    # 22:30 UTC is already tomorrow in Riyadh (UTC+3): the first part is due on Riyadh's date.
    clock.set(datetime.combine(clock.now().date(), datetime.min.time(), timezone.utc) + timedelta(hours=22, minutes=30))
    today = _today(clock, "Asia/Riyadh")
    assert today != clock.now().date()
    status, body = await _eligibility(client, merchant.pk, method="bnpl_split4", amount="100003", currency="SAR",
                                      phone=APPROVED, email="a@example.com")
    assert status == 200, body
    assert body == {"object": "bnpl_eligibility", "status": "eligible", "schedule": [
        {"due_date": (today + timedelta(days=14 * k)).isoformat(), "amount": 25_003 if k == 0 else 25_000}
        for k in range(4)]}


@pytest.mark.parametrize("currency,amount,first,rest", [("KWD", 10_001, 2_501, 2_500), ("BHD", 5_003, 1_253, 1_250),
                                                        ("AED", 20_000, 5_000, 5_000)])
async def test_split4_parts_in_three_decimal_currencies_add_up(client, merchant, currency, amount, first, rest):
    status, body = await _eligibility(client, merchant.sk, method="bnpl_split4", amount=str(amount),
                                      currency=currency, phone=APPROVED)
    assert status == 200 and [p["amount"] for p in body["schedule"]] == [first, rest, rest, rest]
    assert sum(p["amount"] for p in body["schedule"]) == amount


async def test_split3_is_monthly_and_graphql_agrees(client, merchant, clock):
    # The merchant has no country: its market is Turkey (Europe/Istanbul).
    clock.set(datetime(2027, 1, 31, 12, 0, tzinfo=timezone.utc))
    status, body = await _eligibility(client, merchant.sk, method="bnpl_split3", amount="100000", currency="EGP",
                                      phone=APPROVED)
    today = _today(clock, "Europe/Istanbul")
    assert status == 200
    assert body["schedule"] == [{"due_date": _plus_months(today, k).isoformat(), "amount": a}
                                for k, a in enumerate((33_334, 33_333, 33_333))]
    assert body["schedule"][1]["due_date"] == "2027-02-28"           # 31 January + 1 month
    status, g = await gql(client, """query { bnplEligibility(method: "bnpl_split3", amount: 100000, currency: "EGP",
        phone: "+966500000001") { status reason schedule { dueDate amount } } }""", key=merchant.sk)
    assert g["data"]["bnplEligibility"] == {"status": "eligible", "reason": None, "schedule": [
        {"dueDate": p["due_date"], "amount": p["amount"]} for p in body["schedule"]]}


@pytest.mark.parametrize("amount,phone,reason", [("4999", APPROVED, "amount_too_low"),
                                                 ("500001", APPROVED, "amount_too_high"),
                                                 ("100000", REJECTED, "buyer_rejected")])
async def test_not_eligible_with_the_reason(client, merchant, amount, phone, reason):
    status, body = await _eligibility(client, merchant.sk, method="bnpl_split4", amount=amount, currency="SAR",
                                      phone=phone)
    assert status == 200 and body == {"object": "bnpl_eligibility", "status": "not_eligible", "reason": reason}


@pytest.mark.parametrize("query,code,param", [
    ({"method": "bnpl_split5"}, "invalid_request", "method"),
    ({"currency": "TRY"}, "payment_method_unavailable", "currency"),
    ({"currency": "EUR"}, "invalid_currency", "currency"),
    ({"amount": "abc"}, "invalid_amount", "amount"),
    ({"amount": "0"}, "invalid_amount", "amount"),
    ({"phone": "12"}, "invalid_request", "phone"),
    ({"phone": ""}, "invalid_request", "phone"),
    ({"email": "nope"}, "invalid_request", "email"),
    ({"extra": "1"}, "invalid_request", "extra")])
async def test_eligibility_bad_input_is_400_naming_the_field(client, merchant, query, code, param):
    q = {"method": "bnpl_split4", "amount": "100000", "currency": "SAR", "phone": APPROVED, **query}
    status, body = await _eligibility(client, merchant.sk, **q)
    assert status == 400 and err(body) == (code, param), body


# ---------------------------------------------------------------- create

@pytest.mark.parametrize("change,param", [
    ({"buyer": None}, "buyer"),
    ({"buyer": {"email": "b@example.com", "name": "S"}}, "buyer.phone"),
    ({"buyer": {"phone": "0500", "email": "b@example.com", "name": "S"}}, "buyer.phone"),
    ({"buyer": {"phone": APPROVED, "email": "x", "name": "S"}}, "buyer.email"),
    ({"buyer": {"phone": APPROVED, "email": "b@example.com"}}, "buyer.name"),
    ({"items": None}, "items"),
    ({"items": []}, "items"),
    ({"items": [{"name": "Abaya", "quantity": 2, "unit_amount": 40_000}]}, "items"),
    ({"items": [{"name": "Abaya", "quantity": 0, "unit_amount": 100_000}]}, "items[0].quantity"),
    ({"items": [{"quantity": 1, "unit_amount": 100_000}]}, "items[0].name"),
    ({"shipping_address": None}, "shipping_address"),
    ({"shipping_address": {"line1": "x", "city": "Riyadh", "country": "SA"}}, "shipping_address.postal_code"),
    ({"shipping_address": {"line1": "x", "city": "Riyadh", "country": "sa", "postal_code": "1"}},
     "shipping_address.country"),
    ({"capture_method": "automatic"}, "capture_method"),
    ({"split": [{"merchant_id": "mer_other", "amount": 1_000, "currency": "SAR"}]}, "split"),
    ({"amount": 4_999, "items": [{"name": "x", "quantity": 1, "unit_amount": 4_999}]}, "amount"),
    ({"currency": "TRY"}, "payment_method"),
])
async def test_create_needs_buyer_items_and_shipping_address(client, merchant, change, param):
    body = bnpl_body()
    for k, v in change.items():
        if v is None:
            body.pop(k)
        else:
            body[k] = v
    e = await create(client, merchant.sk, expect=400, **body)
    assert e["error"]["param"] == param, e
    assert await PaymentIntent.filter(merchant_id=merchant.id).count() == 0


async def test_create_answers_manual_capture_and_no_buyer_identity(client, merchant):
    i = await create(client, merchant.sk, **bnpl_body(
        items=[{"name": "Abaya", "quantity": 2, "unit_amount": 30_000},
               {"name": "Scarf", "quantity": 4, "unit_amount": 10_000}]))
    assert i["status"] == "requires_payment_method" and i["capture_method"] == "manual"
    assert i["fee"]["amount"] == 6_600 and i["fee"]["breakdown"]["currency_conversion"] == 0   # 6.5% + 1.00 SAR
    text = str(i)
    assert APPROVED not in text and "buyer@example.com" not in text
    assert i["payment_method_details"]["bnpl_split4"]["phone_hint"] == "****0001"


# ---------------------------------------------------------------- the flow

async def test_approve_capture_in_parts_refund_webhooks_and_ledger(client, merchant):
    i = await create(client, merchant.sk, **bnpl_body())
    c = await confirm(client, merchant.sk, i["id"], return_url=None)
    assert c["status"] == "requires_action" and c["next_action"]["type"] == "redirect"
    url = c["next_action"]["url"]
    assert url.startswith(f"https://pay.qafila.test/{i['id']}/bnpl_split4?token=")
    assert len(c["bnpl"]["schedule"]) == 4
    parts = urlsplit(url)
    for lang, word in (("en", "Approve"), ("ar", "موافقة"), ("tr", "Onayla")):
        r = await client.get(f"{parts.path}?{parts.query}&locale={lang}")
        html = await r.text()
        assert r.status == 200 and 'data-testid="sandbox-bnpl_split4"' in html and word in html
        assert html.count("<tr data-due=") == 4
    r = await _page_post(client, url, "approve")
    assert r.status == 303
    back = urlsplit(r.headers["Location"])
    assert back.netloc == "merchant.example.com"
    q = parse_qs(back.query)
    assert q["payment_intent"] == [i["id"]] and q["status"] == ["requires_capture"]
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == "requires_capture" and got["amount_capturable"] == 100_000
    assert got["bnpl"]["method"] == "bnpl_split4" and got["bnpl"]["provider_reference"].isdigit()
    assert await _events(i["id"]) == ["payment.authorized", "payment.created"]
    assert await ledger.merchant_balance(merchant_id=merchant.id, livemode=False) == {}
    # The page of an authorized payment is over.
    r = await client.get(f"{parts.path}?{parts.query}")
    assert r.status == 410

    # Part of the order ships: 40.00 SAR captured, 6.5% of it + the fixed 1.00 as its own ledger line.
    status, cap = await call(client, "POST", f"/v1/payments/{i['id']}/capture", merchant.sk, {"amount": 40_000})
    assert status == 200 and cap["status"] == "requires_capture", cap
    assert cap["amount_received"] == 40_000 and cap["amount_capturable"] == 60_000
    assert await ledger.merchant_balance(merchant_id=merchant.id, livemode=False) == {"SAR": 40_000 - 2_700}
    status, e = await call(client, "POST", f"/v1/payments/{i['id']}/capture", merchant.sk, {"amount": 60_001})
    assert status == 400 and err(e) == ("amount_too_large", "amount")
    # A refund of what was captured, while the rest is authorized.
    status, e = await call(client, "POST", f"/v1/payments/{i['id']}/refund", merchant.sk, {"amount": 40_001})
    assert status == 400 and err(e) == ("amount_too_large", "amount")
    status, rf = await call(client, "POST", f"/v1/payments/{i['id']}/refund", merchant.sk, {"amount": 10_000})
    assert status == 200 and rf["status"] == "requires_capture" and rf["amount_refunded"] == 10_000
    # The rest ships.
    status, cap = await call(client, "POST", f"/v1/payments/{i['id']}/capture", merchant.sk, {})
    assert status == 200 and cap["status"] == "succeeded" and cap["amount_received"] == 100_000
    assert cap["fee"]["amount"] == 6_600 and cap["net_amount"] == 93_400 and cap["amount_capturable"] == 0
    assert await ledger.merchant_balance(merchant_id=merchant.id, livemode=False) == {"SAR": 93_400 - 10_000}
    assert await _kinds(merchant.id, i["id"]) == {"intent_capture": 100_000, "bnpl_fee": -6_600, "refund": -10_000}
    status, e = await call(client, "POST", f"/v1/payments/{i['id']}/capture", merchant.sk, {})
    assert status == 400 and err(e)[0] == "invalid_state"
    status, rf = await call(client, "POST", f"/v1/payments/{i['id']}/refund", merchant.sk, {})
    assert status == 200 and rf["status"] == "refunded" and rf["amount_refunded"] == 100_000
    assert await _events(i["id"]) == sorted(["payment.created", "payment.authorized", "payment.captured",
                                             "payment.refunded", "payment.captured", "payment.succeeded",
                                             "payment.refunded"])
    captured = await Event.filter(object_id=i["id"], type="payment.captured")
    assert sorted((e.data["captured"] for e in captured), key=lambda c: c["amount"]) == [
        {"amount": 40_000, "fee": 2_700}, {"amount": 60_000, "fee": 3_900}]


async def test_cancel_after_a_partial_capture_releases_the_rest(client, merchant):
    i = await _authorized(client, merchant, amount=20_000, currency="KWD")      # 20.000 KWD
    status, _ = await call(client, "POST", f"/v1/payments/{i['id']}/capture", merchant.sk, {"amount": 7_500})
    assert status == 200
    status, out = await call(client, "POST", f"/v1/payments/{i['id']}/cancel", merchant.sk, {})
    assert status == 200 and out["status"] == "succeeded" and out["amount_received"] == 7_500
    fee = round(7_500 * 0.065) + 100              # 0.488 + 0.100 KWD
    assert out["fee"]["amount"] == fee and out["net_amount"] == 7_500 - fee
    assert await ledger.merchant_balance(merchant_id=merchant.id, livemode=False) == {"KWD": 7_500 - fee}
    voided = await Event.get(object_id=i["id"], type="payment.voided")
    assert voided.data["voided"] == {"amount": 12_500, "reason": "requested_by_customer"}
    assert await _events(i["id"]) == sorted(["payment.created", "payment.authorized", "payment.captured",
                                             "payment.voided", "payment.succeeded"])


async def test_cancel_before_any_capture_voids(client, merchant):
    i = await _authorized(client, merchant)
    status, out = await call(client, "POST", f"/v1/payments/{i['id']}/cancel", merchant.sk,
                             {"cancellation_reason": "abandoned"})
    assert status == 200 and out["status"] == "canceled" and out["cancellation_reason"] == "abandoned"
    assert out["fee"]["amount"] == 0 and out["net_amount"] == 0
    assert await _events(i["id"]) == ["payment.authorized", "payment.created", "payment.voided"]
    status, e = await call(client, "POST", f"/v1/payments/{i['id']}/refund", merchant.sk, {})
    assert status == 400 and err(e)[0] == "invalid_state"


@pytest.mark.parametrize("captured,status_after", [(0, "canceled"), (30_000, "succeeded")])
async def test_authorization_is_released_after_7_days_on_the_test_clock(client, merchant, captured, status_after):
    i = await _authorized(client, merchant, method="bnpl_split3", currency="AED")
    if captured:
        await call(client, "POST", f"/v1/payments/{i['id']}/capture", merchant.sk, {"amount": captured})
    status, out = await call(client, "POST", "/api/test-helpers/advance-clock", merchant.sk, {"days": 6})
    assert status == 200 and "bnpl.authorization_expire" not in [r["kind"] for r in out["ran"]]
    assert (await get(client, merchant.sk, i["id"]))["status"] == "requires_capture"
    status, out = await call(client, "POST", "/api/test-helpers/advance-clock", merchant.sk, {"days": 1})
    assert [r["kind"] for r in out["ran"] if r["kind"] == "bnpl.authorization_expire"] == ["bnpl.authorization_expire"]
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == status_after and got["amount_received"] == captured
    assert (await Event.get(object_id=i["id"], type="payment.voided")).data["voided"] == {
        "amount": 100_000 - captured, "reason": "expired"}
    status, e = await call(client, "POST", f"/v1/payments/{i['id']}/capture", merchant.sk, {})
    assert status == 400 and err(e)[0] == "invalid_state"


async def test_rejected_buyer_is_refused_at_confirm_before_any_redirect(client, merchant):
    i = await create(client, merchant.sk, **bnpl_body(phone=REJECTED))
    e = await confirm(client, merchant.sk, i["id"], expect=402)
    assert e["error"]["code"] == "bnpl_not_eligible" and e["error"]["decline_code"] == "buyer_rejected"
    assert e["error"]["param"] == "buyer"
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == "requires_payment_method" and got["next_action"] is None
    assert await _events(i["id"]) == ["payment.created"]


@pytest.mark.parametrize("phone,action,status,code", [(DECLINES, "approve", "failed", "declined"),
                                                      (APPROVED, "decline", "failed", "declined"),
                                                      (APPROVED, "cancel", "canceled", None)])
async def test_decline_and_cancel_on_the_providers_page(client, merchant, phone, action, status, code):
    i = await create(client, merchant.sk, **bnpl_body(phone=phone))
    c = await confirm(client, merchant.sk, i["id"])
    r = await _page_post(client, c["next_action"]["url"], action)
    assert r.status == 303
    assert parse_qs(urlsplit(r.headers["Location"]).query)["status"] == [status]
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == status and got["failure_code"] == code
    assert await ledger.merchant_balance(merchant_id=merchant.id, livemode=False) == {}
    r = await _page_post(client, c["next_action"]["url"], "approve")
    assert r.status == 410


async def test_page_refuses_a_wrong_token_and_an_unknown_action(client, merchant):
    i = await create(client, merchant.sk, **bnpl_body())
    c = await confirm(client, merchant.sk, i["id"])
    path = urlsplit(c["next_action"]["url"]).path
    r = await client.get(f"{path}?token=wrong")
    assert r.status == 404
    r = await _page_post(client, c["next_action"]["url"], "steal")
    assert r.status == 400 and "action must be one of" in await r.text()
    assert (await get(client, merchant.sk, i["id"]))["status"] == "requires_action"


async def test_capture_is_idempotent_and_private_to_the_merchant(client, merchant, make_merchant):
    i = await _authorized(client, merchant)
    other = await make_merchant("Other")
    status, e = await call(client, "POST", f"/v1/payments/{i['id']}/capture", other.sk, {"amount": 1_000})
    assert status == 404 and err(e) == ("resource_not_found", "id")
    status, e = await call(client, "POST", f"/v1/payments/{i['id']}/capture", merchant.sk, {"amount": 0})
    assert status == 400 and err(e) == ("invalid_amount", "amount")
    status, e = await call(client, "POST", f"/v1/payments/{i['id']}/capture", merchant.sk, {"amout": 1})
    assert status == 400 and err(e)[1] == "amout"
    headers = {**bearer(merchant.sk), "X-Idempotency-Key": "cap-1"}
    outs = []
    for _ in range(2):
        r = await client.post(f"/v1/payments/{i['id']}/capture", json={"amount": 25_000}, headers=headers)
        outs.append((r.status, (await r.json())["amount_received"]))
    assert outs == [(200, 25_000), (200, 25_000)]
    assert await Event.filter(object_id=i["id"], type="payment.captured").count() == 1


async def test_card_intent_cannot_be_captured_and_bnpl_fields_are_bnpl_only(client, merchant):
    i = await create(client, merchant.sk, amount=10_000, currency="SAR", payment_method="card")
    status, e = await call(client, "POST", f"/v1/payments/{i['id']}/capture", merchant.sk, {})
    assert status == 400 and err(e)[0] == "invalid_state"
    e = await create(client, merchant.sk, expect=400, amount=10_000, currency="SAR", payment_method="card",
                     buyer={"phone": APPROVED})
    assert err(e)[1] == "buyer"


CREATE = """mutation($input: PaymentIntentCreateInput!) { paymentIntentCreate(input: $input) {
  paymentIntent { id status captureMethod } userErrors { code field } } }"""
CAPTURE = """mutation($input: PaymentIntentCaptureInput!) { paymentIntentCapture(input: $input) {
  paymentIntent { id status amountReceived amountCapturable bnpl { method providerReference
  schedule { dueDate amount } } } userErrors { code field message } } }"""


async def test_graphql_create_and_capture(client, merchant):
    b = bnpl_body(amount=60_000, currency="QAR")
    b["items"] = [{"name": "Phone case", "quantity": 3, "unitAmount": 20_000}]
    addr = b.pop("shipping_address")
    b["shippingAddress"] = {"line1": addr["line1"], "city": addr["city"], "country": addr["country"],
                            "postalCode": addr["postal_code"]}
    b["paymentMethod"] = b.pop("payment_method")
    b["returnUrl"] = b.pop("return_url")
    status, out = await gql(client, CREATE, {"input": b}, key=merchant.sk)
    p = out["data"]["paymentIntentCreate"]
    assert p["userErrors"] == [] and p["paymentIntent"]["captureMethod"] == "manual", out
    iid = p["paymentIntent"]["id"]
    c = await confirm(client, merchant.sk, iid)
    await _page_post(client, c["next_action"]["url"], "approve")
    status, out = await gql(client, CAPTURE, {"input": {"id": iid, "amount": 70_000}}, key=merchant.sk)
    assert out["data"]["paymentIntentCapture"]["userErrors"][0]["code"] == "amount_too_large"
    assert out["data"]["paymentIntentCapture"]["userErrors"][0]["field"] == "amount"
    status, out = await gql(client, CAPTURE, {"input": {"id": iid, "amount": 20_000}}, key=merchant.sk)
    pi = out["data"]["paymentIntentCapture"]["paymentIntent"]
    assert pi["status"] == "requires_capture" and pi["amountReceived"] == 20_000 and pi["amountCapturable"] == 40_000
    assert pi["bnpl"]["method"] == "bnpl_split4" and [s["amount"] for s in pi["bnpl"]["schedule"]] == [15_000] * 4
    status, out = await gql(client, CAPTURE, {"input": {"id": iid}}, key=merchant.sk)
    assert out["data"]["paymentIntentCapture"]["paymentIntent"]["status"] == "succeeded"


@pytest.mark.skipif(not PG, reason="row locks are real on PostgreSQL only")
async def test_concurrent_full_captures_capture_once(client, merchant):
    i = await _authorized(client, merchant)

    async def capture():
        return await call(client, "POST", f"/v1/payments/{i['id']}/capture", merchant.sk, {})
    results = await asyncio.gather(*(capture() for _ in range(4)))
    assert sorted(s for s, _ in results) == [200, 400, 400, 400]
    assert await ledger.merchant_balance(merchant_id=merchant.id, livemode=False) == {"SAR": 100_000 - 6_600}
    assert await Event.filter(object_id=i["id"], type="payment.captured").count() == 1


async def test_analytics_count_the_authorization_and_the_captures(client, merchant, clock):
    i = await _authorized(client, merchant, amount=50_000)
    await call(client, "POST", f"/v1/payments/{i['id']}/capture", merchant.sk, {"amount": 20_000})
    day = _today(clock, "Europe/Istanbul").isoformat()
    q = f"from={day}&to={day}&currency=SAR"
    status, over = await call(client, "GET", f"/api/analytics?{q}", merchant.sk)
    assert status == 200 and (over["transactions"], over["volume"], over["approval_rate"]) == (1, 50_000, 100.0)
    status, rev = await call(client, "GET", f"/api/analytics/revenue?{q}", merchant.sk)
    assert rev["total"] == 20_000                          # what was captured so far
    declined = await create(client, merchant.sk, **bnpl_body(phone=DECLINES))
    c = await confirm(client, merchant.sk, declined["id"])
    await _page_post(client, c["next_action"]["url"], "approve")
    status, over = await call(client, "GET", f"/api/analytics?{q}", merchant.sk)
    assert (over["transactions"], over["approval_rate"]) == (2, 50.0)


async def test_no_buyer_identity_in_any_log_line(client, merchant, caplog):
    import logging
    caplog.set_level(logging.INFO)          # the app's level (SQL statements are DEBUG, off in production)
    await _eligibility(client, merchant.sk, method="bnpl_split4", amount="100000", currency="SAR", phone=APPROVED,
                       email="buyer@example.com")
    i = await _authorized(client, merchant)
    await call(client, "POST", f"/v1/payments/{i['id']}/capture", merchant.sk, {})
    await create(client, merchant.sk, expect=400, **bnpl_body(buyer={"phone": "+96650000000x", "email": "b@x.io",
                                                                     "name": "S"}))
    # aiohttp's own access line is silenced by the app (app/logs.py); ours has the path without its query.
    everything = "\n".join(rec.getMessage() + repr(rec.__dict__) for rec in caplog.records
                           if rec.name != "aiohttp.access")
    assert caplog.records and APPROVED not in everything and "966500000001" not in everything
    assert "buyer@example.com" not in everything and "Sara Al-Harbi" not in everything


async def test_a_read_past_the_authorizations_validity_releases_it(client, merchant, clock):
    i = await _authorized(client, merchant)
    clock.advance(days=AUTH_DAYS, seconds=1)
    got = await get(client, merchant.sk, i["id"])           # before the scheduler came by
    assert got["status"] == "canceled" and got["cancellation_reason"] == "expired"
    status, page = await call(client, "GET", "/v1/payments?status=requires_capture", merchant.sk)
    assert status == 200 and page["data"] == []


@pytest.mark.parametrize("method,currency,amount,bps,fixed", [
    ("bnpl_split4", "SAR", 100_001, 650, 100), ("bnpl_split4", "AED", 7_777, 650, 100),
    ("bnpl_split4", "QAR", 499_999, 650, 100), ("bnpl_split4", "KWD", 123_457, 650, 100),
    ("bnpl_split4", "BHD", 5_001, 650, 100), ("bnpl_split3", "SAR", 250_005, 550, 100),
    ("bnpl_split3", "AED", 10_000, 550, 100), ("bnpl_split3", "EGP", 1_234_567, 550, 500)])
async def test_two_captures_take_the_listed_fee_once_in_each_currency(client, merchant, method, currency, amount,
                                                                     bps, fixed):
    from decimal import ROUND_HALF_UP, Decimal

    def fee(x: int) -> int:
        return int((Decimal(x) * bps / 10_000).quantize(Decimal(1), rounding=ROUND_HALF_UP)) + fixed
    i = await _authorized(client, merchant, method=method, currency=currency, amount=amount)
    assert i["fee"]["amount"] == fee(amount) and i["fee"]["rate"] == f"{Decimal(bps) / 10_000:f}"
    first = amount // 3
    status, _ = await call(client, "POST", f"/v1/payments/{i['id']}/capture", merchant.sk, {"amount": first})
    assert status == 200
    assert await ledger.merchant_balance(merchant_id=merchant.id, livemode=False) == {currency: first - fee(first)}
    status, done = await call(client, "POST", f"/v1/payments/{i['id']}/capture", merchant.sk, {})
    assert done["status"] == "succeeded" and done["fee"]["amount"] == fee(amount)
    assert await ledger.merchant_balance(merchant_id=merchant.id, livemode=False) == {currency: amount - fee(amount)}
    assert await _kinds(merchant.id, i["id"]) == {"intent_capture": amount, "bnpl_fee": -fee(amount)}
    assert sum(p["amount"] for p in done["bnpl"]["schedule"]) == amount


async def test_the_release_reads_the_open_authorizations_index_not_the_table(client, merchant, clock, monkeypatch):
    """PostgreSQL: the scheduler's read of the authorizations due goes through the partial index of
    the open ones (intents migration 0015), under the service's generic plan, whatever else the
    table holds (here 30,000 finished intents)."""
    import json as _json

    from tortoise import Tortoise

    from services import scheduler
    from services.payments import bnpl
    from tests.plan_fixtures import capture, clone, generic_plan, pages

    db = Tortoise.get_connection("default")
    if db.capabilities.dialect != "postgres":
        pytest.skip("the plans are PostgreSQL's")
    i = await _authorized(client, merchant)
    other = await create(client, merchant.sk, amount=5_000, currency="SAR", payment_method="card")
    await clone(db, "payment_intents", other["id"], 30_000, timedelta(days=30), method_reference="NULL",
                status="'succeeded'")
    seen = capture(monkeypatch, "status = 'requires_capture'")
    until = clock.now() + timedelta(days=8)
    mine = await bnpl._due_authorizations(scheduler.Scope(livemode=False, merchant_id=merchant.id), until, 100)
    assert [iid for _, iid in mine] == [i["id"]]
    everyone = await bnpl._due_authorizations(scheduler.Scope(livemode=False), until, 100)     # the worker's read
    assert i["id"] in [iid for _, iid in everyone]
    assert len(seen) == 2
    for sql, values in seen:
        root = await generic_plan(db, sql, values)
        text = _json.dumps(root)
        assert "Seq Scan" not in text and pages(root) < 100, text[:2000]
    assert "payment_intents_authorized_expiry" in _json.dumps(await generic_plan(db, *seen[1]))


async def test_confirm_and_refund_are_idempotent(client, merchant):
    i = await create(client, merchant.sk, **bnpl_body())
    headers = {"X-Idempotency-Key": "bnpl-confirm-1"}
    first = await confirm(client, merchant.sk, i["id"], headers=headers)
    again = await confirm(client, merchant.sk, i["id"], headers=headers)
    assert first["next_action"] == again["next_action"] and again["status"] == "requires_action"
    await _page_post(client, first["next_action"]["url"], "approve")
    await call(client, "POST", f"/v1/payments/{i['id']}/capture", merchant.sk, {})
    outs = []
    for _ in range(2):
        status, out = await call(client, "POST", f"/v1/payments/{i['id']}/refund", merchant.sk, {"amount": 5_000},
                                 headers={"X-Idempotency-Key": "bnpl-refund-1"})
        outs.append((status, out["amount_refunded"], out["refund"]["id"]))
    assert outs[0] == outs[1] and outs[0][:2] == (200, 5_000)


async def test_the_receipt_of_a_captured_bnpl_payment(client, merchant):
    i = await _authorized(client, merchant)
    status, done = await call(client, "POST", f"/v1/payments/{i['id']}/capture", merchant.sk, {})
    assert status == 200 and done["receipt_url"]
    r = await client.get(urlsplit(done["receipt_url"]).path + "?locale=en")
    html = await r.text()
    assert r.status == 200 and "1,000.00" in html, html[:500]
    assert APPROVED not in html and "buyer@example.com" not in html


async def test_two_answers_on_the_providers_page_at_once_leave_one_outcome(client, merchant):
    i = await create(client, merchant.sk, **bnpl_body())
    c = await confirm(client, merchant.sk, i["id"])
    results = await asyncio.gather(*(_page_post(client, c["next_action"]["url"], a)
                                     for a in ("approve", "cancel", "approve", "decline")))
    assert sorted(r.status for r in results)[0] == 303 and {r.status for r in results} <= {303, 410}
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] in ("requires_capture", "canceled", "failed")
    assert await Event.filter(object_id=i["id"], type__in=["payment.authorized", "payment.failed"]).count() <= 1


async def test_graphql_eligibility_bad_input_is_a_400_error_naming_the_field(client, merchant):
    status, out = await gql(client, """query { bnplEligibility(method: "bnpl_split4", amount: 100000, currency: "TRY",
        phone: "+966500000001") { status } }""", key=merchant.sk)
    [e] = out["errors"]
    assert e["extensions"]["code"] == "payment_method_unavailable" and e["extensions"]["status"] == 400, e
    status, out = await gql(client, """query { bnplEligibility(method: "bnpl_split4", amount: 100, currency: "SAR",
        phone: "+966500000002") { status reason schedule { amount } } }""", key=merchant.sk)
    assert out["data"]["bnplEligibility"] == {"status": "not_eligible", "reason": "amount_too_low", "schedule": None}
