"""Payment intents of the `/v1` interface, the payment methods they are confirmed with, and
their split transfers. Crypto and cash-on-delivery details are JSON on the intent (read and
written with it, never queried on their own)."""
from __future__ import annotations

from tortoise import fields
from tortoise.models import Model


class PaymentMethod(Model):
    """A tokenized card: brand, last4, expiry and fingerprint only (never the number or CVC)."""

    id = fields.CharField(pk=True, max_length=40)                 # pm_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="intent_payment_methods",
                                      on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    type = fields.CharField(max_length=20, default="card")        # card | card_present
    brand = fields.CharField(max_length=20)
    last4 = fields.CharField(max_length=4)
    exp_month = fields.SmallIntField()
    exp_year = fields.SmallIntField()
    fingerprint = fields.CharField(max_length=64)
    networks = fields.JSONField(null=True)                        # the card's networks: ["visa"], ["mada", "visa"]
    # Sandbox behaviour of a test card number, decided at tokenization: ok | decline | 3ds.
    test_behaviour = fields.CharField(max_length=24, default="ok")
    # The issuing bank, installment program and credit/debit of the card's BIN, decided at
    # tokenization (services.payments.installments.issuer_of): never the digits themselves.
    issuer = fields.JSONField(null=True)
    created_at = fields.DatetimeField()

    class Meta:
        table = "intent_payment_methods"
        indexes = (("merchant_id", "livemode", "created_at"),)


class PaymentIntent(Model):
    id = fields.CharField(pk=True, max_length=40)                 # pay_... (own table, own id space)
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="payment_intents", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    status = fields.CharField(max_length=32)
    amount = fields.BigIntField()
    currency = fields.CharField(max_length=3)
    amount_received = fields.BigIntField(default=0)
    amount_refunded = fields.BigIntField(default=0, db_default=0)   # refunds of /v1/payments/{id}/refund
    payment_method = fields.CharField(max_length=20)              # card | crypto | cod | qr | tap_to_pay
    payment_method_ref = fields.CharField(max_length=40, null=True)   # the pm_ id used to confirm
    customer_id = fields.CharField(max_length=64, null=True)
    order_id = fields.CharField(max_length=200, null=True)
    description = fields.CharField(max_length=1000, null=True)
    statement_descriptor = fields.CharField(max_length=22, null=True)
    metadata = fields.JSONField(null=True)
    locale = fields.CharField(max_length=2, null=True)            # null: the buyer's language (not set by the merchant)
    fee_amount = fields.BigIntField()
    fee_rate = fields.CharField(max_length=20)                    # decimal string
    fee_processing = fields.BigIntField()
    fee_conversion = fields.BigIntField()
    fee_network = fields.BigIntField()
    net_amount = fields.BigIntField()
    settlement_date = fields.DateField()
    crypto = fields.JSONField(null=True)      # asset, network, address, amount_crypto, rate, rate_locked_until, ...
    cod_address = fields.JSONField(null=True)
    cod_status = fields.CharField(max_length=20, null=True)       # assigned | delivered | returned
    split = fields.JSONField(null=True)                           # [{merchant_id, amount, currency}]
    next_action = fields.JSONField(null=True)
    return_url = fields.CharField(max_length=2000, null=True)
    receipt_url = fields.CharField(max_length=2000, null=True)    # unused since receipt_token (kept for old rows)
    receipt_token = fields.CharField(max_length=64, null=True)    # the unguessable part of receipt_url, once paid
    failure_code = fields.CharField(max_length=40, null=True)
    failure_message = fields.CharField(max_length=500, null=True)
    provider = fields.CharField(max_length=40, null=True)         # which provider the routing chose
    provider_ref = fields.CharField(max_length=80, null=True)
    cancellation_reason = fields.CharField(max_length=40, null=True)
    created_at = fields.DatetimeField()
    expires_at = fields.DatetimeField()
    succeeded_at = fields.DatetimeField(null=True)
    canceled_at = fields.DatetimeField(null=True)
    version = fields.IntField(default=0)                          # bumped by every transition
    # Local methods (services.payments.local_methods): the buyer's phone (STC Pay), attempts left,
    # the scheme's own references and result; never a card number, PIN or one-time code.
    method_details = fields.JSONField(null=True)
    method_reference = fields.CharField(max_length=40, null=True, unique=True)   # a Fawry reference
    installments = fields.JSONField(null=True)    # as on a payment (services.payments.installments)
    eta_receipt = fields.JSONField(null=True)     # the ETA e-receipt, as on a payment (services.einvoicing.eta)
    installment_count = fields.SmallIntField(default=1, null=True)          # the count again, for analytics by count
    # asked for an invoice (`invoice: true`, TRY): the scheduler's gib.intent_invoice makes it once the
    # intent succeeded (services.einvoicing.gib.payments); `gib` is its e-document's block
    invoice_requested = fields.BooleanField(default=False, null=True)      # null: an intent from before
    invoice_id = fields.CharField(max_length=40, null=True)
    gib = fields.JSONField(null=True)

    class Meta:
        table = "payment_intents"
        # The list's keyset, and the same within a status (the list's `status` filter). Partial
        # indexes (intents migrations 0008-0010): the open intents in expires_at order (the expiry
        # sweeps), the approved ones in succeeded_at order (analytics), those that paid a link.
        indexes = (("merchant_id", "livemode", "created_at", "id"), ("merchant_id", "livemode", "status", "created_at", "id"))


class IntentSplit(Model):
    """One transfer of a split: `amount` from the intent's merchant to `destination`."""

    id = fields.CharField(pk=True, max_length=40)                 # spl_...
    intent = fields.ForeignKeyField("intents.PaymentIntent", related_name="splits", on_delete=fields.CASCADE)
    destination = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="incoming_splits",
                                         on_delete=fields.CASCADE)
    amount = fields.BigIntField()
    currency = fields.CharField(max_length=3)
    status = fields.CharField(max_length=12, default="pending")   # pending | paid
    created_at = fields.DatetimeField()

    class Meta:
        table = "intent_splits"


class IntentRefund(Model):
    """One refund of a payment intent (`ref_`): the money went back to the customer, the
    merchant's balance was debited (ledger kind `refund`, refund_id = this id)."""

    id = fields.CharField(pk=True, max_length=40)                 # ref_...
    intent = fields.ForeignKeyField("intents.PaymentIntent", related_name="refunds", on_delete=fields.CASCADE)
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="intent_refunds", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    amount = fields.BigIntField()
    currency = fields.CharField(max_length=3)
    reason = fields.CharField(max_length=200, null=True)
    status = fields.CharField(max_length=16, default="succeeded")
    provider_reference = fields.CharField(max_length=64, null=True)
    created_at = fields.DatetimeField()

    class Meta:
        table = "intent_refunds"
        indexes = (("intent_id", "created_at"),)
