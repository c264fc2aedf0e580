"""The webhook dispatcher worker: every POLL seconds, fan new events out and deliver what is
due (services.webhooks.run_once). Any number may run against one PostgreSQL."""
from __future__ import annotations

import asyncio
import logging
import os
import socket

from app import metrics, webhook_sender
from app.workers import poll_loop
from services import webhooks
from services.ids import random_token

log = logging.getLogger("qafila.workers.webhooks")

POLL = 0.5          # seconds between steps when idle; a busy step is followed at once


def owner_name() -> str:
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{random_token(8)}"


async def run(backend, stop: asyncio.Event) -> None:
    webhook_sender.install()
    owner = owner_name()
    log.info("webhook dispatcher %s started", owner)

    observe = metrics.metrics().observe_webhooks if backend.settings.metrics else None

    async def step() -> bool:
        stats = await webhooks.run_once(owner=owner)
        if observe is not None:
            observe(stats.delivered, stats.failed)
        return stats.busy
    await poll_loop(stop, step, poll=POLL, name="webhook dispatcher")
    log.info("webhook dispatcher %s stopped", owner)
