"""The double-entry ledger: every money movement is one transaction of balanced legs
(debits > 0, credits < 0, summing to zero per currency); balances are derived from the legs,
never stored twice. Reused by the `/v1` intents and settlements.

API:
- `Leg(account, amount)`; `post(merchant_id=, livemode=, currency=, kind=, legs=[...],
  payment_id=None, refund_id=None, source_id=None) -> txn_id`: call inside the transaction of
  the change (`async with in_transaction():`); refuses unbalanced legs (ValueError: a bug).
- `rows(...)`: the legs plus the transaction's balance line (models.money.BalanceLine, the
  merchant_balance account per transaction, which services.balance settles and sums), for
  `lookup.insert_all`; `post` writes both too.
- Helpers building the usual legs: `capture_legs(amount, fee)`, `refund_legs(amount)`.
- `balances(merchant_id=, livemode=) -> {(account, currency): sum}`,
  `merchant_balance(merchant_id=, livemode=) -> {currency: amount owed to the merchant}` (from
  the unsettled balance lines; `merchant_balance_from_legs` sums every leg).

Accounts: `provider_receivable` (asset: what providers owe us for captured money),
`merchant_balance` (liability: what we owe the merchant, shown positive by `merchant_balance`),
`fee_revenue` (our income).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tortoise.functions import Sum

from models._rows import new
from models.money import BalanceLine
from models.payments import LedgerEntry
from services.ids import new_id
from services.infra.runtime import runtime

PROVIDER_RECEIVABLE = "provider_receivable"
MERCHANT_BALANCE = "merchant_balance"
FEE_REVENUE = "fee_revenue"


@dataclass(frozen=True)
class Leg:
    account: str
    amount: int        # > 0 debit, < 0 credit


def capture_legs(amount: int, fee: int) -> list[Leg]:
    """Captured money is owed by the provider and to the merchant; the fee moves from the
    merchant's balance to our revenue."""
    legs = [Leg(PROVIDER_RECEIVABLE, amount), Leg(MERCHANT_BALANCE, -amount)]
    if fee:
        legs += [Leg(MERCHANT_BALANCE, fee), Leg(FEE_REVENUE, -fee)]
    return legs


def refund_legs(amount: int) -> list[Leg]:
    """A refund reduces what we owe the merchant and what the provider owes us (fees are kept)."""
    return [Leg(MERCHANT_BALANCE, amount), Leg(PROVIDER_RECEIVABLE, -amount)]


def entries(*, merchant_id: str, livemode: bool, currency: str, kind: str, legs: Sequence[Leg],
            payment_id: str | None = None, refund_id: str | None = None,
            source_id: str | None = None) -> list[LedgerEntry]:
    """The rows of one balanced ledger transaction, not yet saved (see `post`)."""
    if sum(leg.amount for leg in legs) != 0:
        raise ValueError(f"unbalanced ledger transaction {kind}: {legs}")
    txn = new_id("ltx")
    now = runtime().clock.now()
    return [new(LedgerEntry, merchant_id=merchant_id, livemode=livemode, txn_id=txn, kind=kind, account=leg.account,
                        currency=currency, amount=leg.amount, payment_id=payment_id, refund_id=refund_id,
                        source_id=source_id, created_at=now)
            for leg in legs if leg.amount != 0]


def balance_line(legs: Sequence[LedgerEntry]) -> BalanceLine | None:
    """What one transaction's legs did to the merchant's balance (models.money.BalanceLine), or
    None when it has no merchant_balance leg: net = minus its merchant_balance legs, fee = what
    went to fee_revenue, gross = net + fee."""
    mine = [e for e in legs if e.account == MERCHANT_BALANCE]
    if not mine:
        return None
    first = mine[0]
    net = -sum(e.amount for e in mine)
    fee = -sum(e.amount for e in legs if e.account == FEE_REVENUE)
    return new(BalanceLine, id=first.txn_id, merchant_id=first.merchant_id, livemode=first.livemode,
                       currency=first.currency, kind=first.kind, payment_id=first.payment_id,
                       refund_id=first.refund_id, source_id=first.source_id, gross=net + fee, fee=fee, net=net,
                       created_at=first.created_at, settlement_id=None)


def rows(*, merchant_id: str, livemode: bool, currency: str, kind: str, legs: Sequence[Leg],
         payment_id: str | None = None, refund_id: str | None = None, source_id: str | None = None) -> list:
    """The legs of one transaction plus its balance line, for `lookup.insert_all` with the change."""
    legs_rows = entries(merchant_id=merchant_id, livemode=livemode, currency=currency, kind=kind, legs=legs,
                        payment_id=payment_id, refund_id=refund_id, source_id=source_id)
    line = balance_line(legs_rows)
    return [*legs_rows, line] if line is not None else legs_rows


async def post(*, merchant_id: str, livemode: bool, currency: str, kind: str, legs: Sequence[Leg],
               payment_id: str | None = None, refund_id: str | None = None, source_id: str | None = None) -> None:
    """Write one balanced ledger transaction and its balance line (inside the caller's transaction)."""
    legs_rows = entries(merchant_id=merchant_id, livemode=livemode, currency=currency, kind=kind,
                        legs=legs, payment_id=payment_id, refund_id=refund_id, source_id=source_id)
    await LedgerEntry.bulk_create(legs_rows)
    line = balance_line(legs_rows)
    if line is not None:
        await line.save(force_create=True)


async def balances(*, merchant_id: str, livemode: bool) -> dict[tuple[str, str], int]:
    rows = await (LedgerEntry.filter(merchant_id=merchant_id, livemode=livemode)
                  .annotate(total=Sum("amount")).group_by("account", "currency")
                  .values("account", "currency", "total"))
    return {(r["account"], r["currency"]): int(r["total"] or 0) for r in rows}


async def merchant_balance(*, merchant_id: str, livemode: bool) -> dict[str, int]:
    """What we owe the merchant per currency (the credit balance of merchant_balance), read from
    the unsettled balance lines: every merchant_balance leg has its line, and the lines of a
    settlement plus its payout sum to zero, so this equals minus the sum of the legs without
    reading the merchant's whole history (`merchant_balance_from_legs` reads the legs)."""
    rows = await (BalanceLine.filter(merchant_id=merchant_id, livemode=livemode, settlement_id__isnull=True)
                  .annotate(total=Sum("net")).group_by("currency").values("currency", "total"))
    return {r["currency"]: int(r["total"] or 0) for r in rows}


async def merchant_balance_from_legs(*, merchant_id: str, livemode: bool) -> dict[str, int]:
    """The same from every leg (a full read: for checks and tests)."""
    return {cur: -total for (acc, cur), total in (await balances(merchant_id=merchant_id, livemode=livemode)).items()
            if acc == MERCHANT_BALANCE}
