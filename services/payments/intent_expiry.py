"""Payment-intent expiry as a scheduler job kind (`intent.expire`): an intent past `expires_at`
that is still unpaid becomes `canceled` with reason `expired` -- in live mode on the real clock,
in a merchant's test mode on its test clock (an advance runs the expiries that fell due, each at
its own `expires_at`). The claim is the intent's version check (`intents._transition`), so any
number of processes may run it; `app/workers/intents.py` keeps sweeping on the real clock."""
from __future__ import annotations

from datetime import datetime

from tortoise.expressions import Q

from models.intents import PaymentIntent
from services import scheduler
from services.payments import intents


async def _due(scope: scheduler.Scope, until: datetime, limit: int) -> list[tuple[datetime, str]]:
    unpaid = Q(status__in=intents.UNPAID + ("failed",)) | Q(status="processing", payment_method="crypto")
    waiting_reference = Q(status="requires_action", payment_method="fawry")    # fawry.expire fails it
    ended = Q(status="failed", failure_code="expired")                        # a reference that ran out
    rows = await (scope.apply(PaymentIntent.filter(unpaid, expires_at__lte=until).exclude(waiting_reference | ended))
                  .order_by("expires_at", "id").limit(limit).values_list("expires_at", "id"))
    return [(when, iid) for when, iid in rows]


async def expire(intent_id: str, due: datetime) -> str | None:
    if not await intents._expire_one(intent_id, due):
        return None             # paid, canceled or claimed meanwhile (or crypto whose deposit was seen)
    return f"payment intent {intent_id} canceled: expired"


def register_jobs() -> None:
    """This domain's job kind, registered with the scheduler when the app starts (app/jobs.py)."""
    scheduler.register(scheduler.JobKind("intent.expire", _due, expire))
