"""Webhook delivery against a real receiver on loopback: envelope, both signatures, retries on
the injected clock, timeout, final failure, manual retry, subscriptions, redirects, leases."""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import inspect
import json
from datetime import timedelta

import pytest

from models.webhooks import WebhookAttempt, WebhookDelivery
from services import webhooks
from tests.helpers import bearer
from tests.webhooks_fixtures import emit, receiver  # noqa: F401

OWNER = "test-dispatcher"


async def configure(client, key, url, events=("payment.succeeded",)):
    resp = await client.post("/api/webhooks/configure", json={"url": url, "events": list(events)}, headers=bearer(key))
    assert resp.status == 200, await resp.text()
    return await resp.json()


async def run(m, **kw):
    return await webhooks.run_once(owner=kw.pop("owner", OWNER), merchant_id=m.id, **kw)


def hexmac(secret: str, data: bytes) -> str:
    return hmac.new(secret.encode(), data, hashlib.sha256).hexdigest()


async def test_configure_answers_the_documented_fields(client, merchant, receiver):
    body = await configure(client, merchant.sk, receiver.url())
    assert body["id"].startswith("whk_") and body["url"] == receiver.url() and body["status"] == "active"
    assert body["secret"].startswith("whsec_") and len(body["secret"]) > 30
    assert body["events"] == ["payment.succeeded"]


async def test_delivery_carries_the_envelope_and_both_signatures(client, merchant, receiver, clock):
    hook = await configure(client, merchant.sk, receiver.url())
    ev = await emit(merchant.id, obj={"id": "pay_abc", "object": "payment", "status": "succeeded", "amount": 5000})

    stats = await run(merchant)

    assert stats.claimed == 1 and stats.delivered == 1
    (got,) = receiver.got
    body = json.loads(got.body)
    assert body == {"id": ev.id, "type": "payment.succeeded", "created": int(clock.time()), "livemode": False,
                    "data": {"object": {"id": "pay_abc", "object": "payment", "status": "succeeded", "amount": 5000}},
                    "merchant_id": merchant.id}
    assert got.headers["x-service-signature"] == hexmac(hook["secret"], got.body)
    assert got.headers["x-service-timestamp"] == str(int(clock.time()))
    assert got.headers["x-service-signature-v2"] == hexmac(hook["secret"], f"{int(clock.time())}.".encode() + got.body)
    assert got.headers["content-type"] == "application/json"
    resp = await client.get("/api/webhooks/events", headers=bearer(merchant.sk))
    assert resp.status == 200
    data = (await resp.json())["data"]
    assert data[0]["id"] == ev.id and data[0]["event"] == "payment.succeeded" and data[0]["delivered"] is True
    assert set(data[0]) >= {"id", "event", "delivered", "created_at"}
    # delivered once: a later step sends nothing more
    clock.advance(seconds=3600)
    assert (await run(merchant)).claimed == 0 and len(receiver.got) == 1


async def test_retry_schedule_then_failed_for_good(client, merchant, receiver, clock):
    receiver.default = 500
    await configure(client, merchant.sk, receiver.url())
    ev = await emit(merchant.id)
    start = clock.now()

    await run(merchant)
    sent_at = [clock.now()]
    for delay in webhooks.RETRY_DELAYS:
        clock.advance(seconds=delay - 1)
        assert (await run(merchant)).claimed == 0, f"retried before {delay} s"
        clock.advance(seconds=1)
        assert (await run(merchant)).claimed == 1, f"not retried at {delay} s"
        sent_at.append(clock.now())
    clock.advance(days=3)
    assert (await run(merchant)).claimed == 0

    assert webhooks.RETRY_DELAYS == (5, 30, 120, 600, 3600, 21600, 86400)
    assert len(receiver.got) == 8 == webhooks.MAX_ATTEMPTS
    assert [(t - start).total_seconds() for t in sent_at] == [0, 5, 35, 155, 755, 4355, 25955, 112355]
    d = await WebhookDelivery.get(event_id=ev.id)
    assert (d.state, d.delivered, d.attempts, d.next_attempt_at, d.last_status_code) == ("failed", False, 8, None, 500)
    resp = await client.get(f"/api/webhooks/events/{ev.id}", headers=bearer(merchant.sk))
    body = await resp.json()
    assert body["delivered"] is False and body["status"] == "failed"
    log = body["deliveries"][0]["attempt_log"]
    assert [a["number"] for a in log] == list(range(1, 9))
    assert all(a["status_code"] == 500 and a["error"] == "HTTP 500" and a["manual"] is False for a in log)
    assert all(isinstance(a["latency_ms"], int) and a["created_at"] for a in log)


async def test_a_receiver_that_hangs_fails_by_timeout(client, merchant, receiver):
    assert webhooks.DELIVERY_TIMEOUT == 5.0
    assert inspect.signature(webhooks.run_once).parameters["timeout"].default == 5.0
    assert inspect.signature(webhooks.send_test).parameters["timeout"].default == 5.0
    receiver.plan = ["hang"]
    await configure(client, merchant.sk, receiver.url())
    ev = await emit(merchant.id)

    stats = await run(merchant, timeout=0.3)

    assert stats.failed == 1
    d = await WebhookDelivery.get(event_id=ev.id)
    assert d.state == "pending" and d.attempts == 1 and d.last_error == "timeout after 0.3 s"
    (a,) = await WebhookAttempt.filter(delivery_id=d.id)
    assert a.status_code is None and a.error == "timeout after 0.3 s" and 250 <= a.latency_ms < 3000


async def test_redirects_are_not_followed(client, merchant, receiver):
    receiver.plan = ["redirect"]
    await configure(client, merchant.sk, receiver.url())
    ev = await emit(merchant.id)

    await run(merchant)

    assert [r.path for r in receiver.got] == ["/hook"]
    d = await WebhookDelivery.get(event_id=ev.id)
    assert d.state == "pending" and d.last_status_code == 302 and d.last_error == "HTTP 302"


async def test_manual_retry_resends_a_failed_event(client, merchant, receiver, clock):
    receiver.default = 503
    await configure(client, merchant.sk, receiver.url())
    ev = await emit(merchant.id)
    resp = await client.post(f"/api/webhooks/events/{ev.id}/retry", headers=bearer(merchant.sk))
    assert resp.status == 400
    assert (await resp.json())["error"]["code"] == "invalid_state"
    await run(merchant)
    for delay in webhooks.RETRY_DELAYS:
        clock.advance(seconds=delay)
        await run(merchant)
    assert (await WebhookDelivery.get(event_id=ev.id)).state == "failed"
    receiver.default = 200

    resp = await client.post(f"/api/webhooks/events/{ev.id}/retry", headers=bearer(merchant.sk))

    assert resp.status == 200
    body = await resp.json()
    assert body["delivered"] is True and body["status"] == "delivered"
    log = body["deliveries"][0]["attempt_log"]
    assert len(log) == 9 and log[-1]["manual"] is True and log[-1]["status_code"] == 200
    assert len(receiver.got) == 9 and json.loads(receiver.got[-1].body)["id"] == ev.id
    again = await client.post(f"/api/webhooks/events/{ev.id}/retry", headers=bearer(merchant.sk))
    assert again.status == 400
    assert (await again.json())["error"] == {
        "type": "invalid_request_error", "code": "invalid_state", "param": "id",
        "message": "Invalid request body",
        "detail": "only a failed event can be retried; this one is delivered",
        "request_id": again.headers["X-Request-Id"]}
    assert len(receiver.got) == 9


async def test_endpoints_receive_only_their_subscribed_types(client, merchant, receiver):
    await configure(client, merchant.sk, receiver.url("/a"), ["payment.succeeded"])
    await configure(client, merchant.sk, receiver.url("/all"), ["*"])
    await configure(client, merchant.sk, receiver.url("/failed"), ["payment.failed", "payment.refunded"])
    ok = await emit(merchant.id, "payment.succeeded")
    bad = await emit(merchant.id, "payment.failed")
    await emit(merchant.id, "payment.succeeded", livemode=True)     # live event: no live endpoint

    await run(merchant)

    ids = lambda path: sorted(json.loads(r.body)["id"] for r in receiver.for_path(path))  # noqa: E731
    assert ids("/a") == [ok.id]
    assert ids("/all") == sorted([ok.id, bad.id])
    assert ids("/failed") == [bad.id]
    assert len(receiver.got) == 4


async def test_events_before_the_endpoint_existed_are_not_sent(client, merchant, receiver, clock):
    old = await emit(merchant.id)
    clock.advance(seconds=60)
    await configure(client, merchant.sk, receiver.url())
    new = await emit(merchant.id)

    await run(merchant)

    assert [json.loads(r.body)["id"] for r in receiver.got] == [new.id]
    resp = await client.get("/api/webhooks/events", headers=bearer(merchant.sk))
    by_id = {e["id"]: e for e in (await resp.json())["data"]}
    assert by_id[old.id]["status"] == "no_endpoints" and by_id[old.id]["delivered"] is False


async def test_a_dispatcher_killed_between_claim_and_delivery_leaves_the_event_to_another(
        client, merchant, receiver, clock):
    await configure(client, merchant.sk, receiver.url())
    ev = await emit(merchant.id)
    await webhooks.fan_out(merchant_id=merchant.id)
    assert await webhooks.claim_due(owner="doomed", merchant_id=merchant.id) != []
    # ... and "doomed" dies here, before any POST.

    assert (await run(merchant, owner="survivor")).claimed == 0        # the lease still holds
    clock.advance(seconds=webhooks.LEASE.total_seconds() - 1)
    assert (await run(merchant, owner="survivor")).claimed == 0
    clock.advance(seconds=2)
    stats = await run(merchant, owner="survivor")

    assert stats.delivered == 1
    assert [json.loads(r.body)["id"] for r in receiver.got] == [ev.id]


async def test_a_dispatcher_cancelled_mid_delivery_leaves_the_event_to_be_retried(client, merchant, receiver, clock):
    receiver.plan = ["hang"]
    await configure(client, merchant.sk, receiver.url())
    ev = await emit(merchant.id)
    task = asyncio.create_task(run(merchant, owner="doomed"))
    for _ in range(200):                                 # until the POST is in flight
        if receiver.got:
            break
        await asyncio.sleep(0.01)
    assert receiver.got
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert (await run(merchant, owner="survivor")).claimed == 0
    clock.advance(seconds=webhooks.LEASE.total_seconds() + 1)
    stats = await run(merchant, owner="survivor")

    assert stats.delivered == 1 and len(receiver.got) == 2
    assert {json.loads(r.body)["id"] for r in receiver.got} == {ev.id}
    d = await WebhookDelivery.get(event_id=ev.id)
    assert d.state == "delivered" and d.attempts == 1


async def test_the_secret_is_never_logged(client, merchant, receiver, caplog):
    receiver.default = 500
    hook = await configure(client, merchant.sk, receiver.url())
    await emit(merchant.id)
    caplog.set_level("DEBUG")
    await run(merchant)
    assert hook["secret"] not in caplog.text


async def test_the_documented_verification_helper_accepts_a_delivery(client, merchant, receiver, clock):
    from pathlib import Path
    from types import SimpleNamespace
    guide = (Path(__file__).resolve().parent.parent / "docs" / "webhooks.md").read_text()
    code = guide.split("# Webhooks", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    ns: dict = {}
    exec(code, ns)                                          # noqa: S102 - our own guide (docs/webhooks.md)
    hook = await configure(client, merchant.sk, receiver.url())
    await emit(merchant.id)
    await run(merchant)
    (got,) = receiver.got
    ns["time"] = SimpleNamespace(time=clock.time)           # the helper reads the wall clock: give it ours
    assert ns["verify_qafila_webhook"](hook["secret"], got.body, got.headers) is True
    assert ns["verify_qafila_webhook"]("whsec_wrong", got.body, got.headers) is False
    assert ns["verify_qafila_webhook"](hook["secret"], got.body + b" ", got.headers) is False
    clock.advance(seconds=301)
    assert ns["verify_qafila_webhook"](hook["secret"], got.body, got.headers) is False
