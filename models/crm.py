"""The CRM: companies (the tenants), their users and sign-in sessions, customers, deals,
commissions, messages and exchange rates. Every row carries its company."""
from __future__ import annotations

from tortoise import fields
from tortoise.models import Model


class Company(Model):
    id = fields.CharField(pk=True, max_length=40)                  # cmp_...
    name = fields.CharField(max_length=200)
    plan = fields.CharField(max_length=8, default="free")          # free | paid
    commission_rate = fields.CharField(max_length=12, default="0.05")   # Decimal as text
    currency = fields.CharField(max_length=3, default="USD")       # default report currency
    country = fields.CharField(max_length=2, null=True)            # ISO 3166 alpha-2; sets the default currency
    phone_number_id = fields.CharField(max_length=64, null=True, unique=True)  # messaging sender
    created_at = fields.DatetimeField()

    class Meta:
        table = "crm_companies"


class User(Model):
    id = fields.CharField(pk=True, max_length=40)                  # usr_...
    company = fields.ForeignKeyField("crm.Company", related_name="users", on_delete=fields.CASCADE)
    email = fields.CharField(max_length=254, unique=True)
    name = fields.CharField(max_length=200, default="")
    password_hash = fields.CharField(max_length=255)               # argon2id
    role = fields.CharField(max_length=8, default="member")        # admin | member
    created_at = fields.DatetimeField()

    class Meta:
        table = "crm_users"


class SessionFamily(Model):
    """One sign-in: every refresh token rotated from it belongs to it, and revoking it ends them all
    and the access tokens that name it."""
    id = fields.CharField(pk=True, max_length=40)                  # ses_...
    company = fields.ForeignKeyField("crm.Company", related_name="sessions", on_delete=fields.CASCADE)
    user = fields.ForeignKeyField("crm.User", related_name="sessions", on_delete=fields.CASCADE)
    created_at = fields.DatetimeField()
    revoked_at = fields.DatetimeField(null=True)
    revoked_reason = fields.CharField(max_length=16, null=True)    # logout | reuse

    class Meta:
        table = "crm_session_families"


class RefreshToken(Model):
    id = fields.CharField(pk=True, max_length=40)                  # rtk_...
    family = fields.ForeignKeyField("crm.SessionFamily", related_name="tokens", on_delete=fields.CASCADE)
    token_hash = fields.CharField(max_length=64, unique=True)      # sha256 of the opaque token
    created_at = fields.DatetimeField()
    expires_at = fields.DatetimeField()
    used_at = fields.DatetimeField(null=True)                      # rotated: presenting it again is reuse

    class Meta:
        table = "crm_refresh_tokens"


class Customer(Model):
    id = fields.CharField(pk=True, max_length=40)                  # ccu_...
    company = fields.ForeignKeyField("crm.Company", related_name="customers", on_delete=fields.CASCADE)
    name = fields.CharField(max_length=200)
    email = fields.CharField(max_length=254, null=True)
    phone = fields.CharField(max_length=20, null=True)             # +E.164
    tags = fields.CharField(max_length=1000, default="")           # ",vip,gold," (portable tag filter)
    tax_id = fields.JSONField(null=True)                           # {type, value, country[, tax_office]}
    address = fields.JSONField(null=True)                          # {line1, ..., country}: services.addresses
    created_at = fields.DatetimeField()
    updated_at = fields.DatetimeField()

    class Meta:
        table = "crm_customers"
        indexes = (("company_id", "created_at"), ("company_id", "phone"))


class Deal(Model):
    id = fields.CharField(pk=True, max_length=40)                  # deal_...
    company = fields.ForeignKeyField("crm.Company", related_name="deals", on_delete=fields.CASCADE)
    customer = fields.ForeignKeyField("crm.Customer", related_name="deals", on_delete=fields.CASCADE)
    owner = fields.ForeignKeyField("crm.User", related_name="deals", on_delete=fields.RESTRICT)
    title = fields.CharField(max_length=200)
    stage = fields.CharField(max_length=12, default="lead")
    value = fields.BigIntField()                                   # minor units
    currency = fields.CharField(max_length=3)
    probability = fields.IntField(default=0)                       # percent 0..100
    won_cycle = fields.IntField(default=0)                         # how many times it moved to won
    won_at = fields.DatetimeField(null=True)
    created_at = fields.DatetimeField()
    updated_at = fields.DatetimeField()

    class Meta:
        table = "crm_deals"
        indexes = (("company_id", "created_at"), ("company_id", "stage"))


class Commission(Model):
    id = fields.CharField(pk=True, max_length=40)                  # com_...
    company = fields.ForeignKeyField("crm.Company", related_name="commissions", on_delete=fields.CASCADE)
    deal = fields.ForeignKeyField("crm.Deal", related_name="commissions", on_delete=fields.CASCADE)
    user = fields.ForeignKeyField("crm.User", related_name="commissions", on_delete=fields.CASCADE)
    cycle = fields.IntField()                                      # the deal's won_cycle it pays
    amount = fields.BigIntField()                                  # minor units
    currency = fields.CharField(max_length=3)
    rate = fields.CharField(max_length=12)
    status = fields.CharField(max_length=10, default="active")     # active | reversed
    created_at = fields.DatetimeField()
    reversed_at = fields.DatetimeField(null=True)

    class Meta:
        table = "crm_commissions"
        unique_together = (("deal_id", "cycle"),)


class Message(Model):
    id = fields.CharField(pk=True, max_length=40)                  # msg_...
    company = fields.ForeignKeyField("crm.Company", related_name="messages", on_delete=fields.CASCADE)
    customer = fields.ForeignKeyField("crm.Customer", related_name="messages", null=True,
                                      on_delete=fields.CASCADE)
    platform_message_id = fields.CharField(max_length=128, null=True)   # wamid...
    direction = fields.CharField(max_length=8)                     # inbound | outbound
    phone = fields.CharField(max_length=20)                        # the customer's side, +E.164
    type = fields.CharField(max_length=16, default="text")
    body = fields.TextField(default="")
    status = fields.CharField(max_length=12)                       # received | sent | delivered | read | failed
    error = fields.CharField(max_length=300, null=True)
    read = fields.BooleanField(default=False)
    created_at = fields.DatetimeField()

    class Meta:
        table = "crm_messages"
        unique_together = (("company_id", "platform_message_id"),)
        indexes = (("company_id", "phone"), ("company_id", "customer_id"))


class ExchangeRate(Model):
    id = fields.CharField(pk=True, max_length=40)                  # rate_...
    company = fields.ForeignKeyField("crm.Company", related_name="rates", on_delete=fields.CASCADE)
    base = fields.CharField(max_length=3)
    quote = fields.CharField(max_length=3)
    rate = fields.CharField(max_length=32)                         # Decimal as text: 1 base = rate quote
    rate_date = fields.DateField()
    created_at = fields.DatetimeField()
    updated_at = fields.DatetimeField()

    class Meta:
        table = "crm_exchange_rates"
        unique_together = (("company_id", "base", "quote", "rate_date"),)
