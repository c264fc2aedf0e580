"""The event outbox: every event is written in the same transaction as the state change that
causes it; webhook delivery (models/webhooks.py) reads from here."""
from __future__ import annotations

from tortoise import fields
from tortoise.models import Model


class Event(Model):
    id = fields.CharField(pk=True, max_length=40)                 # evt_...
    merchant = fields.ForeignKeyField("core.Merchant", related_name="events", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    type = fields.CharField(max_length=64)                        # payment.succeeded, ...
    object_id = fields.CharField(max_length=40, null=True)        # the id of data.object
    data = fields.JSONField()                                     # data.object
    created_at = fields.DatetimeField()
    # Set once the webhook fan-out has created the event's deliveries: the fan-out reads only the
    # events still waiting (over this index), not every recent event.
    fanned_out = fields.BooleanField(default=False, db_default=False)

    class Meta:
        table = "events"
        indexes = (("merchant_id", "livemode", "created_at"), ("object_id",), ("fanned_out", "created_at"))
