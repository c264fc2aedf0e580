"""Issue 46: SADAD bills (sadad, SAR) and request to pay (CliQ in JOD, Aani in AED) through the
real app, REST and GraphQL: pay, fail and expire on the test clock; every refusal named."""
from __future__ import annotations

from datetime import timedelta

import pytest

from models.events import Event
from models.intents import PaymentIntent
from services.identity.api_keys import issue_key
from services.money import ledger
from tests.conftest import gql
from tests.intents_fixtures import confirm, create, err, get
from tests.payments_fixtures import call, no_exploration  # noqa: F401

SADAD_PAY = "/api/test-helpers/sadad/pay"
APPROVE, REJECT = "/api/test-helpers/request-to-pay/approve", "/api/test-helpers/request-to-pay/reject"


def _iso(dt) -> str:
    return dt.isoformat(timespec="milliseconds").replace("+00:00", "Z")


async def _events(intent_id: str) -> list[str]:
    return sorted(await Event.filter(object_id=intent_id).values_list("type", flat=True))


# ---------------------------------------------------------------- the registry

@pytest.mark.parametrize("method,currency,flow", [("sadad", "SAR", "reference"), ("cliq", "JOD", "request_to_pay"),
                                                  ("aani", "AED", "request_to_pay")])
async def test_listed_for_their_currency_only(client, merchant, method, currency, flow):
    status, out = await call(client, "GET", f"/v1/payment_method_types?currency={currency}", merchant.sk)
    assert status == 200
    types = [d["type"] for d in out["data"]]
    assert types[0] == "card" and method in types
    row = next(d for d in out["data"] if d["type"] == method)
    assert row["flow"] == flow and set(row["display_name"]) == {"ar", "en", "tr"} and row["providers"]
    assert row["fee"]["bps"] > 0 and row["limits"]["minimum"] > 0 and row["sandbox"]
    other = "TRY"
    e = await create(client, merchant.sk, amount=10_000, currency=other, payment_method=method, expect=400)
    assert err(e) == ("payment_method_unavailable", "payment_method")
    status, body = await gql(client, "query($c: String!) { paymentMethodTypes(currency: $c) { type flow } }",
                             {"c": currency}, key=merchant.sk)
    assert {"type": method, "flow": flow} in body["data"]["paymentMethodTypes"]


# ---------------------------------------------------------------- SADAD

async def test_sadad_bill_paid_by_the_bank(client, merchant, clock):
    i = await create(client, merchant.sk, amount=25_000, currency="SAR", payment_method="sadad")
    c = await confirm(client, merchant.sk, i["id"], headers={"Idempotency-Key": "sadad-1"})
    na = c["next_action"]
    assert c["status"] == "requires_action" and na["type"] == "display_reference"
    assert na["reference"].isdigit() and len(na["reference"]) == 13 and na["biller_code"] == "001"
    assert na["expires_at"] == _iso(clock.now() + timedelta(hours=72)) == c["expires_at"]
    again = await confirm(client, merchant.sk, i["id"], headers={"Idempotency-Key": "sadad-1"})
    assert again["next_action"] == na                     # the same key: the same bill
    clock.advance(hours=2)                                # past the generic 1 h expiry: still payable
    assert (await get(client, merchant.sk, i["id"]))["status"] == "requires_action"
    status, paid = await call(client, "POST", SADAD_PAY, merchant.sk, {"reference": na["reference"]})
    assert status == 200 and paid["status"] == "succeeded" and paid["id"] == i["id"]
    d = paid["payment_method_details"]["sadad"]
    assert d["reference"] == na["reference"] and d["biller_code"] == "001" and d["paid_at"]
    assert await _events(i["id"]) == ["payment.created", "payment.succeeded"]
    assert await ledger.merchant_balance(merchant_id=merchant.id, livemode=False) == {
        "SAR": 25_000 - i["fee"]["amount"]}
    status, e = await call(client, "POST", SADAD_PAY, merchant.sk, {"reference": na["reference"]})
    assert status == 400 and (e["error"]["code"], e["error"]["param"]) == ("reference_already_paid", "reference")
    status, e = await call(client, "POST", f"/v1/payments/{i['id']}/refund", merchant.sk, {})
    assert status == 400 and e["error"]["code"] == "refund_not_supported"
    assert (await PaymentIntent.get(id=i["id"])).amount_refunded == 0


async def test_sadad_expiry_and_the_bill_that_never_pays(client, merchant, clock):
    i = await create(client, merchant.sk, amount=50_000, currency="SAR", payment_method="sadad", expires_in_hours=3)
    c = await confirm(client, merchant.sk, i["id"])
    ref = c["next_action"]["reference"]
    assert c["expires_at"] == _iso(clock.now() + timedelta(hours=3))
    status, e = await call(client, "POST", SADAD_PAY, merchant.sk, {"reference": ref})
    assert status == 402 and e["error"]["decline_code"] == "sadad_declined"
    assert (await get(client, merchant.sk, i["id"]))["status"] == "requires_action"
    status, out = await call(client, "POST", "/api/test-helpers/advance-clock", merchant.sk, {"days": 1})
    assert status == 200, out
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == "failed" and got["failure_code"] == "expired"
    assert await _events(i["id"]) == ["payment.created", "payment.failed"]
    status, e = await call(client, "POST", SADAD_PAY, merchant.sk, {"reference": ref})
    assert status == 400 and (e["error"]["code"], e["error"]["param"]) == ("reference_expired", "reference")


async def test_sadad_refusals(client, merchant):
    for hours in (0, 697, "x"):
        e = await create(client, merchant.sk, currency="SAR", amount=10_000, payment_method="sadad",
                         expires_in_hours=hours, expect=400)
        assert err(e)[1] == "expires_in_hours"
    ok = await create(client, merchant.sk, currency="SAR", amount=10_000, payment_method="sadad", expires_in_hours=696)
    assert ok["status"] in ("requires_confirmation", "requires_payment_method")
    e = await create(client, merchant.sk, currency="SAR", amount=10_000, payment_method="sadad", alias="QAFILA1",
                     expect=400)
    assert err(e) == ("payment_method_not_used", "alias")
    status, e = await call(client, "POST", SADAD_PAY, merchant.sk, {"reference": "1234567890123"})
    assert status == 404 and e["error"]["param"] == "reference"
    status, e = await call(client, "POST", SADAD_PAY, merchant.sk, {})
    assert status == 400 and e["error"]["param"] == "reference"
    _, live = await issue_key(merchant_id=merchant.id, kind="secret", livemode=True, name="live")
    for path, body in ((SADAD_PAY, {"reference": "1234567890123"}), (APPROVE, {"payment_intent": "pay_x"}),
                       (REJECT, {"payment_intent": "pay_x"})):
        status, e = await call(client, "POST", path, live, body)
        assert status == 403 and e["error"]["code"] == "test_mode_only", path


# ---------------------------------------------------------------- CliQ and Aani

@pytest.mark.parametrize("method,currency,alias,normal,minutes", [
    ("cliq", "JOD", "qafila1", "QAFILA1", 60), ("cliq", "JOD", "+962 79 123 4567", "+962791234567", 60),
    ("cliq", "JOD", "0771234567", "+962771234567", 60), ("aani", "AED", "050 123 4567", "+971501234567", 5),
    ("aani", "AED", None, None, 5)])
async def test_request_to_pay_approved(client, merchant, clock, method, currency, alias, normal, minutes):
    extra = {"alias": alias} if alias else {}
    i = await create(client, merchant.sk, amount=12_345, currency=currency, payment_method=method, **extra)
    c = await confirm(client, merchant.sk, i["id"], headers={"Idempotency-Key": f"rtp-{method}"})
    na = c["next_action"]
    assert c["status"] == "requires_action" and na["type"] == "request_to_pay"
    assert na["expires_at"] == _iso(clock.now() + timedelta(minutes=minutes)) == c["expires_at"]
    if normal is None:
        assert na["alias_hint"] is None
    else:
        assert na["alias_hint"] != normal and "*" in na["alias_hint"] and na["alias_hint"][-1] == normal[-1]
    assert method in na["qr"]["payload"] and currency in na["qr"]["payload"]
    r = await client.get(na["qr"]["image_url"].split("://", 1)[1].split("/", 1)[1].join(["/", ""]))
    assert r.status == 200 and r.content_type == "image/png" and (await r.read()).startswith(b"\x89PNG")
    status, paid = await call(client, "POST", APPROVE, merchant.sk, {"payment_intent": i["id"]})
    assert status == 200 and paid["status"] == "succeeded" and paid["amount_received"] == 12_345
    assert paid["payment_method_details"][method]["result"] == "approved"
    assert await _events(i["id"]) == ["payment.created", "payment.succeeded"]
    for path in (APPROVE, REJECT):              # a finished request: 400
        status, e = await call(client, "POST", path, merchant.sk, {"payment_intent": i["id"]})
        assert status == 400 and (e["error"]["code"], e["error"]["param"]) == ("request_finished", "payment_intent")
    # A refund is a return payment: partial, then the rest; more than the amount is refused.
    status, r1 = await call(client, "POST", f"/v1/payments/{i['id']}/refund", merchant.sk, {"amount": 2_345})
    assert status == 200 and r1["amount_refunded"] == 2_345, r1
    status, e = await call(client, "POST", f"/v1/payments/{i['id']}/refund", merchant.sk, {"amount": 10_001})
    assert status == 400 and e["error"]["param"] == "amount"
    status, r2 = await call(client, "POST", f"/v1/payments/{i['id']}/refund", merchant.sk, {"amount": 10_000})
    assert status == 200 and r2["amount_refunded"] == 12_345
    assert await ledger.merchant_balance(merchant_id=merchant.id, livemode=False) == {
        currency: -i["fee"]["amount"]}


@pytest.mark.parametrize("method,currency", [("cliq", "JOD"), ("aani", "AED")])
async def test_request_to_pay_rejected_then_expired(client, merchant, clock, method, currency):
    i = await create(client, merchant.sk, amount=5_000, currency=currency, payment_method=method)
    await confirm(client, merchant.sk, i["id"])
    status, out = await call(client, "POST", REJECT, merchant.sk, {"payment_intent": i["id"]})
    assert status == 200 and out["status"] == "failed" and out["failure_code"] == "rtp_rejected"
    assert await _events(i["id"]) == ["payment.created", "payment.failed"]
    # A new request (confirm again), left unanswered: it expires on the test clock.
    c = await confirm(client, merchant.sk, i["id"])
    assert c["status"] == "requires_action"
    minutes = 5 if method == "aani" else 60
    status, out = await call(client, "POST", "/api/test-helpers/advance-clock", merchant.sk,
                             {"to": _iso(clock.now() + timedelta(minutes=minutes + 1))})
    assert status == 200, out
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == "failed" and got["failure_code"] == "expired"
    status, e = await call(client, "POST", APPROVE, merchant.sk, {"payment_intent": i["id"]})
    assert status == 400 and (e["error"]["code"], e["error"]["param"]) == ("request_expired", "payment_intent")


async def test_request_to_pay_expires_at_the_helper_without_a_read(client, merchant, clock):
    i = await create(client, merchant.sk, amount=5_000, currency="AED", payment_method="aani")
    await confirm(client, merchant.sk, i["id"])
    clock.advance(minutes=6)
    status, e = await call(client, "POST", APPROVE, merchant.sk, {"payment_intent": i["id"]})
    assert status == 400 and e["error"]["code"] == "request_expired"
    assert (await PaymentIntent.get(id=i["id"])).failure_code == "expired"


@pytest.mark.parametrize("method,currency,alias", [
    ("cliq", "JOD", "ab"), ("cliq", "JOD", "1abc"), ("cliq", "JOD", "abcdefghijk"), ("cliq", "JOD", "qa_fila"),
    ("cliq", "JOD", "0761234567"), ("cliq", "JOD", "+971501234567"), ("cliq", "JOD", 791234567),
    ("aani", "AED", "0401234567"), ("aani", "AED", "+962791234567"), ("aani", "AED", "QAFILA1"),
    ("aani", "AED", "05012345")])
async def test_alias_refusals(client, merchant, method, currency, alias):
    e = await create(client, merchant.sk, amount=5_000, currency=currency, payment_method=method, alias=alias,
                     expect=400)
    assert err(e) == ("invalid_request", "alias")


async def test_alias_for_another_method_and_unknown_intents(client, merchant):
    e = await create(client, merchant.sk, amount=5_000, currency="AED", payment_method="card", alias="0501234567",
                     expect=400)
    assert err(e) == ("payment_method_not_used", "alias")
    card = await create(client, merchant.sk, amount=5_000, currency="AED", payment_method="card")
    for body in ({"payment_intent": card["id"]}, {"payment_intent": "pay_unknown"}):
        status, e = await call(client, "POST", APPROVE, merchant.sk, body)
        assert status == 404 and e["error"]["param"] == "payment_intent"
    status, e = await call(client, "POST", REJECT, merchant.sk, {})
    assert status == 400 and e["error"]["param"] == "payment_intent"
    i = await create(client, merchant.sk, amount=5_000, currency="JOD", payment_method="cliq")
    status, e = await call(client, "POST", APPROVE, merchant.sk, {"payment_intent": i["id"]})   # not confirmed
    assert status == 400 and e["error"]["code"] == "request_finished"


# ---------------------------------------------------------------- analytics

async def test_analytics_counts_each_method(client, merchant):
    s = await create(client, merchant.sk, amount=20_000, currency="SAR", payment_method="sadad")
    ref = (await confirm(client, merchant.sk, s["id"]))["next_action"]["reference"]
    await call(client, "POST", SADAD_PAY, merchant.sk, {"reference": ref})
    status, out = await call(client, "GET", "/api/analytics/methods?currency=SAR", merchant.sk)
    assert status == 200, out
    row = next(r for r in out["data"] if r["method"] == "sadad")
    assert row["payments"] == 1 and row["volume"] == 20_000


# ---------------------------------------------------------------- GraphQL agrees

CREATE = """mutation($input: PaymentIntentCreateInput!) { paymentIntentCreate(input: $input) {
  paymentIntent { id status } userErrors { code field message } } }"""
CONFIRM = """mutation($input: PaymentIntentConfirmInput!) { paymentIntentConfirm(input: $input) {
  paymentIntent { id status nextAction { type reference billerCode expiresAt aliasHint qr { payload imageUrl } } }
  userErrors { code field } } }"""
SADAD = """mutation($input: SadadPayInput!) { sadadPay(input: $input) {
  paymentIntent { id status failureCode } userErrors { code field declineCode } } }"""
APPROVE_Q = """mutation($input: RequestToPayInput!) { requestToPayApprove(input: $input) {
  paymentIntent { id status failureCode } userErrors { code field } } }"""
REJECT_Q = """mutation($input: RequestToPayInput!) { requestToPayReject(input: $input) {
  paymentIntent { id status failureCode } userErrors { code field } } }"""


async def _q(client, key, query, input_, name):
    status, body = await gql(client, query, {"input": input_}, key=key)
    assert status == 200 and "errors" not in body, body
    return body["data"][name]


async def test_graphql_runs_the_flows_with_the_same_errors(client, merchant, clock):
    bad = await _q(client, merchant.sk, CREATE, {"amount": 5_000, "currency": "JOD", "paymentMethod": "cliq",
                                                 "alias": "1x"}, "paymentIntentCreate")
    assert bad["userErrors"][0]["field"] == "alias"
    bad = await _q(client, merchant.sk, CREATE, {"amount": 5_000, "currency": "SAR", "paymentMethod": "aani"},
                   "paymentIntentCreate")
    assert bad["userErrors"][0]["code"] == "payment_method_unavailable"
    # SADAD: a bill, the decline, the payment
    s = (await _q(client, merchant.sk, CREATE, {"amount": 50_000, "currency": "SAR", "paymentMethod": "sadad"},
                  "paymentIntentCreate"))["paymentIntent"]
    na = (await _q(client, merchant.sk, CONFIRM, {"id": s["id"]}, "paymentIntentConfirm"))["paymentIntent"]["nextAction"]
    assert na["type"] == "display_reference" and na["billerCode"] == "001" and len(na["reference"]) == 13
    out = await _q(client, merchant.sk, SADAD, {"reference": na["reference"]}, "sadadPay")
    assert out["userErrors"] == [{"code": "payment_declined", "field": "reference", "declineCode": "sadad_declined"}]
    s = (await _q(client, merchant.sk, CREATE, {"amount": 20_000, "currency": "SAR", "paymentMethod": "sadad"},
                  "paymentIntentCreate"))["paymentIntent"]
    ref = (await _q(client, merchant.sk, CONFIRM, {"id": s["id"]}, "paymentIntentConfirm")
           )["paymentIntent"]["nextAction"]["reference"]
    assert (await _q(client, merchant.sk, SADAD, {"reference": ref}, "sadadPay"))["paymentIntent"]["status"] == "succeeded"
    again = await _q(client, merchant.sk, SADAD, {"reference": ref}, "sadadPay")
    assert again["userErrors"][0]["code"] == "reference_already_paid"
    # CliQ: approved; Aani: rejected, then expired
    c = (await _q(client, merchant.sk, CREATE, {"amount": 5_000, "currency": "JOD", "paymentMethod": "cliq",
                                                "alias": "qafila1"}, "paymentIntentCreate"))["paymentIntent"]
    na = (await _q(client, merchant.sk, CONFIRM, {"id": c["id"]}, "paymentIntentConfirm"))["paymentIntent"]["nextAction"]
    assert na["type"] == "request_to_pay" and na["aliasHint"] == "Q*****1"
    assert na["qr"]["imageUrl"].endswith(f"/v1/payments/{c['id']}/qr.png") and na["qr"]["payload"].startswith("cliq://")
    ok = await _q(client, merchant.sk, APPROVE_Q, {"paymentIntent": c["id"]}, "requestToPayApprove")
    assert ok["paymentIntent"]["status"] == "succeeded" and ok["userErrors"] == []
    a = (await _q(client, merchant.sk, CREATE, {"amount": 5_000, "currency": "AED", "paymentMethod": "aani"},
                  "paymentIntentCreate"))["paymentIntent"]
    await _q(client, merchant.sk, CONFIRM, {"id": a["id"]}, "paymentIntentConfirm")
    no = await _q(client, merchant.sk, REJECT_Q, {"paymentIntent": a["id"]}, "requestToPayReject")
    assert no["paymentIntent"] == {"id": a["id"], "status": "failed", "failureCode": "rtp_rejected"}
    await _q(client, merchant.sk, CONFIRM, {"id": a["id"]}, "paymentIntentConfirm")
    clock.advance(minutes=6)
    late = await _q(client, merchant.sk, APPROVE_Q, {"paymentIntent": a["id"]}, "requestToPayApprove")
    assert late["userErrors"] == [{"code": "request_expired", "field": "paymentIntent"}]
