"""A customer's postal address, `address: {line1, line2, building_number, district, city, state,
postal_code, country}`, on the merchant's and the CRM's customers: read by ETA's receiver, GİB's
and ZATCA's buyer, and a BNPL intent's shipping address. `country` is ISO 3166-1 alpha-2 (pycountry).

An update merges (as Stripe's does): the keys given replace those stored, a key given as null or
"" is removed, the others stay; `address: null` clears the whole address."""
from __future__ import annotations

import functools
from typing import Any

import pycountry

from services.errors import ValidationError
from services.validation import Fields, check_str

KEYS = ("line1", "line2", "building_number", "district", "city", "state", "postal_code", "country")
MAX_LEN = {"line1": 200, "line2": 200, "building_number": 20, "district": 100, "city": 100, "state": 100,
           "postal_code": 20, "country": 2}


@functools.cache
def countries() -> frozenset[str]:
    """Every ISO 3166-1 alpha-2 code (pycountry's table, read on first use, not at start)."""
    return frozenset(c.alpha_2 for c in pycountry.countries)


def country_code(value: Any, param: str) -> str:
    """An ISO 3166-1 alpha-2 code, upper-cased (`eg` -> `EG`); anything else (`EGY`, `XX`) is a 400."""
    code = check_str(value, param, max_len=10).upper()
    if code not in countries():
        raise ValidationError(f"{param} must be an ISO 3166-1 alpha-2 country code, e.g. EG, SA, TR",
                              param=param)
    return code


def country_name(code: str) -> str:
    """The English short name of a country code (`DE` -> `Germany`), or the code if unknown."""
    found = pycountry.countries.get(alpha_2=code)
    return found.name if found is not None else code


def parse(f: Fields) -> dict[str, str | None]:
    """The keys given, checked: each a string (or null / "" to remove it); unknown keys refused,
    every refusal a 400 naming `address.<key>`."""
    f.reject_unknown(also=KEYS)
    out: dict[str, str | None] = {}
    for key in KEYS:
        if key not in f.data:
            continue
        value = f.data[key]
        param = f.param(key)
        if value is None or (isinstance(value, str) and not value.strip()):
            out[key] = None
        elif key == "country":
            out[key] = country_code(value, param)
        else:
            out[key] = check_str(value, param, max_len=MAX_LEN[key])
    return out


def read(f: Fields, key: str = "address") -> tuple[bool, dict[str, str | None] | None]:
    """(given?, the keys given) of an optional `address` in a create or update; (True, None): null,
    which clears it."""
    if key not in f.data:
        return False, None
    if f.data[key] is None:
        f.has(key)
        return True, None
    return True, parse(f.obj(key))


def apply(current: Any, given: dict[str, str | None] | None) -> dict[str, str | None] | None:
    """The address to store: `current` with the keys given merged in (None clears all). Stored with
    every key (null when unset), or None when no key is left."""
    if given is None:
        return None
    merged = {k: v for k, v in (current if isinstance(current, dict) else {}).items() if k in KEYS}
    merged.update(given)
    if not any(merged.get(k) for k in KEYS):
        return None
    return {k: merged.get(k) or None for k in KEYS}


def of(customer: Any) -> dict[str, str | None] | None:
    """The customer's address, or None (a customer without one, or a row from before it existed)."""
    a = getattr(customer, "address", None)
    return a if isinstance(a, dict) and any(a.get(k) for k in KEYS) else None
