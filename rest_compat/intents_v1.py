"""The payment-intent interface `/v1/...` of payment-intents-v1.md: route table and shapers.

Errors are {"error": {"type", "code", "message", "param", "request_id"}} with the documented
codes (`invalid_api_key`, `rate_limit_exceeded`, `idempotency_conflict`, ...)."""
from __future__ import annotations

import html

from aiohttp import web

from rest_compat.routing import Call, Interface, Route
from rest_compat.shapes import ts
from services.identity import auth, ratelimit
from services.payments import intent_create_hot, intent_refunds, intents, intents_hot
from services.money.marketplace import splits as marketplace_splits
from services.errors import DomainError
from services.payments.payment_methods import create_payment_method


def render_error(err: DomainError, rid: str) -> dict:
    return {"error": {"type": err.type, "code": err.code, "message": err.message, "param": err.param,
                      **err.extra_fields(), "request_id": rid}}


def confirm_shape(i) -> dict:
    """The documented confirm fields first; the full object follows, so a browser needs no GET."""
    return intents.intent_object(i)


def payment_method_shape(pm) -> dict:
    return {"id": pm.id, "object": "payment_method", "type": pm.type, "livemode": pm.livemode,
            "card": {"brand": pm.brand, "last4": pm.last4, "exp_month": pm.exp_month, "exp_year": pm.exp_year,
                     "fingerprint": pm.fingerprint, "networks": list(pm.networks)},
            "created_at": ts(pm.created_at)}


async def payments_create(call: Call) -> dict | web.Response:
    # the common body on PostgreSQL: services/payments/intent_create_hot.py (None: the generic create)
    raw = await intent_create_hot.create(call.principal, await call.request.read(), call.idempotency_key)
    if raw is not None:
        return web.Response(body=raw, status=201, content_type="application/json")
    data = await call.body()
    i = await intents.create_intent(principal=call.principal, data=data, idempotency_key=call.idempotency_key)
    out = intents.created_object(i)
    lines = marketplace_splits.attached(i)
    if lines is None and isinstance(data, dict) and data.get("splits"):     # a replay under its key
        lines = [marketplace_splits.split_object(s)
                 for s in await marketplace_splits.splits_of_payment(principal=call.principal, payment_id=i.id)]
    if lines is not None:
        out = {**out, "splits": lines}
    return out


async def payments_confirm(call: Call) -> dict:
    i = await intents.confirm_intent(principal=call.principal, intent_id=call.params["id"], data=await call.body(),
                                     idempotency_key=call.idempotency_key)
    return confirm_shape(i)


async def payments_retrieve(call: Call) -> dict:
    # PostgreSQL: its own statement and encoder (services/payments/intents_hot.py; None: the generic read)
    out = await intents_hot.retrieve(call.principal, call.params["id"], call.query.get("client_secret"))
    if out is not None:
        return out
    i, r = await intents.get_intent_with_receipt(principal=call.principal, intent_id=call.params["id"],
                                                 client_secret=call.query.get("client_secret"))
    out = intents.intent_object(i)
    if r is not None:          # present once the intent succeeded for a customer who can be reached
        out["receipt"] = {"channel": r.channel, "sent_to": r.sent_to, "status": r.status}
    return out


async def payments_list(call: Call) -> dict:
    out = await intents_hot.page(call.principal, call.query)
    if out is not None:
        return out
    p = await intents.list_intents(principal=call.principal, query=call.query)
    out = {"object": "list", "data": [intents.intent_object(i) for i in p.items], "has_more": p.has_more,
           "next_cursor": p.next_cursor, "total_count": p.total}
    if p.total_capped:             # more rows match than a filtered total counts (services.pagination)
        out["total_capped"] = True
    return out


async def payments_cancel(call: Call) -> dict:
    i = await intents.cancel_intent(principal=call.principal, intent_id=call.params["id"], data=await call.body(),
                                    idempotency_key=call.idempotency_key)
    return intents.intent_object(i)


async def payments_refund(call: Call) -> dict:
    """The intent after the refund, and the refund it made (`refund`)."""
    r = await intent_refunds.refund_intent(principal=call.principal, intent_id=call.params["id"],
                                           data=await call.body(), idempotency_key=call.idempotency_key)
    out = {**intents.intent_object(r.intent), "refund": intent_refunds.refund_object(r.refund)}
    if r.split_reversals:
        out["split_reversals"] = r.split_reversals
    return out


async def payment_methods_create(call: Call) -> dict:
    return payment_method_shape(await create_payment_method(principal=call.principal, data=await call.body()))


async def payments_qr(call: Call) -> web.Response:
    png = await intents.qr_image(intent_id=call.params["id"])
    return web.Response(body=png, content_type="image/png", headers={"Cache-Control": "private, max-age=300"})


_CHALLENGE_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>3-D Secure</title></head>
<body><h1>3-D Secure (sandbox)</h1><p>Payment {id}: {amount} {currency}, card ending {last4}.</p>
<form method="post" action="{action}"><input type="hidden" name="token" value="{token}">
<button name="outcome" value="succeed">Complete authentication</button>
<button name="outcome" value="fail">Fail authentication</button></form></body></html>"""


async def payments_3ds_page(call: Call) -> web.Response:
    token = call.query.get("token")
    i = await intents.get_challenge(intent_id=call.params["id"], token=token)
    page = _CHALLENGE_PAGE.format(id=html.escape(i.id), amount=i.amount, currency=i.currency,
                                  last4=html.escape((i.payment_method_ref or "")[-4:]),
                                  action=html.escape(f"/v1/payments/{i.id}/3ds"), token=html.escape(token or ""))
    return web.Response(text=page, content_type="text/html", charset="utf-8")


async def payments_3ds_complete(call: Call) -> web.Response:
    form = await call.form()                  # the challenge page posts an HTML form
    r = await intents.complete_challenge(intent_id=call.params["id"], token=form.get("token"),
                                         outcome=form.get("outcome"))
    raise web.HTTPSeeOther(r.redirect_url)


async def test_crypto_deposit(call: Call) -> dict:
    i = await intents.crypto_deposit(principal=call.principal, intent_id=call.params["id"], data=await call.body())
    return intents.intent_object(i)


async def test_cod_delivered(call: Call) -> dict:
    return intents.intent_object(await intents.cod_delivered(principal=call.principal, intent_id=call.params["id"]))


async def test_cod_returned(call: Call) -> dict:
    return intents.intent_object(await intents.cod_returned(principal=call.principal, intent_id=call.params["id"]))


ROUTES: list[Route] = [
    Route("POST", "/payments/intent", payments_create, status=201, idempotency="service", summary="Create a payment intent",
          request_fields=("amount", "currency", "payment_method", "crypto_asset", "crypto_network", "merchant_id",
                          "customer_id", "order_id", "description", "statement_descriptor", "metadata",
                          "cod_address", "split", "locale", "idempotency_key"),
          response_fields=("id", "object", "status", "amount", "currency", "fee", "net_amount", "settlement_date",
                           "checkout_url", "client_secret", "expires_at")),
    Route("POST", "/payments/{id}/confirm", payments_confirm, auth="key_or_publishable", idempotency="service",
          summary="Confirm a payment intent (publishable key with client_secret)",
          request_fields=("payment_method_id", "return_url", "client_secret", "idempotency_key"),
          response_fields=("id", "status", "next_action", "succeeded_at", "receipt_url")),
    Route("GET", "/payments/{id}", payments_retrieve, auth="key_or_publishable", summary="Retrieve a payment intent"),
    Route("GET", "/payments", payments_list, summary="List payment intents",
          response_fields=("object", "data", "has_more", "next_cursor", "total_count")),
    Route("POST", "/payments/{id}/cancel", payments_cancel, idempotency="service", summary="Cancel an unpaid payment intent",
          request_fields=("cancellation_reason", "idempotency_key")),
    Route("POST", "/payments/{id}/refund", payments_refund, idempotency="service",
          summary="Refund a succeeded payment intent, fully or partly",
          request_fields=("amount", "reason", "idempotency_key"),
          response_fields=("id", "status", "amount_received", "amount_refunded", "refund")),
    Route("POST", "/payment_methods", payment_methods_create, auth="key_or_publishable",
          summary="Tokenize a card", request_fields=("type", "card"), response_fields=("id", "card")),
    Route("GET", "/payments/{id}/qr.png", payments_qr, auth="public", summary="QR code image"),
    Route("GET", "/payments/{id}/3ds", payments_3ds_page, auth="public", summary="3-D Secure challenge page"),
    Route("POST", "/payments/{id}/3ds", payments_3ds_complete, auth="public", summary="Complete the challenge",
          content_type="application/x-www-form-urlencoded"),
    Route("POST", "/test_helpers/payments/{id}/crypto_deposit", test_crypto_deposit,
          summary="Test mode: simulate a crypto deposit", request_fields=("stage",)),
    Route("POST", "/test_helpers/payments/{id}/cod_delivered", test_cod_delivered,
          summary="Test mode: the courier delivered"),
    Route("POST", "/test_helpers/payments/{id}/cod_returned", test_cod_returned,
          summary="Test mode: the parcel came back"),
]


def interface() -> Interface:
    from rest_compat import bnpl, local_methods, wallets
    from rest_compat.installments import V1_ROUTES as installment_routes
    return Interface(name="v1", prefix="/v1", routes=ROUTES + local_methods.V1_ROUTES + installment_routes
                     + wallets.V1_ROUTES + bnpl.V1_ROUTES,
                     render_error=render_error,
                     rate_rule=ratelimit.INTENTS_V1, admit=auth.admit,
                     cookies=True)
