"""Housekeeping: forget idempotency keys older than their replay window (a week)."""
from __future__ import annotations

import asyncio
import logging

from app.workers import poll_loop
from services import idempotency

log = logging.getLogger("qafila.workers.housekeeping")

POLL = 600.0
BATCH = 1000


async def run(backend, stop: asyncio.Event) -> None:
    async def step() -> bool:
        n = await idempotency.prune(batch=BATCH)
        if n:
            log.info("pruned %d idempotency keys", n)
        return n >= BATCH
    await poll_loop(stop, step, poll=POLL, name="idempotency key pruning")
