"""Disputes in the sandbox: card 4000000000000259 succeeds and is disputed a day later (payment
`disputed`, dispute `needs_response`, amount + fee debited, payment.disputed); evidence moves it to
`under_review`; a week later `won` returns the amount (the fee is kept), `lost` keeps the debit."""
from __future__ import annotations

from models.events import Event
from models.payments import Payment
from services.money import disputes
from tests.helpers import gql
from tests.money_fixtures import DISPUTE_CARD, advance, amounts, at, check_invariants, get, pay_ok, run_until
from tests.payments_fixtures import call

FEE_TRY = 250_00


async def disputed_payment(client, merchant, clock, amount=10000):
    clock.set(at(2026, 2, 4, 9, 0))                        # Wednesday
    p = await pay_ok(client, merchant.sk, amount=amount, number=DISPUTE_CARD)
    assert p["status"] == "succeeded"
    ran = await run_until(clock, merchant.id, at(2026, 2, 5, 9, 0))
    assert [r.kind for r in ran] == ["dispute.open"]
    page = await get(client, "/api/disputes", merchant.sk)
    assert len(page["data"]) == 1
    return p, page["data"][0]


async def test_a_dispute_opens_a_day_later_debits_amount_and_fee_and_is_won_with_evidence(client, merchant, clock):
    p, d = await disputed_payment(client, merchant, clock)
    assert (d["payment_id"], d["amount"], d["fee"], d["currency"], d["status"], d["reason"]) == \
        (p["id"], 10000, FEE_TRY, "TRY", "needs_response", "fraudulent")
    assert d["id"].startswith("dp_") and d["evidence_due_by"] == "2026-02-12T09:00:00.000Z"
    assert (await get(client, f"/api/payments/{p['id']}", merchant.sk))["status"] == "disputed"
    event = await Event.get(merchant_id=merchant.id, type="payment.disputed")
    assert event.data["id"] == p["id"] and event.data["status"] == "disputed" and event.data["dispute"]["id"] == d["id"]
    net = 10000 - (await Payment.get(id=p["id"])).fee
    bal = await get(client, "/api/balance", merchant.sk)
    assert amounts(bal["available"]) == {"TRY": net} and amounts(bal["pending"]) == {"TRY": -(10000 + FEE_TRY)}
    # a disputed payment cannot be refunded
    status, body = await call(client, "POST", f"/api/payments/{p['id']}/refund", merchant.sk, {})
    assert status == 400 and body["error"]["code"] == "invalid_state"

    status, body = await call(client, "POST", f"/api/disputes/{d['id']}/evidence", merchant.sk,
                              {"uncategorized_text": "Signed delivery receipt", "customer_name": "Layla"})
    assert status == 200, body
    assert body["status"] == "under_review" and body["evidence"]["customer_name"] == "Layla"
    status, again = await call(client, "POST", f"/api/disputes/{d['id']}/evidence", merchant.sk,
                               {"uncategorized_text": "more"})
    assert status == 400 and again["error"]["code"] == "invalid_state"

    await run_until(clock, merchant.id, at(2026, 2, 12, 12, 0))        # a week after the evidence, plus 3 h
    d = await get(client, f"/api/disputes/{d['id']}", merchant.sk)
    assert d["status"] == "won" and d["closed_at"] == "2026-02-12T09:00:00.000Z"
    await run_until(clock, merchant.id, at(2026, 2, 16, 12, 0))             # Monday
    # the payment was paid out on Friday; the dispute (-amount - fee) and the money won back leave
    # the balance negative by the fee: nothing more is paid out
    sets = (await get(client, "/api/settlements?limit=100", merchant.sk))["data"]
    assert [s["amount"] for s in sets] == [net]
    bal = await get(client, "/api/balance", merchant.sk)
    assert amounts(bal["available"]) == {"TRY": -FEE_TRY} and amounts(bal["pending"]) == {"TRY": 0}
    await check_invariants(client, merchant.sk, merchant.id)
    # a new payment covers it: Wednesday's settlement takes the dispute lines along
    q = await pay_ok(client, merchant.sk, amount=50000)
    await run_until(clock, merchant.id, at(2026, 2, 18, 12, 0))
    sets = (await get(client, "/api/settlements?limit=100", merchant.sk))["data"]
    assert sets[0]["amount"] == 50000 - (await Payment.get(id=q["id"])).fee - FEE_TRY
    lines = (await get(client, f"/api/settlements/{sets[0]['id']}/transactions", merchant.sk))["data"]
    assert sorted(line["type"] for line in lines) == ["capture", "dispute", "dispute_won"]
    dispute_line = [line for line in lines if line["type"] == "dispute"][0]
    assert (dispute_line["gross"], dispute_line["fee"], dispute_line["net"], dispute_line["source_id"]) == \
        (-10000, FEE_TRY, -10000 - FEE_TRY, d["id"])
    await check_invariants(client, merchant.sk, merchant.id)


async def test_without_evidence_or_with_losing_evidence_the_dispute_is_lost(client, merchant, make_merchant, clock):
    p, d = await disputed_payment(client, merchant, clock)
    await run_until(clock, merchant.id, at(2026, 2, 12, 9, 0))          # evidence_due_by passed: lost
    assert (await get(client, f"/api/disputes/{d['id']}", merchant.sk))["status"] == "lost"
    status, body = await call(client, "POST", f"/api/disputes/{d['id']}/evidence", merchant.sk,
                              {"uncategorized_text": "late"})
    assert status == 400 and body["error"]["code"] == "invalid_state"
    await check_invariants(client, merchant.sk, merchant.id)

    other = await make_merchant("Other")
    q, d2 = await disputed_payment(client, other, clock, amount=20000)
    status, body = await call(client, "POST", f"/api/disputes/{d2['id']}/evidence", other.sk,
                              {"product_description": "losing_evidence: none"})
    assert status == 200 and body["status"] == "under_review"
    await run_until(clock, other.id, at(2026, 2, 13, 9, 0))
    assert (await get(client, f"/api/disputes/{d2['id']}", other.sk))["status"] == "lost"
    await check_invariants(client, other.sk, other.id)
    # tenancy: each sees only its own
    for path in (f"/api/disputes/{d2['id']}",):
        status, body = await call(client, "GET", path, merchant.sk)
        assert status == 404 and body["error"]["message"] == "Resource not found"
    status, body = await call(client, "POST", f"/api/disputes/{d2['id']}/evidence", merchant.sk,
                              {"uncategorized_text": "x"})
    assert status == 404
    assert [x["id"] for x in (await get(client, "/api/disputes", merchant.sk))["data"]] == [d["id"]]


async def test_evidence_input_is_checked_field_by_field(client, merchant, clock):
    p, d = await disputed_payment(client, merchant, clock)
    for body, param in (({}, "uncategorized_text"), ({"notes": "x"}, "notes"),
                        ({"uncategorized_text": 5}, "uncategorized_text"),
                        ({"customer_email": "x" * 20_001}, "customer_email")):
        status, out = await call(client, "POST", f"/api/disputes/{d['id']}/evidence", merchant.sk, body)
        assert status == 400 and out["error"]["param"] == param, (body, out)
    assert (await get(client, f"/api/disputes/{d['id']}", merchant.sk))["status"] == "needs_response"
    status, out = await call(client, "GET", "/api/disputes?status=open", merchant.sk)
    assert status == 400 and out["error"]["param"] == "status"


DISPUTES_Q = "{ disputes(first: 5) { totalCount edges { node { id paymentId amount fee status evidenceDueBy } } } }"
EVIDENCE_M = """mutation($input: DisputeEvidenceInput!) {
  disputeEvidenceSubmit(input: $input) { dispute { id status evidence } userErrors { code message field } } }"""


async def test_graphql_twins_and_the_test_clock(client, merchant, clock):
    clock.set(at(2026, 2, 4, 9, 0))
    p = await pay_ok(client, merchant.sk, amount=5000, number=DISPUTE_CARD)
    out = await advance(client, merchant.sk, days=1)                   # the test clock runs the dispute job
    assert "dispute.open" in [r["kind"] for r in out["ran"]]
    status, body = await gql(client, DISPUTES_Q, key=merchant.sk)
    node = body["data"]["disputes"]["edges"][0]["node"]
    assert (node["paymentId"], node["amount"], node["fee"], node["status"]) == (p["id"], 5000, FEE_TRY,
                                                                               "needs_response")
    status, body = await gql(client, EVIDENCE_M, {"input": {"id": node["id"]}}, key=merchant.sk)
    assert body["data"]["disputeEvidenceSubmit"]["userErrors"][0]["field"] == "uncategorizedText"
    status, body = await gql(client, EVIDENCE_M, {"input": {"id": node["id"], "uncategorizedText": "receipt"}},
                             key=merchant.sk)
    got = body["data"]["disputeEvidenceSubmit"]
    assert got["userErrors"] == [] and got["dispute"]["status"] == "under_review"
    assert got["dispute"]["evidence"] == {"uncategorized_text": "receipt"}
    out = await advance(client, merchant.sk, days=7)
    assert "dispute.decide" in [r["kind"] for r in out["ran"]]
    status, body = await gql(client, '{ dispute(id: "%s") { status } }' % node["id"], key=merchant.sk)
    assert body["data"]["dispute"]["status"] == "won"


def test_dispute_fees_are_configuration():
    try:
        disputes.configure_fees({"KWD": 2500})
        assert disputes.FEES["KWD"] == 2500 and disputes.FEES["TRY"] == FEE_TRY
    finally:
        disputes.configure_fees()
    assert disputes.FEES["KWD"] == 5000 and disputes.FEES["IQD"] == 20_000_000
