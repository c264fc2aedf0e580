"""The ledger after a random sequence of payments, captures, voids and refunds: every
transaction balances, and every account holds exactly what the payments say."""
from __future__ import annotations

import asyncio
import os
import random
from collections import defaultdict

import pytest

from models.payments import LedgerEntry, Payment
from services.money import ledger
from services.payments import payments
from services.errors import DomainError
from services.principal import Principal
from tests.payments_fixtures import APPROVED, CURRENCIES, DECLINED, no_exploration  # noqa: F401

POSTGRES = (os.environ.get("DATABASE_URL") or "").startswith("postgres")


def _card(number=APPROVED):
    return {"card": {"number": number, "exp_month": 12, "exp_year": 2030}}


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_random_operations_keep_every_account_consistent(client, merchant, clock, seed):
    rng = random.Random(seed)
    principal = Principal(merchant_id=merchant.id, livemode=False, kind="secret")
    ids: list[str] = []
    for _ in range(60):
        clock.advance(seconds=rng.randint(1, 30))
        op = rng.choice(["create", "create", "create_manual", "capture", "void", "refund", "refund"])
        try:
            if op.startswith("create"):
                currency = rng.choice(CURRENCIES)
                amount = rng.randint(1_000, 500_000) * (1_000 if currency == "IQD" else 1)
                number = DECLINED if rng.random() < 0.1 else APPROVED
                p = await payments.create_payment(principal=principal, data={
                    "amount": amount, "currency": currency, "payment_method": _card(number),
                    "capture": op == "create"})
                ids.append(p.id)
            elif ids:
                pid = rng.choice(ids)
                if op == "capture":
                    p = await Payment.get(id=pid)
                    await payments.capture_payment(principal=principal, payment_id=pid,
                                                   data={"amount": rng.randint(1, p.amount)})
                elif op == "void":
                    await payments.void_payment(principal=principal, payment_id=pid)
                else:
                    p = await Payment.get(id=pid)
                    left = p.amount_captured - p.amount_refunded
                    await payments.refund_payment(principal=principal, payment_id=pid,
                                                  data={"amount": rng.randint(1, max(left, 1))})
        except DomainError:
            pass          # refused transitions and declines are part of the sequence
    expected: dict[tuple[str, str], int] = defaultdict(int)
    for p in await Payment.filter(merchant_id=merchant.id):
        assert 0 <= p.amount_refunded <= p.amount_captured <= p.amount
        expected[("provider_receivable", p.currency)] += p.amount_captured - p.amount_refunded
        expected[("merchant_balance", p.currency)] -= p.amount_captured - p.fee - p.amount_refunded
        expected[("fee_revenue", p.currency)] -= p.fee
    got = await ledger.balances(merchant_id=merchant.id, livemode=False)
    assert {k: v for k, v in got.items() if v} == {k: v for k, v in expected.items() if v}
    by_txn: dict[tuple[str, str], int] = defaultdict(int)
    for e in await LedgerEntry.filter(merchant_id=merchant.id):
        by_txn[(e.txn_id, e.currency)] += e.amount
    assert by_txn and set(by_txn.values()) == {0}
    owed = await ledger.merchant_balance(merchant_id=merchant.id, livemode=False)
    assert all(v == -expected[("merchant_balance", c)] for c, v in owed.items())


@pytest.mark.skipif(not POSTGRES, reason="row locks are a PostgreSQL matter: SQLite runs one transaction at a time, "
                                        "so this race can only be proven on PostgreSQL (set DATABASE_URL)")
async def test_concurrent_captures_and_refunds_never_overdraw(client, merchant):
    principal = Principal(merchant_id=merchant.id, livemode=False, kind="secret")
    p = await payments.create_payment(principal=principal, data={"amount": 10_000, "currency": "TRY",
                                                                 "payment_method": _card(), "capture": False})

    async def attempt(fn, **kw):
        try:
            return await fn(principal=principal, payment_id=p.id, **kw)
        except DomainError as e:
            return e
    captures = await asyncio.gather(*[attempt(payments.capture_payment, data={"amount": 6_000 + i})
                                      for i in range(10)])
    assert sum(1 for r in captures if not isinstance(r, DomainError)) == 1
    assert all(r.code == "invalid_state" for r in captures if isinstance(r, DomainError))
    captured = (await Payment.get(id=p.id)).amount_captured
    refunds = await asyncio.gather(*[attempt(payments.refund_payment, data={"amount": 1_000}) for _ in range(12)])
    ok = [r for r in refunds if not isinstance(r, DomainError)]
    assert len(ok) == captured // 1_000
    after = await Payment.get(id=p.id)
    assert after.amount_refunded == len(ok) * 1_000 <= after.amount_captured == captured
    assert (await ledger.balances(merchant_id=merchant.id, livemode=False))[("provider_receivable", "TRY")] == \
        captured - after.amount_refunded
    assert await LedgerEntry.filter(payment_id=p.id, kind="capture").count() == 4   # one capture: 2 legs + fee 2 legs
