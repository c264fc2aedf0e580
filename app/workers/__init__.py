"""Background workers that `qafila serve` runs beside the applications (and `qafila worker` alone).

Each module named in WORKER_MODULES exposes `async def run(backend, stop: asyncio.Event)`; it
loops until `stop` is set, taking time from backend.runtime.clock.
"""
from __future__ import annotations

import asyncio
import importlib
import logging

log = logging.getLogger("qafila.workers")

WORKER_MODULES: list[str] = ["app.workers.webhooks", "app.workers.intents", "app.workers.housekeeping",
                             "app.workers.scheduler", "app.workers.receipts", "app.workers.invoices"]


async def poll_loop(stop: asyncio.Event, step, *, poll: float, name: str) -> None:
    """Run `step()` until `stop` is set: again at once when it reports a full batch (returns
    True), else after `poll` seconds. A failing step is logged and retried on the next turn."""
    while not stop.is_set():
        busy = False
        try:
            busy = await step()
        except Exception:  # noqa: BLE001 - keep going; the next step retries
            log.exception("%s step failed", name)
        if busy:
            continue
        try:
            await asyncio.wait_for(stop.wait(), poll)
        except asyncio.TimeoutError:
            pass


async def run_all(backend, stop: asyncio.Event) -> None:
    tasks = [asyncio.create_task(importlib.import_module(name).run(backend, stop), name=name)
             for name in WORKER_MODULES]
    if not tasks:
        await stop.wait()
        return
    await asyncio.gather(*tasks)
