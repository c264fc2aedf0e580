"""Helpers for the money-views tests: payments, the test clock, the ledger's figures."""
from __future__ import annotations

from datetime import datetime, timezone

from models.money import BalanceLine, Settlement
from models.payments import LedgerEntry
from tests.payments_fixtures import APPROVED, call, card

DISPUTE_CARD = "4000000000000259"


def at(*args) -> datetime:
    return datetime(*args, tzinfo=timezone.utc)


async def pay_ok(client, key: str, amount: int = 10000, currency: str = "TRY", number: str = APPROVED, **body):
    status, p = await call(client, "POST", "/api/payments/create", key,
                           {"amount": amount, "currency": currency, "payment_method": card(number), **body})
    assert status == 200, p
    return p


async def advance(client, key: str, **body) -> dict:
    status, c = await call(client, "POST", "/api/test-helpers/advance-clock", key, body)
    assert status == 200, c
    return c


async def get(client, path: str, key: str):
    status, body = await call(client, "GET", path, key)
    assert status == 200, body
    return body


async def run_until(clock, merchant_id: str, when: datetime) -> list:
    """Move the real clock and run what fell due for the merchant's test mode (the worker's way)."""
    from services import scheduler

    clock.set(when)
    return await scheduler.run_due(scheduler.Scope(livemode=False, merchant_id=merchant_id), when)


def amounts(entries: list[dict]) -> dict[str, int]:
    return {e["currency"]: e["amount"] for e in entries}


async def ledger_earned(merchant_id: str, livemode: bool = False) -> dict[str, int]:
    """What the ledger owes the merchant before payouts: minus its merchant_balance legs, payouts excluded."""
    out: dict[str, int] = {}
    for e in await LedgerEntry.filter(merchant_id=merchant_id, livemode=livemode, account="merchant_balance"):
        if e.kind != "payout":
            out[e.currency] = out.get(e.currency, 0) - e.amount
    return out


async def ledger_owed(merchant_id: str, livemode: bool = False) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in await LedgerEntry.filter(merchant_id=merchant_id, livemode=livemode, account="merchant_balance"):
        out[e.currency] = out.get(e.currency, 0) - e.amount
    return out


async def check_invariants(client, key: str, merchant_id: str) -> None:
    """pending + available + settlements == the ledger; each settlement == the sum of its lines."""
    bal = await get(client, "/api/balance", key)
    pending, available = amounts(bal["pending"]), amounts(bal["available"])
    settled: dict[str, int] = {}
    for s in await Settlement.filter(merchant_id=merchant_id, livemode=False):
        lines = await BalanceLine.filter(settlement_id=s.id).exclude(kind="payout")
        assert s.amount == sum(line.net for line in lines) and s.transactions == len(lines), s.id
        assert s.amount > 0
        settled[s.currency] = settled.get(s.currency, 0) + s.amount
    earned = await ledger_earned(merchant_id)
    owed = await ledger_owed(merchant_id)
    for cur in set(earned) | set(pending) | set(settled):
        assert pending.get(cur, 0) + available.get(cur, 0) + settled.get(cur, 0) == earned.get(cur, 0), cur
        assert pending.get(cur, 0) + available.get(cur, 0) == owed.get(cur, 0), cur
    # the ledger's fast balance (unsettled lines) agrees with the sum of every leg
    from services.money import ledger
    fast = await ledger.merchant_balance(merchant_id=merchant_id, livemode=False)
    slow = await ledger.merchant_balance_from_legs(merchant_id=merchant_id, livemode=False)
    assert {c: v for c, v in fast.items() if v} == {c: v for c, v in slow.items() if v}
    # every line of the ledger's merchant_balance account has its balance line, in one settlement at most
    txns = {e.txn_id for e in await LedgerEntry.filter(merchant_id=merchant_id, livemode=False,
                                                      account="merchant_balance")}
    assert {line.id for line in await BalanceLine.filter(merchant_id=merchant_id, livemode=False)} == txns
