"""Live events for dashboards: a merchant's own events (the webhook envelopes), as they commit.

Each stream polls the events outbox every POLL_SECONDS over the (merchant_id, livemode,
created_at) index, reading ids newer than now - LOOKBACK and remembering those it has seen,
so it needs no cursor that the database would have to hand out in commit order (an event is
dated when its change happened -- a scheduled job's due time -- not when it committed). An event
committed more than LOOKBACK after its date is not streamed; webhooks still deliver it. The
first poll only marks what exists: a stream starts with what commits after it opens."""
from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta

from models.events import Event
from services.errors import ValidationError
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
    unknown = [t for t in types if t not in EVENT_TYPES]
    if unknown:
        raise ValidationError(f"unknown event type {unknown[0]!r}; one of: {', '.join(EVENT_TYPES)}", param="types")
    return frozenset(types)


async def stream_events(*, principal: Principal, types: list[str] | None = None,
                        poll_seconds: float = POLL_SECONDS) -> AsyncIterator[dict]:
    """Envelopes `{id, type, created, livemode, data: {object}, merchant_id}` of the caller's
    merchant and mode, oldest first, as they commit; `types` filters (None: every type)."""
    wanted = check_types(types)
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
                for e in await Event.filter(id__in=ids, **principal.scope).order_by("created_at", "id"):
                    yield envelope(event_id=e.id, type=e.type, created=e.created_at, livemode=e.livemode,
                                   obj=e.data, merchant_id=e.merchant_id)
        first = False
        await asyncio.sleep(poll_seconds)
