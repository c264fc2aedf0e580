"""The receipts worker: every POLL seconds, send the receipts that are due (services.receipts,
the outbox written with each successful payment). Any number may run against one PostgreSQL."""
from __future__ import annotations

import asyncio
import logging

from app.workers import poll_loop
from app.workers.webhooks import owner_name
from services.payments import receipts

log = logging.getLogger("qafila.workers.receipts")

POLL = 1.0


async def run(backend, stop: asyncio.Event) -> None:
    owner = owner_name()

    async def step() -> bool:
        return (await receipts.run_once(owner=owner)).claimed >= receipts.CLAIM_BATCH
    await poll_loop(stop, step, poll=POLL, name="receipts")
