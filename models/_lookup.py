"""Hot-path reads and writes with their SQL built once.

Tortoise rebuilds a query's SQL through pypika on every call, which costs more than the round
trip itself when reading one row by its id, and an ORM transaction costs a round trip for each
statement plus BEGIN and COMMIT. The helpers here write their SQL once per (model, field names,
dialect) from the model's metadata and afterwards only execute it, on the connection (or
transaction) Tortoise itself would use; values go through each field's `to_db_value` and rows
become model instances exactly as Tortoise's executor makes them (`Model._init_from_db`).

- `first` / `rows`: `SELECT <every column> ... WHERE a = $1 AND ... [ORDER BY ...] [LIMIT n]`.
- `query`: a hand-written read, its `{}` placeholders numbered for the dialect once.
- `insert_all`: new rows of several models in one atomic write -- on PostgreSQL one statement
  (data-modifying CTEs, one round trip), elsewhere one ORM transaction.
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, TypeVar

from tortoise.fields.base import Field
from tortoise.models import Model
from tortoise.transactions import in_transaction

M = TypeVar("M", bound=Model)
_PLACEHOLDER = {"postgres": "${}".format, "sqlite": lambda n: "?"}   # the dialects Qafila runs on
_SQL: dict[tuple, str] = {}


def _numbered(template: str, dialect: str, start: int = 1) -> str:
    n = itertools.count(start)
    return template.format(*(_PLACEHOLDER[dialect](next(n)) for _ in range(template.count("{}"))))


def _select(model: type[Model], names: tuple[str, ...], order_by: tuple[str, ...], limit: int | None,
            dialect: str) -> str:
    meta = model._meta
    columns = ", ".join(f'"{c}"' for c in sorted(meta.db_fields))
    where = " AND ".join(f'"{meta.fields_db_projection[name]}" = {{}}' for name in names)
    sql = f'SELECT {columns} FROM "{meta.db_table}" WHERE {where}'
    if order_by:
        sql += " ORDER BY " + ", ".join(
            f'"{meta.fields_db_projection[o.lstrip("-")]}"{" DESC" if o.startswith("-") else ""}' for o in order_by)
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    return _numbered(sql, dialect)


async def rows(model: type[M], *, order_by: tuple[str, ...] = (), limit: int | None = None,
               **equals: str | int | bool | None) -> list[M]:
    """The rows whose fields equal the given values, in `order_by` order ("-field" descending)."""
    meta = model._meta
    db = meta.db
    key = (model, tuple(equals), order_by, limit, db.capabilities.dialect)
    sql = _SQL.get(key)
    if sql is None:
        sql = _SQL[key] = _select(model, tuple(equals), order_by, limit, db.capabilities.dialect)
    fields = meta.fields_map
    _, found = await db.execute_query(sql, [fields[k].to_db_value(v, model) for k, v in equals.items()])
    return [model._init_from_db(**row) for row in found]


async def first(model: type[M], *, order_by: tuple[str, ...] = (), **equals: str | int | bool | None) -> M | None:
    """The first row whose fields equal the given values (string, integer or boolean), or None."""
    found = await rows(model, order_by=order_by, limit=1, **equals)
    return found[0] if found else None


async def query(model: type[Model], template: str, values: Sequence[Any]) -> list[dict]:
    """A hand-written read on `model`'s connection; each `{}` in `template` is a placeholder."""
    db = model._meta.db
    key = (template, db.capabilities.dialect)
    sql = _SQL.get(key)
    if sql is None:
        sql = _SQL[key] = _numbered(template, db.capabilities.dialect)
    _, found = await db.execute_query(sql, list(values))
    return [dict(r) for r in found]


async def execute(model: type[Model], template: str, values: Sequence[Any]) -> int:
    """A hand-written write on `model`'s connection; answers the number of rows it changed."""
    db = model._meta.db
    key = (template, db.capabilities.dialect)
    sql = _SQL.get(key)
    if sql is None:
        sql = _SQL[key] = _numbered(template, db.capabilities.dialect)
    count, _ = await db.execute_query(sql, list(values))
    return count


def db_value(model: type[Model], field: str, value: Any) -> Any:
    """`value` as the database stores `model.field` (for hand-written queries)."""
    return model._meta.fields_map[field].to_db_value(value, model)


def _insert_columns(model: type[Model]) -> list[tuple[str, str]]:
    meta = model._meta
    return [(c, meta.fields_db_projection_reverse[c]) for c in sorted(meta.db_fields)
            if c not in meta.generated_db_fields]


async def insert_all(instances: Sequence[Model]) -> None:
    """Insert new rows (of any models) atomically: all or none. Generated keys (auto-increment)
    are left to the database and not read back."""
    if not instances:
        return
    first_model = type(instances[0])
    db = first_model._meta.db
    instances = _merged(instances)
    if db.capabilities.dialect != "postgres":
        async with in_transaction(first_model._meta.default_connection) as conn:
            for model, group in itertools.groupby(instances, key=type):
                if getattr(model, "UPSERT_KEYS", None):
                    for obj in group:
                        await conn.execute_query(_upsert_sql(model, "sqlite"), _insert_values(obj))
                else:
                    await model.bulk_create(list(group))
    else:
        await _insert_statement(db, instances)
    for obj in instances:
        obj._saved_in_db = True


_PLANS: dict[type, tuple] = {}
_BASE_TO_DB = Field.to_db_value
_CACHED_ROWS = 32


def _insert_plan(model: type[Model]) -> tuple[str, tuple[tuple[str, Any, type | None], ...]]:
    """(`INSERT INTO t (columns)`, per column (field name, field, exact type that passes as is)),
    once per model. A value of exactly the field's type goes to the driver unconverted: for those
    fields Tortoise's to_db_value only runs the max-length validator, and on PostgreSQL the
    column's varchar(n) refuses the same values."""
    plan = _PLANS.get(model)
    if plan is None:
        fields = model._meta.fields_map
        columns = _insert_columns(model)
        per_column = tuple((f, fields[f], fields[f].field_type if type(fields[f]).to_db_value is _BASE_TO_DB else None)
                           for _, f in columns)
        names = ", ".join(f'"{c}"' for c, _ in columns)
        plan = _PLANS[model] = (f'INSERT INTO "{model._meta.db_table}" ({names}) VALUES ', per_column)
    return plan


async def _insert_statement(db, instances: Sequence[Model]) -> None:
    values: list[Any] = []
    shape = []
    for model, group in itertools.groupby(instances, key=type):
        _, per_column = _insert_plan(model)
        n = 0
        for obj in group:
            for name, field, plain in per_column:
                value = getattr(obj, name)
                values.append(value if type(value) is plain or (value is None and plain is not None)
                              else field.to_db_value(value, obj))
            n += 1
        shape.append((model, n))
    key = ("insert", tuple(shape))
    sql = _SQL.get(key)
    if sql is None:
        parts, k = [], 0
        for i, (model, n) in enumerate(shape):
            head, per_column = _insert_plan(model)
            tuples = []
            for _ in range(n):
                tuples.append("(" + ", ".join(f"${k + j}" for j in range(1, len(per_column) + 1)) + ")")
                k += len(per_column)
            parts.append(f'w{i} AS ({head}{", ".join(tuples)}{_on_conflict(model)})')
        sql = "WITH " + ", ".join(parts) + " SELECT 1"
        if len(instances) <= _CACHED_ROWS:      # the creates' few shapes, not every batch size
            _SQL[key] = sql
    await db.execute_query(sql, values)


# ---- counters: a model with UPSERT_KEYS (its unique key) and UPSERT_ADD (counter columns) is
# written by insert_all as INSERT ... ON CONFLICT (keys) DO UPDATE SET c = c + EXCLUDED.c, so a
# rollup row is added to in the same atomic write as the change it counts.

def _key(obj: Model) -> tuple:
    return tuple(getattr(obj, k) for k in type(obj).UPSERT_KEYS)


def _merged(instances: Sequence[Model]) -> list[Model]:
    """Counter rows of the same key folded into one (one statement may not touch a row twice)."""
    if not any(getattr(type(o), "UPSERT_KEYS", None) for o in instances):
        return list(instances)
    out: list[Model] = []
    seen: dict[tuple, Model] = {}
    for obj in instances:
        model = type(obj)
        if not getattr(model, "UPSERT_KEYS", None):
            out.append(obj)
            continue
        key = (model.__name__, *map(str, _key(obj)))
        if key in seen:
            for c in model.UPSERT_ADD:
                setattr(seen[key], c, getattr(seen[key], c) + getattr(obj, c))
        else:
            seen[key] = obj
    # Counter rows last, in key order: concurrent writers lock them in the same order (no deadlock).
    return out + [seen[k] for k in sorted(seen)]


def _on_conflict(model: type[Model]) -> str:
    keys = getattr(model, "UPSERT_KEYS", None)
    if not keys:
        return ""
    meta = model._meta
    table = meta.db_table
    cols = ", ".join(f'"{meta.fields_db_projection[k]}"' for k in keys)
    sets = ", ".join(f'"{meta.fields_db_projection[c]}" = "{table}"."{meta.fields_db_projection[c]}" + '
                     f'EXCLUDED."{meta.fields_db_projection[c]}"' for c in model.UPSERT_ADD)
    return f" ON CONFLICT ({cols}) DO UPDATE SET {sets}"


def _insert_values(obj: Model) -> list[Any]:
    fields = type(obj)._meta.fields_map
    return [fields[f].to_db_value(getattr(obj, f), obj) for _, f in _insert_columns(type(obj))]


def _upsert_sql(model: type[Model], dialect: str) -> str:
    key = ("upsert", model, dialect)
    sql = _SQL.get(key)
    if sql is None:
        columns = _insert_columns(model)
        names = ", ".join(f'"{c}"' for c, _ in columns)
        sql = _SQL[key] = _numbered(f'INSERT INTO "{model._meta.db_table}" ({names}) VALUES '
                                    f'({", ".join("{}" for _ in columns)}){_on_conflict(model)}', dialect)
    return sql


async def upsert(instances: Sequence[Model]) -> None:
    """Add counter rows (models with UPSERT_KEYS) inside the caller's transaction."""
    for obj in _merged(instances):
        model = type(obj)
        db = model._meta.db
        await db.execute_query(_upsert_sql(model, db.capabilities.dialect), _insert_values(obj))
