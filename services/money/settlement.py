"""Settlement dates: T+1, the next business day of the merchant's market, skipping that market's
weekend and its public holidays (the `holidays` package)."""
from __future__ import annotations

from datetime import date, datetime, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo

import holidays

FRI_SAT = frozenset({4, 5})
SAT_SUN = frozenset({5, 6})
# Weekend days (Monday = 0) of each market.
WEEKENDS: dict[str, frozenset[int]] = {"SA": FRI_SAT, "KW": FRI_SAT, "QA": FRI_SAT, "IQ": FRI_SAT, "EG": FRI_SAT,
                                       "AE": SAT_SUN, "TR": SAT_SUN}
# The local date of a payment decides its settlement day.
TIMEZONES: dict[str, str] = {"SA": "Asia/Riyadh", "KW": "Asia/Kuwait", "QA": "Asia/Qatar", "IQ": "Asia/Baghdad",
                             "EG": "Africa/Cairo", "AE": "Asia/Dubai", "TR": "Europe/Istanbul"}
MARKETS = tuple(WEEKENDS)


@lru_cache(maxsize=64)
def _holidays(market: str, year: int) -> frozenset[date]:
    return frozenset(holidays.country_holidays(market, years=year).keys())


def is_business_day(market: str, day: date) -> bool:
    return day.weekday() not in WEEKENDS[market] and day not in _holidays(market, day.year)


def local_date(market: str, when: datetime) -> date:
    return when.astimezone(ZoneInfo(TIMEZONES[market])).date()


def next_business_day(market: str, after: date) -> date:
    """The first business day of `market` strictly after `after`."""
    day = after + timedelta(days=1)
    while not is_business_day(market, day):
        day += timedelta(days=1)
    return day


def settlement_date(market: str, paid_at: datetime) -> date:
    """T+1 for a payment at `paid_at` (an aware datetime) in the merchant's market."""
    market = market if market in WEEKENDS else "TR"
    return next_business_day(market, local_date(market, paid_at))
