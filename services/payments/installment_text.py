"""Installments (taksit) in words, one helper for every place that says them: the checkout's
table and success page, the HTML receipt and the receipt message (`3 taksit x 400,00 TL`).
Amounts in the locale's formatting (babel: `1.234,56 TL` in Turkish, the currency's decimals)."""
from __future__ import annotations

from decimal import Decimal

from babel.numbers import format_decimal

from services.money.currencies import exponent

BABEL_LOCALES = {"tr": "tr_TR", "en": "en_US", "ar": "ar"}
# How each locale names a currency after the number (Turks write TL, not ₺ or TRY, on a table).
CURRENCY_NAMES = {"tr": {"TRY": "TL"}, "ar": {"TRY": "ل.ت"}, "en": {}}
LINE_TEXTS = {
    "en": {"inst_line": "{count} installments x {amount}", "inst_first": "first installment {amount}"},
    "tr": {"inst_line": "{count} taksit x {amount}", "inst_first": "ilk taksit {amount}"},
    "ar": {"inst_line": "{count} أقساط × {amount}", "inst_first": "القسط الأول {amount}"},
}


def money(amount: int, currency: str, lang: str) -> str:
    """1.234,56 TL (tr), 1,234.56 TRY (en); the currency's own number of decimals."""
    e = exponent(currency)
    pattern = "#,##0" + ("." + "0" * e if e else "")
    number = format_decimal(Decimal(amount).scaleb(-e), format=pattern, locale=BABEL_LOCALES.get(lang, "en_US"))
    return f"{number} {CURRENCY_NAMES.get(lang, {}).get(currency, currency)}"


def line(terms: dict | None, currency: str, lang: str) -> str | None:
    """`3 taksit x 400,00 TL` (the first installment named when it carries a remainder); None for
    a payment in one go or terms not known yet."""
    if not terms or not terms.get("total_amount"):
        return None
    t = LINE_TEXTS.get(lang, LINE_TEXTS["en"])
    out = t["inst_line"].format(count=terms["count"], amount=money(terms["installment_amount"], currency, lang))
    if terms["first_installment_amount"] != terms["installment_amount"]:
        out += f" ({t['inst_first'].format(amount=money(terms['first_installment_amount'], currency, lang))})"
    return out
