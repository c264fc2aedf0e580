"""Webhook endpoints, deliveries (one per event x endpoint, claimed with a lease) and every
delivery attempt. Events themselves are the outbox of models/events.py."""
from __future__ import annotations

from tortoise import fields
from tortoise.models import Model


class WebhookEndpoint(Model):
    id = fields.CharField(pk=True, max_length=40)                 # whk_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="webhook_endpoints",
                                      on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    url = fields.CharField(max_length=2048)
    # The signing secret must be kept to sign; it is never logged nor shown in an error.
    secret = fields.CharField(max_length=80)
    events = fields.JSONField()                                   # ["payment.succeeded", ...] or ["*"]
    status = fields.CharField(max_length=16, default="active")    # active | disabled
    created_at = fields.DatetimeField()
    updated_at = fields.DatetimeField()

    class Meta:
        table = "webhook_endpoints"
        indexes = (("merchant_id", "livemode", "status"),)


class WebhookFanout(Model):
    """Marks an event whose deliveries were created: the primary key makes fan-out happen once
    even when several dispatchers look at the same new event."""
    event = fields.OneToOneField("events.Event", related_name="webhook_fanout", pk=True,
                                 on_delete=fields.CASCADE)
    created_at = fields.DatetimeField()

    class Meta:
        table = "webhook_fanouts"


class WebhookDelivery(Model):
    id = fields.CharField(pk=True, max_length=40)                 # whd_...
    event = fields.ForeignKeyField("events.Event", related_name="webhook_deliveries", on_delete=fields.CASCADE)
    endpoint = fields.ForeignKeyField("webhooks.WebhookEndpoint", related_name="deliveries",
                                      on_delete=fields.CASCADE)
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="webhook_deliveries",
                                      on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    state = fields.CharField(max_length=16, default="pending")    # pending | delivered | failed
    delivered = fields.BooleanField(default=False)
    attempts = fields.IntField(default=0)                         # POSTs made, manual ones included
    next_attempt_at = fields.DatetimeField(null=True)             # when pending: due time
    lease_owner = fields.CharField(max_length=80, null=True)
    lease_until = fields.DatetimeField(null=True)
    last_status_code = fields.IntField(null=True)
    last_error = fields.CharField(max_length=200, null=True)
    created_at = fields.DatetimeField()
    updated_at = fields.DatetimeField()

    class Meta:
        table = "webhook_deliveries"
        unique_together = (("event_id", "endpoint_id"),)
        indexes = (("state", "next_attempt_at"), ("merchant_id", "livemode", "created_at"))


class WebhookAttempt(Model):
    id = fields.CharField(pk=True, max_length=40)                 # wha_...
    delivery = fields.ForeignKeyField("webhooks.WebhookDelivery", related_name="attempt_log",
                                      on_delete=fields.CASCADE)
    number = fields.IntField()                                    # 1, 2, ...
    manual = fields.BooleanField(default=False)
    status_code = fields.IntField(null=True)                      # null: no HTTP answer
    latency_ms = fields.IntField()
    error = fields.CharField(max_length=200, null=True)           # timeout, connection refused, ...
    created_at = fields.DatetimeField()                           # when the attempt started

    class Meta:
        table = "webhook_attempts"
        indexes = (("delivery_id", "number"),)
