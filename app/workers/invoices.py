"""The invoice deliveries worker: every POLL seconds, send the invoices scheduler runs queued
(services.billing.deliveries, the outbox written with each renewal). Any number may run against
one PostgreSQL."""
from __future__ import annotations

import asyncio

from app.workers import poll_loop
from app.workers.webhooks import owner_name
from services.billing import deliveries

POLL = 1.0


async def run(backend, stop: asyncio.Event) -> None:
    owner = owner_name()

    async def step() -> bool:
        return (await deliveries.run_once(owner=owner))["claimed"] >= deliveries.CLAIM_BATCH
    await poll_loop(stop, step, poll=POLL, name="invoice deliveries")
