"""Money: supported currencies, their ISO 4217 minor units, amount limits, and rounding.

Amounts are integers in minor units everywhere; rates are `Decimal`; a computed amount is
rounded half-up to the minor unit once, at the end (`round_minor`). KWD and IQD have 3
decimals, and so do BHD, OMR and JOD; USD (2) serves exporters' invoices.

The one table of currencies (`table()`: code, exponent, minimum, maximum in minor units)
serves every interface that takes an amount: payments of `/api`, intents of `/v1`
(services.pricing), payment links, invoices and subscriptions (services.billing). Limits are
configuration with defaults (`configure_limits`), not constants scattered in code.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from services.errors import ValidationError
from services.validation import one_of

# ISO 4217 exponents of the currencies the platform serves.
EXPONENTS: dict[str, int] = {"TRY": 2, "SAR": 2, "AED": 2, "KWD": 3, "QAR": 2, "EGP": 2, "IQD": 3,
                             "BHD": 3, "OMR": 3, "JOD": 3, "USD": 2}
CURRENCIES: tuple[str, ...] = tuple(EXPONENTS)


@dataclass(frozen=True)
class AmountLimit:
    minimum: int     # minor units
    maximum: int     # minor units


# Inclusive, in minor units. Minimum 1 TRY and 0.10 SAR, maximum 500,000 TRY
# (payment-intents-v1.md); the other currencies of about the same value (~12,000-15,000 USD),
# rounded. The same limits on /api, /v1, payment links and invoices.
DEFAULT_LIMITS: dict[str, AmountLimit] = {
    "TRY": AmountLimit(100, 50_000_000),                # 1.00 .. 500,000.00
    "SAR": AmountLimit(10, 5_000_000),                  # 0.10 .. 50,000.00
    "AED": AmountLimit(10, 5_000_000),                  # 0.10 .. 50,000.00
    "KWD": AmountLimit(100, 4_000_000),                 # 0.100 .. 4,000.000
    "QAR": AmountLimit(10, 5_000_000),                  # 0.10 .. 50,000.00
    "EGP": AmountLimit(500, 60_000_000),                # 5.00 .. 600,000.00
    "IQD": AmountLimit(250_000, 16_000_000_000),        # 250.000 .. 16,000,000.000
    "BHD": AmountLimit(100, 5_000_000),                 # 0.100 .. 5,000.000
    "OMR": AmountLimit(100, 5_000_000),                 # 0.100 .. 5,000.000
    "JOD": AmountLimit(100, 10_000_000),                # 0.100 .. 10,000.000
    "USD": AmountLimit(100, 1_500_000),                 # 1.00 .. 15,000.00 (an exporter's invoices, e.g. Egypt's)
}
LIMITS: dict[str, AmountLimit] = dict(DEFAULT_LIMITS)


@dataclass(frozen=True)
class CurrencyRow:
    currency: str
    exponent: int
    minimum: int     # minor units, inclusive
    maximum: int     # minor units, inclusive


def table() -> list[CurrencyRow]:
    """The currency table as configured now: one row per supported currency."""
    return [CurrencyRow(c, EXPONENTS[c], LIMITS[c].minimum, LIMITS[c].maximum) for c in CURRENCIES]


def configure_limits(limits: dict[str, AmountLimit] | None = None) -> None:
    """Replace limits (e.g. an enterprise arrangement) from deployment configuration; None or
    an empty mapping restores the defaults. Each limit is checked: 1 <= minimum <= maximum."""
    if not limits:
        LIMITS.clear()
        LIMITS.update(DEFAULT_LIMITS)
        return
    for cur, lim in limits.items():
        if cur not in EXPONENTS:
            raise ValueError(f"unknown currency {cur!r}")
        if not (isinstance(lim.minimum, int) and isinstance(lim.maximum, int) and 1 <= lim.minimum <= lim.maximum):
            raise ValueError(f"{cur}: need 1 <= minimum <= maximum (minor units), got {lim}")
    LIMITS.update(limits)


def exponent(currency: str) -> int:
    return EXPONENTS[currency]


def check_currency(value: Any, param: str = "currency", *, code: str = "invalid_request") -> str:
    """An upper- or lower-case code of a supported currency -> the upper-case code."""
    if isinstance(value, str) and value.upper() in EXPONENTS:
        return value.upper()
    raise one_of(param, CURRENCIES, code=code)


def check_amount(value: Any, currency: str, param: str = "amount", *, code: str = "invalid_request") -> int:
    """An integer amount in minor units within the currency's limits."""
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ValidationError(f"{param} must be an integer in minor units", param=param, code=code)
    lim = LIMITS[currency]
    if value < lim.minimum:
        raise ValidationError(f"{param} must be at least {format_amount(lim.minimum, currency)} "
                              f"({lim.minimum} in minor units)", param=param, code=code)
    if value > lim.maximum:
        raise ValidationError(f"{param} must be at most {format_amount(lim.maximum, currency)} "
                              f"({lim.maximum} in minor units)", param=param, code=code)
    return value


def round_minor(value: Decimal) -> int:
    """Decimal minor units -> integer minor units, half-up (the one rounding step)."""
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def percent_of(amount: int, rate: Decimal) -> Decimal:
    """`rate` is a fraction (0.025 = 2.5%); the result is unrounded minor units."""
    return Decimal(amount) * rate


def format_amount(amount: int, currency: str) -> str:
    """12345 TRY -> '123.45 TRY'; 12345 KWD -> '12.345 KWD'."""
    exp = EXPONENTS[currency]
    sign = "-" if amount < 0 else ""
    whole, frac = divmod(abs(amount), 10**exp)
    return f"{sign}{whole}.{frac:0{exp}d} {currency}"
