"""Events: `emit` writes one event to the outbox inside the caller's transaction (or `rows`
makes its rows for the caller to write with its change), so a state change and its event
commit or roll back together. An event is two rows: the event, and its place among those the
webhook fan-out has not taken yet (models/events.py EventWaiting). Delivery is
services/webhooks.py's job."""
from __future__ import annotations

from typing import Any

from models._rows import new
from models import _lookup as lookup
from models.events import Event, EventWaiting
from services.ids import new_id
from services.infra import telemetry
from services.infra.runtime import runtime

# Every type of payment-intents-v1.md plus those the merchant interface needs.
EVENT_TYPES = (
    "payment.created", "payment.processing", "payment.succeeded", "payment.failed", "payment.refunded",
    "payment.disputed", "payment.captured", "payment.voided", "payment.authorized",
    "crypto.detected", "crypto.confirmed", "crypto.expired",
    "cod.assigned", "cod.delivered", "cod.returned",
    "payout.paid", "invoice.sent", "subscription.renewed",
    "subscription.created", "subscription.payment_failed", "subscription.paused", "subscription.resumed",
    "subscription.cancelled", "invoice.created", "invoice.paid", "invoice.updated",
    "team.member_added", "team.member_removed", "team.member_roles_updated",
    # marketplace (issue 47): payout.* carry a seller's `payout` object (payout.paid: a settlement's too)
    "sub_merchant.updated", "split.released", "payout.failed", "payout.returned", "payout_batch.created",
)


def build(*, merchant_id: str, livemode: bool, type: str, obj: dict[str, Any]) -> Event:
    """The event row alone, not yet saved (`rows` is what a caller writes)."""
    if type not in EVENT_TYPES:
        raise ValueError(f"unknown event type {type}")
    telemetry.event(type, obj)
    return new(Event, id=new_id("evt"), merchant_id=merchant_id, livemode=livemode, type=type,
                 object_id=obj.get("id") if isinstance(obj.get("id"), str) else None,
                 data=obj, created_at=runtime().clock.now())


def waiting(event: Event) -> EventWaiting:
    """The event's row among those the webhook fan-out has yet to take."""
    return new(EventWaiting, event_id=event.id, merchant_id=event.merchant_id, livemode=event.livemode,
               type=event.type, created_at=event.created_at)


def rows(*, merchant_id: str, livemode: bool, type: str, obj: dict[str, Any]) -> list:
    """The event's rows, not yet saved, the event first: for a caller that writes them together
    with its change (models/_lookup.py insert_all)."""
    event = build(merchant_id=merchant_id, livemode=livemode, type=type, obj=obj)
    return [event, waiting(event)]


async def emit(*, merchant_id: str, livemode: bool, type: str, obj: dict[str, Any]) -> Event:
    """Call inside the transaction of the change (`async with in_transaction():`)."""
    written = rows(merchant_id=merchant_id, livemode=livemode, type=type, obj=obj)
    await lookup.insert_all(written)
    return written[0]
