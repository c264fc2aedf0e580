"""The scheduler's loop (services/scheduler.py run_due): what is due is read once per batch for
kinds whose runs make nothing due (an intent's expiry), and again after each run of a kind that
may (a renewal schedules the next one, which may fall before the rest of the batch)."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from services import scheduler

T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)


class Kind:
    """A job kind over an in-memory list of (due time, id); counts its due reads."""

    def __init__(self, name: str, items: list[tuple[datetime, str]], *, schedules: bool, follow_up=None):
        self.items, self.reads, self.follow_up = items, 0, follow_up
        self.job = scheduler.JobKind(name, self.due, self.run, schedules=schedules)

    async def due(self, scope, until, limit):
        self.reads += 1
        return sorted(x for x in self.items if x[0] <= until)[:limit]

    async def run(self, item_id, when):
        self.items.remove((when, item_id))
        if self.follow_up is not None:
            self.follow_up(item_id, when)
        return f"{self.job.name} {item_id}"


@pytest.fixture
def jobs(monkeypatch):
    registered: list = []
    monkeypatch.setattr(scheduler, "JOBS", registered)
    return registered


async def test_items_of_a_kind_that_schedules_nothing_run_from_one_read_per_batch(jobs):
    expiries = Kind("intent.expire", [(T0 + timedelta(seconds=i), f"pay_{i:03}") for i in range(250)],
                    schedules=False)
    jobs.append(expiries.job)
    ran = await scheduler.run_due(scheduler.Scope(livemode=False), T0 + timedelta(hours=1))
    assert [r.id for r in ran] == [f"pay_{i:03}" for i in range(250)]           # earliest first, each once
    assert [r.at for r in ran] == sorted(r.at for r in ran)
    assert expiries.reads == 4              # 100 + 100 + 50, and the read that finds nothing (was 251)


async def test_a_run_that_schedules_makes_the_loop_read_again(jobs):
    """A renewal at 10:00 schedules one at 10:30, before the expiry at 11:00 read in the same
    batch: it runs before that expiry, and what it schedules past `until` does not run."""
    renewals: Kind

    def next_period(item_id, when):
        renewals.items.append((when + timedelta(minutes=30), item_id + "+"))
    renewals = Kind("subscription.renewal", [(T0 + timedelta(hours=10), "sub_a")], schedules=True,
                    follow_up=next_period)
    expiries = Kind("intent.expire", [(T0 + timedelta(hours=11), "pay_x"), (T0 + timedelta(hours=9), "pay_w")],
                    schedules=False)
    jobs.extend([renewals.job, expiries.job])
    ran = await scheduler.run_due(scheduler.Scope(livemode=False), T0 + timedelta(hours=11, minutes=15))
    assert [(r.kind, r.id, r.at - T0) for r in ran] == [
        ("intent.expire", "pay_w", timedelta(hours=9)),
        ("subscription.renewal", "sub_a", timedelta(hours=10)),
        ("subscription.renewal", "sub_a+", timedelta(hours=10, minutes=30)),
        ("subscription.renewal", "sub_a++", timedelta(hours=11)),
        ("intent.expire", "pay_x", timedelta(hours=11)),
    ]
    assert renewals.items == [(T0 + timedelta(hours=11, minutes=30), "sub_a+++")]    # past until: left due


async def test_an_item_claimed_elsewhere_is_skipped_and_the_batch_goes_on(jobs):
    expiries = Kind("intent.expire", [(T0 + timedelta(seconds=i), f"pay_{i}") for i in range(5)], schedules=False)
    run = expiries.job.run

    async def claimed_elsewhere(item_id, when):
        if item_id == "pay_2":
            return None                    # another process ran it first
        return await run(item_id, when)
    jobs.append(scheduler.JobKind("intent.expire", expiries.due, claimed_elsewhere, schedules=False))
    ran = await scheduler.run_due(scheduler.Scope(livemode=False), T0 + timedelta(hours=1))
    assert [r.id for r in ran] == ["pay_0", "pay_1", "pay_3", "pay_4"]
    assert expiries.reads == 2             # the batch, and the read that finds only the skipped one


def test_a_kind_registered_again_must_say_the_same_of_what_it_schedules(jobs):
    kind = Kind("intent.expire", [], schedules=False)
    scheduler.register(kind.job)
    assert scheduler.register(scheduler.JobKind("intent.expire", kind.due, kind.run, schedules=False)) is kind.job
    with pytest.raises(ValueError, match="registered twice"):
        scheduler.register(scheduler.JobKind("intent.expire", kind.due, kind.run, schedules=True))
