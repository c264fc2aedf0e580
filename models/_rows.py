"""New rows for the create paths, made without Tortoise's per-field work.

`Model(**values)` converts every value (`to_python_value`), checks it for None, runs
`__setattr__` (which looks up relation fields) per field and fills the defaults through set
arithmetic: a payment create builds a dozen rows (the payment, its attempt, ledger legs,
balance line, receipt, event, rollups), and that was a fifth of its time. The values these
rows get are already checked and of the field's Python type (the request was validated, the
rest is computed), so `new` only fills the instance's attributes, with the same defaults, and
the write (`_lookup.insert_all`) still converts and checks every value for the database.
"""
from __future__ import annotations

from copy import deepcopy
from typing import Any, TypeVar

from tortoise.models import Model

M = TypeVar("M", bound=Model)
_PLANS: dict[type, tuple[dict[str, Any], tuple[tuple[str, Any], ...], frozenset[str]]] = {}


def _plan(model: type[Model]) -> tuple[dict[str, Any], tuple[tuple[str, Any], ...], frozenset[str]]:
    """(plain defaults, (field, callable or mutable default) pairs, fields that may not be None),
    made once per model (after Tortoise is up: relation columns are known then)."""
    plan = _PLANS.get(model)
    if plan is None:
        meta = model._meta
        plain: dict[str, Any] = {}
        made: list[tuple[str, Any]] = []
        required = set()
        for name in meta.fields_db_projection:
            field = meta.fields_map[name]
            default = field.default
            if not field.null:
                required.add(name)
            if callable(default) or (default is not None and not isinstance(default, (int, float, str, bool, bytes))):
                made.append((name, default))
            elif default is not None:
                plain[name] = default
            elif field.has_db_default():
                plain[name] = field.get_db_default_value()
            else:
                plain[name] = None
        plan = _PLANS[model] = (plain, tuple(made), frozenset(required))
    return plan


def new(model: type[M], **values: Any) -> M:
    """A new, unsaved `model` row holding `values` (Python values of each field's type) and the
    field defaults for the rest -- what `model(**values)` makes, without converting the values."""
    plain, made, required = _plan(model)
    obj = model.__new__(model)
    attrs = obj.__dict__
    attrs["_partial"] = False
    attrs["_saved_in_db"] = False
    attrs["_custom_generated_pk"] = False
    attrs["_await_when_save"] = {}
    attrs.update(plain)
    for name, default in made:
        if name not in values:
            attrs[name] = default() if callable(default) else deepcopy(default)
    for name, value in values.items():
        if value is None and name in required:
            raise ValueError(f"{name} is non nullable field, but null was passed")
    attrs.update(values)
    return obj


COUNTER_SLOTS = 16


# The slot of each pair of id characters: ids end in random characters of 62 (services.ids), and
# 62 x 62 = 3,844 pairs spread over 16 slots as 240 or 241 each (one character alone, `ord(c) % 16`,
# gave some slots 5 of the 62 and others 3: a third more collisions on the busy ones).
_CHAR = {c: i for i, c in enumerate("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")}


def counter_slot(row_id: str) -> int:
    """The slot of the counter rows (list totals, daily rollups) a new intent or payment adds
    to, from its id: one tenant's counter is spread over COUNTER_SLOTS rows, summed when read, so
    concurrent creates do not queue on one row lock until each commit. Every counter of a row
    takes the same slot, so two creates that share one counter row share all of them (and lock
    them in the same order) instead of colliding on each independently. Evenly: from the id's
    last two characters (a random id's are uniform over 3,844 pairs); any other id by its bytes."""
    try:
        return (_CHAR[row_id[-2]] * 62 + _CHAR[row_id[-1]]) % COUNTER_SLOTS
    except (KeyError, IndexError):
        return sum(row_id.encode()) % COUNTER_SLOTS
