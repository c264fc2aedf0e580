"""Which language a buyer reads (hosted pages, receipts, receipt messages) and how a date is
written for people in it: `26 Kasım 2026 14:33`, `26 November 2026, 14:33`, Arabic with the
Arabic month name -- in the merchant's time zone, through babel (CLDR month names)."""
from __future__ import annotations

from datetime import datetime
from functools import lru_cache

from babel.dates import format_datetime

from services.money import markets

LOCALES = ("en", "tr", "ar")
# A merchant's default language, by its market (merchants.country): used only when neither the
# merchant (the intent's or link's `locale`) nor the buyer (`?locale=`, Accept-Language) says one.
MARKET_LOCALE = {"TR": "tr", "SA": "ar", "AE": "ar", "KW": "ar", "QA": "ar", "EG": "ar", "IQ": "ar"}
# CLDR's medium date with the month spelled out, and a 24-hour time, per locale.
_PATTERNS = {"en": "d MMMM y, HH:mm", "tr": "d MMMM y HH:mm", "ar": "d MMMM y، HH:mm"}
_ARABIC_DIGITS = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")
MAX_LANGUAGE_RANGES = 20


def merchant_default(country: str | None) -> str:
    """The language of the merchant's market (an unknown or missing country: Turkey's)."""
    return MARKET_LOCALE.get(markets.market(country), "en")


@lru_cache(maxsize=512)
def from_accept_language(header: str | None) -> str | None:
    """The best of our locales in an Accept-Language header (RFC 9110 §12.5.4): ranges by
    quality (a missing q is 1, q=0 means "not this", a malformed q is ignored as 0), ties in the
    header's order; `tr-TR` counts as `tr`, `*` as no preference. None when it names none of ours."""
    best: tuple[float, int, str] | None = None
    for n, part in enumerate((header or "").split(",")[:MAX_LANGUAGE_RANGES]):
        tag, *params = (p.strip() for p in part.split(";"))
        q = 1.0
        for p in params:
            name, _, value = p.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value.strip())
                except ValueError:
                    q = 0.0
                if not 0.0 <= q <= 1.0:
                    q = 0.0
        lang = tag.lower().split("-")[0]
        if lang in LOCALES and q > 0 and (best is None or (-q, n) < best[:2]):
            best = (-q, n, lang)
    return best[2] if best else None


def pick(*, explicit: str | None, query: str | None, accept_language: str | None, default: str) -> str:
    """The language of a page or receipt: the merchant's own (`explicit`: the intent's or link's
    `locale`), else the buyer's choice (`?locale=`), else the buyer's browser (Accept-Language),
    and `default` (the merchant's: `merchant_default`) only when none of them names one of ours."""
    for choice in (explicit, query):
        if choice in LOCALES:
            return choice
    return from_accept_language(accept_language) or default


def format_when(when: datetime, locale: str, country: str | None) -> str:
    """`when` as people read it, in the merchant's time zone (its market's)."""
    locale = locale if locale in LOCALES else "en"
    text = format_datetime(when, _PATTERNS[locale], tzinfo=markets.tz(markets.market(country)), locale=locale)
    return text.translate(_ARABIC_DIGITS) if locale == "ar" else text
