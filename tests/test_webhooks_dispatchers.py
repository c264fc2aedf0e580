"""Several dispatchers at once (PostgreSQL: SKIP LOCKED claims with a lease) deliver every
event exactly once; the worker loop delivers a new event within a poll or two."""
from __future__ import annotations

import asyncio
import json
from datetime import datetime, timezone

from app.workers import WORKER_MODULES
from app.workers import webhooks as worker
from services import webhooks
from tests.helpers import bearer
from tests.webhooks_fixtures import emit, receiver  # noqa: F401


async def test_two_dispatchers_deliver_each_event_exactly_once(client, merchant, receiver):
    await client.post("/api/webhooks/configure", json={"url": receiver.url(), "events": ["*"]},
                      headers=bearer(merchant.sk))
    sent = [await emit(merchant.id) for _ in range(30)]

    async def dispatcher(name: str) -> int:
        claimed = 0
        for _ in range(10):
            claimed += (await webhooks.run_once(owner=name, limit=4, merchant_id=merchant.id)).claimed
            await asyncio.sleep(0)
        return claimed

    claims = await asyncio.gather(dispatcher("one"), dispatcher("two"), dispatcher("three"))

    got = [json.loads(r.body)["id"] for r in receiver.got]
    assert sorted(got) == sorted(e.id for e in sent), "each event exactly once"
    assert sum(claims) == 30 and all(c > 0 for c in claims), claims     # all three took a share, none twice


async def test_the_worker_delivers_a_new_event_promptly(client, merchant, receiver, backend, clock):
    assert "app.workers.webhooks" in WORKER_MODULES
    # A day before every other test's data: the worker serves the whole platform -- it fans out
    # the waiting events of a week back and delivers every delivery due by now -- and other tests
    # (test clocks, receivers that are gone) leave events and due retries behind.
    clock.set(datetime(2020, 1, 1, 12, 0, tzinfo=timezone.utc))
    await client.post("/api/webhooks/configure", json={"url": receiver.url(), "events": ["payment.succeeded"]},
                      headers=bearer(merchant.sk))
    stop = asyncio.Event()
    task = asyncio.create_task(worker.run(backend, stop))
    try:
        ev = await emit(merchant.id)
        for _ in range(300):
            if receiver.got:
                break
            await asyncio.sleep(0.01)
        assert [json.loads(r.body)["id"] for r in receiver.got] == [ev.id]
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)


async def test_fan_out_takes_its_events_off_the_waiting_table_and_heals_one_left_waiting(client, merchant, receiver):
    """The fan-out reads only events still waiting. An event whose deliveries exist but which a
    killed dispatcher left waiting is taken off by the next fan-out, with no second delivery; the
    event row itself is never rewritten."""
    from models.events import Event, EventWaiting
    from models.webhooks import WebhookDelivery

    async def waiting(*evs) -> set[str]:
        return set(await EventWaiting.filter(event_id__in=[e.id for e in evs]).values_list("event_id", flat=True))

    await client.post("/api/webhooks/configure", json={"url": receiver.url(), "events": ["*"]},
                      headers=bearer(merchant.sk))
    first, second = await emit(merchant.id), await emit(merchant.id)
    assert await waiting(first, second) == {first.id, second.id}
    assert (await webhooks.fan_out(merchant_id=merchant.id)).deliveries == 2
    assert await waiting(first, second) == set()
    assert (await webhooks.fan_out(merchant_id=merchant.id)).deliveries == 0

    stored = await Event.get(id=first.id)
    await EventWaiting.create(event_id=first.id, merchant_id=merchant.id, livemode=False, type=first.type,
                              created_at=stored.created_at)                # as if killed before taking it off
    third = await emit(merchant.id)
    assert (await webhooks.fan_out(merchant_id=merchant.id)).deliveries == 1     # only the new event's delivery
    assert await waiting(first, third) == set()
    for ev in (first, second, third):
        assert await WebhookDelivery.filter(event_id=ev.id).count() == 1
    assert (await Event.get(id=first.id)).data == stored.data


async def test_an_event_no_endpoint_takes_leaves_the_waiting_table_without_a_fanout_row(client, merchant):
    """No endpoint subscribed: the event leaves the waiting table and nothing else is written, so
    a burst of payments costs the fan-out one DELETE per batch. An endpoint configured later does
    not get the events from before it."""
    from models.events import EventWaiting
    from models.webhooks import WebhookDelivery, WebhookFanout

    ev = await emit(merchant.id)
    assert await EventWaiting.filter(event_id=ev.id).count() == 1
    done = await webhooks.fan_out(merchant_id=merchant.id)
    assert (done.events, done.deliveries) == (1, 0)
    assert await EventWaiting.filter(event_id=ev.id).count() == 0
    assert await WebhookFanout.filter(event_id=ev.id).count() == 0
    assert await WebhookDelivery.filter(event_id=ev.id).count() == 0


async def test_a_full_fan_out_batch_makes_the_step_go_on_at_once(client, merchant, monkeypatch):
    """A pass that took a whole batch reports work waiting, so the worker's next step follows at
    once instead of after its poll: the fan-out keeps up with any rate of events."""
    monkeypatch.setattr(webhooks, "FANOUT_BATCH", 2)
    for _ in range(3):
        await emit(merchant.id)
    first = await webhooks.run_once(owner="one", merchant_id=merchant.id)
    assert first.backlog and first.busy
    second = await webhooks.run_once(owner="one", merchant_id=merchant.id)
    assert not second.backlog and not second.busy
