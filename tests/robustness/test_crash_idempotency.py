"""Exactly once across a crash: `kill -9` of `qafila serve` in the middle of 200 keyed
creates, then a retry of every key after the restart. Each key must end with exactly one
payment (and one capture in the ledger), a retry must answer what the first attempt answered,
and no retry waits out a stale "in flight" lock."""
from __future__ import annotations

import asyncio
import os
from collections import Counter

import aiohttp
import pytest

from models.payments import LedgerEntry, Payment
from tests.payments_fixtures import card
from tests.robustness.server_process import ServerProcess

N = 200


def _body(i: int, run: str) -> dict:
    return {"amount": 10000 + i, "currency": "TRY", "payment_method": card(),
            "customer": {"email": f"buyer{i}@example.com"}, "metadata": {"key": f"{run}-{i}"}}


async def _create(s: aiohttp.ClientSession, url: str, sk: str, i: int, run: str, header: str):
    async with s.post(url + "/api/payments/create", json=_body(i, run),
                      headers={"Authorization": f"Bearer {sk}", header: f"{run}-{i}"}) as r:
        return r.status, await r.json()


async def test_kill_9_during_keyed_creates_leaves_exactly_one_payment_per_key(client, settings, make_merchant,
                                                                             tmp_path):
    m = await make_merchant()
    run = os.urandom(4).hex()
    server = ServerProcess(settings, tmp_path)
    await server.start()
    first: dict[int, tuple[int, dict]] = {}
    try:
        conn = aiohttp.TCPConnector(limit=N)
        async with aiohttp.ClientSession(connector=conn, timeout=aiohttp.ClientTimeout(total=30)) as s:
            # Half the keys in the widespread header, half in the documented one.
            tasks = {i: asyncio.create_task(_create(s, server.url, m.sk, i, run,
                                                    "Idempotency-Key" if i % 2 else "X-Idempotency-Key"))
                     for i in range(N)}
            # Kill once some answers are back and many requests are still in flight.
            for _ in range(3000):
                if sum(t.done() for t in tasks.values()) >= N // 5:
                    break
                await asyncio.sleep(0.005)
            server.kill()
            for i, t in tasks.items():
                try:
                    first[i] = await t
                except (aiohttp.ClientError, asyncio.TimeoutError):
                    pass                                   # cut off by the crash: unknown outcome
        answered = {i: body for i, (status, body) in first.items() if status == 200}
        assert all(status == 200 for status, _ in first.values()), [r for r in first.values() if r[0] != 200][:3]
        assert 0 < len(answered) < N, f"the crash should land mid-load ({len(answered)} answered)"

        await server.start()                               # same database, a new process
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=20)) as s:
            retries = await asyncio.gather(*[_create(s, server.url, m.sk, i, run, "Idempotency-Key")
                                             for i in range(N)])
    finally:
        server.stop()

    # Every retry succeeds at once (no 409 "in flight" left behind by the dead process) ...
    assert [status for status, _ in retries] == [200] * N, [r for r in retries if r[0] != 200][:3]
    # ... and answers the original payment where the first attempt got an answer.
    for i, body in answered.items():
        assert retries[i][1]["id"] == body["id"], i
    # Exactly one payment per key in the database, and one capture (two legs) each in the ledger.
    payments = await Payment.filter(merchant_id=m.id).values("id", "metadata", "status")
    per_key = Counter(p["metadata"]["key"] for p in payments)
    assert len(per_key) == N and set(per_key.values()) == {1}, per_key.most_common(3)
    assert {p["status"] for p in payments} == {"succeeded"}
    assert {retries[i][1]["id"] for i in range(N)} == {p["id"] for p in payments}
    entries = await LedgerEntry.filter(merchant_id=m.id, kind="capture").values("payment_id", "account", "amount")
    receivable = Counter(e["payment_id"] for e in entries if e["account"] == "provider_receivable")
    assert len(receivable) == N and set(receivable.values()) == {1}, receivable.most_common(3)
    captured = sum(e["amount"] for e in entries if e["account"] == "provider_receivable")
    assert captured == sum(10000 + i for i in range(N))       # each key's amount, once


async def test_a_retry_with_other_parameters_after_the_crash_is_still_a_conflict(client, settings, make_merchant,
                                                                                tmp_path):
    m = await make_merchant()
    run = os.urandom(4).hex()
    server = ServerProcess(settings, tmp_path)
    await server.start()
    try:
        async with aiohttp.ClientSession() as s:
            status, body = await _create(s, server.url, m.sk, 1, run, "Idempotency-Key")
            assert status == 200
            server.kill()
            await server.start()
            other = _body(2, run)
            async with s.post(server.url + "/api/payments/create", json=other,
                              headers={"Authorization": f"Bearer {m.sk}", "Idempotency-Key": f"{run}-1"}) as r:
                assert r.status == 409
                assert (await r.json())["error"]["code"] == "idempotency_conflict"
            status, again = await _create(s, server.url, m.sk, 1, run, "X-Idempotency-Key")
            assert status == 200 and again["id"] == body["id"]
    finally:
        server.stop()
    assert await Payment.filter(merchant_id=m.id).count() == 1


@pytest.mark.parametrize("headers", [{"Idempotency-Key": "a", "X-Idempotency-Key": "b"}])
async def test_two_different_key_headers_are_refused(client, merchant, headers):
    r = await client.post("/api/payments/create", json=_body(1, "x"),
                          headers={"Authorization": f"Bearer {merchant.sk}", **headers})
    assert r.status == 400
    assert (await r.json())["error"]["param"] == "idempotency_key"
    assert await Payment.filter(merchant_id=merchant.id).count() == 0
