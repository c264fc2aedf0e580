"""A customer's tax identity, `tax_id: {type, value, country[, tax_office]}`: read by every
e-invoice (ZATCA's buyer VAT number, GİB's VKN/TCKN, ETA's RIN), on the merchant's and the
CRM's customers. Each type is checked by its own rule (digits, length, check digits)."""
from __future__ import annotations

import re
from typing import Any

from services.errors import ValidationError
from services.validation import Fields

TYPES: dict[str, str] = {"sa_vat": "SA", "tr_vkn": "TR", "tr_tckn": "TR", "eg_rin": "EG"}
TCKN_PLACEHOLDER = "11111111111"        # GİB's number for a buyer without one (e-Arşiv); its check digits fail
_SA_VAT = re.compile(r"3\d{13}3")
_DIGITS = re.compile(r"\d+")


def vkn_ok(v: str) -> bool:
    """The Turkish tax number (vergi kimlik numarası): 10 digits, the last a check digit over the
    first nine (GİB's algorithm: each digit plus its position's offset mod 10, weighted by a power
    of two mod 9)."""
    if len(v) != 10 or not v.isdigit():
        return False
    total = 0
    for i, ch in enumerate(v[:9]):
        t = (int(ch) + 9 - i) % 10
        total += 9 if t == 9 else (t * 2 ** (9 - i)) % 9 if t else 0
    return (10 - total % 10) % 10 == int(v[9])


def tckn_ok(v: str) -> bool:
    """The Turkish identity number (T.C. kimlik numarası): 11 digits, not starting with 0; the
    10th is (7 x the odd-placed digits' sum - the even-placed ones') mod 10, the 11th the first
    ten's sum mod 10."""
    if len(v) != 11 or not v.isdigit() or v[0] == "0":
        return False
    d = [int(c) for c in v]
    return (7 * sum(d[0:9:2]) - sum(d[1:8:2])) % 10 == d[9] and sum(d[:10]) % 10 == d[10]


_RULES: dict[str, tuple[Any, str]] = {
    "sa_vat": (lambda v: bool(_SA_VAT.fullmatch(v)), "a Saudi VAT number: 15 digits, the first and the last 3"),
    "tr_vkn": (vkn_ok, "a Turkish VKN: 10 digits whose last is the check digit"),
    "tr_tckn": (lambda v: v == TCKN_PLACEHOLDER or tckn_ok(v),
                "a Turkish TCKN: 11 digits, not starting with 0, whose last two are the check digits"),
    "eg_rin": (lambda v: len(v) == 9 and v.isdigit(), "an Egyptian tax registration number (RIN): 9 digits"),
}


def parse(f: Fields | None, param: str = "tax_id") -> dict | None:
    """The `tax_id` object, checked; every refusal a 400 naming the field (`tax_id.value`, ...)."""
    if f is None:
        return None
    kind = f.enum("type", tuple(TYPES), required=True)
    value = f.str("value", required=True, min_len=1, max_len=32)
    country = f.str("country", max_len=2)
    office = f.str("tax_office", max_len=100)
    f.reject_unknown()
    value = re.sub(r"[\s\-]", "", value)
    check, rule = _RULES[kind]
    if not _DIGITS.fullmatch(value) or not check(value):
        raise ValidationError(f"{param}.value is not {rule}", param=f"{param}.value", code="invalid_tax_id")
    home = TYPES[kind]
    if country is not None and country.upper() != home:
        raise ValidationError(f"{param}.country must be {home} for a {kind} tax id", param=f"{param}.country")
    out = {"type": kind, "value": value, "country": home}
    if home == "TR":
        out["tax_office"] = office or None
    elif office:
        raise ValidationError(f"{param}.tax_office is for Turkish tax ids (tr_vkn, tr_tckn) only",
                              param=f"{param}.tax_office")
    return out


def read(f: Fields, key: str = "tax_id") -> tuple[bool, dict | None]:
    """(given?, value) of an optional `tax_id` in a create or update: null clears it."""
    if key not in f.data:
        return False, None
    if f.data[key] is None:
        f.has(key)
        return True, None
    return True, parse(f.obj(key), f.param(key))


def of_customer(tax_id: Any, metadata: Any, kind: str) -> str | None:
    """The number of type `kind` a customer has: its `tax_id`, or, for a Saudi VAT number,
    `metadata.vat_number` of customers created before `tax_id` existed."""
    if isinstance(tax_id, dict) and tax_id.get("type") == kind:
        return tax_id.get("value")
    if kind == "sa_vat" and isinstance(metadata, dict):
        return str(metadata.get("vat_number") or "").strip() or None
    return None
