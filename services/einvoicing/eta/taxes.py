"""ETA's taxes on an invoice line (its SDK's tax types and the document's calculation rules),
pure arithmetic shared by the invoice (services.billing.invoices: the invoice's tax and total),
the document's builder (documents.line) and the simulator's checks.

An invoice item may carry `taxes: [{type, subtype, rate | amount}]` beside the invoice's VAT
(`tax_rate`, ETA's T1). Types (ETA's code table):
- T2 table tax, a percentage (Tbl01); T3 table tax, a fixed amount (Tbl02);
- T4 withholding tax (W001..W016), a percentage, subtracted from the line's total;
- T5..T12 taxable fees (stamping, entertainment, resource development, service charges,
  municipality, medical insurance, other), a percentage or an amount: they add up to the line's
  `totalTaxableFees`;
- T13..T20 the same fees not taxable (outside the VAT and table tax bases).

Per line, each amount rounded half-up to ETA's 5 decimals, in this order:
  fee (T5..T20) = netTotal x rate / 100 (or its amount); totalTaxableFees = sum of T5..T12
  T3 = its amount
  T2 = (netTotal + totalTaxableFees + valueDifference + T3) x rate / 100
  T1 = (netTotal + totalTaxableFees + valueDifference + T2 + T3) x rate / 100
  T4 = (netTotal - itemsDiscount) x rate / 100
  total = netTotal + valueDifference - itemsDiscount + T1 + T2 + T3 + fees - T4
The document's `taxTotals` are the lines' sums per type; `totalAmount` is the lines' totals less
the extra discount."""
from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

from services.errors import ValidationError

PLACES = Decimal("0.00001")
MAX_TAXES = 10
_FEE_NAMES = {5: "ST", 6: "ST", 7: "Ent", 8: "RD", 9: "SC", 10: "Mn", 11: "MI", 12: "OF"}
# the subtypes of each type (ETA's TaxSubtypes table)
SUBTYPES: dict[str, tuple[str, ...]] = {
    "T2": ("Tbl01",), "T3": ("Tbl02",), "T4": tuple(f"W{n:03d}" for n in range(1, 17)),
    "T5": ("ST01",), "T6": ("ST02",), "T7": ("Ent01", "Ent02"), "T8": ("RD01", "RD02"), "T9": ("SC01", "SC02"),
    "T10": ("Mn01", "Mn02"), "T11": ("MI01", "MI02"), "T12": ("OF01", "OF02"),
    "T13": ("ST03",), "T14": ("ST04",), "T15": ("Ent03", "Ent04"), "T16": ("RD03", "RD04"),
    "T17": ("SC03", "SC04"), "T18": ("Mn03", "Mn04"), "T19": ("MI03", "MI04"), "T20": ("OF03", "OF04"),
}
TYPES = tuple(SUBTYPES)
TAXABLE_FEES = tuple(f"T{n}" for n in range(5, 13))
NON_TAXABLE_FEES = tuple(f"T{n}" for n in range(13, 21))
FIXED = ("T3", "T6", "T14")                  # amounts only
PERCENT = ("T2", "T4", "T5", "T13")          # rates only; the others take either
_RATE = re.compile(r"\d{1,3}(\.\d{1,2})?")


def q(d: Decimal) -> Decimal:
    return d.quantize(PLACES, rounding="ROUND_HALF_UP")


def parse(raw: Any, param: str, *, max_amount: int) -> list[dict]:
    """An item's `taxes` as stored: [{type, subtype, rate (decimal text)} | {type, subtype, amount (minor units,
    for the whole line)}]. Anything else is a 400 naming the field (`items[0].taxes[1].rate`)."""
    if raw is None:
        return []
    if not isinstance(raw, list) or len(raw) > MAX_TAXES:
        raise ValidationError(f"{param} must be an array of at most {MAX_TAXES} taxes", param=param)
    out, seen = [], set()
    for k, t in enumerate(raw):
        p = f"{param}[{k}]"
        if not isinstance(t, dict):
            raise ValidationError(f"{p} must be an object", param=p)
        unknown = sorted(set(t) - {"type", "subtype", "rate", "amount"})
        if unknown:
            raise ValidationError(f"{p}.{unknown[0]} is not a field of a tax", param=f"{p}.{unknown[0]}")
        kind = t.get("type")
        if kind == "T1":
            raise ValidationError(f"{p}.type: VAT (T1) is the invoice's tax_rate, not an item tax", param=f"{p}.type")
        if kind not in SUBTYPES:
            raise ValidationError(f"{p}.type must be one of ETA's tax types T2 to T20", param=f"{p}.type")
        if kind in seen:
            raise ValidationError(f"{p}.type: {kind} is given twice on this item", param=f"{p}.type")
        seen.add(kind)
        sub = t.get("subtype")
        if sub not in SUBTYPES[kind]:
            raise ValidationError(f"{p}.subtype must be one of {', '.join(SUBTYPES[kind])} for {kind}",
                                  param=f"{p}.subtype")
        has_rate, has_amount = t.get("rate") is not None, t.get("amount") is not None
        if has_rate == has_amount:
            which = "an amount" if kind in FIXED else "a rate" if kind in PERCENT else "a rate or an amount"
            raise ValidationError(f"{p}: {kind} takes {which} (one of them)",
                                  param=f"{p}.{'amount' if kind in FIXED else 'rate'}")
        if has_rate:
            if kind in FIXED:
                raise ValidationError(f"{p}.rate: {kind} is a fixed amount (give amount, in minor units)",
                                      param=f"{p}.rate")
            out.append({"type": kind, "subtype": sub, "rate": _rate(t["rate"], f"{p}.rate")})
        else:
            if kind in PERCENT:
                raise ValidationError(f"{p}.amount: {kind} is a percentage (give rate)", param=f"{p}.amount")
            amount = t["amount"]
            if isinstance(amount, bool) or not isinstance(amount, int) or not 0 <= amount <= max_amount:
                raise ValidationError(f"{p}.amount must be an integer from 0 to {max_amount} (minor units)",
                                      param=f"{p}.amount")
            out.append({"type": kind, "subtype": sub, "amount": amount})
    return out


def _rate(value: Any, param: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValidationError(f"{param} must be a percentage from 0 to 100 (at most 2 decimals)", param=param)
    text = str(value).strip()
    try:
        rate = Decimal(text)
    except InvalidOperation:
        rate = None
    if rate is None or not rate.is_finite() or not 0 <= rate <= 100 or rate != rate.quantize(Decimal("0.01")):
        raise ValidationError(f"{param} must be a percentage from 0 to 100 (at most 2 decimals)", param=param)
    return format(rate.normalize(), "f") if rate else "0"


def compute(net: Decimal, vat_rate: Decimal, vat_subtype: str, taxes: list[dict], *,
            value_difference: Decimal = Decimal(0), items_discount: Decimal = Decimal(0),
            fixed: dict[str, Decimal] | None = None) -> tuple[list[dict], Decimal, Decimal]:
    """(taxableItems, totalTaxableFees, total) of a line with net total `net` (ETA amounts, Decimal).
    `taxes` as `parse` stores them; fixed amounts in minor units (piastres) unless `fixed` gives them
    as ETA amounts (the simulator's checks)."""
    given = {t["type"]: t for t in taxes}
    amounts: dict[str, Decimal] = {}
    rates: dict[str, Decimal] = {}

    def fixed_or_rate(kind: str, base: Decimal) -> Decimal:
        t = given[kind]
        if fixed is not None and kind in fixed:
            rates[kind] = Decimal(0)
            return fixed[kind]
        if t.get("amount") is not None:
            rates[kind] = Decimal(0)
            return q(Decimal(t["amount"]) / 100)
        rates[kind] = Decimal(str(t["rate"]))
        return q(base * rates[kind] / 100)

    for kind in TAXABLE_FEES + NON_TAXABLE_FEES:
        if kind in given:
            amounts[kind] = fixed_or_rate(kind, net)
    fees = sum((amounts[k] for k in TAXABLE_FEES if k in amounts), Decimal(0))
    if "T3" in given:
        amounts["T3"] = fixed_or_rate("T3", net)
    t3 = amounts.get("T3", Decimal(0))
    if "T2" in given:
        amounts["T2"] = fixed_or_rate("T2", net + fees + value_difference + t3)
    t2 = amounts.get("T2", Decimal(0))
    vat = q((net + fees + value_difference + t2 + t3) * vat_rate / 100)
    if "T4" in given:
        amounts["T4"] = fixed_or_rate("T4", net - items_discount)
    items = [{"taxType": "T1", "amount": vat, "subType": vat_subtype, "rate": vat_rate}]
    for kind in TYPES:          # ETA's order of types
        if kind in amounts:
            items.append({"taxType": kind, "amount": amounts[kind], "subType": given[kind]["subtype"],
                          "rate": rates[kind]})
    total = net + value_difference - items_discount + sum(
        (-t["amount"] if t["taxType"] == "T4" else t["amount"]) for t in items)
    return items, fees, q(total)


def signed(kind: str, amount: Decimal) -> Decimal:
    """A tax's effect on the total: withholding (T4) is subtracted."""
    return -amount if kind == "T4" else amount
