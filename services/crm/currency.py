"""Currencies the CRM accepts and their ISO 4217 minor-unit exponents (KWD, IQD: 3)."""
from __future__ import annotations

from decimal import Decimal

from services.money import currencies as money
from services.validation import one_of

# The payment currencies (services/money.py) plus those deals are often quoted in.
EXPONENTS = {
    **money.EXPONENTS,
    "USD": 2, "EUR": 2, "GBP": 2, "JOD": 3, "BHD": 3, "OMR": 3, "LBP": 2, "MAD": 2, "TND": 3, "JPY": 0,
}


# A company's default (report) currency from its country (ISO 3166 alpha-2).
COUNTRY_CURRENCY = {"SA": "SAR", "AE": "AED", "TR": "TRY", "KW": "KWD", "QA": "QAR", "EG": "EGP", "IQ": "IQD",
                    "BH": "BHD", "OM": "OMR", "JO": "JOD"}

# Default reference rates, units per 1 USD, used when the company configured no rate for a pair
# (so reports work on a fresh install): the currencies their central banks peg to the US dollar
# at a fixed rate -- SAR 3.75 (SAMA, since 1986), AED 3.6725 (since 1997), QAR 3.64 (since 2001),
# BHD 0.376 (since 1980), OMR 0.3845 (since 1986), JOD 0.709 (since 1995). Floating or basket-pegged
# currencies (KWD's undisclosed basket, TRY, EGP, IQD) have no default: a guessed rate would
# quietly misstate a report, so the operator sets them (configure_reference_rates) or the
# company does (PUT /api/reports/rates).
DEFAULT_REFERENCE_RATES: dict[str, Decimal] = {
    "USD": Decimal(1), "SAR": Decimal("3.75"), "AED": Decimal("3.6725"), "QAR": Decimal("3.64"),
    "BHD": Decimal("0.376"), "OMR": Decimal("0.3845"), "JOD": Decimal("0.709"),
}
REFERENCE_RATES: dict[str, Decimal] = dict(DEFAULT_REFERENCE_RATES)


def configure_reference_rates(rates: dict[str, Decimal] | None) -> None:
    """Operator configuration: units of each currency per 1 USD (e.g. {"KWD": Decimal("0.307")});
    None restores the defaults."""
    if not rates:
        REFERENCE_RATES.clear()
        REFERENCE_RATES.update(DEFAULT_REFERENCE_RATES)
        return
    for cur, rate in rates.items():
        if cur not in EXPONENTS or not isinstance(rate, Decimal) or rate <= 0:
            raise ValueError(f"reference rate {cur}={rate!r}: a known currency and a positive Decimal")
    REFERENCE_RATES.update(rates)


def reference_rate(base: str, quote: str) -> Decimal | None:
    """1 base = x quote from the reference rates (through USD), or None if either is unset."""
    if base in REFERENCE_RATES and quote in REFERENCE_RATES:
        return REFERENCE_RATES[quote] / REFERENCE_RATES[base]
    return None


def reference_rates() -> list[tuple[str, str, Decimal]]:
    """The reference rates in force, as (base "USD", quote, units of quote per 1 USD), by quote."""
    return [("USD", cur, rate) for cur, rate in sorted(REFERENCE_RATES.items()) if cur != "USD"]


def currency_of_country(country: str | None) -> str | None:
    return COUNTRY_CURRENCY.get(country.upper()) if isinstance(country, str) else None


def check_currency(v, param: str = "currency") -> str:
    if not isinstance(v, str) or v.upper() not in EXPONENTS:
        raise one_of(param, sorted(EXPONENTS))
    return v.upper()


def exponent(currency: str) -> int:
    return EXPONENTS[currency]
