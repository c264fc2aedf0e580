"""The payment-intent expiry worker: every POLL seconds, cancel unpaid intents past
`expires_at` (services.intents.expire_intents, with the runtime's clock). Test-mode intents of a
merchant whose test clock was moved expire on that clock through the scheduler's job kind
`intent.expire` (services/payments/intent_expiry.py); this sweep never reaches them early."""
from __future__ import annotations

import asyncio
import logging

from app.workers import poll_loop
from services.payments import intents

log = logging.getLogger("qafila.workers.intents")

POLL = 5.0


async def run(backend, stop: asyncio.Event) -> None:
    async def step() -> bool:
        n = await intents.expire_intents(backend.runtime.clock.now())
        if n:
            log.info("expired %d payment intents", n)
        return n >= intents.EXPIRY_BATCH
    await poll_loop(stop, step, poll=POLL, name="payment intent expiry")
