"""One page of a tenant's list, newest first, in one statement whose SQL is written once per shape.

    SELECT m._found, m._total, p.*
    FROM (SELECT <is the cursor in this list?> AS _found, <the list's total> AS _total) m
    LEFT JOIN (SELECT <columns> FROM t WHERE <scope and filters>
               AND (created_at, id) < ((SELECT created_at FROM t WHERE id = $cursor AND <scope and filters>), $cursor)
               ORDER BY created_at DESC, id DESC LIMIT <limit + 1>) p ON 1 = 1

- The keyset comparison is a row comparison over (created_at, id), which the index
  (merchant_id, livemode, created_at, id) serves as a range: a page costs the same at any depth
  and any list size. The cursor's own row is read by its primary key, through the same scope and
  filters, in the same statement: `_found` is NULL when the id is unknown, another tenant's or
  outside the filtered list (the caller answers 400), and the page is then empty.
- The total is one of: the list's counter rows (`list_counts`, maintained in the rows' own
  writes: exact and O(1), see models.core.ListCount), or the matching rows counted up to `cap + 1`
  (bounded cost; the caller reports a capped total), or nothing.
- The one-row `m` LEFT JOINed to the page answers `_found` and `_total` even when the page is
  empty (its columns are then NULL).

SQL is cached per (model, scope names, filter names and operators, cursor or not, total kind,
columns, dialect); values are bound, the limit included.

Rows come back as `Row` objects, not model instances: on PostgreSQL the driver already gives
Python values (only JSON columns are decoded), and building a Tortoise instance costs ~40 times
more than the row itself (13 us a row of payment_intents here). Elsewhere (SQLite stores dates
as text) rows go through Tortoise's own conversion (`Model._init_from_db`).
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from tortoise.models import Model

from models._lookup import _PLACEHOLDER, fetch, views
from models.core import ListCount

_SQL: dict[tuple, tuple[str, tuple]] = {}
OPS = ("=", ">=", "<=", "<")


def _objects(model: type[Model], records: list, dialect: str) -> list:
    """A page's rows: read-only row views on PostgreSQL (lookup.view), model instances elsewhere."""
    if dialect != "postgres":
        return [model._init_from_db(**r) for r in records]
    return views(model, records)


def _build(model: type[Model], scope: tuple[str, ...], filters: tuple[tuple[str, str], ...], cursor: bool,
           total: tuple, columns: tuple[str, ...] | None, dialect: str) -> tuple[str, tuple]:
    """(sql, keys): keys name, in placeholder order, which value each placeholder takes."""
    meta = model._meta
    table = f'"{meta.db_table}"'
    col = meta.fields_db_projection
    parts: list[str] = []
    keys: list[Any] = []

    def where() -> str:
        conds = []
        for name in scope:
            conds.append(f'"{col[name]}" = {{}}')
            keys.append(("scope", name))
        for i, (name, op) in enumerate(filters):
            if op not in OPS:
                raise ValueError(f"operator {op!r}")
            conds.append(f'"{col[name]}" {op} {{}}')
            keys.append(("filter", i))
        return " AND ".join(conds)

    # the one-row head: is the cursor in this list, and the list's total
    if cursor:
        parts.append(f"SELECT (SELECT 1 FROM {table} WHERE \"id\" = {{}} AND ")
        keys.append(("cursor",))
        parts.append(where() + ") AS \"_found\", ")
    else:
        parts.append('SELECT 1 AS "_found", ')
    if total[0] == "counter":
        parts.append(f'(SELECT COALESCE(SUM("n"), 0) FROM "{ListCount._meta.db_table}" '
                     f'WHERE "merchant_id" = {{}} AND "livemode" = {{}} AND "kind" = {{}}) AS "_total"')
        keys += [("scope", "merchant_id"), ("scope", "livemode"), ("kind",)]
    elif total[0] == "count":
        # Counted along the page's own order: PostgreSQL then walks the tenant's index, bounded by
        # the tenant's rows. Without it the generic plan was a sequential scan stopping at the
        # cap's match, which for a merchant with few matches read the whole table (1,052 ms at
        # 2,000,000 payments; 1.8 ms so).
        parts.append(f"(SELECT COUNT(*) FROM (SELECT 1 FROM {table} WHERE ")
        parts.append(where() + f' ORDER BY "created_at" DESC, "id" DESC LIMIT {int(total[1]) + 1}) c) AS "_total"')
    else:
        parts.append('0 AS "_total"')
    # the page
    names = columns or tuple(sorted(meta.db_fields))
    parts.append(f') m LEFT JOIN (SELECT {", ".join(f"{chr(34)}{c}{chr(34)}" for c in names)} FROM {table} WHERE ')
    parts.append(where())
    if cursor:
        parts.append(f' AND ("created_at", "id") < ((SELECT "created_at" FROM {table} WHERE "id" = {{}} AND ')
        keys.append(("cursor",))
        parts.append(where() + "), {})")
        keys.append(("cursor",))
    parts.append(' ORDER BY "created_at" DESC, "id" DESC LIMIT {}) p ON 1 = 1')
    keys.append(("limit",))
    sql = 'SELECT m."_found", m."_total", p.* FROM (' + "".join(parts)
    n = itertools.count(1)
    sql = sql.format(*(_PLACEHOLDER[dialect](next(n)) for _ in keys))
    return sql, tuple(keys)


def _newest(row) -> tuple:
    return row.created_at, row.id


async def page(model: type[Model], *, scope: dict[str, Any], filters: Sequence[tuple[str, str, Any]] = (),
               limit: int, after: str | None = None, total: tuple = ("none",),
               columns: tuple[str, ...] | None = None) -> tuple[list, bool, int]:
    """(rows, found, total): up to `limit + 1` rows (Row objects or model instances), newest
    first; `found` False when `after` is not an id of this (scoped, filtered) list; `total` as
    asked: ("counter", kind), ("count", cap) -> at most cap + 1, or ("none",) -> 0.
    `filters` are (field, operator, value) with operator one of OPS."""
    meta = model._meta
    db = meta.db
    dialect = db.capabilities.dialect
    shape = (model, tuple(scope), tuple((f, op) for f, op, _ in filters), after is not None, total, columns, dialect)
    built = _SQL.get(shape)
    if built is None:
        built = _SQL[shape] = _build(model, shape[1], shape[2], after is not None, total, columns, dialect)
    sql, keys = built
    fields = meta.fields_map
    scoped = {k: fields[k].to_db_value(v, model) for k, v in scope.items()}
    if total[0] == "counter":
        scoped.setdefault("livemode", None)
    filtered = [fields[f].to_db_value(v, model) for f, _, v in filters]
    values = []
    for key in keys:
        kind = key[0]
        if kind == "scope":
            values.append(scoped[key[1]])
        elif kind == "filter":
            values.append(filtered[key[1]])
        elif kind == "cursor":
            values.append(after)
        elif kind == "kind":
            values.append(total[1])
        else:
            values.append(limit + 1)
    found = await fetch(db, sql, values)
    head = found[0]
    rows = _objects(model, found, dialect) if head["id"] is not None else []
    rows.sort(key=_newest, reverse=True)       # a join need not keep the page's order
    return rows, head["_found"] is not None, int(head["_total"] or 0)
