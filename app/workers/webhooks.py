"""The webhook dispatcher worker: every POLL seconds, fan new events out and deliver what is
due (services.webhooks.run_once). Any number may run against one PostgreSQL."""
from __future__ import annotations

import asyncio
import logging
import os
import socket

from app import webhook_sender
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
    while not stop.is_set():
        busy = False
        try:
            stats = await webhooks.run_once(owner=owner)
            busy = stats.claimed >= webhooks.CLAIM_BATCH
        except Exception:  # noqa: BLE001 - keep dispatching; the next step retries
            log.exception("webhook dispatcher step failed")
        if busy:
            continue
        try:
            await asyncio.wait_for(stop.wait(), POLL)
        except asyncio.TimeoutError:
            pass
    log.info("webhook dispatcher %s stopped", owner)
