"""Payment-intent expiry as a scheduler job kind (`intent.expire`): an intent past `expires_at`
that is still unpaid becomes `canceled` with reason `expired` -- in live mode on the real clock,
in a merchant's test mode on its test clock (an advance runs the expiries that fell due, each at
its own `expires_at`). The claim is the intent's version check (`intents._transition`), so any
number of processes may run it; `app/workers/intents.py` keeps sweeping on the real clock."""
from __future__ import annotations

from datetime import datetime

from services import scheduler
from services.payments import expiry_due, intents


async def _due(scope: scheduler.Scope, until: datetime, limit: int) -> list[tuple[datetime, str]]:
    return await expiry_due.due(until, limit, livemode=scope.livemode, merchant_id=scope.merchant_id,
                                exclude_merchants=scope.exclude_merchants, with_references=False)


async def expire(intent_id: str, due: datetime) -> str | None:
    if not await intents._expire_one(intent_id, due):
        return None             # paid, canceled or claimed meanwhile (or crypto whose deposit was seen)
    return f"payment intent {intent_id} canceled: expired"


def register_jobs() -> None:
    """This domain's job kind, registered with the scheduler when the app starts (app/jobs.py)."""
    scheduler.register(scheduler.JobKind("intent.expire", _due, expire, schedules=False))
