"""What refunds and disputes of a split payment do to its sellers.

Refunds (`/api` and `/v1`) take `split` (refund one line), `reverse_split` (debit the seller the
refunded part of its line) and `refund_platform_fee` (default true: with a reversal, credit the
seller the fee's share). Without `split`, a refund is spread over what is left of the lines and
of the platform's rest (the amount the lines leave) by largest remainder. Per line, refund R: fee share
f = half-up(R x fee / line_amount), the refund finishing the line takes the fee's rest.

Disputes of D, by the platform's `dispute_policy`: `platform` debits no seller; `seller` debits
each line half-up(D x line_amount / payment amount); `ratio` half-up(D x amount / payment amount)
(the seller's share of the line); the dispute fee stays the platform's; a won dispute credits
the debits back."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from models import _lookup as lookup
from models.marketplace import Split
from services.errors import ValidationError
from services.ids import check_id
from services.money.marketplace import seller_ledger as sl
from services.money.marketplace import settings as mk_settings
from services.money.marketplace.splits import half_up

REFUND_FIELDS = ("split", "reverse_split", "refund_platform_fee")


@dataclass
class Options:
    split: str | None = None
    reverse_split: bool = False
    refund_platform_fee: bool = True


def parse_options(data: Any) -> Options:
    """The marketplace fields of a refund body (the rest is read by services.payments.payments.parse_refund)."""
    if not isinstance(data, dict):
        return Options()
    out = Options()
    if data.get("split") is not None:
        out.split = check_id(data["split"], "split")
    for name in ("reverse_split", "refund_platform_fee"):
        v = data.get(name)
        if v is None:
            continue
        if not isinstance(v, bool):
            raise ValidationError(f"{name} must be a boolean", param=name)
        setattr(out, name, v)
    return out


def _account(s: Split) -> str:
    return sl.BALANCE if s.status == "released" else sl.HELD


def largest_remainder(total: int, weights: list[int]) -> list[int]:
    """`total` split in proportion to `weights`: floors, then the units left to the largest remainders
    (ties: the first)."""
    whole = sum(weights)
    if whole <= 0:
        return [0] * len(weights)
    exact = [Decimal(total) * w / whole for w in weights]
    shares = [int(x) for x in exact]
    left = total - sum(shares)
    for i in sorted(range(len(weights)), key=lambda i: (-(exact[i] - shares[i]), i))[:left]:
        shares[i] += 1
    return shares


async def on_refund(*, payment_id: str, payment_amount: int, refunded_before: int, refund_amount: int,
                    refund_id: str, opts: Options, now: datetime) -> list[dict]:
    """Inside the refund's transaction, before the provider's refund: each line's part of the
    refund, the seller's reversal and the fee's share (`split_reversals`)."""
    splits = await Split.filter(payment_id=payment_id).select_for_update().order_by("position")
    splits = [s for s in splits if s.status in ("held", "released")]
    if opts.split is not None:
        line = next((s for s in splits if s.id == opts.split), None)
        if line is None:
            raise ValidationError("split is not a captured split line of this payment", param="split",
                                  code="resource_missing")
        left = line.line_amount - line.amount_refunded
        if refund_amount > left:
            raise ValidationError(f"amount must not exceed what is left of the split line ({left})", param="amount",
                                  code="amount_too_large")
        parts = [(line, refund_amount)]
    elif not splits:
        return []
    else:
        # what is left of each line and of the platform's rest, weighed
        rest_left = (payment_amount - sum(s.line_amount for s in splits)
                     - (refunded_before - sum(s.amount_refunded for s in splits)))
        shares = largest_remainder(refund_amount, [s.line_amount - s.amount_refunded for s in splits]
                                   + [max(rest_left, 0)])
        parts = []
        for s, r in zip(splits, shares):
            r = min(r, s.line_amount - s.amount_refunded)
            parts.append((s, r))
    out: list[dict] = []
    rows: list = []
    for s, r in parts:
        if r <= 0:
            continue
        finishing = s.amount_refunded + r >= s.line_amount
        f = s.fee - s.fee_refunded if finishing else half_up(Decimal(r) * s.fee / s.line_amount)
        reversed_ = r if opts.reverse_split else 0
        fee_back = f if opts.reverse_split and opts.refund_platform_fee else 0
        account = _account(s)
        if reversed_:
            rows += sl.rows(merchant_id=s.merchant_id, livemode=s.livemode, sub_merchant_id=s.sub_merchant_id,
                            currency=s.currency, kind="reversal", legs=[(account, reversed_), (sl.PLATFORM, -reversed_)],
                            split_id=s.id, payment_id=s.payment_id, refund_id=refund_id, line_amount=-r,
                            available_on=s.available_on)
        if fee_back:
            rows += sl.rows(merchant_id=s.merchant_id, livemode=s.livemode, sub_merchant_id=s.sub_merchant_id,
                            currency=s.currency, kind="fee_refund", legs=[(sl.PLATFORM, fee_back), (account, -fee_back)],
                            split_id=s.id, payment_id=s.payment_id, refund_id=refund_id, fee=-fee_back,
                            available_on=s.available_on)
        s.amount_refunded += r
        s.amount_reversed += reversed_
        s.fee_refunded += fee_back
        s.updated_at = now
        await Split.filter(id=s.id).update(amount_refunded=s.amount_refunded, amount_reversed=s.amount_reversed,
                                           fee_refunded=s.fee_refunded, updated_at=now)
        out.append({"split": s.id, "amount": r, "amount_reversed": reversed_, "fee_refunded": fee_back})
    if rows:
        await lookup.insert_all(rows)
    return out


# ---------------------------------------------------------------- disputes

async def on_dispute(*, merchant_id: str, livemode: bool, payment_id: str, payment_amount: int, disputed: int,
                     now: datetime) -> None:
    """Inside the dispute's opening: each seller's debit by the platform's dispute policy."""
    settings = await mk_settings.settings_of(merchant_id, livemode)
    policy = settings.dispute_policy if settings else "platform"
    if policy == "platform" or payment_amount <= 0:
        return
    splits = [s for s in await Split.filter(payment_id=payment_id).select_for_update().order_by("position")
              if s.status in ("held", "released")]
    rows: list = []
    for s in splits:
        base = s.line_amount if policy == "seller" else s.amount
        d = half_up(Decimal(disputed) * base / payment_amount)
        if d <= 0:
            continue
        rows += sl.rows(merchant_id=s.merchant_id, livemode=s.livemode, sub_merchant_id=s.sub_merchant_id,
                        currency=s.currency, kind="dispute", legs=[(_account(s), d), (sl.PLATFORM, -d)],
                        split_id=s.id, payment_id=s.payment_id, line_amount=-d, available_on=s.available_on)
        await Split.filter(id=s.id).update(amount_disputed=s.amount_disputed + d, updated_at=now)
    if rows:
        await lookup.insert_all(rows)


async def on_dispute_won(*, payment_id: str, now: datetime) -> None:
    """The dispute was won: the sellers' debits come back (`amount_disputed` stays: what was disputed)."""
    for s in await Split.filter(payment_id=payment_id, amount_disputed__gt=0).select_for_update():
        d = s.amount_disputed
        await lookup.insert_all(sl.rows(merchant_id=s.merchant_id, livemode=s.livemode,
                                        sub_merchant_id=s.sub_merchant_id, currency=s.currency, kind="dispute_won",
                                        legs=[(sl.PLATFORM, d), (_account(s), -d)], split_id=s.id,
                                        payment_id=s.payment_id, line_amount=d, available_on=s.available_on))
