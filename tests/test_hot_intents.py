"""The `/v1` intent's hot reads (services/payments/intents_hot.py) give the generic path's answer
for the same row: every column and every optional block (a confirmed card, a wallet, installments,
BNPL, the local methods, crypto, COD, QR, an ETA receipt, a GİB invoice, splits, a receipt), the
read and the page alike. PostgreSQL only: elsewhere the generic path is the only one."""
import os
from datetime import date, datetime, timedelta, timezone

import orjson
import pytest

from models.intents import PaymentIntent
from models.receipts import Receipt
from services.ids import new_id
from services.payments import intents, intents_hot
from services.principal import Principal
from tests.conftest import bearer
from tests.intents_fixtures import create

pytestmark = pytest.mark.skipif(not os.environ.get("DATABASE_URL", "").startswith("postgres"),
                                reason="the hot reads run on PostgreSQL only")

CARD = {"card": {"brand": "visa", "last4": "4242", "exp_month": 12, "exp_year": 2030, "fingerprint": "fp_1",
                 "networks": ["visa"]}}
# (what the row is changed to, in words) -> the columns written over a fresh card intent
VARIANTS = {
    "plain card, metadata": {"metadata": {"order": "A-1", "note": "ünïcödé"}},
    "confirmed card, installments": {
        "status": "succeeded", "amount_received": 10000, "method_details": CARD, "payment_method_ref": "pm_x",
        "succeeded_at": datetime(2026, 12, 1, 10, 0, 0, 123456, tzinfo=timezone.utc), "receipt_token": "tok_1",
        "installments": {"count": 3, "installment_amount": 3334, "total_amount": 10000, "paid_by": "customer"}},
    "card stored without networks": {"method_details": {"card": {"brand": "mastercard", "last4": "4444"}}},
    "apple pay": {"payment_method": "apple_pay", "method_details": {
        "card": {"brand": "visa", "last4": "1111", "networks": ["mada", "visa"]},
        "wallet": {"type": "apple_pay", "dynamic_last4": "9999"}}},
    "bnpl": {"payment_method": "bnpl_split4", "status": "requires_capture", "amount_received": 2500,
             "method_details": {"provider_reference": "tabby_1", "result": "authorized", "buyer": {"phone": "+966501234567"},
                                "schedule": {"installments": 4}, "authorization_expires_at": "2026-12-20T00:00:00.000Z"}},
    "knet": {"payment_method": "knet", "currency": "KWD", "amount": 12345, "status": "requires_action",
             "method_details": {"bank": "NBK", "payment_id": "p1", "result": None},
             "next_action": {"type": "redirect_to_url", "redirect_to_url": {"url": "https://knet.example/pay"}}},
    "fawry": {"payment_method": "fawry", "currency": "EGP", "method_details": {"reference": "7771234",
                                                                              "expires_at": "2026-12-02T00:00:00.000Z"}},
    "stcpay": {"payment_method": "stcpay", "currency": "SAR", "method_details": {"phone": "+966501112233",
                                                                                "attempts_left": 2}},
    "sadad": {"payment_method": "sadad", "currency": "SAR", "method_details": {"reference": "123", "biller_code": "9"}},
    "omannet": {"payment_method": "omannet", "currency": "OMR", "method_details": {"bank": "BM"}},
    "crypto": {"payment_method": "crypto", "status": "processing", "crypto": {
        "asset": "USDT", "network": "tron", "address": "T-addr", "amount_crypto": "27.1", "rate": "0.27",
        "rate_locked_until": "2026-12-01T10:15:00.000Z", "detected_at": "2026-12-01T10:01:00.000Z"}},
    "qr": {"payment_method": "qr"},
    "cod": {"payment_method": "cod", "currency": "SAR", "cod_status": "pending",
            "cod_address": {"line1": "King Fahd Rd 1", "city": "Riyadh", "country": "SA"}},
    "eta receipt, gib, invoice, split, failure": {
        "eta_receipt": {"uuid": "U1", "number": "R-1", "status": "valid"},
        "gib": {"uuid": "G1", "status": "accepted", "profile": "EARSIVFATURA"}, "invoice_id": "inv_1",
        "split": [{"merchant_id": "mer_other", "amount": 100, "currency": "TRY"}], "status": "canceled",
        "canceled_at": datetime(2026, 12, 1, 11, 0, tzinfo=timezone.utc), "cancellation_reason": "duplicate",
        "failure_code": "card_declined", "failure_message": "Declined", "order_id": "o-1", "description": "d",
        "statement_descriptor": "QAFILA", "locale": "ar", "customer_id": "cus_1"},
    "3-decimal amounts, dates": {"currency": "BHD", "amount": 1005, "fee_amount": 29, "net_amount": 976,
                                 "fee_rate": "0.029", "fee_conversion": 7, "fee_network": 3,
                                 "settlement_date": date(2027, 1, 3)},
}


def _json(obj) -> object:
    """An answer as its client reads it (the hot answer embeds stored JSON as text)."""
    return orjson.loads(orjson.dumps(obj))


async def _generic_read(principal, intent_id):
    i, r = await intents.get_intent_with_receipt(principal=principal, intent_id=intent_id)
    out = intents.intent_object(i)
    if r is not None:
        out["receipt"] = {"channel": r.channel, "sent_to": r.sent_to, "status": r.status}
    return out


@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_the_hot_read_and_page_answer_as_the_generic_path_does(client, merchant, clock, variant):
    assert intents_hot.available()
    created = await create(client, merchant.sk)
    future = clock.now() + timedelta(days=3)       # not due to expire: the hot path answers
    await PaymentIntent.filter(id=created["id"]).update(expires_at=future, **VARIANTS[variant])
    principal = Principal(merchant_id=merchant.id, livemode=False, kind="secret")
    hot = await intents_hot.retrieve(principal, created["id"], None)
    assert hot is not None
    assert _json(hot) == _json(await _generic_read(principal, created["id"]))
    page = await intents_hot.page(principal, {"limit": "5"})
    generic = await intents.list_intents(principal=principal, query={"limit": "5"})
    assert _json(page["data"]) == _json([intents.intent_object(i) for i in generic.items])
    assert (page["total_count"], page["has_more"]) == (generic.total, generic.has_more)
    # the route answers it too (over HTTP), equal to the hot answer
    r = await client.get(f"/v1/payments/{created['id']}", headers=bearer(merchant.sk))
    assert await r.json() == _json(hot)


async def test_a_receipt_joins_the_read(client, merchant):
    created = await create(client, merchant.sk)
    await PaymentIntent.filter(id=created["id"]).update(status="succeeded", amount_received=10000,
                                                        receipt_token="tok", succeeded_at=datetime.now(timezone.utc))
    await Receipt.create(id=new_id("rcp"), payment_id=created["id"], merchant_id=merchant.id, livemode=False,
                         source="intent", channel="email", sent_to="a@example.com", status="sent",
                         created_at=datetime.now(timezone.utc), updated_at=datetime.now(timezone.utc))
    principal = Principal(merchant_id=merchant.id, livemode=False, kind="secret")
    hot = await intents_hot.retrieve(principal, created["id"], None)
    assert hot["receipt"] == {"channel": "email", "sent_to": "a@example.com", "status": "sent"}
    assert _json(hot) == _json(await _generic_read(principal, created["id"]))


async def test_pages_cursors_and_totals_agree(client, merchant, make_merchant, clock):
    ids = []
    for n in range(5):
        ids.append((await create(client, merchant.sk, amount=1000 + n))["id"])
        clock.advance(seconds=1)
    other = await make_merchant()
    await create(client, other.sk)                       # another merchant's intent is on no page
    principal = Principal(merchant_id=merchant.id, livemode=False, kind="secret")
    first = await intents_hot.page(principal, {"limit": "2"})
    assert [d["id"] for d in first["data"]] == ids[::-1][:2] and first["has_more"] and first["total_count"] == 5
    second = await intents_hot.page(principal, {"limit": "2", "starting_after": first["next_cursor"]})
    generic = await intents.list_intents(principal=principal, query={"limit": "2", "starting_after": first["next_cursor"]})
    assert [d["id"] for d in second["data"]] == [i.id for i in generic.items] == ids[::-1][2:4]
    last = await intents_hot.page(principal, {"limit": "2", "starting_after": second["next_cursor"]})
    assert [d["id"] for d in last["data"]] == ids[:1] and not last["has_more"] and last["next_cursor"] is None
    # a filter, or a cursor of another list: the generic path (None), or its 400
    assert await intents_hot.page(principal, {"status": "succeeded"}) is None
    r = await client.get(f"/v1/payments?limit=2&starting_after=pay_{'x' * 24}", headers=bearer(merchant.sk))
    assert r.status == 400 and (await r.json())["error"]["param"] == "starting_after"


async def test_an_intent_due_to_expire_is_left_to_the_generic_read(client, merchant, clock):
    created = await create(client, merchant.sk)
    await PaymentIntent.filter(id=created["id"]).update(expires_at=clock.now() - timedelta(hours=2))
    principal = Principal(merchant_id=merchant.id, livemode=False, kind="secret")
    assert await intents_hot.retrieve(principal, created["id"], None) is None
    assert await intents_hot.page(principal, {}) is None
    r = await client.get(f"/v1/payments/{created['id']}", headers=bearer(merchant.sk))
    assert (await r.json())["status"] == "canceled"                 # the generic read canceled it
    assert (await intents_hot.retrieve(principal, created["id"], None))["status"] == "canceled"


async def test_a_publishable_key_needs_the_client_secret_and_another_merchant_sees_nothing(client, merchant,
                                                                                             make_merchant):
    created = await create(client, merchant.sk)
    r = await client.get(f"/v1/payments/{created['id']}", headers=bearer(merchant.pk))
    assert r.status == 400 and (await r.json())["error"]["param"] == "client_secret"
    r = await client.get(f"/v1/payments/{created['id']}?client_secret=wrong", headers=bearer(merchant.pk))
    assert r.status == 404
    r = await client.get(f"/v1/payments/{created['id']}?client_secret={created['client_secret']}",
                         headers=bearer(merchant.pk))
    assert r.status == 200 and (await r.json())["id"] == created["id"]
    other = await make_merchant()
    r = await client.get(f"/v1/payments/{created['id']}", headers=bearer(other.sk))
    assert r.status == 404
