"""Analytics from daily rollups (models.money.PaymentRollup / LatencyRollup), per merchant,
mode, merchant-local day, currency and provider, added to in the same atomic write as the
payment change (services.payments). Each is spread over at most COUNTER_SLOTS rows (the slot
from the payment's id, models._rows.counter_slot: concurrent payments do not queue on one row),
which every read sums: a read sums at most (days x providers x slots) rows, whatever the number
of payments.

Definitions (also in the GraphQL descriptions and the README):
- `transactions`: payment attempts -- every payment created, succeeded, declined or failed.
- `volume`: the sum of approved amounts (succeeded, or authorized with capture: false).
- `approval_rate`: approved / attempts x 100, in percent, 2 decimals (0 without attempts).
- revenue: captured minus refunded, by the merchant's local day of the capture or refund;
  `by_day` has one entry per local day of the period, zero-filled, oldest first.
- providers: `volume` of the payments each provider approved; `approval_rate` = its approved
  authorizations / its authorizations (cascade steps included); `latency` = the median of its
  authorization times in ms (exact under 100 ms, then to 10 ms under 2 s, 100 ms under 10 s).
"""
from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from models import _lookup as lookup
from models._rows import counter_slot, new
from models.money import LatencyRollup, PaymentRollup
from services.money import markets
from services.errors import ValidationError
from services.validation import one_of
from services.money.currencies import CURRENCIES
from services.principal import Principal
from services.infra import clock

PERIODS = {"7d": 7, "30d": 30, "90d": 90}
DEFAULT_PERIOD = "30d"
MAX_DAYS = 366
HOME_CURRENCY = {"TR": "TRY", "SA": "SAR", "AE": "AED", "KW": "KWD", "QA": "QAR", "EG": "EGP", "IQ": "IQD"}


def bucket(ms: int) -> int:
    """The latency bucket of an authorization time (its lower bound, in ms)."""
    ms = max(0, int(ms))
    if ms < 100:
        return ms
    if ms < 2000:
        return ms - ms % 10
    if ms < 10_000:
        return ms - ms % 100
    return min(ms - ms % 1000, 3_600_000)


# ---------------------------------------------------------------- rollup rows (written with the change)

def _rollup(p, day: date, provider: str | None, **counts: int) -> PaymentRollup:
    base = {c: 0 for c in PaymentRollup.UPSERT_ADD}
    return new(PaymentRollup, merchant_id=p.merchant_id, livemode=p.livemode, day=day, currency=p.currency,
               provider=provider or "", slot=counter_slot(p.id), **{**base, **counts})


def payment_rows(p, attempts, market: str) -> list:
    """The rollup rows a new payment adds: one attempt to pay (approved or not) under its final
    provider, each authorization under its provider, and the captured amount if captured at once."""
    day = markets.local_date(market, p.created_at)
    approved = p.status in ("succeeded", "authorized")
    rows: list = [_rollup(p, day, p.provider, payments=1, approved=int(approved),
                          volume=p.amount if approved else 0,
                          captured=p.amount_captured if p.status == "succeeded" else 0)]
    for a in attempts:
        rows.append(_rollup(p, day, a.provider, tries=1, tries_approved=int(a.outcome == "approved")))
        rows.append(new(LatencyRollup, merchant_id=p.merchant_id, livemode=p.livemode, day=day, currency=p.currency,
                        provider=a.provider, bucket=bucket(a.latency_ms), count=1, slot=counter_slot(p.id)))
    return rows


def intent_rows(intent, market: str, when: datetime, *, approved: bool, attempts=()) -> list:
    """The rollup rows of a /v1 payment intent that succeeded or failed at `when` (its confirm,
    a 3-D Secure outcome, a crypto or cash-on-delivery settlement): one attempt to pay, captured
    at once when approved, and each card authorization under its provider."""
    day = markets.local_date(market, when)
    rows: list = [_rollup(intent, day, intent.provider, payments=1, approved=int(approved),
                          volume=intent.amount if approved else 0, captured=intent.amount if approved else 0)]
    for a in attempts:
        rows.append(_rollup(intent, day, a.provider, tries=1, tries_approved=int(a.result.outcome == "approved")))
        rows.append(new(LatencyRollup, merchant_id=intent.merchant_id, livemode=intent.livemode, day=day,
                        currency=intent.currency, provider=a.provider,
                        bucket=bucket(a.result.latency_ms), count=1, slot=counter_slot(intent.id)))
    return rows


def money_rows(p, market: str, when: datetime, *, captured: int = 0, refunded: int = 0) -> list:
    """A later capture or refund, on the local day it happened."""
    return [_rollup(p, markets.local_date(market, when), p.provider, captured=captured, refunded=refunded)]


# ---------------------------------------------------------------- the window

def _date(value: Any, param: str) -> date:
    try:
        if isinstance(value, str) and len(value) == 10:
            return date.fromisoformat(value)
    except ValueError:
        pass
    raise ValidationError(f"{param} must be a date, YYYY-MM-DD", param=param)


class Window:
    """Local days `start`..`end` and the currency of a report. `currency` None: the window's most
    used currency (by payments; a tie goes to the alphabetically first), else the market's `home`
    one, chosen by the report's own statement (`_chosen`) instead of a read of its own before it."""

    def __init__(self, start: date, end: date, label: str, currency: str | None, home: str | None = "TRY"):
        self.start, self.end, self.label, self.currency, self.home = start, end, label, currency, home

    @property
    def days(self) -> list[date]:
        return [self.start + timedelta(days=i) for i in range((self.end - self.start).days + 1)]


async def window(*, principal: Principal, period: str | None = None, from_: str | None = None,
                 to: str | None = None, currency: str | None = None, chosen_by_read: bool = False) -> Window:
    """`period` (7d, 30d, 90d: the last N local days, today included; default 30d) or
    `from`/`to` (local dates, inclusive, at most 366 days), and the currency. `chosen_by_read`:
    without `currency` the window's is left to the report's statement (overview, revenue,
    providers: `Window`), one round trip instead of two; else it is read here."""
    market = await markets.cached_market_of(principal.merchant_id)      # configuration, as the create reads it
    today = markets.local_date(market, await clock.now_for(principal))
    if from_ or to:
        if period:
            raise ValidationError("give period or from/to, not both", param="period")
        if not from_:
            raise ValidationError("from is required with to", param="from")
        start = _date(from_, "from")
        end = _date(to, "to") if to else today
        if end < start:
            raise ValidationError("to must not be before from", param="to")
        if (end - start).days + 1 > MAX_DAYS:
            raise ValidationError(f"from..to spans at most {MAX_DAYS} days", param="from")
        label = f"{start.isoformat()}..{end.isoformat()}"
    else:
        period = period or DEFAULT_PERIOD
        if period not in PERIODS:
            raise one_of("period", PERIODS)
        start, end, label = today - timedelta(days=PERIODS[period] - 1), today, period
    home = HOME_CURRENCY.get(market, "TRY")
    if currency:
        cur = currency.upper() if isinstance(currency, str) else currency
        if cur not in CURRENCIES:
            raise one_of("currency", CURRENCIES)
    elif chosen_by_read:
        cur = None
    else:
        cur = await _most_used(principal, start, end) or home
    return Window(start, end, label, cur, home)


async def _most_used(principal: Principal, start: date, end: date) -> str | None:
    """The window's most used currency, None without a payment in it: the rule a report's own
    statement applies (`_MOST_USED`), read on its own for the readers that need it first."""
    sql, values = _chosen(principal, Window(start, end, "", None, None), ' SELECT "c" FROM "w"', 0)
    return (await lookup.query(PaymentRollup, sql, values))[0]["c"]


def _live(principal: Principal):
    return lookup.db_value(PaymentRollup, "livemode", principal.livemode)


def _day(d: date):
    return lookup.db_value(PaymentRollup, "day", d)


def _as_date(v) -> date:
    return v if isinstance(v, date) else date.fromisoformat(str(v)[:10])


def rate(part: int, whole: int) -> float:
    if not whole:
        return 0.0
    return float((Decimal(part) * 100 / Decimal(whole)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


# ---------------------------------------------------------------- reads

# A report's statement starts with its currency, "w"."c": the one asked for, else chosen as `_most_used`
# chooses it (the most payments in the window, ties to the alphabetically first, else the market's
# home currency); every figure is read in that currency, and the answer names it.
_GIVEN = 'WITH "w" AS (SELECT CAST({} AS TEXT) AS "c")'
_MOST_USED = ('WITH "w" AS (SELECT COALESCE((SELECT "currency" FROM "payment_rollups" WHERE "merchant_id" = {} '
              'AND "livemode" = {} AND "day" >= {} AND "day" <= {} GROUP BY "currency" HAVING SUM("payments") > 0 '
              'ORDER BY SUM("payments") DESC, "currency" LIMIT 1), CAST({} AS TEXT)) AS "c")')
_IN_W = '"merchant_id" = {} AND "livemode" = {} AND "currency" = (SELECT "c" FROM "w") AND "day" >= {} AND "day" <= {}'


def _chosen(principal: Principal, w: Window, body: str, reads: int) -> tuple[str, list]:
    """(the statement: the currency's CTE, then `body`, whose `reads` windows are `_IN_W`; its values)."""
    in_window = [principal.merchant_id, _live(principal), _day(w.start), _day(w.end)]
    if w.currency is not None:
        return f"{_GIVEN}{body}", [w.currency, *in_window * reads]
    return f"{_MOST_USED}{body}", [*in_window, w.home, *in_window * reads]


_OVERVIEW = (' SELECT SUM("payments") AS "n", SUM("approved") AS "ok", SUM("volume") AS "volume", '
             '(SELECT "c" FROM "w") AS "currency" FROM "payment_rollups" WHERE ' + _IN_W)


async def overview(*, principal: Principal, w: Window) -> dict:
    r = (await lookup.query(PaymentRollup, *_chosen(principal, w, _OVERVIEW, 1)))[0]
    n, ok = int(r["n"] or 0), int(r["ok"] or 0)
    return {"object": "analytics", "volume": int(r["volume"] or 0), "transactions": n,
            "approved": ok, "approval_rate": rate(ok, n), "period": w.label, "currency": r["currency"],
            "from": w.start.isoformat(), "to": w.end.isoformat()}


# The days' sums, and one row (no day) naming the currency, which a window without a payment in it has too.
_REVENUE = (' SELECT "day", SUM("captured") AS "captured", SUM("refunded") AS "refunded", NULL AS "currency" '
            'FROM "payment_rollups" WHERE ' + _IN_W + ' GROUP BY "day" UNION ALL SELECT NULL, NULL, NULL, "c" FROM "w"')


async def revenue(*, principal: Principal, w: Window) -> dict:
    by, currency = {}, w.currency
    for r in await lookup.query(PaymentRollup, *_chosen(principal, w, _REVENUE, 1)):
        if r["day"] is None:
            currency = r["currency"]
        else:
            by[_as_date(r["day"])] = int(r["captured"] or 0) - int(r["refunded"] or 0)
    by_day = [{"date": d.isoformat(), "amount": by.get(d, 0)} for d in w.days]
    return {"object": "revenue", "total": sum(e["amount"] for e in by_day), "currency": currency,
            "by_day": by_day, "period": w.label}


def median(counts: dict[int, int]) -> int:
    """The median of values given as {value: count}; the mean of the two middle ones (half-up)."""
    n = sum(counts.values())
    if not n:
        return 0
    lo_i, hi_i = (n - 1) // 2, n // 2
    lo = hi = None
    seen = 0
    for value in sorted(counts):
        seen += counts[value]
        if lo is None and seen > lo_i:
            lo = value
        if seen > hi_i:
            hi = value
            break
    return middle(lo, hi)


# Both figures of the providers in one statement: the rollups' sums per provider, and the median of
# each provider's latency histogram (an index-only scan of latency_rollups_window), then one row
# naming the currency. The histogram is summed over the days by bucket and provider (an integer
# first spares most comparisons of the provider's text: 3.9 -> 2.6 ms for 30 days of 3,014 rows at
# 1,000,000 payments), and its median taken in the statement, as `median` takes it: the first bucket
# whose running count passes (n - 1) / 2 and the first that passes n / 2, whose mean (half-up) is
# the median. The answer reads a row per provider instead of the histogram's 130 (and the driver
# decodes no numeric: the running sums are cast to bigint, so the halves are integer divisions).
_PROVIDERS = (', "h" AS (SELECT "provider", "bucket", SUM("count") AS "n" FROM "latency_rollups" WHERE ' + _IN_W +
              ' GROUP BY "bucket", "provider"), "r" AS (SELECT "provider", "bucket", '
              'CAST(SUM("n") OVER (PARTITION BY "provider" ORDER BY "bucket") AS BIGINT) AS "upto", '
              'CAST(SUM("n") OVER (PARTITION BY "provider") AS BIGINT) AS "total" FROM "h") '
              'SELECT "provider", SUM("volume") AS "volume", SUM("tries") AS "tries", SUM("tries_approved") AS "ok", '
              'NULL AS "lo", NULL AS "hi", NULL AS "currency" FROM "payment_rollups" WHERE ' + _IN_W +
              ' AND "provider" <> \'\' GROUP BY "provider" '
              'UNION ALL SELECT "provider", NULL, NULL, NULL, MIN(CASE WHEN "upto" > ("total" - 1) / 2 THEN "bucket" END), '
              'MIN(CASE WHEN "upto" > "total" / 2 THEN "bucket" END), NULL FROM "r" GROUP BY "provider" '
              'UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, NULL, "c" FROM "w"')


def middle(lo: int, hi: int) -> int:
    """The mean of a histogram's two middle values, half-up (`median`)."""
    return int((Decimal(lo + hi) / 2).quantize(Decimal(1), rounding=ROUND_HALF_UP))


async def providers(*, principal: Principal, w: Window) -> dict:
    rows, latency, currency = [], {}, w.currency
    for r in await lookup.query(PaymentRollup, *_chosen(principal, w, _PROVIDERS, 2)):
        if r["provider"] is None:
            currency = r["currency"]
        elif r["lo"] is not None:
            latency[r["provider"]] = middle(int(r["lo"]), int(r["hi"]))
        else:
            rows.append(r)
    data = [{"provider": r["provider"], "volume": int(r["volume"] or 0), "authorizations": int(r["tries"] or 0),
             "approval_rate": rate(int(r["ok"] or 0), int(r["tries"] or 0)),
             "latency": latency.get(r["provider"], 0)} for r in rows if int(r["tries"] or 0) > 0]
    data.sort(key=lambda d: (-d["volume"], d["provider"]))
    return {"object": "list", "data": data, "currency": currency, "period": w.label}
