"""Hot-path reads by equality, with their SQL built once.

Tortoise rebuilds a query's SQL through pypika on every call, which costs more than the round
trip itself when reading one row by its id. `first(Model, id=..., merchant_id=...)` writes
`SELECT <every column> FROM <table> WHERE a = $1 AND b = $2 LIMIT 1` once per (model, field
names, dialect) from the model's metadata and afterwards only executes it, on the connection
(or transaction) Tortoise itself would use; values go through each field's `to_db_value`. The row becomes a model instance exactly as Tortoise's executor makes one
(`Model._init_from_db`).
"""
from __future__ import annotations

from typing import TypeVar

from tortoise.models import Model

M = TypeVar("M", bound=Model)
_PLACEHOLDER = {"postgres": "${}".format, "sqlite": lambda n: "?"}   # the dialects Qafila runs on
_SQL: dict[tuple, str] = {}


def _compile(model: type[Model], names: tuple[str, ...], dialect: str) -> str:
    meta = model._meta
    columns = ", ".join(f'"{c}"' for c in sorted(meta.db_fields))
    where = " AND ".join(f'"{meta.fields_db_projection[name]}" = {_PLACEHOLDER[dialect](n)}'
                         for n, name in enumerate(names, start=1))
    return f'SELECT {columns} FROM "{meta.db_table}" WHERE {where} LIMIT 1'


async def first(model: type[M], **equals: str | int | bool) -> M | None:
    """The first row whose fields equal the given values (string, integer or boolean), or None."""
    meta = model._meta
    db = meta.db
    key = (model, tuple(equals), db.capabilities.dialect)
    sql = _SQL.get(key)
    if sql is None:
        sql = _SQL[key] = _compile(model, tuple(equals), db.capabilities.dialect)
    fields = meta.fields_map
    _, rows = await db.execute_query(sql, [fields[k].to_db_value(v, model) for k, v in equals.items()])
    return model._init_from_db(**rows[0]) if rows else None
