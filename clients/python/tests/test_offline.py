"""No service needed: retry rules, idempotency keys, error mapping and the webhook helper against
a scripted transport; and that the drift check really notices a new field."""
import copy
import hashlib
import hmac
import json
import time

import httpx
import pytest

import qafila
from qafila import (APIConnectionError, APIError, IdempotencyError, Qafila, RateLimitError, SignatureVerificationError,
                    construct_event, verify_webhook, verify_webhook_v2)

import test_drift

INTENT = {"id": "pay_1", "object": "payment_intent", "status": "requires_payment_method", "amount": 100,
          "currency": "TRY", "fee": {"amount": 3, "currency": "TRY", "rate": "0.029",
                                      "breakdown": {"processing": 3, "currency_conversion": 0, "network": 0}}}


def err(status, code, message, detail=None, headers=None):
    body = {"error": {"type": "x", "code": code, "message": message, "param": None, "request_id": "req_t"}}
    if detail:
        body["error"]["detail"] = detail
    return httpx.Response(status, json=body, headers=headers or {})


def scripted(*answers):
    seen = []
    answers = list(answers)

    def handler(request):
        seen.append(request)
        a = answers.pop(0)
        if isinstance(a, Exception):
            raise a
        return a
    return seen, httpx.MockTransport(handler)


def make(transport, **kw):
    sleeps = []
    c = Qafila("sk_test_x", base_url="http://svc.test", transport=transport, sleep=sleeps.append, **kw)
    return c, sleeps


def test_same_key_on_every_retry_and_backoff_grows():
    seen, t = scripted(httpx.ConnectError("refused"), err(500, "api_error", "boom"),
                       err(503, "service_unavailable", "down"), httpx.Response(201, json=INTENT))
    c, sleeps = make(t)
    intent = c.payment_intents.create(amount=100, currency="TRY", payment_method="card")
    assert intent.id == "pay_1" and intent.fee.breakdown.processing == 3
    keys = {r.headers["idempotency-key"] for r in seen}
    assert len(seen) == 4 and len(keys) == 1 and list(keys)[0]
    assert sleeps[0] <= sleeps[1] <= sleeps[2]          # exponential with jitter
    assert all(0 < s <= 8.0 for s in sleeps)
    assert json.loads(seen[0].content) == {"amount": 100, "currency": "TRY", "payment_method": "card"}
    assert seen[0].headers["authorization"] == "Bearer sk_test_x"


def test_a_new_call_gets_a_new_key_and_a_given_key_is_used():
    seen, t = scripted(httpx.Response(201, json=INTENT), httpx.Response(201, json=INTENT), httpx.Response(201, json=INTENT))
    c, _ = make(t)
    c.payment_intents.create(amount=100, currency="TRY", payment_method="card")
    c.payment_intents.create(amount=100, currency="TRY", payment_method="card")
    c.payment_intents.create(amount=100, currency="TRY", payment_method="card", idempotency_key="order-1")
    k = [r.headers["idempotency-key"] for r in seen]
    assert k[0] != k[1] and k[2] == "order-1"


def test_429_honours_retry_after():
    seen, t = scripted(err(429, "rate_limit_exceeded", "slow down", headers={"Retry-After": "3"}),
                       httpx.Response(200, json={"object": "list", "data": [], "has_more": False}))
    c, sleeps = make(t)
    c.payment_intents.list()
    assert len(seen) == 2 and 3.0 <= sleeps[0] < 3.2


def test_429_gives_up_after_max_retries():
    seen, t = scripted(*[err(429, "rate_limit_exceeded", "slow", headers={"Retry-After": "1"})] * 3)
    c, sleeps = make(t, max_retries=2)
    with pytest.raises(RateLimitError) as e:
        c.payment_intents.list()
    assert len(seen) == 3 and e.value.retry_after == 1.0 and e.value.status == 429


def test_409_in_flight_is_retried_but_different_parameters_is_not():
    seen, t = scripted(err(409, "idempotency_conflict", "Conflict",
                           detail="A request with this idempotency key is still being processed; retry shortly"),
                       httpx.Response(201, json=INTENT))
    c, _ = make(t)
    assert c.payment_intents.create(amount=100, currency="TRY", payment_method="card").id == "pay_1"
    assert len(seen) == 2

    seen, t = scripted(err(409, "idempotency_conflict",
                           "This idempotency key was already used with different parameters"))
    c, _ = make(t)
    with pytest.raises(IdempotencyError) as e:
        c.payment_intents.create(amount=100, currency="TRY", payment_method="card")
    assert len(seen) == 1 and not e.value.in_flight


def test_400_402_404_are_not_retried():
    for status in (400, 401, 402, 404):
        seen, t = scripted(err(status, "x", "no"))
        c, _ = make(t)
        with pytest.raises(qafila.QafilaError) as e:
            c.payments.retrieve("pay_1")
        assert len(seen) == 1 and e.value.status == status and e.value.request_id == "req_t"


def test_network_failure_exhausts_into_APIConnectionError():
    seen, t = scripted(*[httpx.ReadTimeout("slow")] * 4)
    c, _ = make(t)
    with pytest.raises(APIConnectionError):
        c.payment_intents.retrieve("pay_1")
    assert len(seen) == 4


def test_state_change_put_is_not_retried_after_a_lost_answer_but_is_after_connect_failure():
    seen, t = scripted(httpx.ReadError("lost"))
    c, _ = make(t)
    with pytest.raises(APIConnectionError):
        c.subscriptions.pause("sub_1")
    assert len(seen) == 1
    sub = {"id": "sub_1", "status": "paused"}
    seen, t = scripted(httpx.ConnectError("refused"), httpx.Response(200, json=sub))
    c, _ = make(t)
    assert c.subscriptions.pause("sub_1").status == "paused" and len(seen) == 2
    seen, t = scripted(err(500, "api_error", "boom"))
    c, _ = make(t)
    with pytest.raises(APIError):
        c.subscriptions.pause("sub_1")
    assert len(seen) == 1


def test_unknown_fields_are_kept():
    seen, t = scripted(httpx.Response(200, json=dict(INTENT, brand_new_field=1)))
    c, _ = make(t)
    pi = c.payment_intents.retrieve("pay_1")
    assert pi.to_dict()["brand_new_field"] == 1 and pi["brand_new_field"] == 1


def test_v1_list_created_filters():
    seen, t = scripted(httpx.Response(200, json={"object": "list", "data": [], "has_more": False}))
    c, _ = make(t)
    c.payment_intents.list(limit=2, created_gte=1767225600, status="succeeded")
    q = dict(seen[0].url.params)
    assert q == {"limit": "2", "created[gte]": "1767225600", "status": "succeeded"}


# ---------------------------------------------------------------------------- webhooks

BODY = b'{"id":"evt_1","type":"payment.succeeded","created":1,"livemode":false,"data":{"object":{"id":"pay_1"}},"merchant_id":"mer_1"}'


def test_verify_webhook():
    sig = hmac.new(b"whsec_1", BODY, hashlib.sha256).hexdigest()
    ev = verify_webhook(BODY, sig, "whsec_1")
    assert ev.type == "payment.succeeded" and ev.object == {"id": "pay_1"} and ev.merchant_id == "mer_1"
    for bad in (sig[:-1] + ("0" if sig[-1] != "0" else "1"), "", None, "zz"):
        with pytest.raises(SignatureVerificationError):
            verify_webhook(BODY, bad, "whsec_1")
    with pytest.raises(SignatureVerificationError):
        verify_webhook(BODY + b" ", sig, "whsec_1")


def test_verify_webhook_v2_and_replay():
    ts = int(time.time())
    sig2 = hmac.new(b"whsec_1", f"{ts}.".encode() + BODY, hashlib.sha256).hexdigest()
    assert verify_webhook_v2(BODY, sig2, ts, "whsec_1").id == "evt_1"
    assert construct_event(BODY, {"X-Service-Signature-V2": sig2, "X-Service-Timestamp": str(ts)}, "whsec_1").id == "evt_1"
    with pytest.raises(SignatureVerificationError):
        verify_webhook_v2(BODY, sig2, ts, "whsec_1", now=ts + 301)


# ---------------------------------------------------------------------------- the drift check itself

def test_drift_check_notices_an_added_field():
    doc = {"paths": {"/v1/payments/{id}": {"get": {"responses": {"200": {"content": {"application/json": {
        "schema": {"type": "object", "properties": {f: {} for f in qafila.PaymentIntent.field_names()}}}}}}}}}}
    src = ["GET", "/v1/payments/{id}", "200", []]
    assert test_drift.props_at(doc, *src) == set(qafila.PaymentIntent.field_names())
    grown = copy.deepcopy(doc)
    grown["paths"]["/v1/payments/{id}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"][
        "properties"]["surcharge"] = {"type": "integer"}
    assert test_drift.props_at(grown, *src) - set(qafila.PaymentIntent.field_names()) == {"surcharge"}
