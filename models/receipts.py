"""Automatic receipts: an outbox row written in the transaction in which a payment or an intent
succeeds, sent after the commit by a worker (messaging or e-mail) with retries. One per payment."""
from __future__ import annotations

from tortoise import fields
from tortoise.models import Model


class Receipt(Model):
    id = fields.CharField(pk=True, max_length=40)                 # rcp_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="receipts", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    payment_id = fields.CharField(max_length=40, unique=True)     # a pay_ of /api payments or /v1 intents
    source = fields.CharField(max_length=8)                       # payment | intent
    channel = fields.CharField(max_length=12)                     # messaging | email
    sent_to = fields.CharField(max_length=254)
    locale = fields.CharField(max_length=2, default="en")
    status = fields.CharField(max_length=12, default="pending")   # pending | sent | failed
    attempts = fields.IntField(default=0)
    next_attempt_at = fields.DatetimeField(null=True)
    lease_owner = fields.CharField(max_length=80, null=True)
    lease_until = fields.DatetimeField(null=True)
    last_error = fields.CharField(max_length=200, null=True)
    message_id = fields.CharField(max_length=128, null=True)      # the platform's id of the message
    created_at = fields.DatetimeField()
    updated_at = fields.DatetimeField()
    sent_at = fields.DatetimeField(null=True)

    class Meta:
        table = "receipts"
        indexes = (("status", "next_attempt_at"),)
