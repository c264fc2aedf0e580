"""The BIN tables of the national card schemes besides mada (services.payments.mada): the Turkish
table (services/payments/data/tr_installment_bins.csv: 8-digit BINs, a 6-digit row standing for
every BIN under it without a row of its own; brand, networks, credit|debit|prepaid, bank and
installment program) and Egypt's Meeza BINs (data/meeza_bins.csv). Package data, loaded once.
Pure: no number is kept, only prefixes are read."""
from __future__ import annotations

import csv
import functools
import re
from dataclasses import dataclass
from importlib import resources

CARD_TYPES = ("credit", "debit", "prepaid")
_BIN = re.compile(r"\d{6}(\d{2})?")


@dataclass(frozen=True)
class TrBin:
    """One row of the Turkish BIN table."""
    brand: str
    networks: tuple[str, ...]
    card_type: str
    bank: str
    program: str | None


def _rows(name: str):
    text = resources.files("services.payments").joinpath(f"data/{name}").read_text(encoding="utf-8")
    return csv.DictReader(line for line in text.splitlines() if line and not line.startswith("#"))


@functools.cache
def tr_table() -> dict[str, TrBin]:
    """BIN (6 or 8 digits) -> its row. A malformed row stops the start (configuration error)."""
    out: dict[str, TrBin] = {}
    for row in _rows("tr_installment_bins.csv"):
        b = row["bin"].strip()
        networks = tuple(n.strip() for n in row["networks"].split("|") if n.strip())
        if not _BIN.fullmatch(b) or row["card_type"] not in CARD_TYPES or not networks or not row["brand"].strip():
            raise ValueError(f"bad BIN table row: {row}")
        out[b] = TrBin(brand=row["brand"].strip(), networks=networks, card_type=row["card_type"],
                       bank=row["bank"].strip(), program=row["program"].strip() or None)
    return out


def tr_row(digits: str | None) -> TrBin | None:
    """The row of a card number or BIN: its 8-digit BIN first, then its 6-digit one."""
    if not digits:
        return None
    table = tr_table()
    return table.get(digits[:8]) if len(digits) >= 8 and digits[:8] in table else table.get(digits[:6])


@functools.cache
def meeza_bins() -> frozenset[str]:
    return frozenset(r["bin"].strip() for r in _rows("meeza_bins.csv"))


def is_meeza(digits: str) -> bool:
    return digits[:6] in meeza_bins()
