"""Installments (taksit) as the checkout pages show them: the table of counts with each
installment and the total in the page's locale (babel: `1.234,56 TL` in Turkish), and the
line of a paid payment (`3 taksit x 400,00 TL`)."""
from __future__ import annotations

from decimal import Decimal

from babel.numbers import format_decimal

from services.money.currencies import exponent

BABEL_LOCALES = {"tr": "tr_TR", "en": "en_US", "ar": "ar"}
# How each locale names a currency after the number (Turks write TL, not ₺ or TRY, on a table).
CURRENCY_NAMES = {"tr": {"TRY": "TL"}, "ar": {"TRY": "ل.ت"}, "en": {}}
PROGRAM_NAMES = {"bonus": "Bonus", "world": "World", "maximum": "Maximum", "axess": "Axess"}


def money(amount: int, currency: str, lang: str) -> str:
    """1.234,56 TL (tr), 1,234.56 TRY (en); the currency's own number of decimals."""
    e = exponent(currency)
    pattern = "#,##0" + ("." + "0" * e if e else "")
    number = format_decimal(Decimal(amount).scaleb(-e), format=pattern, locale=BABEL_LOCALES.get(lang, "en_US"))
    return f"{number} {CURRENCY_NAMES.get(lang, {}).get(currency, currency)}"


def table(opts: dict, lang: str, t) -> dict:
    """What the installment table template shows, from services' Options.as_dict()."""
    cur = opts["currency"]
    rows = [{"count": o["count"],
             "label": t.inst_single if o["count"] == 1 else t.fmt("inst_n", count=o["count"]),
             "each": money(o["installment_amount"], cur, lang), "total": money(o["total_amount"], cur, lang),
             "first": (t.fmt("inst_first", amount=money(o["first_installment_amount"], cur, lang))
                       if o["first_installment_amount"] != o["installment_amount"] else None)}
            for o in opts["options"]]
    return {"bank": opts["bank"], "program": PROGRAM_NAMES.get(opts["program"] or "", opts["program"]),
            "rows": rows}


def line(terms: dict | None, currency: str, lang: str, t) -> str | None:
    """`3 taksit x 400,00 TL` (the first installment named when it carries a remainder)."""
    if not terms or not terms.get("total_amount"):
        return None
    out = t.fmt("inst_line", count=terms["count"], amount=money(terms["installment_amount"], currency, lang))
    if terms["first_installment_amount"] != terms["installment_amount"]:
        out += f" ({t.fmt('inst_first', amount=money(terms['first_installment_amount'], currency, lang))})"
    return out
