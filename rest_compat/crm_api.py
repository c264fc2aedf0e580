"""The CRM interface `/api/...` of crm-api.md, served on its own port."""
from __future__ import annotations

from rest_compat.routing import Interface, Route
from services import ratelimit
from services.errors import DomainError


def render_error(err: DomainError, rid: str) -> dict:
    return {"error": {"type": err.type, "code": err.code, "message": err.message, "param": err.param,
                      "request_id": rid}}


ROUTES: list[Route] = []


def interface() -> Interface:
    return Interface(name="crm", prefix="/api", routes=ROUTES, render_error=render_error,
                     rate_rule=ratelimit.Rule("crm", 60, 60, "Rate limit exceeded"))
