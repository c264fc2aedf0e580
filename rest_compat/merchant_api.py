"""The merchant interface `/api/...` of merchant-api.md: route table and response shapers.

Errors carry the documented message for their status ("Invalid request body", "Invalid API
key", ...); the specific reason is in `detail` and the field in `param`."""
from __future__ import annotations

from rest_compat import merchant_team
from rest_compat.routing import Call, Interface, Route
from rest_compat.shapes import page, ts
from services.identity import api_keys, auth, ratelimit
from services.errors import DomainError

DOCUMENTED_MESSAGES = {
    400: "Invalid request body",
    401: "Invalid API key",
    402: "Payment declined",
    404: "Resource not found",
    429: "Rate limit exceeded (100/min)",
    500: "Internal server error",
}


def render_error(err: DomainError, rid: str) -> dict:
    """The documented message of the status ("Invalid request body" for every 400: the reason
    is in `detail`, the field in `param`); a 429 names the limit that applied, in the documented
    form ("Rate limit exceeded (5/min)" for one-time passwords)."""
    message = DOCUMENTED_MESSAGES.get(err.status, err.message)
    if err.status == 429 and err.message.startswith("Rate limit exceeded ("):
        message = err.message
    return {"error": {"type": err.type, "code": err.code, "message": message, "param": err.param,
                      "detail": getattr(err, "detail", None) or err.message, **err.extra_fields(),
                      "request_id": rid}}


# ---------------------------------------------------------------- authentication

async def auth_request_otp(call: Call) -> dict:
    r = await auth.request_otp(data=await call.body(), client_address=call.client_address)
    return {"request_id": r.request_id, "expires_in": r.expires_in}


async def auth_verify_otp(call: Call):
    return merchant_team.session_answer(await auth.verify_otp(data=await call.body()))


# ---------------------------------------------------------------- API keys

def api_key_shape(k) -> dict:
    return {"id": k.id, "object": "api_key", "name": k.name, "type": k.kind, "prefix": k.prefix,
            "mode": "live" if k.livemode else "test", "status": k.status,
            "created_at": ts(k.created_at), "last_used": ts(k.last_used)}


async def api_keys_list(call: Call) -> dict:
    p = await api_keys.list_api_keys(principal=call.principal, limit=call.query.get("limit"),
                                     starting_after=call.query.get("starting_after"))
    return page([api_key_shape(k) for k in p.items], p, total=p.total)


async def api_keys_create(call: Call) -> dict:
    created = await api_keys.create_api_key(principal=call.principal, data=await call.body())
    return {**api_key_shape(created.key), "key": created.secret}


async def api_keys_revoke(call: Call) -> dict:
    k = await api_keys.revoke_api_key(principal=call.principal, key_id=call.params["id"])
    return {"id": k.id, "status": k.status, "revoked_at": ts(k.revoked_at)}


ROUTES: list[Route] = [
    Route("POST", "/auth/request-otp", auth_request_otp, auth="public", summary="Send a one-time password",
          request_fields=("email",), response_fields=("request_id", "expires_in")),
    Route("POST", "/auth/verify-otp", auth_verify_otp, auth="public", summary="Exchange the code for a token",
          request_fields=("request_id", "otp", "merchant_id", "session"),
          response_fields=("merchant_id", "member_id", "two_factor")),
    Route("GET", "/api-keys", api_keys_list, summary="List API keys",
          response_fields=("data", "has_more")),
    Route("POST", "/api-keys", api_keys_create, summary="Create an API key",
          request_fields=("name", "mode", "type"), response_fields=("id", "key", "prefix", "mode")),
    Route("PUT", "/api-keys/{id}/revoke", api_keys_revoke, summary="Revoke an API key",
          response_fields=("id", "status")),
]


def interface() -> Interface:
    from rest_compat import (local_methods, merchant_billing, merchant_einvoicing, merchant_links,
                             merchant_marketplace, merchant_money, merchant_payments, merchant_webhooks, wallets)
    from rest_compat.installments import MERCHANT_ROUTES as installment_routes

    routes = (ROUTES + merchant_payments.ROUTES + merchant_webhooks.ROUTES + merchant_billing.ROUTES
              + merchant_links.ROUTES
              + merchant_money.ROUTES + local_methods.API_ROUTES + installment_routes
              + merchant_einvoicing.ROUTES + wallets.API_ROUTES + merchant_team.ROUTES + merchant_marketplace.ROUTES)
    return Interface(name="merchant", prefix="/api", routes=routes, render_error=render_error,
                     rate_rule=ratelimit.MERCHANT_API, admit=auth.admit,
                     cookies=True)
