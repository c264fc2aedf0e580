"""Marketplace payments (issue 47): a platform merchant's sellers (sub-merchants), the split lines
of its payments, the sellers' double-entry ledger, their payouts and payout batches, and the
platform's marketplace settings. Rules live in services.money.marketplace."""
from __future__ import annotations

from tortoise import fields
from tortoise.models import Model


class MarketplaceSettings(Model):
    """One per platform merchant and mode."""
    id = fields.CharField(pk=True, max_length=64)                 # mer_...:live|test
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="marketplace_settings",
                                      on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    dispute_policy = fields.CharField(max_length=12, default="platform")   # platform | seller | ratio
    payout_account = fields.JSONField(null=True)                  # {iban, name, bic}: the files' debtor
    commission_invoices = fields.BooleanField(default=True)
    updated_at = fields.DatetimeField()

    class Meta:
        table = "marketplace_settings"


class SubMerchant(Model):
    """A seller of the platform (`smr_`). `payout` holds {iban, holder_name, bic, purpose}; `carry`
    is what the last payout left on the seller's balance (reserve, sub-10-fils rest, money back
    from a failed or returned payout), shown as the next statement's `carried_in`."""
    id = fields.CharField(pk=True, max_length=40)                 # smr_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="sub_merchants",
                                      on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    type = fields.CharField(max_length=16)                        # individual | sole_proprietor | company
    legal_name = fields.CharField(max_length=200)
    email = fields.CharField(max_length=254)
    country = fields.CharField(max_length=2)
    currency = fields.CharField(max_length=3)
    address = fields.JSONField()
    external_id = fields.CharField(max_length=200, null=True)
    tax_id = fields.JSONField(null=True)                          # {type, value, country[, tax_office]}
    registration_number = fields.CharField(max_length=64, null=True)
    payout = fields.JSONField(null=True)                          # {iban, holder_name, bic, purpose}
    payout_hold_until = fields.DatetimeField(null=True)           # an IBAN change holds payouts 72 h
    iban_due = fields.BooleanField(default=False)                 # a returned payout asks for payout.iban again
    default_fee = fields.JSONField()                              # {percent: "2.5", fixed: 0}
    auto_release_days = fields.IntField(null=True)
    payout_schedule = fields.JSONField()                          # {interval, weekly_anchor, monthly_anchor, minimum, reserve}
    carry = fields.BigIntField(default=0)
    customer_id = fields.CharField(max_length=40, null=True)      # cus_...: the buyer of its commission invoices
    last_payout_on = fields.DateField(null=True)                  # the last local day the payout schedule ran
    due_since = fields.DatetimeField(null=True)                   # since when payout details are due
    past_due_notified_at = fields.DatetimeField(null=True)        # sub_merchant.updated sent for its past_due
    created_at = fields.DatetimeField()
    updated_at = fields.DatetimeField()

    class Meta:
        table = "sub_merchants"
        indexes = (("merchant_id", "livemode", "created_at"),)


class Split(Model):
    """One split line of a payment (`spl_`): `amount` = line_amount - fee is the seller's."""
    id = fields.CharField(pk=True, max_length=40)                 # spl_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="marketplace_splits",
                                      on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    payment_id = fields.CharField(max_length=40)                  # pay_... of /api or /v1
    position = fields.SmallIntField(default=0)
    sub_merchant_id = fields.CharField(max_length=40)
    reference = fields.CharField(max_length=200, null=True)
    currency = fields.CharField(max_length=3)
    line_amount = fields.BigIntField()
    fee = fields.BigIntField()
    amount = fields.BigIntField()
    release = fields.CharField(max_length=12)                     # on_capture | manual
    status = fields.CharField(max_length=12)                      # pending | held | released | canceled
    auto_release_at = fields.DatetimeField(null=True)
    released_at = fields.DatetimeField(null=True)
    available_on = fields.DateField(null=True)                    # the payment's settlement date
    amount_refunded = fields.BigIntField(default=0)
    amount_reversed = fields.BigIntField(default=0)
    fee_refunded = fields.BigIntField(default=0)
    amount_disputed = fields.BigIntField(default=0)
    created_at = fields.DatetimeField()
    updated_at = fields.DatetimeField()

    class Meta:
        table = "marketplace_splits"
        indexes = (("merchant_id", "livemode", "created_at"), ("payment_id", "position"),
                   ("sub_merchant_id", "created_at"), ("status", "auto_release_at"))


class SellerEntry(Model):
    """One leg of a seller-ledger transaction (debits > 0, credits < 0, each transaction summing to
    zero). Accounts: `seller_held`, `seller_balance` (pending until `available_on`, then available),
    `seller_in_payout`, `payout_bank` (paid out), `platform` (the platform's side). A statement line
    is a `seller_balance` leg; `payout_id` is the payout whose statement it is in; `excluded` marks a
    release and the hold that took it back (they cancel: no statement shows them)."""
    id = fields.CharField(pk=True, max_length=40)                 # sle_...
    txn_id = fields.CharField(max_length=40)
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="seller_entries",
                                      on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    sub_merchant_id = fields.CharField(max_length=40)
    account = fields.CharField(max_length=20)
    currency = fields.CharField(max_length=3)
    amount = fields.BigIntField()
    kind = fields.CharField(max_length=20)     # split reversal fee_refund dispute dispute_won hold payout ...
    split_id = fields.CharField(max_length=40, null=True)
    payment_id = fields.CharField(max_length=40, null=True)
    refund_id = fields.CharField(max_length=40, null=True)
    line_amount = fields.BigIntField(null=True)
    fee = fields.BigIntField(null=True)
    available_on = fields.DateField(null=True)
    payout_id = fields.CharField(max_length=40, null=True)
    excluded = fields.BooleanField(default=False)
    created_at = fields.DatetimeField()

    class Meta:
        table = "seller_entries"
        indexes = (("sub_merchant_id", "account", "payout_id"), ("split_id",), ("txn_id",))


class PayoutBatch(Model):
    id = fields.CharField(pk=True, max_length=40)                 # pb_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="payout_batches",
                                      on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    currency = fields.CharField(max_length=3)
    count = fields.IntField()
    total = fields.BigIntField()
    run_day = fields.DateField(null=True)                         # the platform's local day of a scheduled batch
    created_at = fields.DatetimeField()

    class Meta:
        table = "marketplace_payout_batches"
        indexes = (("merchant_id", "livemode", "created_at"),)
        unique_together = (("merchant_id", "livemode", "currency", "run_day"),)


class Payout(Model):
    id = fields.CharField(pk=True, max_length=40)                 # po_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="marketplace_payouts",
                                      on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    batch_id = fields.CharField(max_length=40)
    sub_merchant_id = fields.CharField(max_length=40)
    amount = fields.BigIntField()
    currency = fields.CharField(max_length=3)
    iban = fields.CharField(max_length=34)
    holder_name = fields.CharField(max_length=140)
    bic = fields.CharField(max_length=11, null=True)
    purpose = fields.CharField(max_length=4)
    reference = fields.CharField(max_length=140)
    status = fields.CharField(max_length=10)                      # pending | paid | failed | returned
    carried_in = fields.BigIntField(default=0)
    carried_forward = fields.BigIntField(default=0)
    commission = fields.BigIntField(default=0)                    # fees less fees refunded of its lines
    commission_invoice = fields.CharField(max_length=40, null=True)
    created_at = fields.DatetimeField()
    paid_at = fields.DatetimeField(null=True)
    updated_at = fields.DatetimeField()

    class Meta:
        table = "marketplace_payouts"
        indexes = (("merchant_id", "livemode", "created_at"), ("batch_id",), ("sub_merchant_id", "created_at"))
