"""The scheduler's reads of what is due, through a partial index.

A job kind that wakes rows of one state (open intents past their expiry, authorizations past their
validity, payments still waiting for their invoice) keeps them in a partial index whose predicate
holds only those rows. PostgreSQL uses a partial index for a statement only when the statement's
WHERE implies the index's predicate, and the connections' generic plans (app/pg_engine.py) have no
parameter values to prove that with: the predicate is written into the statement as literals, the
same text as the index's. Written with parameters (as the ORM writes a filter), the generic plan
scanned the whole table on every scheduler pass.

A read of one merchant (the scheduler reads a merchant whose test clock has moved on its own,
every pass) is planned for that merchant (models._lookup.query's `custom_plan`): under a generic
plan `merchant_id` is costed as the average merchant, and the plan walked every merchant's rows of
the index in order, filtering them down to this one's (issue 40).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from tortoise.models import Model

from models import _lookup as lookup


async def due(model: type[Model], *, predicate: str, column: str, until: datetime, limit: int,
              livemode: bool | None = None, merchant_id: str | None = None,
              exclude_merchants: Iterable[str] = (), also: Sequence[str] = ()) -> list[tuple[datetime, str]]:
    """(`column`, id) of `model`'s rows matching `predicate` (the partial index's, as literals) and
    `also` (more literal conditions) with `column` at or before `until`, earliest first, at most
    `limit`; confined to a mode, a merchant or all but some merchants when given."""
    where = [predicate, f"{column} <= {{}}", *also]
    values: list = [lookup.db_value(model, column, until)]
    if livemode is not None:
        where.append("livemode = {}")
        values.append(lookup.db_value(model, "livemode", livemode))
    if merchant_id is not None:
        where.append("merchant_id = {}")
        values.append(merchant_id)
    excluded = sorted(exclude_merchants)
    if excluded:
        where.append(f"merchant_id NOT IN ({', '.join('{}' for _ in excluded)})")
        values += excluded
    rows = await lookup.query(model, f'SELECT {column}, id FROM "{model._meta.db_table}" '
                                     f"WHERE {' AND '.join(where)} ORDER BY {column}, id LIMIT {{}}",
                              [*values, int(limit)], custom_plan=merchant_id is not None)
    field = model._meta.fields_map[column]
    return [(field.to_python_value(r[column]), r["id"]) for r in rows]
