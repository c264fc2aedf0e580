"""Events: `emit` writes one row to the outbox inside the caller's transaction (or `build`
makes the row for the caller to write with its change), so a state change and its event
commit or roll back together. Delivery is services/webhooks.py's job."""
from __future__ import annotations

from typing import Any

from models._rows import new
from models.events import Event
from services.ids import new_id
from services.infra import telemetry
from services.infra.runtime import runtime

# Every type of payment-intents-v1.md plus those the merchant interface needs.
EVENT_TYPES = (
    "payment.created", "payment.processing", "payment.succeeded", "payment.failed", "payment.refunded",
    "payment.disputed", "payment.captured", "payment.voided",
    "crypto.detected", "crypto.confirmed", "crypto.expired",
    "cod.assigned", "cod.delivered", "cod.returned",
    "payout.paid", "invoice.sent", "subscription.renewed",
    "subscription.created", "subscription.payment_failed", "subscription.paused", "subscription.resumed",
    "subscription.cancelled", "invoice.created", "invoice.paid", "invoice.updated",
)


def build(*, merchant_id: str, livemode: bool, type: str, obj: dict[str, Any]) -> Event:
    """The event row, not yet saved: for a caller that writes it together with its change."""
    if type not in EVENT_TYPES:
        raise ValueError(f"unknown event type {type}")
    telemetry.event(type, obj)
    return new(Event, id=new_id("evt"), merchant_id=merchant_id, livemode=livemode, type=type,
                 object_id=obj.get("id") if isinstance(obj.get("id"), str) else None,
                 data=obj, created_at=runtime().clock.now())


async def emit(*, merchant_id: str, livemode: bool, type: str, obj: dict[str, Any]) -> Event:
    """Call inside the transaction of the change (`async with in_transaction():`)."""
    event = build(merchant_id=merchant_id, livemode=livemode, type=type, obj=obj)
    await event.save(force_create=True)
    return event
