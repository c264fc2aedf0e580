"""The scheduler's worker loop: every POLL seconds, run what fell due -- live mode and test mode
on the real clock, and each merchant with a moved test clock on its own clock. Safe with any
number of processes: each job kind claims its items (services/scheduler.py)."""
from __future__ import annotations

import asyncio
import logging

from app.workers import poll_loop
from services import scheduler
from services.infra.clock import moved_clocks

log = logging.getLogger("qafila.workers.scheduler")

POLL = 5.0


async def step_once(now) -> int:
    """One pass at `now` (the real clock); answers how many items ran."""
    moved = await moved_clocks()
    ran = await scheduler.run_due(scheduler.Scope(livemode=True), now)
    ran += await scheduler.run_due(scheduler.Scope(livemode=False, exclude_merchants=frozenset(moved)), now)
    for merchant_id, offset in moved.items():
        ran += await scheduler.run_due(scheduler.Scope(livemode=False, merchant_id=merchant_id), now + offset)
    for r in ran:
        log.info("%s %s at %s: %s", r.kind, r.id, r.at.isoformat(), r.outcome)
    return len(ran)


async def run(backend, stop: asyncio.Event) -> None:
    async def step() -> bool:
        await step_once(backend.runtime.clock.now())
        return False
    await poll_loop(stop, step, poll=POLL, name="scheduler")
