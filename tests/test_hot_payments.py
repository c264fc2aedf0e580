"""`GET /api/payments/:id`'s hot read (services/payments/payment_read_hot.py) gives the generic
read's answer for the same row: every column and optional block (a wallet, installments, GİB,
ETA, a receipt, a dispute, local methods and BNPL, an invoice, a card stored without networks).
PostgreSQL only: elsewhere the generic read is the only one."""
import os
from datetime import datetime, timedelta, timezone

import orjson
import pytest

from models.money import Dispute
from models.payments import Payment
from models.receipts import Receipt
from rest_compat.merchant_payments import payment_shape
from services.ids import new_id
from services.payments import payment_read_hot, payments
from services.principal import Principal
from tests.conftest import bearer, gql
from tests.payments_fixtures import count_statements, pay

pytestmark = pytest.mark.skipif(not os.environ.get("DATABASE_URL", "").startswith("postgres"),
                                reason="the hot read runs on PostgreSQL only")

AT = datetime(2026, 12, 1, 9, 30, 15, 987654, tzinfo=timezone.utc)
VARIANTS = {
    "as made": {},
    "metadata, customer, link": {"metadata": {"order": "A-1", "note": "ünïcödé"}, "customer_id": "cus_1",
                                 "payment_link": "plink_1"},
    "no networks stored": {"card_networks": None, "card_brand": "mastercard"},
    "no networks, unknown brand": {"card_networks": None, "card_brand": "unknown"},
    "mada co-badged": {"card_networks": ["mada", "visa"], "card_brand": "mada", "card_country": "SA"},
    "apple pay": {"payment_method_type": "apple_pay", "wallet": {"type": "apple_pay", "dynamic_last4": "9999"}},
    "an empty wallet": {"wallet": {}},
    "installments": {"installments": {"count": 6, "installment_amount": 1700, "first_installment_amount": 1500,
                                      "total_amount": 10000, "commission": 200, "paid_by": "merchant",
                                      "program": "bonus", "bank": "garanti"}},
    "gib, eta, invoice": {"gib": {"uuid": "G1", "status": "accepted"}, "invoice_id": "inv_1",
                          "eta_receipt": {"uuid": "U1", "number": "R-1", "status": "valid"}},
    "declined": {"status": "failed", "decline_code": "insufficient_funds", "amount_captured": 0},
    "refunded, KWD": {"status": "refunded", "currency": "KWD", "amount": 12345, "amount_refunded": 12345},
    "authorized": {"status": "authorized", "capture_method": "manual", "amount_captured": 0},
    "bnpl": {"payment_method_type": "bnpl_split4", "card_brand": None, "card_last4": None, "card_exp_month": None,
             "card_exp_year": None, "card_fingerprint": None, "card_country": None, "card_networks": None},
}


def _json(obj) -> object:
    return orjson.loads(orjson.dumps(obj))


async def _generic(principal, payment_id):
    p, r, dispute = await payments.get_payment_detail(principal=principal, payment_id=payment_id)
    return {**payment_shape(p, dispute), "receipt": {"channel": r.channel, "sent_to": r.sent_to,
                                                     "status": r.status} if r else None}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_the_hot_read_answers_as_the_generic_read_does(client, merchant, variant):
    assert payment_read_hot.available()
    status, made = await pay(client, merchant.sk)
    assert status == 200
    if VARIANTS[variant]:
        await Payment.filter(id=made["id"]).update(**VARIANTS[variant])
    principal = Principal(merchant_id=merchant.id, livemode=False, kind="secret")
    hot = await payment_read_hot.read(principal, made["id"])
    assert _json(hot) == _json(await _generic(principal, made["id"]))
    r = await client.get(f"/api/payments/{made['id']}", headers=bearer(merchant.sk))
    assert r.status == 200 and await r.json() == _json(hot)


async def test_a_receipt_and_a_dispute_join_the_read(client, merchant, clock):
    status, made = await pay(client, merchant.sk)
    now = clock.now()
    await Receipt.filter(payment_id=made["id"]).delete()
    await Receipt.create(id=new_id("rcp"), payment_id=made["id"], merchant_id=merchant.id, livemode=False,
                         source="payment", channel="messaging", sent_to="+966500000000", status="failed",
                         created_at=now, updated_at=now)
    await Dispute.create(id=new_id("dp"), merchant_id=merchant.id, livemode=False, payment_id=made["id"],
                         amount=made["amount"], fee=1500, currency=made["currency"], reason="fraudulent",
                         status="needs_response", evidence={}, evidence_due_by=now + timedelta(days=7),
                         created_at=AT, updated_at=now)
    await Payment.filter(id=made["id"]).update(status="disputed")
    principal = Principal(merchant_id=merchant.id, livemode=False, kind="secret")
    hot = await payment_read_hot.read(principal, made["id"])
    assert hot["receipt"] == {"channel": "messaging", "sent_to": "+966500000000", "status": "failed"}
    assert hot["dispute"]["reason"] == "fraudulent" and hot["dispute"]["created_at"] == "2026-12-01T09:30:15.987Z"
    assert _json(hot) == _json(await _generic(principal, made["id"]))


async def test_another_merchant_or_mode_finds_nothing(client, merchant, make_merchant):
    status, made = await pay(client, merchant.sk)
    other = await make_merchant()
    r = await client.get(f"/api/payments/{made['id']}", headers=bearer(other.sk))
    assert r.status == 404
    live = Principal(merchant_id=merchant.id, livemode=True, kind="secret")
    with pytest.raises(Exception) as caught:
        await payment_read_hot.read(live, made["id"])
    assert getattr(caught.value, "status", None) == 404


PLAIN_QUERY = ("query($id: ID!) { payment(id: $id) { __typename id status amount currency provider riskScore "
               "createdAt amountCaptured amountRefunded captureMethod declineCode customerId paymentLink receiptUrl "
               "refunds { id } receipt { channel } dispute { id } %s } }")


@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_graphql_payment_of_plain_fields_answers_as_the_generic_read_does(client, merchant, variant):
    status, made = await pay(client, merchant.sk)
    assert status == 200
    if VARIANTS[variant]:
        await Payment.filter(id=made["id"]).update(**VARIANTS[variant])
    with count_statements() as plain_reads:
        status, plain = await gql(client, PLAIN_QUERY % "", {"id": made["id"]}, key=merchant.sk)
    assert status == 200 and "errors" not in plain
    # capturedAt reads the whole row: the generic read answers
    with count_statements() as generic_reads:
        status, generic = await gql(client, PLAIN_QUERY % "capturedAt", {"id": made["id"]}, key=merchant.sk)
    assert status == 200 and "errors" not in generic
    assert [s for s in plain_reads if 'FROM "payments"' in s] == [payment_read_hot.PLAIN_SQL]
    assert [s for s in generic_reads if 'FROM "payments"' in s] and payment_read_hot.PLAIN_SQL not in generic_reads
    generic["data"]["payment"].pop("capturedAt")
    assert plain["data"]["payment"] == generic["data"]["payment"]
    assert plain["data"]["payment"]["id"] == made["id"]


async def test_graphql_payment_of_plain_fields_is_the_merchants_own(client, merchant, make_merchant):
    status, made = await pay(client, merchant.sk)
    other = await make_merchant()
    query = "query($id: ID!) { payment(id: $id) { id status } }"
    _, found = await gql(client, query, {"id": made["id"]}, key=other.sk)
    assert found["data"] is None and found["errors"][0]["extensions"]["code"] == "resource_not_found"
    _, mine = await gql(client, query, {"id": made["id"]}, key=merchant.sk)
    assert mine["data"]["payment"] == {"id": made["id"], "status": made["status"]}
