"""Currencies the CRM accepts and their ISO 4217 minor-unit exponents (KWD, IQD: 3)."""
from __future__ import annotations

from services import money
from services.errors import ValidationError

# The payment currencies (services/money.py) plus those deals are often quoted in.
EXPONENTS = {
    **money.EXPONENTS,
    "USD": 2, "EUR": 2, "GBP": 2, "JOD": 3, "BHD": 3, "OMR": 3, "LBP": 2, "MAD": 2, "TND": 3, "JPY": 0,
}


def check_currency(v, param: str = "currency") -> str:
    if not isinstance(v, str) or v.upper() not in EXPONENTS:
        raise ValidationError(f"{param} must be one of: {', '.join(sorted(EXPONENTS))}", param=param)
    return v.upper()


def exponent(currency: str) -> int:
    return EXPONENTS[currency]
