"""Routes of buy now, pay later on `/v1` (mounted by intents_v1.py): the provider's eligibility
answer and the capture of an authorized payment. Parse -> services.payments.bnpl -> shape."""
from __future__ import annotations

from rest_compat.routing import Call, Route
from services.payments import bnpl, intents


async def bnpl_eligibility(call: Call) -> dict:
    e = await bnpl.check_eligibility(principal=call.principal, query=dict(call.query))
    return e.as_dict()


async def payments_capture(call: Call) -> dict:
    i = await bnpl.capture_intent(principal=call.principal, intent_id=call.params["id"], data=await call.body(),
                                  idempotency_key=call.idempotency_key)
    return intents.intent_object(i)


V1_ROUTES: list[Route] = [
    Route("GET", "/bnpl/eligibility", bnpl_eligibility, auth="key_or_publishable",
          summary="Buy now, pay later: is the buyer eligible, and the schedule",
          response_fields=("object", "status", "schedule", "reason")),
    Route("POST", "/payments/{id}/capture", payments_capture, idempotency="service",
          summary="Capture an authorized buy-now-pay-later payment, fully or partly",
          request_fields=("amount", "idempotency_key"),
          response_fields=("id", "status", "amount_received", "amount_capturable")),
]
