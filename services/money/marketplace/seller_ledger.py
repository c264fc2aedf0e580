"""The sellers' double-entry ledger: every movement of a seller's money is one transaction of
balanced legs (debits > 0, credits < 0, summing to zero), the platform's side on `platform`. The
platform's own ledger (services.money.ledger) is not touched: a seller's share is the platform's
liability to the seller, kept here.

Accounts (seller liabilities are credits, shown positive):
- `seller_held`: captured split money not released yet (or taken back by a hold);
- `seller_balance`: released; `pending` until the leg's `available_on` (the payment's settlement
  date, T+1), then `available`. Its legs are the statement lines of payouts;
- `seller_in_payout`: in a pending payout; `payout_bank`: paid out to the seller's bank.
"""
from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from tortoise.functions import Sum

from models._rows import new
from models.marketplace import SellerEntry, SubMerchant
from services.ids import new_id
from services.infra.runtime import runtime

HELD = "seller_held"
BALANCE = "seller_balance"
IN_PAYOUT = "seller_in_payout"
BANK = "payout_bank"
PLATFORM = "platform"


def rows(*, merchant_id: str, livemode: bool, sub_merchant_id: str, currency: str, kind: str,
         legs: Sequence[tuple[str, int]], split_id: str | None = None, payment_id: str | None = None,
         refund_id: str | None = None, line_amount: int | None = None, fee: int | None = None,
         available_on: date | None = None, payout_id: str | None = None, excluded: bool = False) -> list[SellerEntry]:
    """The legs of one balanced transaction, not yet saved. `available_on`, `line_amount`, `fee`
    and `payout_id` go on the `seller_balance` leg (the statement line)."""
    if sum(a for _, a in legs) != 0:
        raise ValueError(f"unbalanced seller ledger transaction {kind}: {legs}")
    txn = new_id("stx")
    now = runtime().clock.now()
    return [new(SellerEntry, id=new_id("sle"), txn_id=txn, merchant_id=merchant_id, livemode=livemode,
                sub_merchant_id=sub_merchant_id, account=account, currency=currency, amount=amount, kind=kind,
                split_id=split_id, payment_id=payment_id, refund_id=refund_id,
                line_amount=line_amount if account == BALANCE else None, fee=fee if account == BALANCE else None,
                available_on=available_on if account == BALANCE else None,
                payout_id=payout_id if account in (BALANCE, IN_PAYOUT, BANK) else None,
                excluded=excluded, created_at=now)
            for account, amount in legs if amount != 0]


async def post(**kw) -> list[SellerEntry]:
    """Write one transaction (inside the caller's transaction)."""
    legs = rows(**kw)
    await SellerEntry.bulk_create(legs)
    return legs


async def buckets(s: SubMerchant, today: date) -> dict[str, int]:
    """held, pending, available, reserve, in_payout, paid_out of one seller (minor units of its
    currency) on the platform's local day `today`."""
    return (await buckets_of([s], today))[s.id]


async def buckets_of(subs: Sequence[SubMerchant], today: date) -> dict[str, dict[str, int]]:
    """The same of several sellers, in two grouped reads (GraphQL's balance of a list)."""
    ids = [s.id for s in subs]
    sums = await (SellerEntry.filter(sub_merchant_id__in=ids).annotate(total=Sum("amount"))
                  .group_by("sub_merchant_id", "account").values("sub_merchant_id", "account", "total"))
    pend = await (SellerEntry.filter(sub_merchant_id__in=ids, account=BALANCE, available_on__gt=today)
                  .annotate(total=Sum("amount")).group_by("sub_merchant_id").values("sub_merchant_id", "total"))
    by: dict[str, dict[str, int]] = {i: {} for i in ids}
    for r in sums:
        by[r["sub_merchant_id"]][r["account"]] = -int(r["total"] or 0)
    pending_of = {r["sub_merchant_id"]: -int(r["total"] or 0) for r in pend}
    out: dict[str, dict[str, int]] = {}
    for s in subs:
        acc, pending = by[s.id], pending_of.get(s.id, 0)
        available = acc.get(BALANCE, 0) - pending
        reserve = min(int((s.payout_schedule or {}).get("reserve") or 0), max(available, 0))
        out[s.id] = {"held": acc.get(HELD, 0), "pending": pending, "available": available, "reserve": reserve,
                     "in_payout": acc.get(IN_PAYOUT, 0), "paid_out": acc.get(BANK, 0)}
    return out


def balance_object(s: SubMerchant, b: dict[str, int]) -> dict:
    return {"object": "balance", "sub_merchant": s.id, "livemode": s.livemode,
            **{k: [{"amount": v, "currency": s.currency}] for k, v in b.items()}}
