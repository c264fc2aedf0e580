"""Pricing of payment intents (`/v1`): the per-currency amount limits of payment-intents-v1.md,
the fee schedule per method and currency, exchange rates, and amount formatting per locale
(ar, tr, en). Currencies, ISO 4217 exponents and the one rounding step live in services/money.py.

Every table is configuration (defaults here, replaceable with `configure()`). A fee is computed
exactly with Decimal and rounded half-up once.
"""
from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal

from services.validation import one_of
from services.money import currencies as money
from services.money.currencies import CURRENCIES, exponent, round_minor
from services.payments import methods

# The home currency of each market (the merchant's settlement currency).
MARKET_CURRENCY: dict[str, str] = {"TR": "TRY", "SA": "SAR", "AE": "AED", "KW": "KWD", "QA": "QAR",
                                   "EG": "EGP", "IQ": "IQD"}
LOCALES = ("ar", "tr", "en")


# The amount limits are the one table of services/money.py (the same on /api and /v1).
Limits = money.AmountLimit
INTENT_LIMITS: dict[str, Limits] = money.LIMITS

# Units of each currency per 1 USD (currency conversion, crypto quotes, network fees).
USD_RATES: dict[str, Decimal] = {
    "TRY": Decimal("41.00"), "SAR": Decimal("3.75"), "AED": Decimal("3.6725"), "QAR": Decimal("3.64"),
    "KWD": Decimal("0.307"), "EGP": Decimal("48.50"), "IQD": Decimal("1310"),
    "BHD": Decimal("0.376"), "OMR": Decimal("0.3845"), "JOD": Decimal("0.709"), "USD": Decimal(1),
}


@dataclass(frozen=True)
class FeeRule:
    rate: Decimal                                          # a fraction of the amount
    fixed: dict[str, int] = field(default_factory=dict)    # minor units per currency
    cap: dict[str, int] = field(default_factory=dict)      # the processing fee's cap per currency


class _Schedule(Mapping):
    """Processing fees per method: read from the one method registry (services.payments.methods);
    `bank_transfer` (an invoice paid by transfer, not a method a buyer picks) is kept here."""

    def __init__(self) -> None:
        self.extra: dict[str, FeeRule] = {"bank_transfer": FeeRule(Decimal("0.005"))}

    def __getitem__(self, method: str) -> FeeRule:
        m = methods.METHODS.get(method)
        if m is None:
            return self.extra[method]
        return FeeRule(m.fee.rate, dict(m.fee.fixed), dict(m.fee.cap))

    def __iter__(self):
        return iter([*methods.METHODS, *self.extra])

    def __len__(self) -> int:
        return len(methods.METHODS) + len(self.extra)

    def update(self, rules: Mapping[str, FeeRule]) -> None:
        for name, rule in rules.items():
            if name in methods.METHODS:
                bps = rule.rate * 10_000
                methods.METHODS[name] = replace(methods.METHODS[name], fee=methods.MethodFee(
                    int(bps) if bps == int(bps) else bps, dict(rule.fixed), dict(rule.cap)))
            else:
                self.extra[name] = rule


FEE_SCHEDULE = _Schedule()
# Added to the rate when the payment currency is not the merchant's home currency.
CONVERSION_RATE = Decimal("0.015")


def configure(*, limits: dict[str, Limits] | None = None, fee_schedule: dict[str, FeeRule] | None = None,
              usd_rates: dict[str, Decimal] | None = None, conversion_rate: Decimal | None = None) -> None:
    """Replace (parts of) the tables, e.g. from deployment configuration."""
    global CONVERSION_RATE
    if limits:
        money.configure_limits(limits)
    if fee_schedule:
        FEE_SCHEDULE.update(fee_schedule)
    if usd_rates:
        USD_RATES.update(usd_rates)
    if conversion_rate is not None:
        CONVERSION_RATE = conversion_rate
    _fee.cache_clear()          # fees computed under the old tables


def reset_cache() -> None:
    _fee.cache_clear()


methods.on_change(reset_cache)       # the fee cache holds answers of the old method table


def to_major(amount: int, currency: str) -> Decimal:
    return Decimal(amount).scaleb(-exponent(currency))


def plain(amount: int, currency: str) -> str:
    """'1234.50' for 123450 TRY, '1.234' for 1234 KWD: the exact major-unit decimal string."""
    return f"{to_major(amount, currency):.{exponent(currency)}f}"


def check_currency(value, param: str = "currency") -> str:
    if not isinstance(value, str) or value not in CURRENCIES:
        raise one_of(param, CURRENCIES, code="invalid_currency")
    return value


def check_intent_amount(amount: int, currency: str, param: str = "amount") -> int:
    """The table of services/money.py, with /v1's documented code `invalid_amount`."""
    return money.check_amount(amount, currency, param, code="invalid_amount")


@dataclass(frozen=True)
class Fee:
    amount: int
    currency: str
    rate: Decimal
    processing: int
    currency_conversion: int
    network: int


def compute_fee(*, amount: int, currency: str, method: str, home_currency: str | None = None,
                network_fee_usd: Decimal = Decimal(0)) -> Fee:
    """The fee of a payment, shown upfront. The total is computed exactly and rounded once; the
    breakdown's parts are rounded and `processing` takes the remainder, so the parts add up to
    the total. The fee is capped at the amount (the net amount is never below zero).
    A function of its arguments and the tables, which change only through configure() (it drops
    what was kept), so recent answers are kept: the Decimal arithmetic is most of a create's
    pricing, and amounts repeat (a shop's prices)."""
    return _fee(amount, currency, method, home_currency, network_fee_usd)


@functools.lru_cache(maxsize=4096)
def _fee(amount: int, currency: str, method: str, home_currency: str | None, network_fee_usd: Decimal) -> Fee:
    rule = FEE_SCHEDULE[method]
    conv_rate = CONVERSION_RATE if home_currency and home_currency != currency else Decimal(0)
    exact_processing = Decimal(amount) * rule.rate + rule.fixed.get(currency, 0)
    if currency in rule.cap:
        exact_processing = min(exact_processing, Decimal(rule.cap[currency]))
    exact_conversion = Decimal(amount) * conv_rate
    exact_network = (network_fee_usd * USD_RATES[currency]).scaleb(exponent(currency))
    total = min(round_minor(exact_processing + exact_conversion + exact_network), amount)
    network = min(round_minor(exact_network), total)
    conversion = min(round_minor(exact_conversion), total - network)
    return Fee(amount=total, currency=currency, rate=rule.rate + conv_rate,
               processing=total - conversion - network, currency_conversion=conversion, network=network)


# ---------------------------------------------------------------- formatting for people

SYMBOLS = {
    "en": {c: c for c in CURRENCIES},
    "tr": {**{c: c for c in CURRENCIES}, "TRY": "₺"},
    "ar": {"TRY": "ل.ت", "SAR": "ر.س", "AED": "د.إ", "KWD": "د.ك", "QAR": "ر.ق", "EGP": "ج.م", "IQD": "د.ع",
           "BHD": "د.ب", "OMR": "ر.ع", "JOD": "د.أ", "USD": "US$"},
}
_SEPARATORS = {"en": (",", "."), "tr": (".", ","), "ar": ("٬", "٫")}
_ARABIC_DIGITS = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")


def format_localized(amount: int, currency: str, locale: str = "en") -> str:
    """An amount for a receipt or a message with the currency's decimals and the locale's
    separators: en '1,234.50 SAR', tr '1.234,50 ₺', ar '١٬٢٣٤٫٥٠ ر.س'; KWD/IQD show 3 decimals."""
    if locale not in LOCALES:
        locale = "en"
    sign = "-" if amount < 0 else ""
    whole, _, frac = plain(abs(amount), currency).partition(".")
    groups = []
    while len(whole) > 3:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    groups.insert(0, whole)
    thousands, decimal = _SEPARATORS[locale]
    number = thousands.join(groups) + (decimal + frac if frac else "")
    if locale == "ar":
        number = number.translate(_ARABIC_DIGITS)
    return f"{sign}{number} {SYMBOLS[locale][currency]}"
