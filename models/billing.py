"""Billing: merchant profiles (what an invoice says about its issuer), test clocks, saved cards,
subscriptions, invoices and their gapless numbering."""
from __future__ import annotations

from tortoise import fields
from tortoise.models import Model


class MerchantProfile(Model):
    """The issuer block of an invoice: legal name, address, tax (VAT) number."""
    merchant = fields.OneToOneField("core.Merchant", related_name="profile", on_delete=fields.CASCADE, pk=True)
    legal_name = fields.CharField(max_length=200, null=True)
    address = fields.TextField(null=True)
    tax_number = fields.CharField(max_length=32, null=True)
    # the CRM company whose exchange rates (the CRM reports' table) price the merchant's foreign-currency
    # ETA invoices: set with an access token of one of its admins (services.billing.profiles)
    crm_company_id = fields.CharField(max_length=40, null=True)
    updated_at = fields.DatetimeField()

    class Meta:
        table = "merchant_profiles"


class TestClock(Model):
    """A merchant's test-mode time: real time plus `offset_seconds` (only ever grows)."""
    merchant = fields.OneToOneField("core.Merchant", related_name="test_clock", on_delete=fields.CASCADE, pk=True)
    offset_seconds = fields.BigIntField(default=0)
    updated_at = fields.DatetimeField()

    class Meta:
        table = "test_clocks"


class SavedCard(Model):
    """The card of a customer's successful payment, as a token the sandbox can charge again:
    brand, last4, expiry, fingerprint and the sandbox behaviour of later charges -- never the
    number. Renewals charge the customer's newest one."""
    id = fields.CharField(pk=True, max_length=40)                 # card_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="saved_cards", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    customer = fields.ForeignKeyField("payments.Customer", db_constraint=False, related_name="saved_cards", on_delete=fields.CASCADE)
    payment_id = fields.CharField(max_length=40)
    brand = fields.CharField(max_length=20)
    last4 = fields.CharField(max_length=4)
    exp_month = fields.SmallIntField()
    exp_year = fields.SmallIntField()
    fingerprint = fields.CharField(max_length=64)
    behaviour = fields.CharField(max_length=32)                   # how a later charge of it behaves
    created_at = fields.DatetimeField()

    class Meta:
        table = "saved_cards"
        indexes = (("customer_id", "created_at"),)


class Subscription(Model):
    id = fields.CharField(pk=True, max_length=40)                 # sub_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="subscriptions", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    customer = fields.ForeignKeyField("payments.Customer", db_constraint=False, related_name="subscriptions", on_delete=fields.CASCADE)
    plan = fields.CharField(max_length=200)
    amount = fields.BigIntField()
    currency = fields.CharField(max_length=3)
    interval = fields.CharField(max_length=8)                    # day | week | month | year
    interval_count = fields.IntField(default=1)
    # active | past_due | unpaid | paused | cancelled
    status = fields.CharField(max_length=16)
    anchor_at = fields.DatetimeField()                            # billing dates keep this day
    period = fields.IntField(default=-1)                          # the last period billed (-1: none yet)
    current_period_start = fields.DatetimeField()
    current_period_end = fields.DatetimeField()
    next_billing_at = fields.DatetimeField(null=True)             # null: nothing to bill (paused, ...)
    retry_count = fields.IntField(default=0)
    next_retry_at = fields.DatetimeField(null=True)
    latest_invoice_id = fields.CharField(max_length=40, null=True)
    metadata = fields.JSONField(default=dict)
    created_at = fields.DatetimeField()
    updated_at = fields.DatetimeField()
    paused_at = fields.DatetimeField(null=True)
    cancelled_at = fields.DatetimeField(null=True)

    class Meta:
        table = "subscriptions"
        indexes = (("merchant_id", "livemode", "created_at"), ("status", "next_billing_at"),
                   ("status", "next_retry_at"))


class InvoiceCounter(Model):
    """The last invoice number per merchant and mode: incremented in the invoice's own
    transaction, so numbers have no gaps (a rolled-back invoice gives its number back)."""
    id = fields.CharField(pk=True, max_length=48)                 # merchant id + ":live" / ":test"
    value = fields.BigIntField(default=0)

    class Meta:
        table = "invoice_counters"


class Invoice(Model):
    id = fields.CharField(pk=True, max_length=40)                 # inv_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="invoices", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    customer = fields.ForeignKeyField("payments.Customer", db_constraint=False, related_name="invoices", on_delete=fields.CASCADE)
    subscription_id = fields.CharField(max_length=40, null=True)
    period_start = fields.DatetimeField(null=True)
    period_end = fields.DatetimeField(null=True)
    sequence = fields.BigIntField()
    number = fields.CharField(max_length=32)
    status = fields.CharField(max_length=8)                       # draft | sent | paid
    currency = fields.CharField(max_length=3)
    items = fields.JSONField()                                    # [{name, amount, quantity}]
    subtotal = fields.BigIntField()
    tax_rate = fields.CharField(max_length=8)                     # a percentage, decimal string
    tax = fields.BigIntField()
    total = fields.BigIntField()
    # EGP per one unit of `currency` (decimal text, at most 5 decimals) of a foreign-currency ETA
    # e-invoice: given, or the merchant's rate written when the invoice left draft; null otherwise
    exchange_rate = fields.CharField(max_length=24, null=True)
    due_date = fields.DateField()
    locale = fields.CharField(max_length=2, default="en")
    access_token = fields.CharField(max_length=64, unique=True)   # the unguessable part of pdf_url
    sent_to = fields.CharField(max_length=254, null=True)
    sent_via = fields.CharField(max_length=12, null=True)
    sent_at = fields.DatetimeField(null=True)
    paid_at = fields.DatetimeField(null=True)
    payment_id = fields.CharField(max_length=40, null=True)
    # ZATCA e-invoice: {type, uuid, icv, hash, status, messages} of its document (models.einvoicing),
    # copied here in the same transaction so every read shapes it without another query; null if none.
    zatca = fields.JSONField(null=True)
    # Turkish (GİB) and Egyptian (ETA) e-documents, copied here the same way; null if none.
    gib = fields.JSONField(null=True)
    eta = fields.JSONField(null=True)
    # The credit and debit notes (and returns) that refer to this invoice, of any authority:
    # [{id, kind, number, amount, tax, <authority>: its block}], kept in the notes' transactions.
    notes = fields.JSONField(default=list)
    created_at = fields.DatetimeField()
    updated_at = fields.DatetimeField()

    class Meta:
        table = "invoices"
        unique_together = (("merchant_id", "livemode", "sequence"),)
        indexes = (("merchant_id", "livemode", "created_at"), ("subscription_id",))


class InvoiceDelivery(Model):
    """The outbox of invoices a scheduler run (a renewal, a dunning retry) sends: written in the
    run's transaction, sent after -- PDF rendered and mailed, or the document message -- by the
    invoice deliveries worker, with retries (services.billing.deliveries)."""
    id = fields.CharField(pk=True, max_length=40)                 # ivd_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="invoice_deliveries", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    invoice = fields.ForeignKeyField("billing.Invoice", related_name="deliveries", on_delete=fields.CASCADE)
    channel = fields.CharField(max_length=12)                     # email | messaging
    status = fields.CharField(max_length=12, default="pending")   # pending | sent | skipped | failed
    attempts = fields.IntField(default=0)
    next_attempt_at = fields.DatetimeField(null=True)
    lease_owner = fields.CharField(max_length=80, null=True)
    lease_until = fields.DatetimeField(null=True)
    last_error = fields.CharField(max_length=200, null=True)
    created_at = fields.DatetimeField()
    updated_at = fields.DatetimeField()
    sent_at = fields.DatetimeField(null=True)

    class Meta:
        table = "invoice_deliveries"
        indexes = (("status", "next_attempt_at"), ("invoice_id",))
