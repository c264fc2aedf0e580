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
import logging
import sqlite3
from datetime import datetime, timezone
from decimal import Decimal
from operator import itemgetter
from collections.abc import Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import asyncpg
import orjson
from tortoise.backends.asyncpg.client import AsyncpgDBClient, TransactionWrapper
from tortoise.exceptions import IntegrityError, OperationalError, TransactionManagementError
from tortoise.fields.base import Field
from tortoise.fields.data import BinaryField, DatetimeField, JSONField
from tortoise.models import Model
from tortoise.transactions import in_transaction

M = TypeVar("M", bound=Model)
_PLACEHOLDER = {"postgres": "${}".format, "sqlite": lambda n: "?"}   # the dialects Qafila runs on
_SQL: dict[tuple, str] = {}
_DB_LOG = logging.getLogger("tortoise.db_client")


async def fetch(db, sql: str, values: Sequence[Any]) -> Sequence[Any]:
    """The rows of a read on `db` (the client Tortoise would use: the pool, or the caller's
    transaction). On PostgreSQL straight on an asyncpg connection: Tortoise's execute_query adds
    two exception-translating wrappers and a pooled-connection context object per statement, a
    fifth of a one-row read; a read raises only what Tortoise would let through unchanged (a
    driver or connection error), so nothing is lost by skipping them. The statement is logged
    to Tortoise's own logger at DEBUG, as Tortoise does (tests count statements there)."""
    return await _on_asyncpg(db, sql, values, "fetch")


@contextmanager
def _driver_errors():
    """asyncpg's errors translated as Tortoise's execute_query translates them, so a caller of a
    hand-written statement catches the same IntegrityError / OperationalError either way."""
    try:
        yield
    except (asyncpg.SyntaxOrAccessError, asyncpg.exceptions.DataError) as exc:
        raise OperationalError(exc) from exc
    except asyncpg.IntegrityConstraintViolationError as exc:
        raise IntegrityError(exc) from exc
    except asyncpg.InvalidTransactionStateError as exc:
        raise TransactionManagementError(exc) from exc


async def _write(db, sql: str, values: Sequence[Any]) -> None:
    """A write on `db` as `fetch` reads (asyncpg straight on PostgreSQL, the caller's transaction
    kept), its driver errors translated (`_driver_errors`)."""
    with _driver_errors():
        await _on_asyncpg(db, sql, values, "execute")


async def _on_asyncpg(db, sql: str, values: Sequence[Any], method: str) -> Any:
    if type(db) is TransactionWrapper:
        _log(sql, values)
        async with db._lock:           # Tortoise's guard against two statements at once on it
            return await getattr(db._connection, method)(sql, *values)
    pool = db._pool if isinstance(db, AsyncpgDBClient) else None
    if pool is None:                   # SQLite, or the pool not made yet: through Tortoise
        return (await db.execute_query(sql, list(values)))[1]
    _log(sql, values)
    con = await pool.acquire()
    try:
        return await getattr(con, method)(sql, *values)
    finally:
        await pool.release(con)


def _log(sql: str, values: Sequence[Any]) -> None:
    if _DB_LOG.isEnabledFor(logging.DEBUG):
        _DB_LOG.debug("%s: %s", sql, values)


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


async def rows(model: type[M], *, order_by: tuple[str, ...] = (), limit: int | None = None, as_view: bool = False,
               **equals: str | int | bool | None) -> list[M]:
    """The rows whose fields equal the given values, in `order_by` order ("-field" descending);
    `as_view`: as read-only RowViews instead of model instances."""
    meta = model._meta
    db = meta.db
    key = (model, tuple(equals), order_by, limit, db.capabilities.dialect)
    sql = _SQL.get(key)
    if sql is None:
        sql = _SQL[key] = _select(model, tuple(equals), order_by, limit, db.capabilities.dialect)
    fields = meta.fields_map
    found = await fetch(db, sql, [fields[k].to_db_value(v, model) for k, v in equals.items()])
    if as_view:
        return views(model, found)
    return [model._init_from_db(**row) for row in found]


_IN_IDS = {"postgres": "= ANY({}::text[])", "sqlite": "IN (SELECT value FROM json_each({}))"}


async def by_ids(model: type[Model], ids: Sequence[str], columns: tuple[str, ...]) -> list[RowView]:
    """The rows whose (text) primary key is one of `ids`, those columns of each, as RowViews, in no
    particular order: one statement text for any number of ids (the ids are one parameter: an
    array on PostgreSQL, a JSON list on SQLite), where the ORM's `id__in` builds its SQL anew for
    each call and each count."""
    if not ids:
        return []
    meta = model._meta
    db = meta.db
    dialect = db.capabilities.dialect
    key = ("by-ids", model, columns, dialect)
    sql = _SQL.get(key)
    if sql is None:
        names = ", ".join(f'"{meta.fields_db_projection[c]}"' for c in columns)
        sql = _SQL[key] = _numbered(f'SELECT {names} FROM "{meta.db_table}" WHERE "{meta.db_pk_column}" '
                                    f'{_IN_IDS[dialect]}', dialect)
    return views(model, await fetch(db, sql, [list(ids) if dialect == "postgres" else orjson.dumps(list(ids)).decode()]))


Join = tuple[type[Model], str, tuple[str, ...]]     # (joined model, its field naming the row's pk, columns)


def _select_with(model: type[Model], joins: tuple[Join, ...], names: tuple[str, ...], dialect: str) -> str:
    meta = model._meta
    own = ", ".join(f'm."{c}"' for c in sorted(meta.db_fields))
    extra, tables = [], []
    for i, (joined, on, columns) in enumerate(joins):
        jmeta = joined._meta
        extra += [f'j{i}."{jmeta.fields_db_projection[c]}" AS "__j{i}_{c}"' for c in (on, *columns)]
        tables.append(f'LEFT JOIN "{jmeta.db_table}" j{i} '
                      f'ON j{i}."{jmeta.fields_db_projection[on]}" = m."{meta.db_pk_column}"')
    where = " AND ".join(f'm."{meta.fields_db_projection[name]}" = {{}}' for name in names)
    return _numbered(f'SELECT {own}, {", ".join(extra)} FROM "{meta.db_table}" m {" ".join(tables)} '
                     f'WHERE {where} LIMIT 1', dialect)


class RowView:
    """A read-only stand-in for a model instance, made straight from a row: the model's fields as
    attributes with the values Tortoise would give them, and nothing else (no save, no
    relations, no methods). For reads that only shape their answer: a model instance costs
    several times more to make (Tortoise's bookkeeping per instance and per field). A JSON
    column is decoded when first read (a list's shaper may never read it); a column the query
    did not select (a narrow page) is simply absent."""

    __slots__ = ("__dict__", "_pending")

    def __getattr__(self, name: str) -> Any:          # only for names not (yet) in __dict__
        try:
            convert, raw = self._pending.pop(name)
        except (KeyError, AttributeError):
            raise AttributeError(name) from None
        value = self.__dict__[name] = convert(raw)
        return value

    def __repr__(self) -> str:
        return f"<RowView {self.__dict__.get('id')!r}>"


_VIEWS: dict[type[Model], tuple] = {}


def _as_utc(convert):
    """A DatetimeField's to_python_value, skipped for a value already aware in UTC (what asyncpg
    gives for timestamptz) when Tortoise's own zone is UTC: its conversion would only swap one UTC
    tzinfo for another (same instant, same rendering), at two calls per value."""
    from tortoise.timezone import get_default_timezone, get_use_tz
    if not (get_use_tz() and str(get_default_timezone()) in ("UTC", "Etc/UTC")):
        return convert

    def to_python(value):
        return value if value is None or (value.__class__ is datetime and value.tzinfo is timezone.utc) \
            else convert(value)
    return to_python


def _view_plan(model: type[Model]) -> tuple:
    """(column, attribute) pairs taken as the driver gives them; (column, attribute, type) of
    values Tortoise converts by their type; (column, attribute, converter, lazy) of those it
    converts with the field's to_python_value, a JSON field's decoded only when read."""
    plan = _VIEWS.get(model)
    if plan is None:
        meta = model._meta
        plan = _VIEWS[model] = (
            tuple((key, attr) for key, attr, _ in meta.db_native_fields),
            tuple((key, attr, f.field_type) for key, attr, f in meta.db_default_fields),
            tuple((key, attr, _as_utc(f.to_python_value) if isinstance(f, DatetimeField) else f.to_python_value,
                   isinstance(f, JSONField)) for key, attr, f in meta.db_complex_fields))
    return plan


_LAYOUTS: dict[tuple, tuple] = {}


def _layout(model: type[Model], keys: tuple[str, ...]) -> tuple:
    """`_view_plan` by position for rows with these columns in this order (one per query shape):
    (attributes taken as they are, a getter of their values, (position, attribute, type),
    (position, attribute, converter, lazy)). A column that is not the model's is left out."""
    native, default, complex_ = _view_plan(model)
    at = {k: i for i, k in enumerate(keys)}
    plain = [(at[key], attr) for key, attr in native if key in at]
    positions = [i for i, _ in plain]
    take = (itemgetter(*positions) if len(positions) > 1 else
            (lambda values, i=positions[0]: (values[i],)) if positions else (lambda values: ()))
    return (tuple(attr for _, attr in plain), take,
            tuple((at[key], attr, kind) for key, attr, kind in default if key in at),
            tuple((at[key], attr, convert, lazy) for key, attr, convert, lazy in complex_ if key in at))


def _layout_of(model: type[Model], row: Any) -> tuple:
    keys = tuple(row.keys())
    layout = _LAYOUTS.get((model, keys))
    if layout is None:
        layout = _LAYOUTS[(model, keys)] = _layout(model, keys)
    return layout


def view(model: type[Model], row: Any) -> RowView:
    """`row` (the model's columns, or some of them, in any order; a driver record or a dict) as a
    RowView."""
    return _view(_layout_of(model, row), row)


def views(model: type[Model], rows: Sequence[Any]) -> list[RowView]:
    """The rows of one statement (the same columns in the same order) as RowViews: their layout
    found once, not once a row."""
    if not rows:
        return []
    layout = _layout_of(model, rows[0])
    return [_view(layout, row) for row in rows]


def _view(layout: tuple, row: Any) -> RowView:
    attrs, take, typed, complex_ = layout
    values = tuple(row) if row.__class__ is sqlite3.Row else tuple(row.values())
    out = RowView()
    d = out.__dict__
    d.update(zip(attrs, take(values)))
    for i, attr, kind in typed:
        value = values[i]
        d[attr] = value if value is None or value.__class__ is kind else kind(value)
    pending = {}
    for i, attr, convert, lazy in complex_:
        value = values[i]
        if lazy:
            if value is None:       # what a JSON field's to_python_value answers for NULL
                d[attr] = None
            else:
                pending[attr] = (convert, value)
        else:
            d[attr] = convert(value)
    out._pending = pending
    return out


async def first_with(model: type[M], joined: type[Model], on: str, columns: tuple[str, ...],
                     as_view: bool = False, **equals: str | int | bool | None) -> tuple[M, dict | None] | None:
    """The first row whose fields equal the given values, with `columns` of the one `joined` row
    whose `on` field is its primary key (None when there is none), in one round trip; or None.
    `as_view`: the row as a RowView (read-only) instead of a model instance."""
    found = await first_with_all(model, ((joined, on, columns),), as_view=as_view, **equals)
    return None if found is None else (found[0], found[1][0])


async def first_with_all(model: type[M], joins: tuple[Join, ...], as_view: bool = False,
                         **equals: str | int | bool | None) -> tuple[M, list[dict | None]] | None:
    """`first_with` for several joined tables at once (each at most one row per row of `model`):
    the row and, per join, its columns as Python values (None when there is no joined row), in
    one round trip; or None."""
    meta = model._meta
    db = meta.db
    key = ("with", model, joins, tuple(equals), db.capabilities.dialect)
    sql = _SQL.get(key)
    if sql is None:
        sql = _SQL[key] = _select_with(model, joins, tuple(equals), db.capabilities.dialect)
    fields = meta.fields_map
    found = await fetch(db, sql, [fields[k].to_db_value(v, model) for k, v in equals.items()])
    if not found:
        return None
    row = found[0]
    extras: list[dict | None] = []
    for i, (joined, on, columns) in enumerate(joins):
        if row[f"__j{i}_{on}"] is None:
            extras.append(None)
            continue
        jfields = joined._meta.fields_map
        extras.append({c: _python(jfields[c], row[f"__j{i}_{c}"]) for c in (on, *columns)})
    if as_view:
        obj = view(model, row)
    else:
        obj = model._init_from_db(**{k: v for k, v in dict(row).items() if not k.startswith("__j")})
    return obj, extras


def _python(field: Field, value: Any) -> Any:
    """A joined column as Tortoise gives it (a DatetimeField's text on SQLite -> an aware datetime)."""
    return None if value is None else field.to_python_value(value)


async def first(model: type[M], *, order_by: tuple[str, ...] = (), as_view: bool = False,
                **equals: str | int | bool | None) -> M | None:
    """The first row whose fields equal the given values (string, integer or boolean), or None;
    `as_view`: a read-only RowView instead of a model instance."""
    found = await rows(model, order_by=order_by, limit=1, as_view=as_view, **equals)
    return found[0] if found else None


async def query(model: type[Model], template: str, values: Sequence[Any], *, custom_plan: bool = False) -> list[dict]:
    """A hand-written read on `model`'s connection; each `{}` in `template` is a placeholder.

    `custom_plan`: on PostgreSQL the statement is planned for these values, not with the
    connections' generic plan (app/pg_engine.py). For a read whose best plan depends on the value
    (one merchant's rows, where merchants differ by orders of magnitude): a generic plan costs
    every merchant as the average one."""
    db = model._meta.db
    key = (template, db.capabilities.dialect)
    sql = _SQL.get(key)
    if sql is None:
        sql = _SQL[key] = _numbered(template, db.capabilities.dialect)
    if custom_plan and db.capabilities.dialect == "postgres":
        return [dict(r) for r in await _fetch_custom_plan(db, sql, values)]
    return [dict(r) for r in await fetch(db, sql, values)]


_CUSTOM = "SELECT set_config('plan_cache_mode', 'force_custom_plan', true)"


async def _fetch_custom_plan(db, sql: str, values: Sequence[Any]) -> Sequence[Any]:
    """`sql` read with plan_cache_mode = force_custom_plan for this statement alone: set for the
    transaction (its own, or the caller's and then put back as it was). PostgreSQL reads the
    setting at each execution, so the connection's prepared statement is planned for the values."""
    _log(sql, values)
    if type(db) is TransactionWrapper:
        async with db._lock:
            con = db._connection
            before = await con.fetchval("SELECT current_setting('plan_cache_mode')")
            await con.execute(_CUSTOM)
            try:
                return await con.fetch(sql, *values)
            finally:
                await con.execute("SELECT set_config('plan_cache_mode', $1, true)", before)
    async with in_transaction(db.connection_name) as tx:
        con = tx._connection
        await con.execute(_CUSTOM)
        return await con.fetch(sql, *values)


async def fetch_custom_plan(model: type[Model], sql: str, values: Sequence[Any]) -> list[dict]:
    """A hand-written PostgreSQL statement (its own `$n`; a write with RETURNING or without) on
    `model`'s connection, planned for these values at every execution (`query`'s `custom_plan`).
    For the statements of a table that grows from empty (an outbox on a fresh database): the
    generic plan made while it was empty (a sequential scan) is kept by the connection until the
    next ANALYZE, up to a minute of autovacuum's, and reads the whole table at every call (the
    receipts claim: 18-26 ms a call instead of 0.3 ms, issue 48). Its planning, a few tenths of a
    millisecond, is paid once per batch."""
    with _driver_errors():      # a write's errors as `_write` gives them
        return [dict(r) for r in await _fetch_custom_plan(model._meta.db, sql, values)]


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
                if _counter_spec(model) is not None:
                    for obj in group:
                        await conn.execute_query(_upsert_sql(model, "sqlite"), _insert_values(obj))
                else:
                    await model.bulk_create(list(group))
    else:
        await _insert_statement(db, instances)
    for obj in instances:       # (not through Model.__setattr__: no relation, no async default)
        obj.__dict__["_saved_in_db"] = True


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


def _json_plan(model: type[Model]) -> tuple[str, Any] | None:
    """(the `INSERT INTO t (columns) SELECT columns FROM json_populate_recordset(NULL::t, $n)`
    template, the row's encoder), once per model; None for a model with a binary column (JSON has
    no bytes: the positional form)."""
    plan = _JSON_PLANS.get(model, _MISSING)
    if plan is _MISSING:
        fields = model._meta.fields_map
        columns = _insert_columns(model)
        if any(isinstance(fields[f], BinaryField) for _, f in columns):
            plan = None
        else:
            names = ", ".join(f'"{c}"' for c, _ in columns)
            table = model._meta.db_table
            plan = (f'INSERT INTO "{table}" ({names}) SELECT {names} FROM '
                    f'json_populate_recordset(NULL::"{table}", ${{}}::json){_on_conflict(model)}',
                    _row_encoder(model, columns))
        _JSON_PLANS[model] = plan
    return plan


def _row_encoder(model: type[Model], columns: list[tuple[str, str]]):
    """The row of an instance as {column: value orjson encodes and json_populate_recordset reads},
    as one function written for the model once: a value of the field's own type passes as it is
    (an aware datetime, a dict or list of a JSON column: nested JSON, which the jsonb column takes
    whole), anything else goes through the field's `to_db_value` as Tortoise would write it (a
    JSON column's text then embedded as it is)."""
    fields = model._meta.fields_map
    env: dict[str, Any] = {"datetime": datetime, "Fragment": orjson.Fragment, "_json_text": _json_text}
    items = []
    for i, (column, name) in enumerate(columns):
        field = fields[name]
        env[f"f{i}"] = field
        get = f"(v := d[{name!r}])"
        if isinstance(field, JSONField):
            expr = f"(v if {get} is None or v.__class__ is dict or v.__class__ is list else _json_text(f{i}, v, obj))"
        elif isinstance(field, DatetimeField):
            expr = f"(v if {get} is None or (v.__class__ is datetime and v.tzinfo is not None) else f{i}.to_db_value(v, obj))"
        elif type(field).to_db_value is _BASE_TO_DB:
            env[f"t{i}"] = field.field_type
            expr = f"(v if {get}.__class__ is t{i} or v is None else f{i}.to_db_value(v, obj))"
        else:
            expr = f"f{i}.to_db_value(d[{name!r}], obj)"
        items.append(f"{column!r}: {expr}")
    source = "def encode(obj):\n    d = obj.__dict__\n    return {" + ", ".join(items) + "}\n"
    exec(compile(source, f"<row encoder of {model.__name__}>", "exec"), env)     # noqa: S102 - our own text
    return env["encode"]


def _json_text(field: JSONField, value: Any, obj: Model) -> Any:
    text = field.to_db_value(value, obj)
    return None if text is None else orjson.Fragment(text)


_JSON_PLANS: dict[type, Any] = {}
_MISSING = object()


def _json_default(value: Any) -> Any:
    """What orjson does not encode itself: a Decimal (numeric columns) as its exact text."""
    if isinstance(value, Decimal):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not a column value")


async def _insert_statement(db, instances: Sequence[Model]) -> None:
    """The rows of every model as ONE JSON parameter per model, unpacked in SQL with
    json_populate_recordset: a statement of a few parameters whatever the rows (a payment's write
    had 181), one text to prepare per sequence of models (not per row count), and the encoding
    done by orjson in one call instead of the driver's per-parameter codecs. Column values are
    those Tortoise would write (`to_db_value`); a JSON column's text is embedded as it is."""
    groups = [(model, list(group)) for model, group in itertools.groupby(instances, key=type)]
    plans = [_json_plan(model) for model, _ in groups]
    if any(plan is None for plan in plans):
        return await _insert_positional(db, instances)
    key = ("insert-json", tuple(model for model, _ in groups))
    sql = _SQL.get(key)
    if sql is None:
        sql = _SQL[key] = "WITH " + ", ".join(f"w{i} AS ({plan[0].format(i + 1)})"
                                              for i, plan in enumerate(plans)) + " SELECT 1"
    values = []
    for (model, group), (_, encode) in zip(groups, plans):
        try:
            rows = [encode(obj) for obj in group]
        except KeyError:        # an instance without every field in its __dict__: read as attributes
            rows = [_encode_slowly(model, obj) for obj in group]
        values.append(orjson.dumps(rows, default=_json_default).decode())
    await _write(db, sql, values)


def on_postgres(model: type[Model]) -> bool:
    """Whether `model`'s client is PostgreSQL's (the pooled asyncpg client, or a transaction on
    it): where the hot paths' own statements run (services/payments/*_hot.py)."""
    db = model._meta.db
    return isinstance(db, AsyncpgDBClient) or type(db) is TransactionWrapper


async def execute_raw(db, sql: str, values: Sequence[Any]) -> None:
    """A hand-written PostgreSQL statement (its own `$n`), run as `_write` runs a write."""
    await _write(db, sql, values)


async def fetch_hot(db, sql: str, values: Sequence[Any]) -> Sequence[Any]:
    """A hot path's own statement (services/payments/*_hot.py) on `db`, as `fetch` runs it, with
    a driver error translated as a write's (`_write`): IntegrityError, OperationalError."""
    with _driver_errors():
        return await _on_asyncpg(db, sql, values, "fetch")


def _encode_slowly(model: type[Model], obj: Model) -> dict[str, Any]:
    fields = model._meta.fields_map
    out = {}
    for column, name in _insert_columns(model):
        value = fields[name].to_db_value(getattr(obj, name), obj)
        out[column] = orjson.Fragment(value) if isinstance(fields[name], JSONField) and value is not None else value
    return out


async def _insert_positional(db, instances: Sequence[Model]) -> None:
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
    await _write(db, sql, values)


# ---- counters: a model with UPSERT_KEYS (its unique key) and UPSERT_ADD (counter columns) is
# written by insert_all as INSERT ... ON CONFLICT (keys) DO UPDATE SET c = c + EXCLUDED.c, so a
# rollup row is added to in the same atomic write as the change it counts. UPSERT_SET: columns
# replaced instead (c = EXCLUDED.c): an idempotency key's outcome written onto its claim.

_COUNTER_SPECS: dict[type, tuple | None] = {}


def _counter_spec(model: type[Model]) -> tuple | None:
    """(UPSERT_KEYS, UPSERT_ADD, UPSERT_SET) of a counter model, None for any other: read once per
    model (a write's fifteen rows asked each model three times for its counters)."""
    spec = _COUNTER_SPECS.get(model, _MISSING)
    if spec is _MISSING:
        keys = getattr(model, "UPSERT_KEYS", None)
        spec = _COUNTER_SPECS[model] = ((tuple(keys), tuple(getattr(model, "UPSERT_ADD", ())),
                                         tuple(getattr(model, "UPSERT_SET", ()))) if keys else None)
    return spec


def _merged(instances: Sequence[Model]) -> list[Model]:
    """Counter rows of the same key folded into one (one statement may not touch a row twice)."""
    out: list[Model] = []
    seen: dict[tuple, Model] = {}
    for obj in instances:
        spec = _counter_spec(obj.__class__)
        if spec is None:
            out.append(obj)
            continue
        keys, add, put = spec
        key = (obj.__class__.__name__, *[str(getattr(obj, k)) for k in keys])
        first = seen.get(key)
        if first is None:
            seen[key] = obj
            continue
        for c in add:
            setattr(first, c, getattr(first, c) + getattr(obj, c))
        for c in put:
            setattr(first, c, getattr(obj, c))
    if not seen:
        return out
    # Counter rows last, in key order: concurrent writers lock them in the same order (no deadlock).
    return out + [seen[k] for k in sorted(seen)]


def _on_conflict(model: type[Model]) -> str:
    spec = _counter_spec(model)
    if spec is None:
        return ""
    keys, add, put = spec
    meta = model._meta
    table = meta.db_table
    column = meta.fields_db_projection
    cols = ", ".join(f'"{column[k]}"' for k in keys)
    sets = [f'"{column[c]}" = "{table}"."{column[c]}" + EXCLUDED."{column[c]}"' for c in add]
    sets += [f'"{column[c]}" = EXCLUDED."{column[c]}"' for c in put]
    return f" ON CONFLICT ({cols}) DO UPDATE SET {', '.join(sets)}"


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
