"""Property: random sequences of payments (approved, declined, disputed), refunds, dispute
evidence and clock moves keep pending + available + settlements equal to the ledger, every
settlement equal to the sum of its lines, and every line in at most one settlement."""
from __future__ import annotations

import random
from datetime import timedelta

import pytest

from models.money import BalanceLine, Settlement
from models.payments import Payment
from tests.money_fixtures import DISPUTE_CARD, at, check_invariants, get, run_until
from tests.payments_fixtures import APPROVED, DECLINED, call, card

AMOUNTS = {"TRY": (100, 200_000), "KWD": (100, 50_000)}


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_random_sequences_keep_the_balance_equal_to_the_ledger(client, merchant, clock, seed):
    rng = random.Random(seed)
    now = at(2026, 4, 1, 6, 0) + timedelta(hours=rng.randint(0, 72))
    clock.set(now)
    paid: list[str] = []
    for step in range(40):
        op = rng.choices(("pay", "refund", "evidence", "time"), weights=(5, 2, 1, 3))[0]
        if op == "pay":
            cur = rng.choice(tuple(AMOUNTS))
            number = rng.choices((APPROVED, DECLINED, DISPUTE_CARD), weights=(6, 1, 2))[0]
            status, p = await call(client, "POST", "/api/payments/create", merchant.sk,
                                   {"amount": rng.randint(*AMOUNTS[cur]), "currency": cur,
                                    "payment_method": card(number), "capture": rng.random() > 0.15})
            assert status in (200, 402), p
            if status == 200:
                paid.append(p["id"])
                if p["status"] == "authorized" and rng.random() < 0.7:
                    status, _ = await call(client, "POST", f"/api/payments/{p['id']}/capture", merchant.sk, {})
                    assert status == 200
        elif op == "refund" and paid:
            pid = rng.choice(paid)
            p = await Payment.get(id=pid)
            left = p.amount_captured - p.amount_refunded
            status, body = await call(client, "POST", f"/api/payments/{pid}/refund", merchant.sk,
                                      {"amount": rng.randint(1, left)} if left > 0 else {})
            assert status == 200 if p.status in ("succeeded", "captured", "refunded") and left > 0 else status == 400, \
                body
        elif op == "evidence":
            open_ = (await get(client, "/api/disputes?status=needs_response", merchant.sk))["data"]
            if open_:
                text = rng.choice(("receipt", "losing_evidence"))
                status, body = await call(client, "POST", f"/api/disputes/{open_[0]['id']}/evidence", merchant.sk,
                                          {"uncategorized_text": text})
                assert status == 200, body
        else:
            now = now + timedelta(hours=rng.randint(1, 60))
            await run_until(clock, merchant.id, now)
        await check_invariants(client, merchant.sk, merchant.id)
    # a month later every dispute is decided and every positive day is paid out
    now = now + timedelta(days=30)
    await run_until(clock, merchant.id, now)
    await check_invariants(client, merchant.sk, merchant.id)
    assert not await Settlement.filter(merchant_id=merchant.id, status="in_transit").exists()
    statuses = {d["status"] for d in (await get(client, "/api/disputes?limit=100", merchant.sk))["data"]}
    assert statuses <= {"won", "lost"}
    # nothing is left unsettled but a non-positive remainder per currency
    for cur in AMOUNTS:
        left = await BalanceLine.filter(merchant_id=merchant.id, currency=cur, settlement_id__isnull=True)
        assert sum(line.net for line in left) <= 0
