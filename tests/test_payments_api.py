"""Payments over /api: sandbox cards, each state transition and each refused one, validation,
idempotency, listing, customers, tenant isolation, every currency."""
from __future__ import annotations

import pytest

from models.events import Event
from models.payments import Payment, PaymentAttempt, Refund
from services.money import ledger
from tests.payments_fixtures import (APPROVED, CURRENCIES, DECLINED, INSUFFICIENT, PROCESSING_ERROR, THREE_DS,
                                     call, card, no_exploration, pay)  # noqa: F401

# ---------------------------------------------------------------- sandbox cards


async def test_approved_card_succeeds_with_routing_decision_and_risk_score(client, merchant):
    status, body = await pay(client, merchant.sk, 10000, "TRY")
    assert status == 200
    assert body["id"].startswith("pay_") and body["status"] == "succeeded"
    assert body["amount"] == 10000 and body["currency"] == "TRY" and body["provider"] == "anatolia"
    rd = body["routing_decision"]
    assert rd["strategy"] == "smart" and rd["reason"].startswith("smart: anatolia score")
    assert rd["alternatives_considered"] == ["atlas"] and isinstance(rd["latency_ms"], int)
    assert 0 <= body["risk_score"] <= 100 and body["created_at"].endswith("Z")
    assert body["payment_method"]["card"] == {"brand": "visa", "last4": "4242", "exp_month": 12, "exp_year": 2030,
                                              "fingerprint": body["payment_method"]["card"]["fingerprint"],
                                              "country": None, "networks": ["visa"]}
    status, got = await call(client, "GET", f"/api/payments/{body['id']}", merchant.sk)
    assert status == 200 and got["amount"] == 10000 and got["status"] == "succeeded" and got["provider"] == "anatolia"
    assert await Event.filter(object_id=body["id"], type="payment.succeeded").count() == 1


@pytest.mark.parametrize("number,code", [(DECLINED, "card_declined"), (INSUFFICIENT, "insufficient_funds"),
                                         (THREE_DS, "authentication_required")])
async def test_declining_cards_answer_402_and_record_the_attempt(client, merchant, number, code):
    status, body = await pay(client, merchant.sk, 5000, "TRY", number)
    assert status == 402
    assert body["error"]["message"] == "Payment declined" and body["error"]["code"] == "payment_declined"
    assert code in body["error"]["detail"]
    p = await Payment.get(merchant_id=merchant.id)
    assert p.status == "failed" and p.decline_code == code and p.amount_captured == 0
    attempts = await PaymentAttempt.filter(payment_id=p.id)
    assert len(attempts) == 1 and attempts[0].outcome in ("declined", "requires_action")  # hard: no cascade
    assert await Event.filter(object_id=p.id, type="payment.failed").count() == 1
    assert await ledger.balances(merchant_id=merchant.id, livemode=False) == {}


async def test_processing_error_cascades_to_the_next_provider(client, merchant):
    status, body = await pay(client, merchant.sk, 10000, "TRY", PROCESSING_ERROR)
    assert status == 200 and body["status"] == "succeeded" and body["provider"] == "atlas"
    rd = body["routing_decision"]
    assert "processing_error at anatolia, cascaded to atlas" in rd["reason"]
    assert [a["provider"] for a in rd["attempts"]] == ["anatolia", "atlas"]
    assert [a["outcome"] for a in rd["attempts"]] == ["error", "approved"]
    assert rd["alternatives_considered"] == ["anatolia"]
    assert await PaymentAttempt.filter(payment_id=body["id"]).count() == 2


async def test_invalid_number_and_past_expiry_are_400(client, merchant, clock):
    status, body = await pay(client, merchant.sk, number="4242424242424241")
    assert status == 400 and body["error"]["message"] == "Invalid request body"
    assert body["error"]["param"] == "payment_method.card.number"
    assert "4242424242424241" not in str(body)
    status, body = await call(client, "POST", "/api/payments/create", merchant.sk,
                              {"amount": 100, "currency": "TRY",
                               "payment_method": card(exp_month=clock.now().month, exp_year=clock.now().year - 1)})
    assert status == 400 and body["error"]["param"] == "payment_method.card.exp_year"
    assert "expired" in body["error"]["detail"]
    assert await Payment.filter(merchant_id=merchant.id).count() == 0


@pytest.mark.parametrize("body,param", [
    ({"currency": "TRY", "payment_method": card()}, "amount"),
    ({"amount": 100, "currency": "EUR", "payment_method": card()}, "currency"),
    ({"amount": 99, "currency": "TRY", "payment_method": card()}, "amount"),
    ({"amount": 100, "currency": "TRY"}, "payment_method"),
    ({"amount": 100, "currency": "TRY", "payment_method": card(), "ammount": 1}, "ammount"),
    ({"amount": 100, "currency": "TRY", "payment_method": card(), "routing": "nowhere"}, "routing"),
    ({"amount": 100, "currency": "TRY", "payment_method": card(cvc="12")}, "payment_method.card.cvc"),
    ({"amount": 100, "currency": "TRY", "payment_method": card(), "customer": {"email": "x"}}, "customer.email"),
    ({"amount": 100, "currency": "TRY", "payment_method": card(),
      "routing": {"strategy": "fixed", "provider": "gulfnet"}}, "routing.provider"),
])
async def test_bad_create_input_is_400_naming_the_field(client, merchant, body, param):
    status, out = await call(client, "POST", "/api/payments/create", merchant.sk, body)
    assert status == 400 and out["error"]["param"] == param
    assert await Payment.filter(merchant_id=merchant.id).count() == 0


async def test_card_number_and_cvc_are_never_stored(client, merchant):
    await pay(client, merchant.sk, 10000, "TRY", APPROVED)
    await pay(client, merchant.sk, 10000, "TRY", DECLINED)
    rows = await Payment.filter(merchant_id=merchant.id).values()
    events = await Event.filter(merchant_id=merchant.id).values()
    dump = repr(rows) + repr(events)
    assert APPROVED not in dump and DECLINED not in dump and "'123'" not in dump


# ---------------------------------------------------------------- transitions

async def _authorized(client, key, amount=10000, currency="TRY"):
    status, body = await pay(client, key, amount, currency, capture=False)
    assert status == 200 and body["status"] == "authorized"
    return body["id"]


async def test_manual_capture_full_then_refunds_up_to_the_captured_amount(client, merchant):
    pid = await _authorized(client, merchant.sk)
    status, body = await call(client, "POST", f"/api/payments/{pid}/capture", merchant.sk, {})
    assert status == 200 and body == {"id": pid, "status": "captured", "amount": 10000, "amount_authorized": 10000,
                                      "currency": "TRY"}
    status, r1 = await call(client, "POST", f"/api/payments/{pid}/refund", merchant.sk,
                            {"amount": 4000, "reason": "requested_by_customer"})
    assert status == 200 and r1["status"] == "refunded" and r1["amount"] == 4000 and r1["refund_id"].startswith("ref_")
    status, r2 = await call(client, "POST", f"/api/payments/{pid}/refund", merchant.sk, {"amount": 6000})
    assert status == 200 and r2["amount"] == 6000 and r2["amount_refunded"] == 10000
    status, r3 = await call(client, "POST", f"/api/payments/{pid}/refund", merchant.sk, {"amount": 1})
    assert status == 400 and r3["error"]["code"] == "invalid_state" and "fully refunded" in r3["error"]["detail"]
    assert await Refund.filter(payment_id=pid).count() == 2
    assert [e.type for e in await Event.filter(object_id=pid).order_by("created_at", "id")].count("payment.refunded") == 2


async def test_partial_capture_and_over_capture(client, merchant):
    pid = await _authorized(client, merchant.sk, 5000)
    status, body = await call(client, "POST", f"/api/payments/{pid}/capture", merchant.sk, {"amount": 5001})
    assert status == 400 and body["error"]["param"] == "amount"
    assert (await Payment.get(id=pid)).status == "authorized"
    status, body = await call(client, "POST", f"/api/payments/{pid}/capture", merchant.sk, {"amount": 3000})
    assert status == 200 and body["status"] == "captured" and body["amount"] == 3000
    status, body = await call(client, "POST", f"/api/payments/{pid}/refund", merchant.sk, {"amount": 3001})
    assert status == 400 and body["error"]["code"] == "amount_too_large" and "refundable 3000" in body["error"]["detail"]
    p = await Payment.get(id=pid)
    assert p.amount_refunded == 0 and p.status == "captured"


async def test_void_before_capture_and_refused_transitions(client, merchant):
    pid = await _authorized(client, merchant.sk)
    status, body = await call(client, "POST", f"/api/payments/{pid}/refund", merchant.sk, {})
    assert status == 400 and body["error"]["code"] == "invalid_state"
    assert body["error"]["message"] == "Invalid request body"
    assert body["error"]["detail"] == (f"Payment {pid} cannot be refunded: its status is authorized; "
                                        "only a succeeded or captured payment can be refunded")
    status, body = await call(client, "POST", f"/api/payments/{pid}/void", merchant.sk)
    assert status == 200 and body == {"id": pid, "status": "voided"}
    for action in ("capture", "void", "refund"):
        status, body = await call(client, "POST", f"/api/payments/{pid}/{action}", merchant.sk, {})
        assert status == 400 and body["error"]["code"] == "invalid_state", action
        assert "its status is voided" in body["error"]["detail"]
    assert (await Payment.get(id=pid)).status == "voided"
    assert await ledger.balances(merchant_id=merchant.id, livemode=False) == {}


async def test_succeeded_payment_cannot_be_captured_or_voided_but_refunds(client, merchant):
    _, body = await pay(client, merchant.sk, 7000)
    pid = body["id"]
    for action in ("capture", "void"):
        status, out = await call(client, "POST", f"/api/payments/{pid}/{action}", merchant.sk, {})
        assert status == 400 and out["error"]["code"] == "invalid_state"
        assert "its status is succeeded" in out["error"]["detail"]
    status, out = await call(client, "POST", f"/api/payments/{pid}/refund", merchant.sk, {})
    assert status == 200 and out["amount"] == 7000 and out["status"] == "refunded"


async def test_failed_payment_cannot_move(client, merchant):
    await pay(client, merchant.sk, 7000, number=DECLINED)
    p = await Payment.get(merchant_id=merchant.id)
    for action in ("capture", "void", "refund"):
        status, out = await call(client, "POST", f"/api/payments/{p.id}/{action}", merchant.sk, {})
        assert status == 400 and out["error"]["code"] == "invalid_state" and "status is failed" in out["error"]["detail"]


async def test_unknown_and_foreign_payments_are_404(client, merchant, make_merchant):
    other = await make_merchant()
    _, body = await pay(client, other.sk, 9000)
    pid = body["id"]
    for method, path in (("GET", f"/api/payments/{pid}"), ("POST", f"/api/payments/{pid}/capture"),
                         ("POST", f"/api/payments/{pid}/void"), ("POST", f"/api/payments/{pid}/refund"),
                         ("GET", "/api/payments/pay_nope")):
        status, out = await call(client, method, path, merchant.sk, {} if method == "POST" else None)
        assert status == 404 and out["error"]["message"] == "Resource not found", path
    status, out = await call(client, "GET", "/api/payments/list", merchant.sk)
    assert out["data"] == [] and out["total"] == 0
    p = await Payment.get(id=pid)
    assert p.status == "succeeded" and p.amount_refunded == 0


async def test_missing_key_is_401(client):
    resp = await client.post("/api/payments/create", json={"amount": 100, "currency": "TRY", "payment_method": card()})
    assert resp.status == 401 and (await resp.json())["error"]["message"] == "Invalid API key"


# ---------------------------------------------------------------- idempotency

async def test_idempotent_create_replays_and_conflicts(client, merchant):
    h = {"X-Idempotency-Key": "order-1"}
    body = {"amount": 2500, "currency": "SAR", "payment_method": card()}
    s1, b1 = await call(client, "POST", "/api/payments/create", merchant.sk, body, h)
    s2, b2 = await call(client, "POST", "/api/payments/create", merchant.sk, body, h)
    assert s1 == s2 == 200 and b1["id"] == b2["id"]
    s3, b3 = await call(client, "POST", "/api/payments/create", merchant.sk, {**body, "amount": 2600}, h)
    assert s3 == 409 and b3["error"]["code"] == "idempotency_conflict"
    s4, b4 = await call(client, "POST", "/api/payments/create", merchant.sk, {**body, "idempotency_key": "order-1"})
    assert s4 == 200 and b4["id"] == b1["id"]
    assert await Payment.filter(merchant_id=merchant.id).count() == 1


async def test_idempotent_decline_replays_402(client, merchant):
    body = {"amount": 2500, "currency": "TRY", "payment_method": card(DECLINED), "idempotency_key": "k-decl"}
    s1, _ = await call(client, "POST", "/api/payments/create", merchant.sk, body)
    s2, b2 = await call(client, "POST", "/api/payments/create", merchant.sk, body)
    assert s1 == s2 == 402 and b2["error"]["message"] == "Payment declined"
    assert await Payment.filter(merchant_id=merchant.id).count() == 1


# ---------------------------------------------------------------- list

async def test_list_paginates_newest_first_and_filters(client, merchant, clock):
    ids = []
    for i, cur in enumerate(["TRY", "SAR", "TRY", "KWD", "TRY"]):
        clock.advance(seconds=10)
        _, b = await pay(client, merchant.sk, 100_000 + i, cur)
        ids.append(b["id"])
    await pay(client, merchant.sk, 1000, "TRY", DECLINED)
    status, page1 = await call(client, "GET", "/api/payments/list?limit=2", merchant.sk)
    assert status == 200 and page1["has_more"] is True and page1["total"] == 6
    assert set(page1["data"][0]) >= {"id", "status", "amount", "currency"}
    status, page2 = await call(client, "GET", f"/api/payments/list?limit=2&starting_after={page1['data'][1]['id']}",
                               merchant.sk)
    assert [x["id"] for x in page2["data"]] == [ids[3], ids[2]]
    _, tr = await call(client, "GET", "/api/payments/list?currency=TRY&status=succeeded", merchant.sk)
    assert [x["id"] for x in tr["data"]] == [ids[4], ids[2], ids[0]] and tr["total"] == 3
    _, failed = await call(client, "GET", "/api/payments/list?status=failed", merchant.sk)
    assert failed["total"] == 1
    _, gulf = await call(client, "GET", "/api/payments/list?provider=gulfnet", merchant.sk)
    assert {x["currency"] for x in gulf["data"]} == {"SAR", "KWD"}
    start = clock.now().replace(microsecond=0)
    _, ranged = await call(client, "GET", "/api/payments/list?created_lte=2000-01-01T00:00:00Z", merchant.sk)
    assert ranged["total"] == 0
    _, ranged = await call(client, "GET", f"/api/payments/list?created_gte={start.isoformat().replace('+00:00', 'Z')}",
                           merchant.sk)
    assert ranged["total"] == 2
    for bad in ("limit=0", "limit=101", "status=weird", "starting_after=pay_x", "created_gte=yesterday"):
        status, out = await call(client, "GET", f"/api/payments/list?{bad}", merchant.sk)
        assert status == 400, bad


async def test_list_by_customer(client, merchant):
    _, b1 = await pay(client, merchant.sk, customer={"email": "layla@example.com", "name": "Layla"})
    _, b2 = await pay(client, merchant.sk, customer={"email": "layla@example.com"})
    await pay(client, merchant.sk, customer={"email": "omar@example.com"})
    cid = b1["customer_id"]
    assert cid.startswith("cus_") and b2["customer_id"] == cid
    _, out = await call(client, "GET", f"/api/payments/list?customer={cid}", merchant.sk)
    assert {x["id"] for x in out["data"]} == {b1["id"], b2["id"]}


# ---------------------------------------------------------------- currencies and the ledger

@pytest.mark.parametrize("currency", CURRENCIES)
async def test_every_currency_charges_and_books_fees_in_its_minor_units(client, merchant, currency):
    amount = {"KWD": 12_345, "IQD": 25_000_000}.get(currency, 123_45)   # 12.345 KWD, 25000.000 IQD
    status, body = await pay(client, merchant.sk, amount, currency)
    assert status == 200 and body["status"] == "succeeded"
    p = await Payment.get(id=body["id"])
    from services.payments.providers import registry
    assert p.fee == registry.get(p.provider).fee(amount, currency) > 0
    bal = await ledger.balances(merchant_id=merchant.id, livemode=False)
    assert bal[("provider_receivable", currency)] == amount
    assert bal[("merchant_balance", currency)] == -(amount - p.fee)
    assert bal[("fee_revenue", currency)] == -p.fee
    _, r = await call(client, "POST", f"/api/payments/{p.id}/refund", merchant.sk, {"amount": amount // 3})
    assert r["amount"] == amount // 3
    assert sum((await ledger.balances(merchant_id=merchant.id, livemode=False)).values()) == 0


def test_fees_round_half_up_once_in_three_decimal_currencies():
    from decimal import Decimal

    from services.money.currencies import format_amount
    from services.payments.providers import registry
    gulf = registry.get("gulfnet")
    assert gulf.fee(1_000, "KWD") == 72             # 1.000 KWD * 2.2% = 0.022 + 0.050 fixed
    assert gulf.fee(1_025, "KWD") == 73             # 22.55 fils -> 23, + 50
    assert registry.get("nilepay").fee(1_000_000, "IQD") == 275_000   # 2.5% of 1000.000 + 250.000
    assert format_amount(12_345, "KWD") == "12.345 KWD" and format_amount(12_345, "TRY") == "123.45 TRY"
    assert Decimal("0.0220") == gulf.fee_rate


# ---------------------------------------------------------------- customers

async def test_customers_create_get_update_list_and_isolation(client, merchant, make_merchant):
    status, c = await call(client, "POST", "/api/customers", merchant.sk,
                           {"email": "Sara@Example.COM", "name": "Sara", "phone": "+966 50 123 4567",
                            "metadata": {"tier": "gold"}})
    assert status == 200 and c["id"].startswith("cus_") and c["email"] == "Sara@example.com"
    assert c["name"] == "Sara" and c["created_at"].endswith("Z")
    status, got = await call(client, "GET", f"/api/customers/{c['id']}", merchant.sk)
    assert status == 200 and got["phone"] == "+966 50 123 4567" and got["metadata"] == {"tier": "gold"}
    status, up = await call(client, "PUT", f"/api/customers/{c['id']}", merchant.sk, {"name": "Sara A."})
    assert status == 200 and up["name"] == "Sara A." and up["email"] == "Sara@example.com"
    status, bad = await call(client, "PUT", f"/api/customers/{c['id']}", merchant.sk, {"phone": "call me"})
    assert status == 400 and bad["error"]["param"] == "phone"
    status, bad = await call(client, "POST", "/api/customers", merchant.sk, {})
    assert status == 400
    _, lst = await call(client, "GET", "/api/customers", merchant.sk)
    assert [x["id"] for x in lst["data"]] == [c["id"]]
    other = await make_merchant()
    status, out = await call(client, "GET", f"/api/customers/{c['id']}", other.sk)
    assert status == 404
    status, out = await call(client, "PUT", f"/api/customers/{c['id']}", other.sk, {"name": "Hijack"})
    assert status == 404
    _, got = await call(client, "GET", f"/api/customers/{c['id']}", merchant.sk)
    assert got["name"] == "Sara A."
    status, out = await pay(client, other.sk, customer_id=c["id"])
    assert status == 404 and out["error"]["param"] == "customer_id"
