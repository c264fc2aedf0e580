"""Installments (taksit): the merchant's installment plans per card program, one row per
merchant and mode holding the whole set (replaced as a whole by PUT /api/installments/plans)."""
from __future__ import annotations

from tortoise import fields
from tortoise.models import Model


class InstallmentPlanSet(Model):
    """The plans of one merchant and mode: [{program, paid_by, options: [{count, commission_bps}]}].
    No row: the shipped defaults (services.payments.installments.DEFAULT_PLANS)."""

    id = fields.CharField(pk=True, max_length=60)                 # "{merchant_id}:{live|test}"
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="installment_plans", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    plans = fields.JSONField(default=list)
    updated_at = fields.DatetimeField()

    class Meta:
        table = "installment_plans"
