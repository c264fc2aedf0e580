"""Issue 22, "Money views and live events": a disputed payment shows its dispute (`dispute` on the
payment object of REST -- retrieve and list --, of webhooks, and GraphQL's Payment.dispute), read
without N+1 and the retrieve in one statement; `paymentEvents` yields typed events whose payment
(or intent) the client selects fields of, over a real graphql-transport-ws socket."""
from __future__ import annotations

import asyncio

from models.events import Event
from services.payments import payments
from services.principal import Principal
from tests.helpers import gql
from tests.intents_fixtures import confirm, create
from tests.money_fixtures import DISPUTE_CARD, at, get, pay_ok, run_until
from tests.payments_fixtures import call, count_statements
from tests.test_money_live_events import PROTOCOL, connect, next_message
from tests.webhooks_fixtures import receiver  # noqa: F401

FEE_TRY, FEE_KWD = 250_00, 5_000

PAYMENT_DISPUTE = """
query($id: ID!) { payment(id: $id) { id status dispute { id paymentId amount fee currency reason status
  evidenceDueBy createdAt closedAt } } }"""
PAYMENTS_DISPUTES = "{ payments(first: 50) { edges { node { id status dispute { id status amount } } } } }"
TYPED = """
subscription($types: [String!]) { paymentEvents(types: $types) {
  id type created livemode merchantId envelope
  payment { id status amount currency card { last4 } dispute { id amount currency reason status evidenceDueBy } }
  paymentIntent { id status amount currency }
} }"""


async def open_disputes(client, merchant, clock) -> tuple[dict, dict, dict]:
    """A TRY and a KWD payment with the dispute card and a plain one, on Wednesday; the disputes open
    a day later (the scheduler's job on the test clock)."""
    clock.set(at(2026, 2, 4, 9, 0))
    try_ = await pay_ok(client, merchant.sk, amount=10_000, number=DISPUTE_CARD)
    kwd = await pay_ok(client, merchant.sk, amount=12_345, currency="KWD", number=DISPUTE_CARD)   # 12.345 KWD
    plain = await pay_ok(client, merchant.sk, amount=7_000)
    before = await get(client, f"/api/payments/{try_['id']}", merchant.sk)
    assert before["status"] == "succeeded" and before["dispute"] is None
    ran = await run_until(clock, merchant.id, at(2026, 2, 5, 9, 0))
    assert sorted(r.kind for r in ran) == ["dispute.open", "dispute.open"], ran
    return try_, kwd, plain


DISPUTE_KEYS = ("id", "object", "amount", "fee", "currency", "reason", "status", "evidence_due_by", "created_at",
                "closed_at")


def expected(d: dict) -> dict:
    """The dispute as a payment carries it: GET /api/disputes/:id without evidence and payment id."""
    return {k: d[k] for k in DISPUTE_KEYS}


async def test_a_disputed_payment_shows_its_dispute_in_rest_webhooks_and_graphql(client, merchant, clock,
                                                                                  make_merchant):
    try_, kwd, plain = await open_disputes(client, merchant, clock)
    disputes = {d["payment_id"]: d for d in (await get(client, "/api/disputes", merchant.sk))["data"]}
    d_try, d_kwd = disputes[try_["id"]], disputes[kwd["id"]]

    # REST retrieve
    got = await get(client, f"/api/payments/{try_['id']}", merchant.sk)
    assert got["status"] == "disputed"
    assert got["dispute"] == expected(d_try) == {
        "id": d_try["id"], "object": "dispute", "amount": 10_000, "fee": FEE_TRY, "currency": "TRY",
        "reason": "fraudulent", "status": "needs_response", "evidence_due_by": "2026-02-12T09:00:00.000Z",
        "created_at": "2026-02-05T09:00:00.000Z", "closed_at": None}
    got = await get(client, f"/api/payments/{kwd['id']}", merchant.sk)
    assert (got["dispute"]["amount"], got["dispute"]["fee"], got["dispute"]["currency"]) == (12_345, FEE_KWD, "KWD")
    assert (await get(client, f"/api/payments/{plain['id']}", merchant.sk))["dispute"] is None
    # REST list: every item says it too
    items = {x["id"]: x for x in (await get(client, "/api/payments/list?limit=10", merchant.sk))["data"]}
    assert items[try_["id"]]["dispute"] == expected(d_try) and items[kwd["id"]]["dispute"] == expected(d_kwd)
    assert items[plain["id"]]["dispute"] is None
    assert [x["id"] for x in (await get(client, "/api/payments/list?status=disputed", merchant.sk))["data"]
            if x["dispute"] is None] == []

    # webhooks: payment.disputed carries the same dispute; every other payment event a null one
    event = await Event.get(merchant_id=merchant.id, type="payment.disputed", object_id=try_["id"])
    assert event.data["status"] == "disputed" and event.data["dispute"] == expected(d_try)
    for e in await Event.filter(merchant_id=merchant.id, type="payment.succeeded"):
        assert "dispute" in e.data and e.data["dispute"] is None
    status, body = await call(client, "GET", f"/api/webhooks/events/{event.id}", merchant.sk)
    assert status == 200, body

    # GraphQL: a typed Dispute, the same values
    status, body = await gql(client, PAYMENT_DISPUTE, {"id": kwd["id"]}, key=merchant.sk)
    assert status == 200 and "errors" not in body, body
    d = body["data"]["payment"]["dispute"]
    assert d == {"id": d_kwd["id"], "paymentId": kwd["id"], "amount": 12_345, "fee": FEE_KWD, "currency": "KWD",
                 "reason": "fraudulent", "status": "needs_response", "evidenceDueBy": "2026-02-12T09:00:00.000Z",
                 "createdAt": "2026-02-05T09:00:00.000Z", "closedAt": None}
    status, body = await gql(client, PAYMENT_DISPUTE, {"id": plain["id"]}, key=merchant.sk)
    assert body["data"]["payment"]["dispute"] is None

    # the view follows the dispute: evidence moves it to under_review, everywhere
    status, _ = await call(client, "POST", f"/api/disputes/{d_try['id']}/evidence", merchant.sk,
                           {"uncategorized_text": "Signed delivery receipt"})
    assert status == 200
    assert (await get(client, f"/api/payments/{try_['id']}", merchant.sk))["dispute"]["status"] == "under_review"
    status, body = await gql(client, PAYMENT_DISPUTE, {"id": try_["id"]}, key=merchant.sk)
    assert body["data"]["payment"]["dispute"]["status"] == "under_review"

    # another merchant sees neither the payment nor its dispute
    other = await make_merchant()
    status, body = await call(client, "GET", f"/api/payments/{try_['id']}", other.sk)
    assert status == 404 and "dispute" not in str(body)
    status, body = await gql(client, PAYMENT_DISPUTE, {"id": try_["id"]}, key=other.sk)
    assert body["data"] is None and body["errors"][0]["extensions"]["code"] == "resource_not_found"
    assert (await get(client, "/api/payments/list", other.sk))["data"] == []


async def test_the_retrieve_is_one_statement_and_lists_read_disputes_without_n_plus_1(client, merchant, clock):
    try_, kwd, plain = await open_disputes(client, merchant, clock)
    principal = Principal(merchant_id=merchant.id, livemode=False, kind="secret")
    with count_statements() as seen:
        p, receipt, dispute = await payments.get_payment_detail(principal=principal, payment_id=try_["id"])
    assert len(seen) == 1, seen                        # payment, receipt and dispute in one statement
    assert p.id == try_["id"] and dispute["amount"] == 10_000
    # over HTTP too, for a disputed payment as for any other: one read of payments and disputes
    for pid in (try_["id"], plain["id"]):
        with count_statements() as seen:
            await get(client, f"/api/payments/{pid}", merchant.sk)
        reads = [s for s in seen if '"payments"' in s or '"disputes"' in s]
        assert len(reads) == 1 and '"disputes"' in reads[0], seen

    async def rest_list() -> int:
        with count_statements() as seen:
            await get(client, "/api/payments/list?limit=50", merchant.sk)
        return len([s for s in seen if '"api_keys"' not in s])       # (a key's last use is written now and then)

    async def graphql_list() -> int:
        with count_statements() as seen:
            status, body = await gql(client, PAYMENTS_DISPUTES, key=merchant.sk)
        assert status == 200 and "errors" not in body, body
        return len([s for s in seen if '"api_keys"' not in s])

    rest_two, graphql_two = await rest_list(), await graphql_list()
    clock.set(at(2026, 2, 5, 10, 0))
    for amount in (1_000, 2_000, 3_000):               # three more disputed payments
        await pay_ok(client, merchant.sk, amount=amount, number=DISPUTE_CARD)
    await run_until(clock, merchant.id, at(2026, 2, 6, 10, 0))
    assert (await get(client, "/api/payments/list?status=disputed", merchant.sk))["total"] == 5
    assert await rest_list() == rest_two               # one read of the page's disputes, however many
    assert await graphql_list() == graphql_two         # one DataLoader batch
    status, body = await gql(client, PAYMENTS_DISPUTES, key=merchant.sk)
    nodes = [e["node"] for e in body["data"]["payments"]["edges"]]
    assert sum(n["dispute"] is not None for n in nodes) == 5
    assert all((n["dispute"] is not None) == (n["status"] == "disputed") for n in nodes)


async def test_a_list_without_disputed_payments_reads_no_disputes(client, merchant):
    await pay_ok(client, merchant.sk, amount=1_000)
    with count_statements() as seen:
        body = await get(client, "/api/payments/list", merchant.sk)
    assert body["data"][0]["dispute"] is None
    assert not [s for s in seen if "disputes" in s], seen


async def test_payment_events_are_typed_with_the_payment_or_intent_to_select_fields_of(client, merchant, clock):
    clock.set(at(2026, 2, 4, 9, 0))
    disputed = await pay_ok(client, merchant.sk, amount=10_000, number=DISPUTE_CARD)   # before the socket opens
    ws = await connect(client, merchant.sk)
    assert (await next_message(ws))["type"] == "connection_ack"
    await ws.send_json({"id": "1", "type": "subscribe", "payload": {
        "query": TYPED, "variables": {"types": ["payment.succeeded", "payment.disputed"]}}})
    await asyncio.sleep(0.6)                                    # the stream has opened (its first poll)

    paid = await pay_ok(client, merchant.sk, amount=5_000)     # an /api payment: `payment`
    msg = await next_message(ws, timeout=3.0)
    assert msg["type"] == "next", msg
    e = msg["payload"]["data"]["paymentEvents"]
    assert (e["type"], e["livemode"], e["merchantId"], e["paymentIntent"]) == (
        "payment.succeeded", False, merchant.id, None)
    assert e["payment"] == {"id": paid["id"], "status": "succeeded", "amount": 5_000, "currency": "TRY",
                            "card": {"last4": "4242"}, "dispute": None}
    assert e["created"] == "2026-02-04T09:00:00.000Z" and e["envelope"]["created"] == 1770195600
    assert (e["envelope"]["id"], e["envelope"]["data"]["object"]["id"]) == (e["id"], paid["id"])

    intent = await create(client, merchant.sk, amount=2_500, currency="SAR")   # a /v1 intent: `paymentIntent`
    await confirm(client, merchant.sk, intent["id"], payment_method_id="pm_card_visa")
    msg = await next_message(ws, timeout=3.0)
    e = msg["payload"]["data"]["paymentEvents"]
    assert e["type"] == "payment.succeeded" and e["payment"] is None
    assert e["paymentIntent"] == {"id": intent["id"], "status": "succeeded", "amount": 2_500, "currency": "SAR"}

    await run_until(clock, merchant.id, at(2026, 2, 5, 9, 0))  # the dispute opens
    msg = await next_message(ws, timeout=3.0)
    e = msg["payload"]["data"]["paymentEvents"]
    assert e["type"] == "payment.disputed" and e["created"] == "2026-02-05T09:00:00.000Z"
    d = (await get(client, "/api/disputes", merchant.sk))["data"][0]
    assert e["payment"]["id"] == disputed["id"] and e["payment"]["status"] == "disputed"
    assert e["payment"]["dispute"] == {"id": d["id"], "amount": 10_000, "currency": "TRY", "reason": "fraudulent",
                                       "status": "needs_response", "evidenceDueBy": "2026-02-12T09:00:00.000Z"}
    assert e["envelope"]["data"]["object"]["dispute"]["id"] == d["id"]
    try:
        extra = await next_message(ws, timeout=1.0)
    except asyncio.TimeoutError:
        extra = None
    assert extra is None, extra
    await ws.send_json({"id": "1", "type": "complete"})
    await ws.close()


async def test_the_subscription_field_needs_a_selection_and_says_which_types(client, merchant):
    ws = await client.ws_connect("/graphql", protocols=[PROTOCOL])
    await ws.send_json({"type": "connection_init", "payload": {"authorization": f"Bearer {merchant.sk}"}})
    assert (await next_message(ws))["type"] == "connection_ack"
    await ws.send_json({"id": "2", "type": "subscribe", "payload": {"query": "subscription { paymentEvents }"}})
    msg = await next_message(ws)
    assert msg["id"] == "2" and msg["type"] == "error", msg
    assert "must have a selection of subfields" in msg["payload"][0]["message"]
    await ws.close()
    # the schema types it: PaymentEvent.payment is a Payment, envelope a JSON
    status, body = await gql(client, '{ __type(name: "PaymentEvent") { fields { name type { name kind ofType '
                                     '{ name } } } } }', key=merchant.sk)
    fields = {f["name"]: f["type"] for f in body["data"]["__type"]["fields"]}
    assert fields["payment"]["name"] == "Payment" and fields["paymentIntent"]["name"] == "PaymentIntent"
    assert fields["envelope"]["ofType"]["name"] == "JSON" and fields["created"]["ofType"]["name"] == "DateTime"


async def test_a_test_delivery_of_payment_disputed_carries_a_dispute_of_the_real_shape(client, merchant, receiver):
    import json

    status, _ = await call(client, "POST", "/api/webhooks/configure", merchant.sk,
                           {"url": receiver.url(), "events": ["payment.disputed", "payment.succeeded"]})
    assert status == 200
    for event in ("payment.disputed", "payment.succeeded"):
        status, body = await call(client, "POST", "/api/webhooks/test", merchant.sk, {"event": event})
        assert status == 200 and body["delivered"] is True, body
    disputed, succeeded = [json.loads(r.body)["data"]["object"] for r in receiver.got]
    assert disputed["status"] == "disputed" and disputed["dispute"]["id"].startswith("dp_")
    assert sorted(disputed["dispute"]) == sorted(DISPUTE_KEYS)
    assert succeeded["status"] == "succeeded" and succeeded["dispute"] is None
