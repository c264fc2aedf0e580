"""Payment links: a reusable, shareable checkout for a fixed amount (`lnk_`). A link's payments
carry its id (`payments.payment_link`); `expired` is not stored: it is read from `expires_at`."""
from __future__ import annotations

from tortoise import fields
from tortoise.models import Model


class PaymentLink(Model):
    id = fields.CharField(pk=True, max_length=40)                 # lnk_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="payment_links", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    status = fields.CharField(max_length=12, default="active")    # active | cancelled (expired: computed)
    amount = fields.BigIntField()                                 # minor units
    currency = fields.CharField(max_length=3)
    description = fields.CharField(max_length=500, null=True)
    metadata = fields.JSONField(default=dict)
    locale = fields.CharField(max_length=2, null=True)            # the pages' language if the merchant set one
    expires_at = fields.DatetimeField(null=True)
    invoice = fields.BooleanField(default=False, null=True)       # its payments ask for an invoice (GİB, TRY)
    cancelled_at = fields.DatetimeField(null=True)
    created_at = fields.DatetimeField()
    updated_at = fields.DatetimeField()

    class Meta:
        table = "payment_links"
        indexes = (("merchant_id", "livemode", "created_at"),)
