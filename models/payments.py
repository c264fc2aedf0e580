"""Payments: customers, routing rules, payments with their attempts and refunds, and the
double-entry ledger. No card number or CVC is ever stored (brand, last4, expiry, fingerprint)."""
from __future__ import annotations

from tortoise import fields
from tortoise.models import Model

from models.money import WhereIndex


class Customer(Model):
    id = fields.CharField(pk=True, max_length=40)                 # cus_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="customers", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    email = fields.CharField(max_length=254, null=True)
    name = fields.CharField(max_length=200, null=True)
    phone = fields.CharField(max_length=32, null=True)
    metadata = fields.JSONField(default=dict)
    tax_id = fields.JSONField(null=True)                          # {type, value, country[, tax_office]}
    address = fields.JSONField(null=True)                         # {line1, ..., country}: services.addresses
    created_at = fields.DatetimeField()
    updated_at = fields.DatetimeField()

    class Meta:
        table = "customers"
        indexes = (("merchant_id", "livemode", "created_at"), ("merchant_id", "livemode", "email"))


class RoutingRule(Model):
    id = fields.CharField(pk=True, max_length=40)                 # rul_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="routing_rules", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    name = fields.CharField(max_length=100)
    strategy = fields.CharField(max_length=20)                    # smart | fixed | lowest_cost | highest_approval
    provider = fields.CharField(max_length=40, null=True)
    priority = fields.IntField()                                  # lower first
    status = fields.CharField(max_length=12, default="active")    # active | inactive
    conditions = fields.JSONField(default=list)                   # [{field, operator, value}]
    created_at = fields.DatetimeField()
    updated_at = fields.DatetimeField()

    class Meta:
        table = "routing_rules"
        indexes = (("merchant_id", "livemode", "priority"),)


class Payment(Model):
    id = fields.CharField(pk=True, max_length=40)                 # pay_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="payments", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    # authorized | succeeded | captured | voided | refunded | failed
    status = fields.CharField(max_length=16)
    amount = fields.BigIntField()                                 # minor units
    currency = fields.CharField(max_length=3)
    amount_captured = fields.BigIntField(default=0)
    amount_refunded = fields.BigIntField(default=0)
    fee = fields.BigIntField(default=0)                           # provider fee on the captured amount
    capture_method = fields.CharField(max_length=12, default="automatic")   # automatic | manual
    provider = fields.CharField(max_length=40, null=True)
    provider_reference = fields.CharField(max_length=64, null=True)
    routing_decision = fields.JSONField(default=dict)
    risk_score = fields.IntField(default=0)
    risk_signals = fields.JSONField(default=list)
    decline_code = fields.CharField(max_length=40, null=True)
    failure_message = fields.CharField(max_length=200, null=True)
    payment_method_type = fields.CharField(max_length=16, default="card")
    card_brand = fields.CharField(max_length=16, null=True)
    card_last4 = fields.CharField(max_length=4, null=True)
    card_exp_month = fields.IntField(null=True)
    card_exp_year = fields.IntField(null=True)
    card_fingerprint = fields.CharField(max_length=32, null=True)
    card_country = fields.CharField(max_length=2, null=True)
    card_networks = fields.JSONField(null=True)                   # the card's networks: ["visa"], ["mada", "visa"]
    wallet = fields.JSONField(null=True)                          # Apple Pay / Google Pay: {type, dynamic_last4, auth_method}
    billing_country = fields.CharField(max_length=2, null=True)
    customer = fields.ForeignKeyField("payments.Customer", db_constraint=False, related_name="payments", null=True,
                                      on_delete=fields.SET_NULL)
    email = fields.CharField(max_length=254, null=True)
    client_address = fields.CharField(max_length=64, null=True)
    description = fields.CharField(max_length=500, null=True)
    metadata = fields.JSONField(default=dict)
    payment_link = fields.CharField(max_length=40, null=True)     # lnk_... when paid through a payment link
    receipt_token = fields.CharField(max_length=64, null=True)    # the unguessable part of receipt_url
    # {count, installment_amount, first_installment_amount, total_amount, commission, paid_by, program, bank}
    # (services.payments.installments); null when paid in one go. The count again, for grouping.
    installments = fields.JSONField(null=True)
    installment_count = fields.SmallIntField(default=1, null=True)
    # asked for an invoice (`invoice: true`): the scheduler makes it (a paid invoice, its GİB
    # e-document) off the payment's request; `gib` is the e-document's block as the invoice shows it
    invoice_requested = fields.BooleanField(default=False, null=True)      # null: a payment from before
    invoice_id = fields.CharField(max_length=40, null=True)
    gib = fields.JSONField(null=True)
    eta_receipt = fields.JSONField(null=True)                     # the ETA e-receipt: {uuid, number, status, ...}
    created_at = fields.DatetimeField()
    updated_at = fields.DatetimeField()
    captured_at = fields.DatetimeField(null=True)
    voided_at = fields.DatetimeField(null=True)

    class Meta:
        table = "payments"
        # The create's risk reads (services.payments.risk) each walk one of these backwards from
        # now, every equality of theirs in the index: the amount history by currency, the card
        # and the client address by mode. With a column left to a filter, PostgreSQL's generic
        # plan (app/pg_engine.py) read every matching row and sorted them -- a merchant's whole
        # history for its first payment in a currency, every payment of the last ten minutes
        # from a server-side integration's one address (docs/decisions.md, issue 26).
        indexes = (("merchant_id", "livemode", "created_at", "id"), ("merchant_id", "livemode", "status", "created_at"),
                   ("merchant_id", "livemode", "currency", "created_at"),
                   ("card_fingerprint", "livemode", "created_at"), ("merchant_id", "livemode", "client_address", "created_at"),
                   ("customer_id",),
                   # a link's payments (services.payments.links): the payments of a link only, so a
                   # payment made by the API (most of them) adds no entry (issue 48)
                   WhereIndex(fields=("payment_link", "status"), name="payments_of_links",
                              where='"payment_link" IS NOT NULL'),
                   # the payments whose invoice is still to make (services.einvoicing.gib.payments): a few rows
                   WhereIndex(fields=("livemode", "created_at"), name="payments_invoice_wanted",
                              where='"invoice_requested" AND "invoice_id" IS NULL'))


class Refund(Model):
    id = fields.CharField(pk=True, max_length=40)                 # ref_...
    payment = fields.ForeignKeyField("payments.Payment", related_name="refunds", on_delete=fields.CASCADE)
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="refunds", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    amount = fields.BigIntField()
    currency = fields.CharField(max_length=3)
    reason = fields.CharField(max_length=200, null=True)
    status = fields.CharField(max_length=16, default="succeeded")
    provider_reference = fields.CharField(max_length=64, null=True)
    created_at = fields.DatetimeField()

    class Meta:
        table = "refunds"
        indexes = (("merchant_id", "livemode", "created_at"),)


class PaymentAttempt(Model):
    """One authorization at one provider; declined and failed attempts count in approval rates."""
    id = fields.CharField(pk=True, max_length=40)                 # att_...
    # No database constraint (migrations/payments/0015_attempt_no_key.py): written in its payment's
    # own statement, as the payment's events are
    payment = fields.ForeignKeyField("payments.Payment", related_name="attempts", on_delete=fields.CASCADE,
                                     db_constraint=False)
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="payment_attempts", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    number = fields.IntField()                                    # 1-based in the cascade
    provider = fields.CharField(max_length=40)
    outcome = fields.CharField(max_length=20)                     # approved | declined | error | requires_action
    decline_code = fields.CharField(max_length=40, null=True)
    amount = fields.BigIntField()
    currency = fields.CharField(max_length=3)
    latency_ms = fields.IntField(default=0)
    created_at = fields.DatetimeField()

    class Meta:
        table = "payment_attempts"
        # (payment_id, number): a payment's attempts in order, and the cascade of deleting payments
        # (a merchant's) finds them without scanning every attempt. No (provider, created_at): no
        # read asks for it (the approval rates are the rollups'), and every attempt paid an entry (issue 48).
        indexes = (("merchant_id", "livemode", "created_at"), ("payment_id", "number"))


class LedgerEntry(Model):
    """One leg of a balanced ledger transaction: amount > 0 is a debit, < 0 a credit; the legs of
    a `txn_id` sum to zero per currency. Accounts: provider_receivable (what providers owe),
    merchant_balance (what we owe the merchant), fee_revenue (our fees)."""
    id = fields.BigIntField(pk=True)
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="ledger_entries", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    txn_id = fields.CharField(max_length=40)                      # ltx_...
    kind = fields.CharField(max_length=20)                        # capture | fee | refund | ...
    account = fields.CharField(max_length=40)
    currency = fields.CharField(max_length=3)
    amount = fields.BigIntField()
    payment_id = fields.CharField(max_length=40, null=True)
    refund_id = fields.CharField(max_length=40, null=True)
    source_id = fields.CharField(max_length=40, null=True)        # another issue's object (intent, payout...)
    created_at = fields.DatetimeField()

    class Meta:
        table = "ledger_entries"
        indexes = (("merchant_id", "livemode", "account", "currency"), ("txn_id",), ("payment_id",))
