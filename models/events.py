"""The event outbox: every event is written in the same transaction as the state change that
causes it; webhook delivery (models/webhooks.py) reads from here."""
from __future__ import annotations

from tortoise import fields
from tortoise.models import Model


class Event(Model):
    id = fields.CharField(pk=True, max_length=40)                 # evt_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="events", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    type = fields.CharField(max_length=64)                        # payment.succeeded, ...
    object_id = fields.CharField(max_length=40, null=True)        # the id of data.object
    data = fields.JSONField()                                     # data.object
    created_at = fields.DatetimeField()

    class Meta:
        table = "events"
        # No (object_id): no read asks for an object's events, and every event paid an entry (issue 48).
        indexes = (("merchant_id", "livemode", "created_at"),)


class EventWaiting(Model):
    """An event the webhook fan-out has not taken yet: written with the event (services/events.py
    `rows`), deleted once its deliveries are made. The fan-out reads this narrow table, not the
    events, and leaves an event row as it was written: marking it instead rewrote a row holding
    the whole object, with an entry in each of its indexes, for every event."""
    # No database constraint (migrations/events/0007_waiting_no_key.py): the row is written in the
    # event's own statement, and a constraint's check per event read the events table
    event = fields.OneToOneField("events.Event", related_name="waiting", pk=True, on_delete=fields.CASCADE,
                                 db_constraint=False)
    merchant_id = fields.CharField(max_length=40)                 # the event's: what the fan-out needs
    livemode = fields.BooleanField()
    type = fields.CharField(max_length=64)
    created_at = fields.DatetimeField()

    class Meta:
        table = "events_waiting"
        indexes = (("created_at",),)
