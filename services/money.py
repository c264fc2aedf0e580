"""Money: supported currencies, their ISO 4217 minor units, amount limits, and rounding.

Amounts are integers in minor units everywhere; rates are `Decimal`; a computed amount is
rounded half-up to the minor unit once, at the end (`round_minor`). KWD and IQD have 3
decimals. Limits are configuration (`LIMITS`), not constants scattered in code.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from services.errors import ValidationError

# ISO 4217 exponents of the currencies the platform serves.
EXPONENTS: dict[str, int] = {"TRY": 2, "SAR": 2, "AED": 2, "KWD": 3, "QAR": 2, "EGP": 2, "IQD": 3}
CURRENCIES: tuple[str, ...] = tuple(EXPONENTS)


@dataclass(frozen=True)
class AmountLimit:
    minimum: int     # minor units
    maximum: int     # minor units


# Minimum: 1 TRY, 0.10 SAR (payment-intents-v1.md), the rest a comparable small amount;
# maximum: a single card payment far above any shop's basket.
LIMITS: dict[str, AmountLimit] = {
    "TRY": AmountLimit(100, 10_000_000_00),
    "SAR": AmountLimit(10, 2_000_000_00),
    "AED": AmountLimit(10, 2_000_000_00),
    "KWD": AmountLimit(100, 150_000_000),
    "QAR": AmountLimit(10, 2_000_000_00),
    "EGP": AmountLimit(500, 25_000_000_00),
    "IQD": AmountLimit(250_000, 750_000_000_000),
}


def exponent(currency: str) -> int:
    return EXPONENTS[currency]


def check_currency(value: Any, param: str = "currency", *, code: str = "invalid_request") -> str:
    """An upper- or lower-case code of a supported currency -> the upper-case code."""
    if isinstance(value, str) and value.upper() in EXPONENTS:
        return value.upper()
    raise ValidationError(f"{param} must be one of: {', '.join(CURRENCIES)}", param=param, code=code)


def check_amount(value: Any, currency: str, param: str = "amount", *, code: str = "invalid_request") -> int:
    """An integer amount in minor units within the currency's limits."""
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ValidationError(f"{param} must be an integer in minor units", param=param, code=code)
    lim = LIMITS[currency]
    if value < lim.minimum:
        raise ValidationError(f"{param} must be at least {lim.minimum} ({format_amount(lim.minimum, currency)})",
                              param=param, code=code)
    if value > lim.maximum:
        raise ValidationError(f"{param} must be at most {lim.maximum} ({format_amount(lim.maximum, currency)})",
                              param=param, code=code)
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
