"""Installments (taksit) for Turkish credit cards: the BIN table (bank, program, credit or
debit), the merchant's plans per program, the options a card gets for an amount, and the
installment terms of a payment.

Arithmetic (minor units, one rounding): commission = amount x bps / 10,000, half-up; when the
customer pays it, total_amount = amount + commission, else total_amount = amount. The
installments add up exactly to total_amount: each is total_amount // count, except the first,
which also carries the remainder. A count whose (equal) installment would be under 1 TRY is
not offered. Only TRY credit cards of a program get counts above 1; other currencies, debit,
prepaid and foreign cards get count 1 only.

Used by services.payments.payments (`/api`), services.payments.intents (`/v1`), the hosted
checkout, and the REST and GraphQL adapters.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace
from datetime import timedelta
from decimal import Decimal
from typing import Any

from models import _lookup as lookup
from models.installments import InstallmentPlanSet
from models.intents import PaymentIntent
from models.payments import Payment
from services.errors import ValidationError
from services.money import markets
from services.money.ledger import MERCHANT_BALANCE, PROVIDER_RECEIVABLE, Leg
from services.infra.runtime import runtime
from services.money.currencies import check_amount, check_currency, round_minor
from services.payments import card_bins, cards
from services.principal import Principal
from services.validation import MAX_INT, Fields, check_int, one_of

INSTALLMENT_CURRENCY = "TRY"
MIN_INSTALLMENT = 100                  # 1 TRY in kuruş: no installment below it
MIN_COUNT, MAX_COUNT = 2, 12
MAX_BPS = 5000                         # 50%: anything above is a typo
PAID_BY = ("customer", "merchant")
CARD_TYPES = card_bins.CARD_TYPES       # credit | debit | prepaid
_BIN = re.compile(r"\d{6}(\d{2})?")

# The shipped plans: every program, 2-12 months, the customer pays the bank's commission.
_DEFAULT_RATES = {2: 250, 3: 375, 6: 700, 9: 1000, 12: 1300}


@dataclass(frozen=True)
class Issuer:
    """What a BIN says: the issuing bank, its installment program (None: none) and credit or debit."""
    bank: str
    program: str | None
    card_type: str

    def as_dict(self) -> dict:
        return {"bank": self.bank, "program": self.program, "card_type": self.card_type}


# ---------------------------------------------------------------- the BIN table (package data, loaded once)

@functools.cache
def bin_table() -> dict[str, Issuer]:
    """BIN (6 or 8 digits) -> Issuer, from the Turkish BIN table (services.payments.card_bins)."""
    return {b: Issuer(bank=r.bank, program=r.program, card_type=r.card_type) for b, r in card_bins.tr_table().items()}


@functools.cache
def programs() -> tuple[str, ...]:
    """Every installment program of the BIN table, in table order."""
    return tuple(dict.fromkeys(i.program for i in bin_table().values() if i.program))


def issuer_of(digits: str | None) -> Issuer | None:
    """The issuer of a card number or BIN: the 8-digit prefix first, then the 6-digit one."""
    if not digits:
        return None
    row = card_bins.tr_row(digits)
    return Issuer(bank=row.bank, program=row.program, card_type=row.card_type) if row else None


def check_bin(value: Any, param: str = "bin") -> str:
    if not isinstance(value, str) or not _BIN.fullmatch(value):
        raise ValidationError(f"{param} must be the first 6 or 8 digits of the card number", param=param)
    return value


# ---------------------------------------------------------------- the merchant's plans

def default_plans() -> list[dict]:
    return [{"program": p, "paid_by": "customer",
             "options": [{"count": c, "commission_bps": bps} for c, bps in _DEFAULT_RATES.items()]}
            for p in programs()]


def _plan_id(principal: Principal) -> str:
    return f"{principal.merchant_id}:{principal.mode}"


async def get_plans(*, principal: Principal) -> list[dict]:
    """The merchant's plans in this mode (the shipped defaults until replaced)."""
    row = await lookup.first(InstallmentPlanSet, id=_plan_id(principal))
    return row.plans if row is not None else default_plans()


def parse_plans(data: Any) -> list[dict]:
    """`{"plans": [{program, paid_by, options: [{count, commission_bps}]}]}`; every bad value is a
    400 naming its field (`plans[0].options[1].count`). An empty list turns installments off."""
    f = Fields(data)
    raw = f.list("plans", required=True, max_items=len(programs()))
    f.reject_unknown()
    out: list[dict] = []
    for i, entry in enumerate(raw):
        pf = Fields(entry, f"plans[{i}]")
        program = pf.enum("program", programs(), required=True)
        if any(p["program"] == program for p in out):
            raise ValidationError(f"plans[{i}].program {program} appears twice", param=f"plans[{i}].program",
                                  code="duplicate_program")
        paid_by = pf.enum("paid_by", PAID_BY, default="customer")
        options = pf.list("options", required=True, min_items=1, max_items=MAX_COUNT - MIN_COUNT + 1)
        pf.reject_unknown()
        seen: dict[int, int] = {}
        for j, opt in enumerate(options):
            of = Fields(opt, f"plans[{i}].options[{j}]")
            count = of.int("count", required=True, min=MIN_COUNT, max=MAX_COUNT)
            bps = of.int("commission_bps", required=True, min=0, max=MAX_BPS)
            of.reject_unknown()
            if count in seen:
                raise ValidationError(f"plans[{i}].options[{j}].count {count} appears twice",
                                      param=f"plans[{i}].options[{j}].count", code="duplicate_count")
            seen[count] = bps
        out.append({"program": program, "paid_by": paid_by,
                    "options": [{"count": c, "commission_bps": seen[c]} for c in sorted(seen)]})
    return out


async def replace_plans(*, principal: Principal, data: Any) -> list[dict]:
    """Replace the merchant's plans in this mode (one statement: concurrent writers, last wins)."""
    plans = parse_plans(data)
    now = runtime().clock.now()
    m = InstallmentPlanSet
    await lookup.execute(
        m, 'INSERT INTO "installment_plans" ("id", "merchant_id", "livemode", "plans", "updated_at") '
           'VALUES ({}, {}, {}, {}, {}) ON CONFLICT ("id") DO UPDATE SET "plans" = EXCLUDED."plans", '
           '"updated_at" = EXCLUDED."updated_at"',
        [_plan_id(principal), principal.merchant_id, lookup.db_value(m, "livemode", principal.livemode),
         lookup.db_value(m, "plans", plans), lookup.db_value(m, "updated_at", now)])
    return plans


# ---------------------------------------------------------------- options

def split(total: int, count: int) -> tuple[int, int]:
    """(first, each): `count - 1` equal installments of `each`, the first carries the remainder."""
    each = total // count
    return total - each * (count - 1), each


def _option(amount: int, count: int, bps: int, paid_by: str | None) -> dict:
    commission = round_minor(Decimal(amount) * bps / 10_000) if count > 1 else 0
    total = amount + commission if paid_by == "customer" else amount
    first, each = split(total, count)
    return {"count": count, "installment_amount": each, "first_installment_amount": first,
            "total_amount": total, "commission": commission, "paid_by": paid_by if count > 1 else None}


@dataclass(frozen=True)
class Options:
    issuer: Issuer | None
    amount: int
    currency: str
    options: list[dict]
    brand: str | None = None                 # what the BIN says (services.payments.cards.identify)
    networks: tuple[str, ...] = ()

    @property
    def counts(self) -> list[int]:
        return [o["count"] for o in self.options]

    def of(self, count: int) -> dict | None:
        return next((o for o in self.options if o["count"] == count), None)

    def as_dict(self) -> dict:
        i = self.issuer
        return {"object": "installment_options", "brand": self.brand, "networks": list(self.networks),
                "bank": i.bank if i else None, "program": i.program if i else None,
                "card_type": i.card_type if i else None, "amount": self.amount, "currency": self.currency,
                "options": self.options}


def options_for(issuer: Issuer | None, amount: int, currency: str, plans: list[dict]) -> Options:
    """The counts a card of `issuer` gets for `amount` under `plans`: count 1 always; more only
    for a TRY credit card whose program the plans offer, while the installment is 1 TRY or more."""
    out = [_option(amount, 1, 0, None)]
    if currency == INSTALLMENT_CURRENCY and issuer is not None and issuer.card_type == "credit" and issuer.program:
        plan = next((p for p in plans if p["program"] == issuer.program), None)
        for o in (plan or {}).get("options", []):
            opt = _option(amount, o["count"], o["commission_bps"], plan["paid_by"])
            if opt["installment_amount"] >= MIN_INSTALLMENT:
                out.append(opt)
    return Options(issuer=issuer, amount=amount, currency=currency, options=out)


async def installment_options(*, principal: Principal, bin: Any, amount: Any, currency: Any) -> Options:
    """`GET /v1/installments` and GraphQL `installmentOptions` (secret or publishable key)."""
    digits = check_bin(bin)
    cur = check_currency(currency.upper() if isinstance(currency, str) else currency)
    if isinstance(amount, str):
        if not amount.strip().isdigit():
            raise ValidationError("amount must be an integer in minor units", param="amount")
        amount = int(amount)
    try:
        value = check_amount(amount, cur)
    except ValidationError as e:        # the currency's limits: its own code (the schema cannot pair them)
        raise ValidationError(e.message, param="amount", code="amount_out_of_range") from None
    opts = options_for(issuer_of(digits), value, cur, await get_plans(principal=principal))
    brand, networks, _ = cards.identify(digits)
    return replace(opts, brand=brand if brand != "unknown" else None, networks=tuple(networks))


# ---------------------------------------------------------------- paying in installments

def check_count(value: Any, param: str = "installments") -> int | None:
    """The `installments` field as given: None (not given) or an integer. Whether the count is
    offered (1 always; more by the card, the plan and the amount) is `terms`' question, so every
    count refused is refused the same way, listing the valid ones."""
    if value is None:
        return None
    return check_int(value, param, min=-MAX_INT, max=MAX_INT)


def asks(count: int | None) -> bool:
    """A count other than 1 was given: something to check (1 and none are a payment in one go)."""
    return count is not None and count != 1


def refuse(opts: Options, param: str = "installments") -> ValidationError:
    """The one refusal of a count, whatever the reason (above the most, not in the plan, an
    installment under 1 TRY, another currency, a debit or foreign card): the valid counts for
    this card and amount, in the form of every refused value of a closed set."""
    return one_of(param, [str(c) for c in opts.counts], code="invalid_installments")


def offered_to_any(amount: int, currency: str, plans: list[dict]) -> Options:
    """Before the card is known (an intent's create): the counts some card could get for this
    amount under the merchant's plans (1 always)."""
    counts: dict[int, dict] = {1: _option(amount, 1, 0, None)}
    for program in programs():
        for o in options_for(Issuer(bank="", program=program, card_type="credit"), amount, currency, plans).options:
            counts.setdefault(o["count"], o)
    return Options(issuer=None, amount=amount, currency=currency, options=[counts[c] for c in sorted(counts)])


def terms(count: int | None, opts: Options, param: str = "installments") -> dict | None:
    """The installment terms of a payment paying `count` installments (None: in one go), or a 400
    naming `installments` that lists the valid counts."""
    if not asks(count):
        return None
    o = opts.of(count)
    if o is None:
        raise refuse(opts, param)
    return {**o, "program": opts.issuer.program, "bank": opts.issuer.bank}


async def terms_for_card(*, principal: Principal, issuer: Issuer | None, amount: int, currency: str,
                         count: int | None, param: str = "installments") -> dict | None:
    """`terms` with the merchant's plans read only when a count other than 1 was asked for."""
    if not asks(count):
        return None
    return terms(count, options_for(issuer, amount, currency, await get_plans(principal=principal)), param)


async def check_requested(*, principal: Principal, count: int | None, amount: int, currency: str,
                          param: str = "installments") -> None:
    """Before the card is known (an intent's create): a count no card could get for this amount
    (another currency than TRY: only 1) is refused at once, listing the counts some card gets."""
    if not asks(count):
        return
    plans = await get_plans(principal=principal) if currency == INSTALLMENT_CURRENCY else []
    opts = offered_to_any(amount, currency, plans)
    if opts.of(count) is None:
        raise refuse(opts, param)


def charged(amount: int, t: dict | None) -> int:
    """What the card is charged: total_amount when paid in installments (terms known)."""
    return t["total_amount"] if t and t.get("total_amount") is not None else amount


def merchant_commission(t: dict | None) -> int:
    """The commission that comes out of the merchant's balance (merchant-paid plans)."""
    return t["commission"] if t and t.get("paid_by") == "merchant" else 0


def issuer_from(stored: dict | None) -> Issuer | None:
    """The Issuer kept on a tokenized card (models.intents.PaymentMethod.issuer)."""
    return Issuer(**stored) if stored else None


FIELDS = ("count", "installment_amount", "first_installment_amount", "total_amount", "commission", "paid_by",
          "program", "bank")


def as_object(t: dict | None) -> dict | None:
    """The `installments` object of a payment or intent: every field present (null until known:
    an intent asked for a count before its card)."""
    if not t:
        return None
    return {k: t.get(k) for k in FIELDS}


# ---------------------------------------------------------------- the ledger

COMMISSION_ACCOUNT = "installment_commission"     # what the issuing bank keeps for financing the installments
COMMISSION_KIND = "commission"                     # a ledger kind (at most 20 characters)


def commission_legs(t: dict | None, *, refund: bool = False) -> list[Leg]:
    """The commission's own ledger transaction: paid by the customer, it is part of what the
    provider owes (provider_receivable) and goes to the bank; paid by the merchant, it comes out
    of the merchant's balance (its own balance line). A full refund reverses it."""
    if not t or not t.get("commission"):
        return []
    c = t["commission"]
    source = PROVIDER_RECEIVABLE if t["paid_by"] == "customer" else MERCHANT_BALANCE
    legs = [Leg(source, c), Leg(COMMISSION_ACCOUNT, -c)]
    return [Leg(leg.account, -leg.amount) for leg in legs] if refund else legs


def check_refund(p: Any, amount: int, remaining: int) -> None:
    """An installment payment is refunded in full or not at all: the banks' pro-rata rule for a
    partial return of an installment purchase is not implemented (README, docs/decisions.md)."""
    if amount != remaining:
        raise ValidationError(f"A payment in {p.installments['count']} installments can only be refunded in full: "
                              f"refund {remaining} (its total_amount) or leave amount out; partial refunds of "
                              f"installment payments are not supported", param="amount",
                              code="installment_partial_refund")


# ---------------------------------------------------------------- analytics by count

_BY_COUNT = {
    # (table, the approved statuses, the time of the approval, what the card was charged)
    "payments": ("('succeeded', 'captured', 'refunded', 'disputed')", "created_at", "amount_captured"),
    "payment_intents": ("('succeeded', 'refunded')", "succeeded_at", "amount_received"),
}


async def analytics_by_count(*, principal: Principal, w: Any) -> dict:
    """Approved card payments of the window (services.money.analytics.window: local days, one
    currency) grouped by installment count, `/api` payments and `/v1` intents together:
    `payments`, `volume` (the amounts) and `charged` (what the cards were charged: volume plus
    the commissions customers paid). Reads the payments of the window (an index range)."""
    market = await markets.market_of(principal.merchant_id)
    start, end = markets.day_start(market, w.start), markets.day_start(market, w.end + timedelta(days=1))
    by: dict[int, dict] = {}
    for model in (Payment, PaymentIntent):
        table = model._meta.db_table
        statuses, at, charged_col = _BY_COUNT[table]
        rows = await lookup.query(
            model, f'SELECT COALESCE("installment_count", 1) AS "count", COUNT(*) AS "n", SUM("amount") AS "volume", '
                   f'SUM("{charged_col}") AS "charged" FROM "{table}" WHERE "merchant_id" = {{}} AND "livemode" = {{}} '
                   f'AND "currency" = {{}} AND "status" IN {statuses} AND "{at}" >= {{}} AND "{at}" < {{}} '
                   f'GROUP BY COALESCE("installment_count", 1)',
            [principal.merchant_id, lookup.db_value(model, "livemode", principal.livemode), w.currency,
             lookup.db_value(model, at, start), lookup.db_value(model, at, end)])
        for r in rows:
            e = by.setdefault(int(r["count"]), {"count": int(r["count"]), "payments": 0, "volume": 0, "charged": 0})
            e["payments"] += int(r["n"] or 0)
            e["volume"] += int(r["volume"] or 0)
            e["charged"] += int(r["charged"] or 0)
    return {"object": "installment_analytics", "currency": w.currency, "period": w.label,
            "from": w.start.isoformat(), "to": w.end.isoformat(), "data": [by[c] for c in sorted(by)]}


async def terms_of(payment_id: str) -> dict | None:
    """The installment terms of a payment or an intent (for its success page and receipt)."""
    if not isinstance(payment_id, str):
        return None
    for model in (Payment, PaymentIntent):
        found = await model.filter(id=payment_id).values_list("installments", flat=True)
        if found:
            return found[0]
    return None
