"""Routes of the merchant interface `/api` for customers, routing rules and payments (mounted by
rest_compat/merchant_api.py). Parse -> call the service -> shape; no rule lives here."""
from __future__ import annotations

from rest_compat.routing import Call, Route
from rest_compat.shapes import page, ts
from services.money import dispute_view
from services.money.marketplace import splits as marketplace_splits
from services.payments import (customers, installments, objects, payment_create_hot, payment_read_hot, payment_search,
                               payments, receipts, routing)

# ---------------------------------------------------------------- shapes


def customer_shape(c) -> dict:
    return {"id": c.id, "object": "customer", "email": c.email, "name": c.name, "phone": c.phone,
            "metadata": c.metadata or {}, "tax_id": c.tax_id, "address": c.address, "created_at": ts(c.created_at)}


def rule_shape(r) -> dict:
    return {"id": r.id, "object": "routing_rule", "name": r.name, "strategy": r.strategy, "priority": r.priority,
            "status": r.status, "conditions": r.conditions, "provider": r.provider, "created_at": ts(r.created_at)}


def payment_shape(p, dispute: dict | None = None) -> dict:
    out = {"id": p.id, "object": "payment", "status": p.status, "amount": p.amount, "currency": p.currency,
           "provider": p.provider, "routing_decision": p.routing_decision, "risk_score": p.risk_score,
           "created_at": ts(p.created_at), "amount_captured": p.amount_captured,
           "amount_refunded": p.amount_refunded, "capture_method": p.capture_method,
           "customer_id": p.customer_id, "decline_code": p.decline_code,
           "payment_method": objects.payment_method_object(p),
           "metadata": p.metadata or {}, "livemode": p.livemode, "payment_link": p.payment_link,
           "receipt_url": receipts.url_of(p.id, p.receipt_token) if p.status in receipts.PAID else None,
           "dispute": dispute, "installments": installments.as_object(p.installments),
           "invoice_id": p.invoice_id, "gib": p.gib, "eta_receipt": p.eta_receipt}
    return out


# ---------------------------------------------------------------- customers

async def customers_create(call: Call) -> dict:
    return customer_shape(await customers.create_customer(principal=call.principal, data=await call.body()))


async def customers_list(call: Call) -> dict:
    q = call.query
    p = await customers.list_customers(principal=call.principal, limit=q.get("limit"),
                                       starting_after=q.get("starting_after"), email=q.get("email"))
    return page([customer_shape(c) for c in p.items], p, total=p.total)


async def customers_get(call: Call) -> dict:
    return customer_shape(await customers.get_customer(principal=call.principal, customer_id=call.params["id"]))


async def customers_update(call: Call) -> dict:
    return customer_shape(await customers.update_customer(principal=call.principal, customer_id=call.params["id"],
                                                          data=await call.body()))


# ---------------------------------------------------------------- routing rules

async def routing_rules_list(call: Call) -> dict:
    p = await routing.list_rules(principal=call.principal)
    return page([rule_shape(r) for r in p.items], p, total=p.total)


async def routing_rules_create(call: Call) -> dict:
    return rule_shape(await routing.create_rule(principal=call.principal, data=await call.body()))


async def routing_rules_update(call: Call) -> dict:
    return rule_shape(await routing.update_rule(principal=call.principal, rule_id=call.params["id"],
                                                data=await call.body()))


# ---------------------------------------------------------------- payments

async def payments_create(call: Call) -> dict:
    # the common body, read by services/payments/payment_create_hot.py (any backend)
    p = await payment_create_hot.create(call.principal, await call.request.read(), call.idempotency_key,
                                        call.client_address)
    if p is not None:
        return payment_shape(p)
    data = await call.body()
    p = await payments.create_payment(principal=call.principal, data=data,
                                      idempotency_key=call.idempotency_key, client_address=call.client_address)
    out = payment_shape(p)
    lines = marketplace_splits.attached(p)
    if lines is None and isinstance(data, dict) and data.get("splits"):     # a replay under its key
        lines = [marketplace_splits.split_object(s)
                 for s in await marketplace_splits.splits_of_payment(principal=call.principal, payment_id=p.id)]
    if lines is not None:
        out["splits"] = lines
    return out


# what a list item shows: the payment's summary and its payment_method (the card and its networks)
LIST_COLUMNS = ("id", "status", "amount", "currency", "provider", "customer_id", "created_at", *objects.METHOD_COLUMNS)


async def payments_list(call: Call) -> dict:
    q = call.query
    p = await payments.list_payments(principal=call.principal, limit=q.get("limit"),
                                     starting_after=q.get("starting_after"), status=q.get("status"),
                                     currency=q.get("currency"), provider=q.get("provider"),
                                     customer=q.get("customer"), created_gte=q.get("created_gte"),
                                     created_lte=q.get("created_lte"), columns=LIST_COLUMNS,
                                     search=payment_search.build(query=q.get("q"),
                                                                 payment_method=q.get("payment_method"),
                                                                 amount_gte=q.get("amount_gte"),
                                                                 amount_lte=q.get("amount_lte")))
    disputed = await dispute_view.of_payments(principal=call.principal, payments=p.items)   # one read, if any
    return page([{"id": x.id, "status": x.status, "amount": x.amount, "currency": x.currency,
                  "provider": x.provider, "customer_id": x.customer_id, "created_at": ts(x.created_at),
                  "payment_method": objects.payment_method_object(x), "dispute": dispute_view.shape(disputed.get(x.id))}
                 for x in p.items], p, total=p.total)


async def payments_get(call: Call) -> dict:
    # PostgreSQL: its own statement and encoder (services/payments/payment_read_hot.py; None: the generic read)
    out = await payment_read_hot.read(call.principal, call.params["id"])
    if out is not None:
        return out
    p, r, dispute = await payments.get_payment_detail(principal=call.principal, payment_id=call.params["id"])
    return {**payment_shape(p, dispute), "receipt": {"channel": r.channel, "sent_to": r.sent_to,
                                                     "status": r.status} if r else None}


async def payments_capture(call: Call) -> dict:
    p = await payments.capture_payment(principal=call.principal, payment_id=call.params["id"],
                                       data=await call.body())
    return {"id": p.id, "status": p.status, "amount": p.amount_captured, "amount_authorized": p.amount,
            "currency": p.currency}


async def payments_void(call: Call) -> dict:
    p = await payments.void_payment(principal=call.principal, payment_id=call.params["id"], data=await call.body())
    return {"id": p.id, "status": p.status}


async def payments_refund(call: Call) -> dict:
    r = await payments.refund_payment(principal=call.principal, payment_id=call.params["id"],
                                      data=await call.body())
    return {"id": r.payment.id, "status": r.payment.status, "refund_id": r.refund.id, "amount": r.refund.amount,
            "currency": r.refund.currency, "amount_refunded": r.payment.amount_refunded,
            "reason": r.refund.reason, "note": r.notes[0] if r.notes else None,
            **({"split_reversals": r.split_reversals} if r.split_reversals else {})}


ROUTES: list[Route] = [
    Route("POST", "/customers", customers_create, summary="Create a customer",
          request_fields=("email", "name", "phone", "metadata", "tax_id", "address"),
          response_fields=("id", "email", "name", "tax_id", "address", "created_at")),
    Route("GET", "/customers", customers_list, summary="List customers", response_fields=("data", "has_more", "total")),
    Route("GET", "/customers/{id}", customers_get, summary="Retrieve a customer",
          response_fields=("id", "email", "name", "phone", "tax_id", "address", "created_at")),
    Route("PUT", "/customers/{id}", customers_update, summary="Update a customer",
          request_fields=("name", "phone", "tax_id", "address"),
          response_fields=("id", "email", "name", "phone", "tax_id", "address")),
    Route("GET", "/routing/rules", routing_rules_list, summary="List routing rules",
          response_fields=("data",)),
    Route("POST", "/routing/rules", routing_rules_create, summary="Create a routing rule",
          request_fields=("name", "strategy", "conditions", "provider", "priority"),
          response_fields=("id", "name", "strategy", "status")),
    Route("PUT", "/routing/rules/{id}", routing_rules_update, summary="Update a routing rule",
          request_fields=("name", "priority"), response_fields=("id", "name", "strategy", "priority")),
    Route("POST", "/payments/create", payments_create, idempotency="service", summary="Create a payment",
          request_fields=("amount", "currency", "routing", "payment_method", "customer", "metadata", "installments"),
          response_fields=("id", "status", "amount", "currency", "provider", "routing_decision", "risk_score",
                           "created_at")),
    Route("GET", "/payments/list", payments_list, summary="List payments",
          response_fields=("data", "has_more", "total")),
    Route("GET", "/payments/{id}", payments_get, summary="Retrieve a payment",
          response_fields=("id", "status", "amount", "currency", "provider", "created_at")),
    Route("POST", "/payments/{id}/capture", payments_capture, summary="Capture an authorized payment",
          request_fields=("amount",), response_fields=("id", "status", "amount")),
    Route("POST", "/payments/{id}/void", payments_void, summary="Void an authorized payment",
          response_fields=("id", "status")),
    Route("POST", "/payments/{id}/refund", payments_refund, summary="Refund a payment",
          request_fields=("amount", "reason"), response_fields=("id", "status", "refund_id", "amount")),
]
