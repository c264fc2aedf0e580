"""GraphQL live events: the `paymentEvents` subscription (graphql-transport-ws on /graphql), a
typed event per webhook event of the caller's merchant and mode, through services.live_events."""
from __future__ import annotations

from collections.abc import AsyncGenerator
from datetime import datetime

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from schema import permissions as field_permissions
from schema.context import Context
from schema.intents import PaymentIntent
from schema.operations import member_refusal
from schema.payments import Payment
from services import live_events


@strawberry.type(description="One of the merchant's events as it commits: the same event as the webhook "
                             "delivery, typed. `payment` / `paymentIntent` is the object it is about, read as "
                             "it is when the event is streamed (select any of its fields); `envelope` is the "
                             "webhook envelope itself.")
class PaymentEvent:
    id: strawberry.ID = strawberry.field(description="evt_...: deduplicate on it, as for webhooks")
    type: str = strawberry.field(description="payment.succeeded, payment.disputed, payout.paid, ...")
    created: datetime = strawberry.field(description="When the change happened (the envelope's `created`, "
                                                     "which is Unix seconds)")
    livemode: bool
    merchant_id: str
    payment: Payment | None = strawberry.field(
        description="The /api payment the event is about; null for other objects (an intent, an invoice...)")
    payment_intent: PaymentIntent | None = strawberry.field(
        description="The /v1 payment intent the event is about; null for other objects")
    envelope: JSON = strawberry.field(description="The webhook envelope {id, type, created, livemode, "
                                                  "data: {object}, merchant_id}, as delivered")

    @classmethod
    def of(cls, e: live_events.LiveEvent) -> PaymentEvent:
        return cls(id=strawberry.ID(e.id), type=e.type, created=e.created, livemode=e.livemode,
                   merchant_id=e.merchant_id, payment=Payment.of(e.payment) if e.payment is not None else None,
                   payment_intent=PaymentIntent.of(e.intent) if e.intent is not None else None,
                   envelope=e.envelope)


_NEEDS = field_permissions.needed(("paymentEvents",))


@strawberry.type
class SubscriptionRoot:
    """Root subscription fields (named so: `Subscription` is the billing subscription type)."""

    @strawberry.subscription(description="The caller's own events (merchant and mode of the key given in "
                                         "connection_init), as they commit, within about a second, oldest "
                                         "first. `types` filters (default: every type). Over "
                                         "graphql-transport-ws on /graphql.")
    async def payment_events(self, info: Info[Context, None],
                             types: list[str] | None = None) -> AsyncGenerator[PaymentEvent, None]:
        principal = info.context.principal
        if principal.member_id is not None:
            # Subscriptions do not run through schema.operations.execute, whose check this is.
            refused = member_refusal(principal, _NEEDS)
            if refused is not None:
                raise refused
        live_events.check_types(types)
        async for event in live_events.stream_typed_events(principal=principal, types=types):
            # DataLoaders cache per context, and a subscription's context lasts as long as its
            # socket: each event starts with fresh ones, so nested fields read the current state.
            info.context.loaders.clear()
            yield PaymentEvent.of(event)
