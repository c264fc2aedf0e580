"""Installments (taksit) as the checkout pages show them: the table of counts with each
installment and the total in the page's locale (babel: `1.234,56 TL` in Turkish), and the
line of a paid payment (`3 taksit x 400,00 TL`)."""
from __future__ import annotations

from services.payments import installment_text
from services.payments.installment_text import money

PROGRAM_NAMES = {"bonus": "Bonus", "world": "World", "maximum": "Maximum", "axess": "Axess"}


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


def line(terms: dict | None, currency: str, lang: str, t=None) -> str | None:
    """`3 taksit x 400,00 TL`: the services' helper, the one the receipt message uses too."""
    return installment_text.line(terms, currency, lang)
