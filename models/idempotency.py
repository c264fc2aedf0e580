"""Idempotency keys, stored with the objects they created: the key's row is written in the same
transaction as the object, so a retry after a crash finds either both or neither."""
from __future__ import annotations

from tortoise import fields
from tortoise.models import Model


class IdempotencyKey(Model):
    # sha256 of (merchant, mode, operation, key): one row per key, and the unique claim itself.
    id = fields.CharField(pk=True, max_length=64)
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="idempotency_keys", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    operation = fields.CharField(max_length=100)
    key = fields.CharField(max_length=255)
    fingerprint = fields.CharField(max_length=64)                 # keyed hash of the parameters
    outcome = fields.JSONField(null=True)                         # {"result": ...} or {"error": {...}}
    created_at = fields.DatetimeField()

    # lookup.insert_all writes this row onto the key's claim (made first, in the same transaction)
    # with its outcome: an operation's own write records its outcome (services.idempotency.outcome_row).
    UPSERT_KEYS = ("id",)
    UPSERT_SET = ("outcome",)

    class Meta:
        table = "idempotency_keys"
        indexes = (("created_at",),)
