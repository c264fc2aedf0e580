"""Two scheduler processes at once on PostgreSQL: every due period is billed exactly once (row
locks with SKIP LOCKED, a re-check of the due time, and the charge's idempotency key)."""
from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from models.billing import Invoice, Subscription
from models.payments import Payment
from tests.billing_fixtures import customer, subscribe
from tests.robustness.server_process import SECRET

ROOT = Path(__file__).resolve().parents[2]


async def _pass(settings, merchant_id: str, until: str) -> int:
    env = {**os.environ, "QAFILA_ENV": "test", "DATABASE_URL": settings.database_url,
           "QAFILA_SECRET_KEY": SECRET, "QAFILA_ACCESS_LOG": "0"}
    if settings.redis_url:
        env["REDIS_URL"] = settings.redis_url
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "tests.robustness.scheduler_process",
                                                merchant_id, until, cwd=ROOT, env=env,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode == 0, err.decode()[-2000:]
    return json.loads(out.decode().strip().splitlines()[-1])["ran"].get("subscription.renewal", 0)


async def test_two_scheduler_processes_bill_each_period_once(client, settings, merchant):
    if settings.sqlite:
        pytest.skip("the embedded store belongs to one process (qafila refuses a second one on it)")
    subs = []
    for _ in range(12):
        cid = await customer(client, merchant.sk, email=None, phone=None, name="Twin")
        subs.append((await subscribe(client, merchant.sk, cid, interval="day"))["id"])
    before = await Payment.filter(merchant_id=merchant.id, status="succeeded").count()
    first = await Subscription.get(id=subs[0])
    until = first.next_billing_at.replace(hour=23, minute=0).isoformat()     # one more period each
    ran = await asyncio.gather(_pass(settings, merchant.id, until), _pass(settings, merchant.id, until))
    assert sum(ran) == len(subs), ran                                       # each item run by one of them
    print("split between the two processes:", ran)
    for sid in subs:
        periods = await Invoice.filter(subscription_id=sid).values_list("period_start", flat=True)
        assert len(periods) == len(set(periods)) == 2, sid
    assert await Payment.filter(merchant_id=merchant.id, status="succeeded").count() - before == len(subs)
