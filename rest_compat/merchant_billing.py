"""Billing routes of the merchant interface `/api`: subscriptions, invoices, the merchant profile
and the test clock (merchant-api.md plus the billing issue's additions)."""
from __future__ import annotations

from rest_compat.routing import Call, Route
from rest_compat.shapes import day, page, ts
from services.billing import invoices, profiles, subscriptions, test_clock


def subscription_shape(s) -> dict:
    return {"id": s.id, "object": "subscription", "status": s.status, "customer_id": s.customer_id,
            "plan": s.plan, "amount": s.amount, "currency": s.currency, "interval": s.interval,
            "interval_count": s.interval_count, "next_billing": day(s.next_billing_at.date()) if s.next_billing_at else None,
            "current_period_start": ts(s.current_period_start), "current_period_end": ts(s.current_period_end),
            "latest_invoice": s.latest_invoice_id, "metadata": s.metadata or {}, "livemode": s.livemode,
            "created_at": ts(s.created_at), "paused_at": ts(s.paused_at), "cancelled_at": ts(s.cancelled_at)}


def invoice_shape(i) -> dict:
    return {"id": i.id, "object": "invoice", "number": i.number, "status": i.status, "customer_id": i.customer_id,
            "subscription_id": i.subscription_id, "currency": i.currency, "items": i.items, "subtotal": i.subtotal,
            "tax_rate": float(i.tax_rate), "tax": i.tax, "total": i.total, "exchange_rate": i.exchange_rate,
            "due_date": day(i.due_date),
            **invoices.urls(i), "sent_to": i.sent_to, "sent_via": i.sent_via, "sent_at": ts(i.sent_at),
            "paid_at": ts(i.paid_at), "payment_id": i.payment_id, "locale": i.locale, "zatca": i.zatca, "gib": i.gib,
            "eta": i.eta,
            "notes": i.notes or [],
            "livemode": i.livemode, "created_at": ts(i.created_at)}


def clock_shape(c: dict) -> dict:
    out = {**c, "now": ts(c["now"])}
    if "previous" in c:
        out["previous"] = ts(c["previous"])
        out["ran"] = [{**r, "at": ts(r["at"])} for r in c["ran"]]
    return out


# ---------------------------------------------------------------- subscriptions

async def subscriptions_create(call: Call) -> dict:
    return subscription_shape(await subscriptions.create_subscription(principal=call.principal,
                                                                     data=await call.body()))


async def subscriptions_list(call: Call) -> dict:
    q = call.query
    p = await subscriptions.list_subscriptions(principal=call.principal, limit=q.get("limit"),
                                               starting_after=q.get("starting_after"), status=q.get("status"),
                                               customer_id=q.get("customer_id"))
    return page([subscription_shape(s) for s in p.items], p)


async def subscriptions_get(call: Call) -> dict:
    return subscription_shape(await subscriptions.get_subscription(principal=call.principal,
                                                                  subscription_id=call.params["id"]))


async def subscriptions_pause(call: Call) -> dict:
    return subscription_shape(await subscriptions.pause_subscription(principal=call.principal,
                                                                    subscription_id=call.params["id"]))


async def subscriptions_resume(call: Call) -> dict:
    return subscription_shape(await subscriptions.resume_subscription(principal=call.principal,
                                                                     subscription_id=call.params["id"]))


async def subscriptions_cancel(call: Call) -> dict:
    return subscription_shape(await subscriptions.cancel_subscription(principal=call.principal,
                                                                     subscription_id=call.params["id"]))


# ---------------------------------------------------------------- invoices

async def invoices_create(call: Call) -> dict:
    return invoice_shape(await invoices.create_invoice(principal=call.principal, data=await call.body()))


async def invoices_list(call: Call) -> dict:
    q = call.query
    p = await invoices.list_invoices(principal=call.principal, limit=q.get("limit"),
                                     starting_after=q.get("starting_after"), status=q.get("status"),
                                     customer_id=q.get("customer_id"), subscription_id=q.get("subscription_id"))
    return page([invoice_shape(i) for i in p.items], p)


async def invoices_get(call: Call) -> dict:
    return invoice_shape(await invoices.get_invoice(principal=call.principal, invoice_id=call.params["id"]))


async def invoices_update(call: Call) -> dict:
    return invoice_shape(await invoices.update_invoice(principal=call.principal, invoice_id=call.params["id"],
                                                       data=await call.body()))


async def invoices_send(call: Call) -> dict:
    return invoice_shape(await invoices.send_invoice(principal=call.principal, invoice_id=call.params["id"],
                                                     data=await call.body()))


async def invoices_mark_paid(call: Call) -> dict:
    return invoice_shape(await invoices.mark_paid(principal=call.principal, invoice_id=call.params["id"],
                                                  data=await call.body()))


# ---------------------------------------------------------------- merchant profile and test clock

async def merchant_get(call: Call) -> dict:
    return await profiles.get_profile(principal=call.principal)


async def merchant_update(call: Call) -> dict:
    return await profiles.update_profile(principal=call.principal, data=await call.body())


async def test_clock_get(call: Call) -> dict:
    return clock_shape(await test_clock.get_clock(principal=call.principal))


async def test_clock_advance(call: Call) -> dict:
    return clock_shape(await test_clock.advance_clock(principal=call.principal, data=await call.body()))


_SUB = ("id", "status", "next_billing", "customer_id", "plan", "amount", "currency", "interval", "interval_count",
        "current_period_start", "current_period_end", "latest_invoice", "created_at")
_INV = ("id", "number", "status", "total", "subtotal", "tax", "tax_rate", "customer_id", "currency", "due_date",
        "items", "pdf_url", "hosted_invoice_url", "sent_to", "paid_at", "created_at")

ROUTES: list[Route] = [
    Route("POST", "/subscriptions", subscriptions_create, summary="Create a subscription (bills the first period)",
          request_fields=("customer_id", "plan", "amount", "currency", "interval", "interval_count", "metadata"),
          response_fields=_SUB),
    Route("GET", "/subscriptions", subscriptions_list, summary="List subscriptions",
          response_fields=("data", "has_more")),
    Route("GET", "/subscriptions/{id}", subscriptions_get, summary="Retrieve a subscription", response_fields=_SUB),
    Route("PUT", "/subscriptions/{id}/pause", subscriptions_pause, summary="Pause a subscription",
          response_fields=("id", "status")),
    Route("PUT", "/subscriptions/{id}/resume", subscriptions_resume, summary="Resume a paused subscription",
          response_fields=("id", "status")),
    Route("PUT", "/subscriptions/{id}/cancel", subscriptions_cancel, summary="Cancel a subscription",
          response_fields=("id", "status")),
    Route("POST", "/invoices", invoices_create, summary="Create an invoice",
          request_fields=("customer_id", "items", "currency", "due_date", "tax_rate", "locale", "exchange_rate"),
          response_fields=_INV),
    Route("GET", "/invoices", invoices_list, summary="List invoices", response_fields=("data", "has_more")),
    Route("GET", "/invoices/{id}", invoices_get, summary="Retrieve an invoice", response_fields=_INV),
    Route("PUT", "/invoices/{id}", invoices_update, summary="Change a draft invoice (its exchange rate)",
          request_fields=("exchange_rate",), response_fields=_INV),
    Route("PUT", "/invoices/{id}/send", invoices_send, summary="Send an invoice by e-mail or messaging",
          request_fields=("channel",), response_fields=("id", "status", "sent_to")),
    Route("PUT", "/invoices/{id}/mark-paid", invoices_mark_paid, summary="Mark an invoice paid",
          response_fields=("id", "status", "paid_at")),
    Route("GET", "/merchant", merchant_get, summary="The merchant's profile",
          response_fields=("id", "name", "country", "legal_name", "address", "tax_number")),
    Route("PUT", "/merchant", merchant_update, summary="Update the merchant's profile",
          request_fields=("name", "country", "legal_name", "address", "tax_number", "crm_access_token"),
          response_fields=("id", "name", "country", "legal_name", "address", "tax_number", "crm_company_id")),
    Route("GET", "/test-helpers/clock", test_clock_get, summary="Read the test clock (test mode only)",
          response_fields=("now", "offset_seconds")),
    Route("POST", "/test-helpers/advance-clock", test_clock_advance, idempotency="none",
          summary="Move the test clock forward and run what fell due (test mode only)",
          request_fields=("days", "to"), response_fields=("now", "previous", "ran", "summary")),
]
