"""The payment-intent interface `/v1/...` of payment-intents-v1.md: route table and shapers.

Errors are {"error": {"type", "code", "message", "param", "request_id"}} with the documented
codes (`invalid_api_key`, `rate_limit_exceeded`, `idempotency_conflict`, ...)."""
from __future__ import annotations

from rest_compat.routing import Interface, Route
from services import ratelimit
from services.errors import DomainError


def render_error(err: DomainError, rid: str) -> dict:
    return {"error": {"type": err.type, "code": err.code, "message": err.message, "param": err.param,
                      "request_id": rid}}


ROUTES: list[Route] = []


def interface() -> Interface:
    return Interface(name="v1", prefix="/v1", routes=ROUTES, render_error=render_error,
                     rate_rule=ratelimit.INTENTS_V1)
