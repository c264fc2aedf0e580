"""Merchants and their API keys: the tenants and the credentials of the merchant interfaces."""
from __future__ import annotations

from tortoise import fields
from tortoise.models import Model


class Merchant(Model):
    id = fields.CharField(pk=True, max_length=40)
    email = fields.CharField(max_length=254, unique=True)
    name = fields.CharField(max_length=200, default="")
    country = fields.CharField(max_length=2, default="TR")
    created_at = fields.DatetimeField()

    class Meta:
        table = "merchants"


class ApiKey(Model):
    id = fields.CharField(pk=True, max_length=40)
    merchant = fields.ForeignKeyField("core.Merchant", related_name="api_keys", on_delete=fields.CASCADE)
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
