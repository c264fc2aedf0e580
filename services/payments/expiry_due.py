"""Which payment intents are due to expire: one read for the expiry sweep (app/workers/intents.py,
`intents.expire_intents`) and for the scheduler's `intent.expire` kind (intent_expiry.py).

Open for expiry: unpaid, failed without having run out (a Fawry reference that ran out stays
failed for good), or crypto still waiting for its deposit. Terminal intents -- nearly all of a
busy table -- are never read: the partial index `payment_intents_open_expiry` (intents migration
0008) holds only open ones, in `expires_at` order. PostgreSQL uses a partial index for a
statement only when the statement's WHERE implies the index's, and a generic plan (app/pg_engine.py)
has no parameter values to prove that with, so the condition is in the statement as literals,
the same text as the index's. Written with parameters (as the ORM writes a filter), the generic
plan scanned the whole table on every pass: 1 s at 2,000,000 intents, every 5 s, three times.

One merchant's read (a merchant whose test clock has moved is read on its own, every pass) is
planned for that merchant (`custom_plan`): its generic plan, costing every merchant as the average
one, walked the partial index of every merchant's open intents in expiry order and filtered them
down to this merchant's (35,317 rows removed per read on the benchmark database, 20 ms); planned
for the merchant's own value it reads the merchant's index (issue 40).
"""
from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from models.intents import PaymentIntent
from services import due_reads

UNPAID = ("requires_payment_method", "requires_confirmation", "requires_action")    # intents.UNPAID is this

# The partial index's predicate (migrations/intents/0008_open_expiry_index.py has the same text).
OPEN = (f"(status IN ({', '.join(repr(x) for x in UNPAID)}) "
        "OR (status = 'failed' AND COALESCE(failure_code, '') <> 'expired') "
        "OR (status = 'processing' AND payment_method = 'crypto'))")
# A Fawry reference waiting to be paid: its own job (local_methods' fawry.expire) fails it.
# SADAD bills and CliQ/Aani requests to pay wait the same way (services.payments.bills_rtp).
_WAITING_REFERENCE = "(status = 'requires_action' AND payment_method IN ('fawry', 'sadad', 'cliq', 'aani'))"


async def due(until: datetime, limit: int, *, livemode: bool | None = None, merchant_id: str | None = None,
              exclude_merchants: Iterable[str] = (), with_references: bool = True,
              references_only: bool = False) -> list[tuple[datetime, str]]:
    """(expires_at, id) of the open intents with `expires_at` at or before `until`, earliest
    first, at most `limit`; confined to a mode, a merchant or all but some merchants when given.
    `with_references=False` leaves out Fawry references still waiting (their job expires them);
    `references_only=True` reads only those (that job's read)."""
    also = [_WAITING_REFERENCE] if references_only else [] if with_references else ["NOT " + _WAITING_REFERENCE]
    return await due_reads.due(PaymentIntent, predicate=OPEN, column="expires_at", until=until, limit=limit,
                               livemode=livemode, merchant_id=merchant_id, exclude_merchants=exclude_merchants,
                               also=also)
