"""Against a live `qafila serve`: the flows, pagination, a retried POST, typed errors, webhooks."""
import http.server
import json
import queue
import threading
import time
import uuid
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

import qafila
from qafila import (AsyncQafila, AuthenticationError, CardError, IdempotencyError, InvalidRequestError,
                    NotFoundError, Qafila, SignatureVerificationError, construct_event, verify_webhook)

from conftest import require_route

CARD = {"number": "4242424242424242", "exp_month": 12, "exp_year": 2030, "cvc": "123"}


def assert_known_fields(obj):
    """Every field the live service sent is one the type declares (catches gaps in /openapi.json too)."""
    raw = obj.to_dict()
    unknown = set(raw) - set(type(obj).field_names())
    assert not unknown, f"{type(obj).__name__}: the service sent fields the library does not know: {sorted(unknown)}"


# ---------------------------------------------------------------------------- flows

def test_intent_create_confirm_retrieve(client):
    intent = client.payment_intents.create(amount=10000, currency="TRY", payment_method="card",
                                           order_id="py-" + uuid.uuid4().hex[:8], metadata={"lib": "python"})
    assert isinstance(intent, qafila.PaymentIntent)
    assert intent.id.startswith("pay_") and intent.status == "requires_payment_method"
    assert intent.amount == 10000 and intent.currency == "TRY" and intent.amount_received == 0
    assert isinstance(intent.fee, qafila.Fee) and isinstance(intent.fee.breakdown, qafila.FeeBreakdown)
    assert intent.net_amount == 10000 - intent.fee.amount
    assert_known_fields(intent)

    confirmed = client.payment_intents.confirm(intent.id, payment_method_id="pm_card_visa",
                                               return_url="https://shop.example/return")
    assert confirmed.status == "succeeded" and confirmed.succeeded_at

    got = client.payment_intents.retrieve(intent.id)
    assert got.id == intent.id and got.status == "succeeded" and got.amount_received == 10000
    assert got.metadata == {"lib": "python"}
    assert_known_fields(got)


def test_local_methods_types_and_next_actions(client):
    types = client.payment_method_types.list(currency="SAR")
    assert [m.type for m in types][:2] == ["card", "mada"] and isinstance(types.data[1].fee, qafila.MethodFee)
    assert types.data[1].display_name.ar == "مدى"
    knet = client.payment_intents.create(amount=10000, currency="KWD", payment_method="knet",
                                         return_url="https://shop.example/back")
    knet = client.payment_intents.confirm(knet.id)
    assert knet.status == "requires_action" and isinstance(knet.next_action, qafila.NextAction)
    assert knet.next_action.type == "redirect" and knet.next_action.return_url == "https://shop.example/back"
    fawry = client.payment_intents.confirm(client.payment_intents.create(amount=10000, currency="EGP",
                                                                         payment_method="fawry").id)
    assert fawry.next_action.type == "display_reference" and fawry.next_action.reference.isdigit()
    assert client.test_helpers.fawry_pay(fawry.next_action.reference).status == "succeeded"
    stc = client.payment_intents.create(amount=10000, currency="SAR", payment_method="stcpay", phone="+966550001122")
    stc = client.payment_intents.confirm(stc.id, idempotency_key="otp-send-" + uuid.uuid4().hex)
    assert stc.next_action.type == "otp" and stc.next_action.phone_hint == "****1122"
    with pytest.raises(CardError) as wrong:
        client.payment_intents.confirm(stc.id, otp="000000")
    assert wrong.value.code == "payment_declined"
    assert client.payment_intents.confirm(stc.id, otp="123456").status == "succeeded"
    with pytest.raises(InvalidRequestError) as refused:
        client.payments.create(amount=10000, currency="KWD", payment_method={"type": "knet", "card": CARD})
    assert refused.value.param == "payment_method.type"
    assert_known_fields(knet)


def test_payment_create_retrieve_refund(client):
    """The /api payment's refund (the /v1 intent's: test_intent_refund_partial_then_full)."""
    p = client.payments.create(amount=10000, currency="TRY", payment_method={"type": "card", "card": CARD},
                               customer={"email": "py@example.com", "name": "Py"}, metadata={"order": "py-1"})
    assert isinstance(p, qafila.Payment) and p.status == "succeeded"
    assert isinstance(p.routing_decision, qafila.RoutingDecision) and p.provider
    assert isinstance(p.payment_method.card, qafila.CardDetails) and p.payment_method.card.last4 == "4242"
    assert_known_fields(p)
    got = client.payments.retrieve(p.id)
    assert got.id == p.id and got.amount == 10000
    assert_known_fields(got)

    r = client.payments.refund(p.id, 1500, "damaged")
    assert isinstance(r, qafila.Refund) and r.refund_id.startswith("ref_") and r.amount == 1500
    assert r.amount_refunded == 1500
    r2 = client.payments.refund(p.id)
    assert r2.status == "refunded" and r2.amount_refunded == 10000
    assert client.payments.retrieve(p.id).status == "refunded"


def test_intent_refund_partial_then_full(client):
    intent = client.payment_intents.create(amount=10000, currency="TRY", payment_method="card")
    client.payment_intents.confirm(intent.id, payment_method_id="pm_card_visa")
    key = "py-refund-" + uuid.uuid4().hex
    part = client.payment_intents.refund(intent.id, amount=2500, reason="damaged", idempotency_key=key)
    assert isinstance(part, qafila.PaymentIntent) and part.status == "succeeded" and part.amount_refunded == 2500
    assert isinstance(part.refund, qafila.IntentRefund) and part.refund.id.startswith("ref_")
    assert part.refund.amount == 2500 and part.refund.reason == "damaged" and part.refund.payment_intent == intent.id
    assert_known_fields(part)
    assert_known_fields(part.refund)
    again = client.payment_intents.refund(intent.id, {"amount": 2500, "reason": "damaged"}, idempotency_key=key)
    assert again.refund.id == part.refund.id and again.amount_refunded == 2500
    rest = client.payment_intents.refund(intent.id)
    assert rest.status == "refunded" and rest.amount_refunded == 10000 and rest.refund.amount == 7500
    assert client.payment_intents.retrieve(intent.id).amount_refunded == 10000
    with pytest.raises(InvalidRequestError) as e:
        client.payment_intents.refund(intent.id)
    assert e.value.status == 400 and e.value.code == "invalid_state" and "fully refunded" in e.value.message

    other = client.payment_intents.create(amount=5000, currency="KWD", payment_method="card")
    with pytest.raises(InvalidRequestError) as e:
        client.payment_intents.refund(other.id)
    assert e.value.code == "invalid_state"
    client.payment_intents.confirm(other.id, payment_method_id="pm_card_visa")
    with pytest.raises(InvalidRequestError) as e:
        client.payment_intents.refund(other.id, amount=5001)
    assert e.value.code == "amount_too_large" and e.value.param == "amount"


def test_intent_cancel_with_a_reason(client):
    intent = client.payment_intents.create(amount=10000, currency="TRY", payment_method="card")
    canceled = client.payment_intents.cancel(intent.id, cancellation_reason="duplicate")
    assert canceled.status == "canceled" and canceled.cancellation_reason == "duplicate" and canceled.canceled_at
    with pytest.raises(InvalidRequestError) as e:
        client.payment_intents.cancel(intent.id)
    assert e.value.code == "invalid_state" and "cannot be canceled" in e.value.message


async def test_async_intent_refund(api_key, base_url):
    async with AsyncQafila(api_key, base_url=base_url, backoff_base=0.05) as c:
        intent = await c.payment_intents.create(amount=10000, currency="TRY", payment_method="card")
        await c.payment_intents.confirm(intent.id, payment_method_id="pm_card_visa")
        r = await c.payment_intents.refund(intent.id, amount=100)
        assert r.status == "succeeded" and r.amount_refunded == 100 and r.refund.amount == 100
        c2 = await c.payment_intents.cancel((await c.payment_intents.create(
            amount=10000, currency="TRY", payment_method="card")).id)
        assert c2.status == "canceled" and c2.cancellation_reason == "requested_by_customer"


def test_capture_and_void(client):
    a = client.payments.create(amount=5000, currency="KWD", capture=False, payment_method={"card": CARD})
    assert a.status == "authorized"
    c = client.payments.capture(a.id, 4000)
    assert isinstance(c, qafila.PaymentCapture) and c.status == "captured" and c.amount == 4000
    b = client.payments.create(amount=5000, currency="KWD", capture=False, payment_method={"card": CARD})
    v = client.payments.void(b.id)
    assert isinstance(v, qafila.PaymentVoid) and v.status == "voided"
    ids = [x.id for x in client.payments.list(currency="KWD", limit=100)]
    assert a.id in ids and b.id in ids


def test_customers_subscriptions_invoices(client):
    cus = client.customers.create(email=f"py-{uuid.uuid4().hex[:6]}@example.com", name="Layla")
    assert isinstance(cus, qafila.Customer) and cus.id.startswith("cus_")
    cus = client.customers.update(cus.id, phone="+905551112233")
    assert client.customers.retrieve(cus.id).phone == "+905551112233"
    assert cus.id in [c.id for c in client.customers.list(email=cus.email)]

    sub = client.subscriptions.create(customer_id=cus.id, plan="Pro", amount=9900, currency="TRY", interval="month")
    assert isinstance(sub, qafila.Subscription) and sub.status == "active" and sub.next_billing
    assert_known_fields(sub)
    assert client.subscriptions.pause(sub.id).status == "paused"
    assert client.subscriptions.resume(sub.id).status == "active"
    assert client.subscriptions.cancel(sub.id).status == "cancelled"
    assert sub.id in [s.id for s in client.subscriptions.list(customer_id=cus.id)]

    inv = client.invoices.create(customer_id=cus.id, currency="SAR", tax_rate=15,
                                 items=[{"name": "Setup", "amount": 50000, "quantity": 1}])
    assert isinstance(inv, qafila.Invoice) and inv.status == "draft" and inv.total == 57500
    assert isinstance(inv.items[0], qafila.InvoiceItem) and inv.items[0].name == "Setup"
    assert_known_fields(inv)
    assert client.invoices.send(inv.id, "email").status == "sent"
    paid = client.invoices.mark_paid(inv.id)
    assert paid.status == "paid" and paid.paid_at
    assert client.invoices.retrieve(inv.id).number == inv.number


def test_payment_links(client, openapi):
    require_route(openapi, "POST", "/api/payment-links")
    link = client.payment_links.create(amount=25000, currency="TRY", description="Py link")
    assert isinstance(link, qafila.PaymentLink) and link.id.startswith("lnk_") and link.status == "active"
    assert_known_fields(link)
    assert client.payment_links.retrieve(link.id).url == link.url
    assert link.id in [x.id for x in client.payment_links.list(limit=100)]
    assert client.payment_links.cancel(link.id).status == "cancelled"


def test_balance(client, openapi):
    require_route(openapi, "GET", "/api/balance")
    bal = client.balance.retrieve()
    assert isinstance(bal, qafila.Balance) and isinstance(bal.available, list)
    assert_known_fields(bal)


def test_settlements(client, openapi):
    require_route(openapi, "GET", "/api/settlements")
    p = client.payments.create(amount=10000, currency="TRY", payment_method={"card": CARD})
    # Test mode: move the merchant's clock a day at a time until the payment is settled. A payment
    # settles on a business day of the merchant's market, so how many days that takes depends on
    # the day it was made (a Friday's waits for Monday).
    found = False
    for _ in range(14):
        client.request("POST", "/api/test-helpers/advance-clock", body={"days": 1})
        for s in client.settlements.list(limit=2).auto_paging_iter():
            assert isinstance(s, qafila.Settlement) and s.id.startswith("set_")
            assert_known_fields(s)
            assert client.settlements.retrieve(s.id).amount == s.amount
            lines = list(client.settlements.list_transactions(s.id, limit=100).auto_paging_iter())
            assert len(lines) == s.transactions
            for line in lines:
                assert isinstance(line, qafila.SettlementTransaction)
                assert_known_fields(line)
                found = found or line.payment_id == p.id
        if found:
            break
    assert found, "the payment is in no settlement after two weeks"


# ---------------------------------------------------------------------------- pagination

def test_auto_pagination_over_several_pages(client):
    created = [client.payment_intents.create(amount=1000 + i, currency="TRY", payment_method="card").id
               for i in range(5)]
    first = client.payment_intents.list(limit=2)
    assert len(first.data) == 2 and first.has_more
    pages, page = 0, first
    while page is not None:
        pages += 1
        page = page.next_page()
    assert pages >= 3
    seen = [pi.id for pi in client.payment_intents.list(limit=2).auto_paging_iter()]
    assert len(seen) == len(set(seen)), "auto-pagination repeated an item"
    assert set(created) <= set(seen)
    # newest first: the five just made lead the list
    assert seen[:5] == list(reversed(created))
    # filters are kept on every page
    succ = list(client.payment_intents.list(limit=2, status="requires_payment_method").auto_paging_iter())
    assert all(p.status == "requires_payment_method" for p in succ) and set(created) <= {p.id for p in succ}


def test_auto_pagination_on_api_lists(client):
    for i in range(3):
        client.customers.create(email=f"page-{uuid.uuid4().hex[:6]}@example.com")
    seen = [c.id for c in client.customers.list(limit=2).auto_paging_iter()]
    assert len(seen) >= 3 and len(seen) == len(set(seen))


# ---------------------------------------------------------------------------- retries

class DropFirstAnswer(httpx.BaseTransport):
    """Forwards each request to the real server; for the first POST, throws the answer away after the
    server has processed it and reports a dropped connection, as a network failure would."""

    def __init__(self):
        self.inner = httpx.HTTPTransport()
        self.posts = []
        self.dropped = 0

    def handle_request(self, request):
        response = self.inner.handle_request(request)
        if request.method == "POST":
            self.posts.append(request.headers.get("idempotency-key"))
            if self.dropped == 0:
                response.read()
                response.close()
                self.dropped += 1
                raise httpx.ReadError("connection reset after the server answered", request=request)
        return response


def test_retried_post_creates_one_payment(api_key, base_url):
    transport = DropFirstAnswer()
    order = "retry-" + uuid.uuid4().hex[:10]
    with Qafila(api_key, base_url=base_url, transport=transport, backoff_base=0.05) as c:
        p = c.payments.create(amount=4321, currency="TRY", payment_method={"card": CARD}, metadata={"order": order})
        assert transport.dropped == 1 and len(transport.posts) == 2
        assert transport.posts[0] and transport.posts[0] == transport.posts[1], "the retry must reuse the key"
        mine = [x for x in c.payments.list(limit=100).auto_paging_iter()
                if x.amount == 4321 and c.payments.retrieve(x.id).metadata.get("order") == order]
        assert [x.id for x in mine] == [p.id], "a retried POST must create exactly one payment"


def test_retried_intent_create_is_one_intent(api_key, base_url):
    transport = DropFirstAnswer()
    order = "retry-" + uuid.uuid4().hex[:10]
    with Qafila(api_key, base_url=base_url, transport=transport, backoff_base=0.05) as c:
        pi = c.payment_intents.create(amount=2345, currency="TRY", payment_method="card", order_id=order)
        assert transport.dropped == 1 and transport.posts[0] == transport.posts[1]
        mine = [x.id for x in c.payment_intents.list(limit=100).auto_paging_iter() if x.order_id == order]
        assert mine == [pi.id]


# ---------------------------------------------------------------------------- errors

def test_typed_errors(client, api_key, base_url):
    with Qafila("sk_test_not_a_real_key", base_url=base_url) as bad:
        with pytest.raises(AuthenticationError) as e:
            bad.payment_intents.list()
    assert e.value.status == 401 and e.value.code == "invalid_api_key" and e.value.request_id.startswith("req_")

    with pytest.raises(CardError) as e:
        client.payments.create(amount=1000, currency="TRY", payment_method={"card": dict(CARD, number="4000000000009995")})
    assert e.value.status == 402 and e.value.decline_code == "insufficient_funds" and e.value.type == "card_error"

    pi = client.payment_intents.create(amount=10000, currency="TRY", payment_method="card")
    with pytest.raises(CardError) as e:
        client.payment_intents.confirm(pi.id, payment_method_id="pm_card_insufficientFunds")
    assert e.value.decline_code == "insufficient_funds" and e.value.param == "payment_method_id"
    assert client.payment_intents.retrieve(pi.id).status == "failed"
    pi = client.payment_intents.create(amount=10000, currency="TRY", payment_method="card")
    pi = client.payment_intents.confirm(pi.id, payment_method_id="pm_card_threeDSecureRequired",
                                       return_url="https://shop.example/return")
    assert pi.status == "requires_action" and isinstance(pi.next_action, qafila.NextAction)
    assert pi.next_action.redirect_to_url.return_url == "https://shop.example/return"

    with pytest.raises(NotFoundError) as e:
        client.payment_intents.retrieve("pay_doesnotexist000000000")
    assert e.value.status == 404 and e.value.code == "resource_not_found" and e.value.request_id

    with pytest.raises(InvalidRequestError) as e:
        client.payment_intents.create(amount=0, currency="TRY", payment_method="card")
    assert e.value.status == 400 and e.value.code == "invalid_amount" and e.value.param == "amount"

    key = "reuse-" + uuid.uuid4().hex
    client.payment_intents.create(amount=1500, currency="TRY", payment_method="card", idempotency_key=key)
    same = client.payment_intents.create(amount=1500, currency="TRY", payment_method="card", idempotency_key=key)
    started = time.monotonic()
    with pytest.raises(IdempotencyError) as e:
        client.payment_intents.create(amount=1600, currency="TRY", payment_method="card", idempotency_key=key)
    assert e.value.status == 409 and e.value.code == "idempotency_conflict" and not e.value.in_flight
    assert time.monotonic() - started < 2, "a conflict with different parameters is not retried"
    assert same.id


# ---------------------------------------------------------------------------- webhooks

class _Receiver(http.server.BaseHTTPRequestHandler):
    inbox: "queue.Queue"

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.inbox.put((body, {k.lower(): v for k, v in self.headers.items()}))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *a):
        pass


def test_webhook_real_delivery(client):
    inbox = queue.Queue()
    handler = type("Receiver", (_Receiver,), {"inbox": inbox})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    endpoint = None
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/qafila-hook"
        endpoint = client.webhooks.configure(url, ["payment.succeeded"])
        assert isinstance(endpoint, qafila.WebhookEndpoint) and endpoint.secret and endpoint.status == "active"
        p = client.payments.create(amount=7777, currency="TRY", payment_method={"card": CARD})
        deadline = time.time() + 30
        while True:
            remaining = deadline - time.time()
            assert remaining > 0, "no delivery for the payment within 30 s"
            body, headers = inbox.get(timeout=remaining)
            event = verify_webhook(body, headers["x-service-signature"], endpoint.secret)
            if event.type == "payment.succeeded" and event.object.get("id") == p.id:
                break
        assert event.id.startswith("evt_") and event.object["amount"] == 7777
        assert construct_event(body, headers, endpoint.secret).id == event.id          # v2 + timestamp
        with pytest.raises(SignatureVerificationError):
            verify_webhook(body.replace(b"7777", b"7778"), headers["x-service-signature"], endpoint.secret)
        with pytest.raises(SignatureVerificationError):
            verify_webhook(body, headers["x-service-signature"], "whsec_wrong")
    finally:
        if endpoint is not None:
            client.webhooks.disable_endpoint(endpoint.id)
        server.shutdown()


# ---------------------------------------------------------------------------- async

async def test_async_client(api_key, base_url):
    async with AsyncQafila(api_key, base_url=base_url, backoff_base=0.05) as c:
        intent = await c.payment_intents.create(amount=10000, currency="TRY", payment_method="card")
        assert isinstance(intent, qafila.PaymentIntent)
        confirmed = await c.payment_intents.confirm(intent.id, payment_method_id="pm_card_visa")
        assert confirmed.status == "succeeded"
        assert (await c.payment_intents.retrieve(intent.id)).status == "succeeded"
        page = await c.payment_intents.list(limit=2)
        seen = []
        async for pi in page.auto_paging_iter():
            seen.append(pi.id)
            if len(seen) == 5:
                break
        assert len(seen) == 5 and len(set(seen)) == 5 and intent.id in seen
        with pytest.raises(NotFoundError):
            await c.payments.retrieve("pay_doesnotexist000000000")


async def test_async_retried_post_creates_one(api_key, base_url):
    class AsyncDrop(httpx.AsyncBaseTransport):
        def __init__(self):
            self.inner = httpx.AsyncHTTPTransport()
            self.keys = []

        async def handle_async_request(self, request):
            response = await self.inner.handle_async_request(request)
            if request.method == "POST":
                self.keys.append(request.headers.get("idempotency-key"))
                if len(self.keys) == 1:
                    await response.aread()
                    await response.aclose()
                    raise httpx.ReadError("dropped", request=request)
            return response

    t = AsyncDrop()
    order = "aretry-" + uuid.uuid4().hex[:10]
    async with AsyncQafila(api_key, base_url=base_url, transport=t, backoff_base=0.05) as c:
        pi = await c.payment_intents.create(amount=3456, currency="TRY", payment_method="card", order_id=order)
        assert len(t.keys) == 2 and t.keys[0] == t.keys[1]
        page = await c.payment_intents.list(limit=100)
        assert [x.id async for x in page.auto_paging_iter() if x.order_id == order] == [pi.id]


BONUS = {"number": "5549600000000004", "exp_month": 12, "exp_year": 2030, "cvc": "123"}


def test_installments(client):
    opts = client.installments.options("554960", 120000, "TRY")
    assert isinstance(opts, qafila.InstallmentOptions) and (opts.bank, opts.program) == ("Garanti BBVA", "bonus")
    three = opts.options[2]
    assert isinstance(three, qafila.InstallmentOption) and three.count == 3 and three.total_amount == 124500
    assert three.first_installment_amount + three.installment_amount * 2 == three.total_amount
    assert_known_fields(opts)
    plans = client.installments.plans()
    assert isinstance(plans, qafila.InstallmentPlans) and isinstance(plans.data[0], qafila.InstallmentPlan)
    again = client.installments.replace_plans([p.to_dict() for p in plans.data])      # the same plans back
    assert [p.to_dict() for p in again.data] == [p.to_dict() for p in plans.data]
    p = client.payments.create(amount=120000, currency="TRY", installments=3, payment_method={"card": BONUS})
    assert isinstance(p.installments, qafila.Installments) and p.installments.count == 3
    assert p.amount_captured == 124500 and p.installments.program == "bonus"
    with pytest.raises(InvalidRequestError) as e:
        client.payments.create(amount=120000, currency="TRY", installments=4, payment_method={"card": BONUS})
    assert e.value.param == "installments" and e.value.message == "Invalid request body"
    assert e.value.detail == "installments must be one of 1, 2, 3, 6, 9, 12"       # the counts this card gets


# ---------------------------------------------------------------------------- buy now, pay later

BNPL_BUYER = {"phone": "+966500000001", "email": "buyer@example.com", "name": "Sara"}
BNPL_ADDRESS = {"line1": "King Fahd Rd 12", "city": "Riyadh", "country": "SA", "postal_code": "12271"}


def test_bnpl_eligibility_authorize_capture_in_parts_refund(client, openapi):
    require_route(openapi, "POST", "/v1/payments/{id}/capture")
    e = client.bnpl.eligibility(method="bnpl_split4", amount=100001, currency="SAR", phone="+966500000001")
    assert isinstance(e, qafila.BnplEligibility) and e.status == "eligible"
    assert [p.amount for p in e.schedule] == [25001, 25000, 25000, 25000]
    no = client.bnpl.eligibility(method="bnpl_split4", amount=100000, currency="SAR", phone="+966500000002")
    assert no.status == "not_eligible" and no.reason == "buyer_rejected"
    intent = client.payment_intents.create(amount=100000, currency="SAR", payment_method="bnpl_split4",
                                           return_url="https://shop.example/back", buyer=BNPL_BUYER,
                                           items=[{"name": "Abaya", "quantity": 1, "unit_amount": 100000}],
                                           shipping_address=BNPL_ADDRESS)
    assert intent.capture_method == "manual"
    intent = client.payment_intents.confirm(intent.id)
    assert intent.status == "requires_action" and intent.next_action.type == "redirect"
    # The buyer approves on the provider's (sandbox) page.
    page = urlsplit(intent.next_action.url)
    r = httpx.post(client.base_url + page.path, data={"token": parse_qs(page.query)["token"][0], "action": "approve"})
    assert r.status_code == 303
    got = client.payment_intents.retrieve(intent.id)
    assert got.status == "requires_capture" and isinstance(got.bnpl, qafila.BnplDetails)
    assert len(got.bnpl.schedule) == 4 and got.amount_capturable == 100000
    assert_known_fields(got)
    part = client.payment_intents.capture(intent.id, amount=40000, idempotency_key="cap-" + uuid.uuid4().hex)
    assert part.status == "requires_capture" and part.amount_received == 40000
    with pytest.raises(InvalidRequestError) as too_much:
        client.payment_intents.capture(intent.id, amount=60001)
    assert too_much.value.param == "amount"
    done = client.payment_intents.capture(intent.id)
    assert done.status == "succeeded" and done.amount_received == 100000
    assert client.payment_intents.refund(intent.id, amount=10000).amount_refunded == 10000


def test_bnpl_rejected_buyer_is_a_card_error(client, openapi):
    require_route(openapi, "GET", "/v1/bnpl/eligibility")
    intent = client.payment_intents.create(amount=100000, currency="SAR", payment_method="bnpl_split4",
                                           return_url="https://shop.example/back",
                                           buyer={**BNPL_BUYER, "phone": "+966500000002"},
                                           items=[{"name": "Abaya", "quantity": 1, "unit_amount": 100000}],
                                           shipping_address=BNPL_ADDRESS)
    with pytest.raises(CardError) as refused:
        client.payment_intents.confirm(intent.id)
    assert refused.value.code == "bnpl_not_eligible" and refused.value.decline_code == "buyer_rejected"
