"""The mada BIN table (services/payments/data/mada_bins.csv, package data): which card numbers
are Saudi mada debit cards and which networks each carries. Loaded once, on first use."""
from __future__ import annotations

import csv
import functools
from importlib import resources

BIN_LENGTH = 6


@functools.cache
def table() -> dict[str, tuple[str, ...]]:
    """BIN -> networks (mada first, then the co-badged international network, if any)."""
    text = resources.files("services.payments").joinpath("data/mada_bins.csv").read_text(encoding="utf-8")
    rows = csv.DictReader(line for line in text.splitlines() if line and not line.startswith("#"))
    return {r["bin"].strip(): tuple(n.strip() for n in r["networks"].split("|") if n.strip()) for r in rows}


def networks_of(number: str) -> tuple[str, ...] | None:
    """The networks of a mada card number, or None when its BIN is not in the table."""
    return table().get(number[:BIN_LENGTH])
