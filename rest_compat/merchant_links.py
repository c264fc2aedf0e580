"""Payment-link routes of the merchant interface `/api` (merchant-api.md "Payment links"),
mounted by rest_compat/merchant_api.py. Parse -> call services.links -> shape."""
from __future__ import annotations

from rest_compat.routing import Call, Route
from rest_compat.shapes import page, ts
from services.payments import links


def link_shape(link, collected: links.Collected | None = None) -> dict:
    c = collected or links.Collected()
    return {"id": link.id, "object": "payment_link", "url": links.url_of(link.id), "status": links.status_of(link),
            "amount": link.amount, "currency": link.currency, "description": link.description, "locale": link.locale,
            "expires_at": ts(link.expires_at), "metadata": link.metadata or {}, "invoice": bool(link.invoice),
            "payments_count": c.payments_count, "amount_collected": c.amount_collected,
            "livemode": link.livemode, "created_at": ts(link.created_at), "cancelled_at": ts(link.cancelled_at)}


async def _one(link) -> dict:
    return link_shape(link, (await links.collected([link.id]))[link.id])


async def payment_links_create(call: Call) -> dict:
    return link_shape(await links.create_link(principal=call.principal, data=await call.body()))


async def payment_links_list(call: Call) -> dict:
    q = call.query
    p = await links.list_links(principal=call.principal, limit=q.get("limit"),
                               starting_after=q.get("starting_after"), status=q.get("status"))
    stats = await links.collected([x.id for x in p.items])
    return page([link_shape(x, stats[x.id]) for x in p.items], p)


async def payment_links_get(call: Call) -> dict:
    return await _one(await links.get_link(principal=call.principal, link_id=call.params["id"]))


async def payment_links_cancel(call: Call) -> dict:
    return await _one(await links.cancel_link(principal=call.principal, link_id=call.params["id"]))


_LINK = ("id", "url", "status", "amount", "currency", "description", "expires_at", "payments_count",
         "amount_collected", "created_at")

ROUTES: list[Route] = [
    Route("POST", "/payment-links", payment_links_create, summary="Create a payment link",
          request_fields=("amount", "currency", "description", "expires_at", "metadata"), response_fields=_LINK),
    Route("GET", "/payment-links", payment_links_list, summary="List payment links (newest first)",
          response_fields=("data", "has_more")),
    Route("GET", "/payment-links/{id}", payment_links_get, summary="Retrieve a payment link", response_fields=_LINK),
    Route("PUT", "/payment-links/{id}/cancel", payment_links_cancel, summary="Cancel a payment link",
          response_fields=("id", "status")),
]
