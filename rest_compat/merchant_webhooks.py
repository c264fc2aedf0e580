"""Routes of the merchant interface `/api` for webhooks (mounted by rest_compat/merchant_api.py)."""
from __future__ import annotations

from rest_compat.routing import Call, Route
from rest_compat.shapes import page, ts
from services import webhooks


def endpoint_shape(e, *, secret: bool = False) -> dict:
    out = {"id": e.id, "object": "webhook_endpoint", "url": e.url, "status": e.status, "events": list(e.events),
           "livemode": e.livemode, "created_at": ts(e.created_at)}
    if secret:
        out["secret"] = e.secret
    return out


def attempt_shape(a) -> dict:
    return {"number": a.number, "created_at": ts(a.created_at), "status_code": a.status_code,
            "latency_ms": a.latency_ms, "error": a.error, "manual": a.manual}


def delivery_shape(d, attempts=None) -> dict:
    out = {"id": d.id, "endpoint_id": d.endpoint_id, "state": d.state, "delivered": d.delivered,
           "attempts": d.attempts, "next_attempt_at": ts(d.next_attempt_at),
           "last_status_code": d.last_status_code, "last_error": d.last_error}
    if attempts is not None:
        out["attempt_log"] = [attempt_shape(a) for a in attempts]
    return out


def event_shape(s, *, detail: bool = False) -> dict:
    e = s.event
    out = {"id": e.id, "event": e.type, "delivered": s.delivered, "created_at": ts(e.created_at),
           "status": s.status, "attempts": s.attempts, "object_id": e.object_id}
    if detail:
        out["data"] = webhooks.event_data(e.data)
        out["deliveries"] = [delivery_shape(d, s.attempt_log.get(d.id, [])) for d in s.deliveries]
    return out


async def webhooks_configure(call: Call) -> dict:
    e = await webhooks.configure_endpoint(principal=call.principal, data=await call.body())
    return endpoint_shape(e, secret=True)


async def webhooks_endpoints(call: Call) -> dict:
    p = await webhooks.list_endpoints(principal=call.principal, limit=call.query.get("limit"),
                                      starting_after=call.query.get("starting_after"))
    return page([endpoint_shape(e) for e in p.items], p)


async def webhooks_endpoint_disable(call: Call) -> dict:
    e = await webhooks.disable_endpoint(principal=call.principal, endpoint_id=call.params["id"])
    return endpoint_shape(e)


async def webhooks_events(call: Call) -> dict:
    p = await webhooks.list_events(principal=call.principal, limit=call.query.get("limit"),
                                   starting_after=call.query.get("starting_after"), type=call.query.get("type"))
    return page([event_shape(s) for s in p.items], p)


async def webhooks_event(call: Call) -> dict:
    return event_shape(await webhooks.get_event(principal=call.principal, event_id=call.params["id"]), detail=True)


async def webhooks_event_retry(call: Call) -> dict:
    s = await webhooks.retry_event(principal=call.principal, event_id=call.params["id"])
    return event_shape(s, detail=True)


async def webhooks_test(call: Call) -> dict:
    t = await webhooks.send_test(principal=call.principal, data=await call.body())
    return {"delivered": t.delivered, "status_code": t.status_code, "latency_ms": t.latency_ms,
            "event_id": t.event_id,
            "results": [{"endpoint_id": o.endpoint_id, "url": o.url, "delivered": o.delivered,
                         "status_code": o.status_code, "latency_ms": o.latency_ms, "error": o.error}
                        for o in t.results]}


ROUTES: list[Route] = [
    Route("POST", "/webhooks/configure", webhooks_configure, summary="Register a webhook endpoint",
          request_fields=("url", "events"), response_fields=("id", "url", "status", "secret", "events")),
    Route("GET", "/webhooks/endpoints", webhooks_endpoints, summary="List webhook endpoints",
          response_fields=("data", "has_more")),
    Route("POST", "/webhooks/endpoints/{id}/disable", webhooks_endpoint_disable, summary="Stop a webhook endpoint",
          response_fields=("id", "status")),
    Route("GET", "/webhooks/events", webhooks_events, summary="List events and their delivery",
          response_fields=("data", "has_more")),
    Route("GET", "/webhooks/events/{id}", webhooks_event, summary="An event with its deliveries and attempts",
          response_fields=("id", "event", "delivered", "created_at", "deliveries")),
    Route("POST", "/webhooks/events/{id}/retry", webhooks_event_retry, summary="Re-send a failed event now",
          response_fields=("id", "event", "delivered", "deliveries")),
    Route("POST", "/webhooks/test", webhooks_test, summary="Send a test event to the endpoint(s) now",
          request_fields=("event", "endpoint"), response_fields=("delivered", "status_code", "latency_ms")),
]
