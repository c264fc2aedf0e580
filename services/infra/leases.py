"""Leasing due rows of an outbox (webhook deliveries, receipts) to one worker at a time.

A row is due when its status is "pending", its `next_attempt_at` has come and no live lease
holds it. PostgreSQL: one UPDATE over a SELECT ... FOR UPDATE SKIP LOCKED, so any number of
workers take disjoint rows. SQLite (one writer): a conditional update per row, atomic on its own.
"""
from __future__ import annotations

from datetime import datetime, timedelta

from tortoise import connections
from tortoise.expressions import Q
from tortoise.models import Model

from models import _lookup as lookup


async def claim_due(model: type[Model], *, status_field: str, owner: str, now: datetime, lease: timedelta,
                    limit: int, merchant_id: str | None = None, rows: bool = False) -> list:
    """Lease up to `limit` due rows of `model` to `owner` until now + `lease`; their ids, or with
    `rows` the rows themselves as leased (read-only views on PostgreSQL, where the claim returns
    them; instances elsewhere). `merchant_id` confines the claim to one merchant (tests)."""
    until = now + lease
    if connections.get("default").capabilities.dialect == "postgres":
        table = model._meta.db_table
        column = model._meta.fields_db_projection[status_field]
        sql = (f"UPDATE {table} SET lease_owner = $1, lease_until = $2, updated_at = $3 WHERE id IN "
               f"(SELECT id FROM {table} WHERE {column} = 'pending' AND next_attempt_at <= $3 "
               "AND (lease_until IS NULL OR lease_until < $3)" + (" AND merchant_id = $5" if merchant_id else "") +
               " ORDER BY next_attempt_at LIMIT $4 FOR UPDATE SKIP LOCKED) RETURNING " + ("*" if rows else "id"))
        values = [owner, until, now, limit] + ([merchant_id] if merchant_id else [])
        # planned for its values each time: on a fresh database the generic plan made while the
        # outbox was empty reads the whole table at every claim until the next ANALYZE
        found = await lookup.fetch_custom_plan(model, sql, values)
        return lookup.views(model, found) if rows else [r["id"] for r in found]
    due = Q(**{status_field: "pending"}, next_attempt_at__lte=now) & (
        Q(lease_until__isnull=True) | Q(lease_until__lt=now))
    if merchant_id:
        due &= Q(merchant_id=merchant_id)
    ids = await model.filter(due).order_by("next_attempt_at").limit(limit).values_list("id", flat=True)
    claimed = []
    for row_id in ids:
        if await model.filter(due, id=row_id).update(lease_owner=owner, lease_until=until, updated_at=now):
            claimed.append(row_id)
    if rows:
        return await model.filter(id__in=claimed, lease_owner=owner) if claimed else []
    return claimed
