"""The one scheduler: everything that falls due at a time (subscription renewals, dunning
retries, link expiry, settlements, payouts) is a job kind registered here -- by its own domain,
when the app starts (app/jobs.py; this module imports no domain) -- and one loop runs
what is due, earliest first, each at its own due time (`running_at`: everything the job writes
is dated when it fell due).

- Live mode (and test mode of merchants without a test clock) runs on the real clock, from the
  worker loop of `qafila serve` / `qafila worker` (`run_due`).
- A merchant's test mode runs on its test clock: `advance` moves it forward and runs, in order,
  all that fell due up to the new time (`services.billing.test_clock`).
- Once, with any number of processes: a job kind claims each item itself (a row lock taken with
  SKIP LOCKED plus a re-check of the due condition, or a conditional update), so an item two
  processes both saw due is run by one of them; the other finds it no longer due and skips it.
"""
from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime

from services.infra.clock import running_at

log = logging.getLogger("qafila.scheduler")

MAX_RUNS = 10_000          # one call never runs more than this (a runaway job cannot spin forever)


@dataclass(frozen=True, order=True)
class Due:
    when: datetime
    order: int                   # the kind's place in JOBS: ties run in registration order
    kind: str
    id: str


@dataclass
class Scope:
    """Whose items: one merchant's one mode (a test clock), or a mode across merchants minus
    those that run on their own test clocks."""
    livemode: bool
    merchant_id: str | None = None
    exclude_merchants: frozenset[str] = frozenset()

    def apply(self, qs):
        """`qs` (a queryset of rows with merchant_id and livemode) confined to this scope."""
        qs = qs.filter(livemode=self.livemode)
        if self.merchant_id:
            qs = qs.filter(merchant_id=self.merchant_id)
        if self.exclude_merchants:
            qs = qs.exclude(merchant_id__in=list(self.exclude_merchants))
        return qs


@dataclass
class JobKind:
    name: str
    # (scope, until, limit) -> the items due at or before `until`
    due: Callable[[Scope, datetime, int], Awaitable[list[tuple[datetime, str]]]]
    # (item id, due time) -> a one-line summary of what happened, or None if it was not due any more
    run: Callable[[str, datetime], Awaitable[str | None]]
    # False for a kind whose run never makes an item due (of any kind): the items already read
    # run on without reading what is due again after each (an intent's expiry; not a renewal,
    # which schedules the next one, possibly before the rest of the batch)
    schedules: bool = True


@dataclass
class Ran:
    kind: str
    id: str
    at: datetime
    outcome: str


JOBS: list[JobKind] = []


def register(job: JobKind) -> JobKind:
    """Adds a job kind (once: registering the same kind again, as every app start does, is a no-op)."""
    for known in JOBS:
        if known.name == job.name:
            if (known.due, known.run, known.schedules) != (job.due, job.run, job.schedules):
                raise ValueError(f"job kind {job.name} registered twice")
            return known
    JOBS.append(job)
    return job


async def next_due(scope: Scope, until: datetime, *, limit: int = 100) -> list[Due]:
    if not JOBS:
        raise RuntimeError("no job kinds registered: the app registers each domain's at start (app/jobs.py)")
    items: list[Due] = []
    for order, job in enumerate(JOBS):
        for when, item_id in await job.due(scope, until, limit):
            items.append(Due(when, order, job.name, item_id))
    items.sort()
    return items[:limit]


async def run_due(scope: Scope, until: datetime, *, max_runs: int = MAX_RUNS) -> list[Ran]:
    """Run everything of `scope` due at or before `until`, earliest first, each at its due time.
    A run may make new items due (a renewal schedules the next); they run too if due by `until`."""
    ran: list[Ran] = []
    skipped: set[tuple[str, str, datetime]] = set()
    batch: list[Due] = []
    while len(ran) < max_runs:
        if not batch:
            batch = [d for d in await next_due(scope, until) if (d.kind, d.id, d.when) not in skipped]
            batch.reverse()                 # earliest last: taken with pop()
            if not batch:
                break
        item = batch.pop()
        job = JOBS[item.order]
        if job.schedules:
            batch = []                      # its run may make something due before the rest: read again
        with running_at(item.when):
            try:
                outcome = await job.run(item.id, item.when)
            except Exception:  # noqa: BLE001 - one failing item must not stop the others
                log.exception("scheduler: %s %s failed", item.kind, item.id)
                outcome = None
        if outcome is None:
            skipped.add((item.kind, item.id, item.when))    # claimed elsewhere, or failed: not again now
            continue
        ran.append(Ran(item.kind, item.id, item.when, outcome))
    return ran
