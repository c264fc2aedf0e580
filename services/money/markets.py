"""A merchant's market (its country: weekend, holidays, time zone) and the day arithmetic the
money views share: merchant-local dates, the start of a local day, and which ledger lines are
available (past their T+1 settlement date) on a day."""
from __future__ import annotations

import time as _time
from datetime import date, datetime, time, timedelta, timezone
from functools import lru_cache
from zoneinfo import ZoneInfo

from models import _lookup as lookup
from models.core import Merchant
from services.money import settlement

DEFAULT_MARKET = "TR"


def market(country: str | None) -> str:
    return country if country in settlement.MARKETS else DEFAULT_MARKET


async def market_of(merchant_id: str) -> str:
    m = await lookup.first(Merchant, id=merchant_id)
    return market(m.country if m else None)


# The merchant's market for the intent create, which needs nothing else from the database before
# its one write: the merchant's country is configuration (PUT /api/merchant), not payment state,
# so each process keeps it COUNTRY_TTL seconds. The process that changes it forgets it at once
# (`forget`); another serving process (`qafila serve --workers N`) sees it within COUNTRY_TTL.
COUNTRY_TTL = 5.0
_COUNTRIES: dict[str, tuple[float, str | None]] = {}
_COUNTRIES_MAX = 10_000


async def cached_market_of(merchant_id: str) -> str:
    now = _time.monotonic()
    hit = _COUNTRIES.get(merchant_id)
    if hit is not None and hit[0] > now:
        return market(hit[1])
    m = await lookup.first(Merchant, id=merchant_id)
    country = m.country if m else None
    if len(_COUNTRIES) >= _COUNTRIES_MAX:
        _COUNTRIES.clear()
    _COUNTRIES[merchant_id] = (now + COUNTRY_TTL, country)
    return market(country)


def forget(merchant_id: str) -> None:
    """Call after changing a merchant's country."""
    _COUNTRIES.pop(merchant_id, None)


@lru_cache(maxsize=16)
def tz(market_: str) -> ZoneInfo:
    return ZoneInfo(settlement.TIMEZONES[market(market_)])


def local_date(market_: str, when: datetime) -> date:
    return when.astimezone(tz(market_)).date()


def day_start(market_: str, day: date) -> datetime:
    """The UTC instant a local day begins."""
    return datetime.combine(day, time(0), tzinfo=tz(market_)).astimezone(timezone.utc)


@lru_cache(maxsize=4096)
def available_through(market_: str, day: date) -> datetime:
    """The UTC instant X such that a line created before X has its settlement date (T+1
    business day) on or before `day`, and a line created at or after X later. Settlement
    dates only grow with the creation time, so this one instant splits pending from available."""
    market_ = market(market_)
    d = day - timedelta(days=1)
    while settlement.next_business_day(market_, d) > day:
        d -= timedelta(days=1)
    return day_start(market_, d + timedelta(days=1))
