"""A payment's dispute as the payment carries it (`dispute` on the payment object of REST and of
webhooks; GraphQL's Payment.dispute is the full Dispute): the columns a payment read joins and
the shape. Only the model and the timestamp format, so payments take it without the disputes
domain (services.money.disputes writes disputes; this only reads them)."""
from __future__ import annotations

from typing import Any

from models.money import Dispute
from services.principal import Principal
from services.timestamps import iso

# A payment has a dispute exactly when its status is `disputed`: opening one sets it, and nothing
# moves a disputed payment to another status (no refund, capture or void; won or lost it stays
# disputed). So a read only looks for disputes of disputed payments.
DISPUTED = "disputed"
COLUMNS = ("id", "amount", "fee", "currency", "reason", "status", "evidence_due_by", "created_at", "closed_at")
JOIN = (Dispute, "payment_id", COLUMNS)        # for lookup.first_with_all on the payment's id


def shape(d: Any) -> dict | None:
    """The dispute (a model, a RowView, or the dict of a JOIN's columns) as a payment carries it;
    None: not disputed. Evidence and the payment id stay on GET /api/disputes/:id."""
    if d is None:
        return None
    get = d.get if isinstance(d, dict) else (lambda name: getattr(d, name))
    return {"id": get("id"), "object": "dispute", "amount": get("amount"), "fee": get("fee"),
            "currency": get("currency"), "reason": get("reason"), "status": get("status"),
            "evidence_due_by": iso(get("evidence_due_by")), "created_at": iso(get("created_at")),
            "closed_at": iso(get("closed_at"))}


async def of_payments(*, principal: Principal, payments: list[Any]) -> dict[str, Dispute]:
    """The disputes of these payments (rows with `id` and `status`) by payment id, in one read --
    none at all when no payment of the list is disputed."""
    ids = [p.id for p in payments if p.status == DISPUTED]
    return await by_payment_ids(principal=principal, payment_ids=ids) if ids else {}


async def by_payment_ids(*, principal: Principal, payment_ids: list[str]) -> dict[str, Dispute]:
    """The caller's disputes of these payments, by payment id (one read)."""
    rows = await Dispute.filter(payment_id__in=list(payment_ids), **principal.scope).order_by("created_at")
    return {d.payment_id: d for d in rows}          # newest last: the newest wins (there is one)
