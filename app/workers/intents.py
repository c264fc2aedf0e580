"""The payment-intent expiry worker: every POLL seconds, cancel unpaid intents past
`expires_at` (services.intents.expire_intents, with the runtime's clock)."""
from __future__ import annotations

import asyncio
import logging

from services import intents

log = logging.getLogger("qafila.workers.intents")

POLL = 5.0


async def run(backend, stop: asyncio.Event) -> None:
    while not stop.is_set():
        busy = False
        try:
            n = await intents.expire_intents(backend.runtime.clock.now())
            busy = n >= intents.EXPIRY_BATCH
            if n:
                log.info("expired %d payment intents", n)
        except Exception:  # noqa: BLE001 - keep sweeping; the next step retries
            log.exception("payment intent expiry step failed")
        if busy:
            continue
        try:
            await asyncio.wait_for(stop.wait(), POLL)
        except asyncio.TimeoutError:
            pass
