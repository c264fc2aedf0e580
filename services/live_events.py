"""Live events for dashboards: a merchant's own events (the webhook envelopes), as they commit.

Each stream polls the events outbox every POLL_SECONDS over the (merchant_id, livemode,
created_at) index, reading ids newer than now - LOOKBACK and remembering those it has seen,
so it needs no cursor that the database would have to hand out in commit order (an event is
dated when its change happened -- a scheduled job's due time -- not when it committed). An event
committed more than LOOKBACK after its date is not streamed; webhooks still deliver it. The
first poll only marks what exists: a stream starts with what commits after it opens.

`stream_typed_events` gives each event with the payment (or intent) it is about, read as it is
now, all of one poll's in one read per kind."""
from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from models.events import Event
from models.intents import PaymentIntent
from models.payments import Payment
from services.errors import ValidationError
from services.validation import one_of
from services.events import EVENT_TYPES
from services.infra.runtime import runtime
from services.principal import Principal
from services.webhooks import envelope

POLL_SECONDS = 0.25
LOOKBACK = timedelta(seconds=120)
MAX_PER_POLL = 1000


def check_types(types: list[str] | None) -> frozenset[str] | None:
    if types is None:
        return None
    if not isinstance(types, list) or len(types) > len(EVENT_TYPES):
        raise ValidationError("types must be a list of event types", param="types")
    for i, t in enumerate(types):
        if t not in EVENT_TYPES:
            raise one_of(f"types[{i}]", EVENT_TYPES)
    return frozenset(types)


@dataclass
class LiveEvent:
    id: str
    type: str
    created: datetime
    livemode: bool
    merchant_id: str
    envelope: dict                 # the webhook envelope, as stream_events gives it
    payment: Any = None            # the /api payment the event is about, as it is now (a Payment)
    intent: Any = None             # the /v1 intent the event is about, as it is now (a PaymentIntent)


def _envelope(e: Event) -> dict:
    return envelope(event_id=e.id, type=e.type, created=e.created_at, livemode=e.livemode, obj=e.data,
                    merchant_id=e.merchant_id)


async def stream_events(*, principal: Principal, types: list[str] | None = None,
                        poll_seconds: float = POLL_SECONDS) -> AsyncIterator[dict]:
    """Envelopes `{id, type, created, livemode, data: {object}, merchant_id}` of the caller's
    merchant and mode, oldest first, as they commit; `types` filters (None: every type)."""
    async for batch in _batches(principal, types, poll_seconds):
        for e in batch:
            yield _envelope(e)


def _about(e: Event, kind: str) -> str | None:
    return e.object_id if isinstance(e.data, dict) and e.data.get("object") == kind else None


async def stream_typed_events(*, principal: Principal, types: list[str] | None = None,
                              poll_seconds: float = POLL_SECONDS) -> AsyncIterator[LiveEvent]:
    """`stream_events` with each event's payment or intent (the caller's, as it is when the event
    is streamed), read once per poll for all of its events."""
    async for batch in _batches(principal, types, poll_seconds):
        found: dict[str, Any] = {}
        for model, kind in ((Payment, "payment"), (PaymentIntent, "payment_intent")):
            ids = [i for e in batch if (i := _about(e, kind))]
            if ids:
                found.update({(kind, r.id): r for r in await model.filter(id__in=ids, **principal.scope)})
        for e in batch:
            yield LiveEvent(id=e.id, type=e.type, created=e.created_at, livemode=e.livemode,
                            merchant_id=e.merchant_id, envelope=_envelope(e),
                            payment=found.get(("payment", _about(e, "payment"))),
                            intent=found.get(("payment_intent", _about(e, "payment_intent"))))


# What reading an event needs, by the first word of its type (else payments_read).
_AREA_OF = {"payout": "balance_read", "invoice": "billing_read", "subscription": "billing_read", "team": "team_read"}


async def _batches(principal: Principal, types: list[str] | None, poll_seconds: float
                   ) -> AsyncIterator[list[Event]]:
    """The events of each poll that committed since the last (none from the first), oldest first."""
    wanted = check_types(types)
    held = principal.permissions          # a member sees the events of the areas its roles may read
    if held is not None:
        allowed = frozenset(t for t in EVENT_TYPES if _AREA_OF.get(t.split(".", 1)[0], "payments_read") in held)
        wanted = allowed if wanted is None else wanted & allowed
    seen: dict[str, object] = {}
    first = True
    while True:
        cutoff = runtime().clock.now() - LOOKBACK
        rows = await (Event.filter(**principal.scope, created_at__gte=cutoff).order_by("-created_at", "-id")
                      .limit(MAX_PER_POLL).values_list("id", "created_at", "type"))
        fresh = [(eid, created, etype) for eid, created, etype in rows if eid not in seen]
        for eid, created, _ in fresh:
            seen[eid] = created
        for eid in [e for e, created in seen.items() if created < cutoff]:
            del seen[eid]
        if not first:
            ids = [eid for eid, _, etype in fresh if wanted is None or etype in wanted]
            if ids:
                yield await Event.filter(id__in=ids, **principal.scope).order_by("created_at", "id")
        first = False
        await asyncio.sleep(poll_seconds)
