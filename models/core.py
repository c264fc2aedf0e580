"""Merchants and their API keys: the tenants and the credentials of the merchant interfaces."""
from __future__ import annotations

from tortoise import fields
from tortoise.models import Model

from models._rows import COUNTER_SLOTS, counter_slot, new


# Every row of a merchant names it by `merchant_id`, a foreign key in the model with no database
# constraint (`db_constraint=False`; on PostgreSQL since migrations/_keys.py): a constraint would lock
# this one row FOR KEY SHARE for every payment, ledger leg, event and counter the merchant writes.
# The service sets merchant_id from the authenticated caller, and no path deletes a merchant.
class Merchant(Model):
    id = fields.CharField(pk=True, max_length=40)
    email = fields.CharField(max_length=254, unique=True)
    name = fields.CharField(max_length=200, default="")
    country = fields.CharField(max_length=2, default="TR")
    require_two_factor = fields.BooleanField(default=False)   # members without 2FA enrol at next sign-in
    created_at = fields.DatetimeField()

    class Meta:
        table = "merchants"


class ApiKey(Model):
    id = fields.CharField(pk=True, max_length=40)
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="api_keys", on_delete=fields.CASCADE)
    name = fields.CharField(max_length=100, default="")
    kind = fields.CharField(max_length=12)          # secret | publishable
    livemode = fields.BooleanField()
    prefix = fields.CharField(max_length=16)        # e.g. sk_test_4eC3: shown, never enough to use
    key_hash = fields.CharField(max_length=64, unique=True)  # sha256 of the full key
    status = fields.CharField(max_length=12, default="active")  # active | revoked
    created_at = fields.DatetimeField()
    last_used = fields.DatetimeField(null=True)
    revoked_at = fields.DatetimeField(null=True)

    class Meta:
        table = "api_keys"
        indexes = (("merchant_id", "livemode", "created_at"),)


class ListCount(Model):
    """How many rows one tenant's list holds (`kind`: "intents", "payments"), added to in the same
    atomic write as the rows (`lookup.insert_all` writes a model with UPSERT_KEYS as an upsert), so a
    list's total is read, not counted. One list's count is spread over SLOTS rows
    (models._rows.counter_slot): concurrent creates of one merchant would otherwise queue on one
    row lock until each commit. The total is the sum of the list's rows."""
    SLOTS = COUNTER_SLOTS

    id = fields.BigIntField(pk=True)
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="list_counts", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    kind = fields.CharField(max_length=16)
    slot = fields.SmallIntField()
    n = fields.BigIntField(default=0)

    UPSERT_KEYS = ("merchant_id", "livemode", "kind", "slot")
    UPSERT_ADD = ("n",)

    class Meta:
        table = "list_counts"
        unique_together = (("merchant_id", "livemode", "kind", "slot"),)

    @classmethod
    def added(cls, kind: str, row) -> "ListCount":
        """The counter row adding one `row` (a new intent or payment) to its tenant's `kind` list."""
        return new(cls, merchant_id=row.merchant_id, livemode=row.livemode, kind=kind,
                   slot=counter_slot(row.id), n=1)
