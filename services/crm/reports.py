"""CRM reports: won revenue and the open pipeline normalised to a target currency through the
company's configured exchange rates (else the reference rates it ships: the dollar pegs), and the
rates themselves (an admin sets them).

Amounts are converted exactly with Decimal and rounded once, half-up, to the target currency's
minor unit (KWD and IQD: 3 decimals). An amount in a currency with no rate to the target is not
an error: it is reported in its own currency under `unconverted`, the pair under `missing_rates`."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from tortoise.exceptions import IntegrityError
from tortoise.functions import Count, Sum

from models.crm import Company, Deal, ExchangeRate
from services.crm.accounts import CrmPrincipal
from services.crm.currency import check_currency, exponent, reference_rate, reference_rates
from services.crm.customers import _scope
from services.crm.deals import OPEN_STAGES
from services.errors import ValidationError
from services.ids import new_id
from services.infra.runtime import runtime
from services.validation import Fields, check_datetime

MAX_RATE = Decimal("1000000000")


@dataclass
class RateUsed:
    base: str
    quote: str
    rate: str
    rate_date: date | None
    inverse: bool          # the configured rate is quote->base and was inverted
    source: str = "company"  # company: a configured rate | reference: the default peg (via USD)


@dataclass
class CurrencyPart:
    currency: str
    amount: int            # minor units of `currency`
    deal_count: int
    rate: str
    rate_date: date | None
    inverse: bool
    converted_decimal: str  # exact, before the one final rounding
    source: str = "company"  # company | reference | same (the target currency itself)


@dataclass
class MissingRate:
    base: str              # the amounts' currency
    quote: str             # the target currency


@dataclass
class Unconverted:
    """Amounts of one currency that have no rate to the target: in their own minor units."""
    currency: str
    deal_count: int
    amount: int            # revenue: the won value; pipeline: the open value
    weighted_amount: int | None = None   # pipeline only: value x probability, rounded once


@dataclass
class Revenue:
    currency: str
    total: int             # minor units of the target currency (converted parts only)
    total_decimal: str
    deal_count: int
    by_currency: list[CurrencyPart]
    unconverted: list[Unconverted] = field(default_factory=list)
    missing_rates: list[MissingRate] = field(default_factory=list)


@dataclass
class StageLine:
    stage: str
    count: int             # every open deal of the stage, converted or not
    value: int             # the converted deals only, in the target currency
    weighted_value: int
    unconverted: list[Unconverted] = field(default_factory=list)   # the stage's deals with no rate, per currency


@dataclass
class Pipeline:
    currency: str
    stages: list[StageLine]
    count: int
    value: int
    weighted_value: int
    rates_used: list[RateUsed] = field(default_factory=list)
    unconverted: list[Unconverted] = field(default_factory=list)
    missing_rates: list[MissingRate] = field(default_factory=list)


@dataclass
class ListedRate:
    """A rate of GET /api/reports/rates: one the company set (`source` company: id, rate_date,
    updated_at) or a reference rate the service ships (`source` reference: none of those)."""
    id: str | None
    base: str
    quote: str
    rate: str
    rate_date: date | None
    updated_at: datetime | None
    source: str


def _major(amount: int, currency: str) -> Decimal:
    return Decimal(amount).scaleb(-exponent(currency))


def _round_minor(value: Decimal, currency: str) -> tuple[int, str]:
    """The one rounding: half-up to the currency's minor unit; (minor units, decimal text)."""
    q = value.quantize(Decimal(1).scaleb(-exponent(currency)), rounding=ROUND_HALF_UP)
    return int(q.scaleb(exponent(currency))), format(q, "f")


class Rates:
    """The company's rates, newest rate date first; a pair is used directly or inverted."""

    def __init__(self, rows: list[ExchangeRate]):
        self.rows = rows

    def find(self, base: str, quote: str) -> tuple[Decimal, RateUsed] | None:
        """1 base = x quote and how it was found; None when no rate joins the two."""
        if base == quote:
            return Decimal(1), RateUsed(base, quote, "1", None, False, source="same")
        for r in self.rows:        # rows are ordered newest date first
            if r.base == base and r.quote == quote:
                return Decimal(r.rate), RateUsed(base, quote, r.rate, r.rate_date, False)
            if r.base == quote and r.quote == base:
                return Decimal(1) / Decimal(r.rate), RateUsed(r.base, r.quote, r.rate, r.rate_date, True)
        ref = reference_rate(base, quote)
        if ref is not None:        # no configured rate: the default reference rate (pegs, through USD)
            return ref, RateUsed(base, quote, format(ref.normalize(), "f"), None, False, source="reference")
        return None


async def _rates(company_id: str, on: date | None = None) -> Rates:
    qs = ExchangeRate.filter(company_id=company_id)
    if on is not None:
        qs = qs.filter(rate_date__lte=on)
    return Rates(await qs.order_by("-rate_date", "base", "quote"))


async def rate_on(*, company_id: str | None, base: str, quote: str, on: date) -> tuple[Decimal, RateUsed] | None:
    """1 `base` = x `quote` on day `on`, found as the reports find it: the company's newest rate dated
    on or before `on` (direct, or inverted), else the reference rates; without a company, the
    reference rates only; None when nothing joins the two. (A merchant's foreign-currency ETA
    invoices take their EGP rate here: services.einvoicing.eta.documents.)"""
    return (await _rates(company_id, on) if company_id else Rates([])).find(base, quote)


async def _target(principal: CrmPrincipal, query: dict) -> str:
    if query.get("currency"):
        return check_currency(query["currency"].upper(), "currency")
    company = await Company.get(id=principal.company_id)
    return company.currency


def _when(query: dict, key: str):
    v = query.get(key)
    if not v:
        return None
    return check_datetime(int(v) if v.isdigit() else v, key)


async def revenue(*, principal: CrmPrincipal, query: dict) -> Revenue:
    """Won deals (optionally won_at within from..to) in `currency`, the company's by default."""
    scope = _scope(principal)
    target = await _target(principal, query)
    qs = Deal.filter(stage="won", **scope)
    start, end = _when(query, "from"), _when(query, "to")
    if start:
        qs = qs.filter(won_at__gte=start)
    if end:
        qs = qs.filter(won_at__lte=end)
    rows = await qs.annotate(total=Sum("value"), n=Count("id")).group_by("currency").values("currency", "total", "n")
    rates = await _rates(principal.company_id)
    total = Decimal(0)
    parts, count, unconverted = [], 0, []
    for r in sorted(rows, key=lambda r: r["currency"]):
        amount = int(r["total"] or 0)
        found = rates.find(r["currency"], target)
        if found is None:
            unconverted.append(Unconverted(currency=r["currency"], deal_count=r["n"], amount=amount))
            continue
        rate, used = found
        converted = _major(amount, r["currency"]) * rate
        total += converted
        count += r["n"]
        parts.append(CurrencyPart(currency=r["currency"], amount=amount, deal_count=r["n"], rate=used.rate,
                                  rate_date=used.rate_date, inverse=used.inverse,
                                  converted_decimal=format(converted.normalize(), "f") if converted else "0",
                                  source=used.source))
    minor, text = _round_minor(total, target)
    return Revenue(currency=target, total=minor, total_decimal=text, deal_count=count, by_currency=parts,
                   unconverted=unconverted, missing_rates=[MissingRate(u.currency, target) for u in unconverted])


async def pipeline(*, principal: CrmPrincipal, query: dict) -> Pipeline:
    """The open funnel per stage: count, value and value weighted by probability, in `currency`.
    Every open deal counts in its stage; one whose currency has no rate to the target is not in
    the stage's value but under the stage's `unconverted` (per currency, in its own minor units),
    and under the report's `unconverted` and `missing_rates` as in the revenue report."""
    scope = _scope(principal)
    target = await _target(principal, query)
    deals = await Deal.filter(stage__in=OPEN_STAGES, **scope).values("stage", "value", "currency", "probability")
    rates = await _rates(principal.company_id)
    sums = {s: [0, Decimal(0), Decimal(0)] for s in OPEN_STAGES}
    used: dict[tuple, RateUsed] = {}
    # (stage, currency) -> [count, value, weighted value] in the currency's own units
    missing: dict[tuple[str, str], list] = {}
    for d in deals:
        line = sums[d["stage"]]
        line[0] += 1
        found = rates.find(d["currency"], target)
        if found is None:
            m = missing.setdefault((d["stage"], d["currency"]), [0, 0, Decimal(0)])
            m[0] += 1
            m[1] += d["value"]
            m[2] += _major(d["value"], d["currency"]) * Decimal(d["probability"]) / 100
            continue
        rate, u = found
        if d["currency"] != target:
            used[(u.base, u.quote, u.rate_date)] = u
        v = _major(d["value"], d["currency"]) * rate
        line[1] += v
        line[2] += v * Decimal(d["probability"]) / 100

    def unconverted_of(parts: dict[str, list]) -> list[Unconverted]:
        return [Unconverted(currency=c, deal_count=n, amount=v, weighted_amount=_round_minor(w, c)[0])
                for c, (n, v, w) in sorted(parts.items())]

    stages = []
    by_currency: dict[str, list] = {}
    for s in OPEN_STAGES:
        n, v, w = sums[s]
        own = {c: m for (st, c), m in missing.items() if st == s}
        for c, (mn, mv, mw) in own.items():
            t = by_currency.setdefault(c, [0, 0, Decimal(0)])
            t[0], t[1], t[2] = t[0] + mn, t[1] + mv, t[2] + mw
        stages.append(StageLine(stage=s, count=n, value=_round_minor(v, target)[0],
                                weighted_value=_round_minor(w, target)[0], unconverted=unconverted_of(own)))
    all_v = sum((x[1] for x in sums.values()), Decimal(0))
    all_w = sum((x[2] for x in sums.values()), Decimal(0))
    unconverted = unconverted_of(by_currency)
    return Pipeline(currency=target, stages=stages, count=sum(x[0] for x in sums.values()),
                    value=_round_minor(all_v, target)[0], weighted_value=_round_minor(all_w, target)[0],
                    rates_used=list(used.values()), unconverted=unconverted,
                    missing_rates=[MissingRate(u.currency, target) for u in unconverted])


async def list_rates(*, principal: CrmPrincipal) -> list[ListedRate]:
    """The company's own rates (by pair, newest date first), then the reference rates the service
    ships (USD to each pegged currency), which the reports use for a pair the company did not set."""
    rows = await ExchangeRate.filter(**_scope(principal)).order_by("base", "quote", "-rate_date")
    return ([ListedRate(id=r.id, base=r.base, quote=r.quote, rate=r.rate, rate_date=r.rate_date,
                        updated_at=r.updated_at, source="company") for r in rows]
            + [ListedRate(id=None, base=base, quote=quote, rate=format(rate.normalize(), "f"), rate_date=None,
                          updated_at=None, source="reference") for base, quote, rate in reference_rates()])


def check_rate_value(v) -> Decimal:
    if isinstance(v, bool) or not isinstance(v, (str, int, float)):
        raise ValidationError("rate must be a positive decimal, e.g. \"0.0095\"", param="rate")
    try:
        d = Decimal(str(v).strip())
    except InvalidOperation:
        raise ValidationError("rate must be a positive decimal, e.g. \"0.0095\"", param="rate") from None
    if isinstance(v, float) and d.is_finite():     # a JSON number is binary: its 13th decimal on is noise
        d = d.quantize(Decimal("1e-12"), rounding=ROUND_HALF_UP).normalize()
    if not d.is_finite() or d <= 0 or d > MAX_RATE or d.as_tuple().exponent < -12:
        raise ValidationError("rate must be a positive decimal up to 10^9 with at most 12 decimals", param="rate")
    return d


async def set_rate(*, principal: CrmPrincipal, data: dict) -> ExchangeRate:
    """Admin only: 1 `base` = `rate` `quote` on `rate_date` (today by default); setting the same
    pair and date again replaces the rate."""
    scope = _scope(principal)
    principal.require_admin()
    f = Fields(data)
    base = check_currency((f.str("base", required=True, max_len=3) or "").upper(), "base")
    quote = check_currency((f.str("quote", required=True, max_len=3) or "").upper(), "quote")
    f.seen.add("rate")
    if data.get("rate") is None:
        raise ValidationError("rate is required", param="rate")
    rate = check_rate_value(data["rate"])
    rate_date = f.date("rate_date", default=None)
    f.reject_unknown()
    if base == quote:
        raise ValidationError("base and quote must differ", param="quote")
    now = runtime().clock.now()
    rate_date = rate_date or now.date()
    text = format(rate.normalize(), "f")
    row = await ExchangeRate.get_or_none(base=base, quote=quote, rate_date=rate_date, **scope)
    if row is None:
        try:
            return await ExchangeRate.create(id=new_id("rate"), base=base, quote=quote, rate=text,
                                             rate_date=rate_date, created_at=now, updated_at=now, **scope)
        except IntegrityError:
            row = await ExchangeRate.get(base=base, quote=quote, rate_date=rate_date, **scope)
    row.rate, row.updated_at = text, now
    await row.save(update_fields=["rate", "updated_at"])
    return row
