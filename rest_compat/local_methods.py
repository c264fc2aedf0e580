"""REST for the payment method registry and the local methods: `GET /v1/payment_method_types`
and the test helper `POST /api/test-helpers/fawry/pay`. Parse -> service -> shape."""
from __future__ import annotations

from rest_compat.routing import Call, Route
from services.errors import ValidationError
from services.money import analytics
from services.payments import bills_rtp, intents, local_methods, method_analytics, methods


async def payment_method_types_list(call: Call) -> dict:
    q = call.query
    for k in q:
        if k not in ("currency", "amount", "country"):
            raise ValidationError(f"unknown query parameter {k}", param=k)
    data = await methods.list_payment_method_types(principal=call.principal, currency=q.get("currency"),
                                                   amount=q.get("amount"), country=q.get("country"))
    return {"object": "list", "data": data}


async def test_fawry_pay(call: Call) -> dict:
    return intents.intent_object(await local_methods.fawry_pay(principal=call.principal, data=await call.body()))


async def test_sadad_pay(call: Call) -> dict:
    return intents.intent_object(await bills_rtp.sadad_pay(principal=call.principal, data=await call.body()))


async def test_rtp_approve(call: Call) -> dict:
    return intents.intent_object(await bills_rtp.request_to_pay_answer(principal=call.principal,
                                                                       data=await call.body(), approve=True))


async def test_rtp_reject(call: Call) -> dict:
    return intents.intent_object(await bills_rtp.request_to_pay_answer(principal=call.principal,
                                                                       data=await call.body(), approve=False))


V1_ROUTES: list[Route] = [
    Route("GET", "/payment_method_types", payment_method_types_list, auth="key_or_publishable",
          summary="Payment methods available for a currency", response_fields=("object", "data")),
]

async def analytics_methods(call: Call) -> dict:
    q = call.query
    w = await analytics.window(principal=call.principal, period=q.get("period"), from_=q.get("from"),
                               to=q.get("to"), currency=q.get("currency"))
    return await method_analytics.analytics_by_method(principal=call.principal, w=w)


API_ROUTES: list[Route] = [
    Route("GET", "/analytics/methods", analytics_methods, summary="Approved payments by payment method",
          response_fields=("object", "currency", "period", "data")),
    Route("POST", "/test-helpers/fawry/pay", test_fawry_pay,
          summary="Test mode: pay a Fawry reference at an outlet", request_fields=("reference",),
          response_fields=("id", "status")),
    Route("POST", "/test-helpers/sadad/pay", test_sadad_pay, summary="Test mode: the buyer's bank pays a SADAD bill",
          request_fields=("reference",), response_fields=("id", "status")),
    Route("POST", "/test-helpers/request-to-pay/approve", test_rtp_approve,
          summary="Test mode: the buyer approves a CliQ or Aani request to pay", request_fields=("payment_intent",),
          response_fields=("id", "status")),
    Route("POST", "/test-helpers/request-to-pay/reject", test_rtp_reject,
          summary="Test mode: the buyer rejects a CliQ or Aani request to pay", request_fields=("payment_intent",),
          response_fields=("id", "status")),
]
