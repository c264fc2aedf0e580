"""Money views: the merchant's balance lines (the ledger's merchant_balance account, one row per
ledger transaction), settlements (payouts), disputes, and the daily analytics rollups."""
from __future__ import annotations

from tortoise import fields
from tortoise.indexes import Index
from tortoise.models import Model


class WhereIndex(Index):
    """An index of the rows matching `where` only (a partial index: `CREATE INDEX ... WHERE ...`,
    on PostgreSQL and SQLite alike). Tortoise's PartialIndex only writes `column = value`
    conditions, and `settlement_id = NULL` matches nothing."""

    def __init__(self, *, fields: tuple[str, ...] | list[str], name: str, where: str) -> None:
        super().__init__(fields=fields, name=name)
        self.where = where
        self.extra = f" WHERE {where}"

    def deconstruct(self):
        path, args, kwargs = super().deconstruct()
        kwargs["where"] = self.where
        return path, args, kwargs

    def __hash__(self) -> int:
        return hash((tuple(self.fields), self.name, self.where))


class BalanceLine(Model):
    """What one ledger transaction did to the merchant's balance, written by services.ledger in
    the same atomic write as its legs: `net` = minus the sum of its merchant_balance legs,
    `fee` = what went to fee_revenue, `gross` = net + fee. Unsettled until a settlement claims it
    (`settlement_id`); a payout's own line carries its settlement from the start."""
    id = fields.CharField(pk=True, max_length=40)                 # the ledger txn id, ltx_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="balance_lines", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    currency = fields.CharField(max_length=3)
    kind = fields.CharField(max_length=20)                        # capture | refund | dispute | payout | ...
    payment_id = fields.CharField(max_length=40, null=True)
    refund_id = fields.CharField(max_length=40, null=True)
    source_id = fields.CharField(max_length=40, null=True)
    gross = fields.BigIntField()
    fee = fields.BigIntField()
    net = fields.BigIntField()
    created_at = fields.DatetimeField()
    settlement_id = fields.CharField(max_length=40, null=True)    # set_... once settled

    class Meta:
        table = "balance_lines"
        # The balance read (services.money.balance.get_balance) is an index-only scan of the
        # unsettled lines' own index, which holds only them (`net` last: no heap access); the
        # first one serves a settlement's lines and the settling job's claim.
        indexes = (("settlement_id", "merchant_id", "livemode", "currency", "created_at", "net"),
                   WhereIndex(fields=("merchant_id", "livemode", "currency", "created_at", "net"),
                              name="balance_lines_unsettled", where='"settlement_id" IS NULL'))


class Settlement(Model):
    """A payout: the lines of one merchant, mode and currency that were available by `settled_on`,
    paid out on `arrival_date` (the next business day of the merchant's market)."""
    id = fields.CharField(pk=True, max_length=40)                 # set_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="settlements", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    currency = fields.CharField(max_length=3)
    amount = fields.BigIntField()                                 # sum of the lines' net
    gross = fields.BigIntField(default=0)
    fee = fields.BigIntField(default=0)
    transactions = fields.IntField(default=0)                     # number of lines
    status = fields.CharField(max_length=12)                      # in_transit | paid
    settled_on = fields.DateField()
    arrival_date = fields.DateField()
    payout_at = fields.DatetimeField()                            # start of arrival_date, local time
    created_at = fields.DatetimeField()
    paid_at = fields.DatetimeField(null=True)

    class Meta:
        table = "settlements"
        indexes = (("merchant_id", "livemode", "created_at"), ("status", "payout_at"))


class MoneyAccount(Model):
    """Per merchant, mode and currency: when settling may next try (after a day whose available
    lines did not sum to a positive amount). Also the row a settling run locks."""
    id = fields.CharField(pk=True, max_length=64)                 # mer_...:live|test:CUR
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="money_accounts", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    currency = fields.CharField(max_length=3)
    settle_after = fields.DatetimeField(null=True)

    class Meta:
        table = "money_accounts"


class Dispute(Model):
    id = fields.CharField(pk=True, max_length=40)                 # dp_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="disputes", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    payment_id = fields.CharField(max_length=40)
    amount = fields.BigIntField()
    fee = fields.BigIntField()
    currency = fields.CharField(max_length=3)
    reason = fields.CharField(max_length=40)
    status = fields.CharField(max_length=16)                      # needs_response | under_review | won | lost
    evidence = fields.JSONField(default=dict)
    evidence_due_by = fields.DatetimeField()
    decide_at = fields.DatetimeField(null=True)                   # when the sandbox issuer decides
    created_at = fields.DatetimeField()
    updated_at = fields.DatetimeField()
    closed_at = fields.DatetimeField(null=True)

    class Meta:
        table = "disputes"
        indexes = (("merchant_id", "livemode", "created_at"), ("payment_id",), ("status", "decide_at"))


class DisputeEvidenceFile(Model):
    """A file attached to a dispute's evidence (PDF, PNG or JPEG, at most 700 KiB); the dispute's
    `evidence.files` lists them without their content."""
    id = fields.CharField(pk=True, max_length=40)                 # file_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="dispute_files",
                                      on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    dispute_id = fields.CharField(max_length=40)
    filename = fields.CharField(max_length=255)
    content_type = fields.CharField(max_length=40)
    size = fields.IntField()
    sha256 = fields.CharField(max_length=64)
    content = fields.BinaryField()
    created_at = fields.DatetimeField()

    class Meta:
        table = "dispute_evidence_files"
        indexes = (("dispute_id",),)


class PaymentRollup(Model):
    """Analytics per merchant, mode, merchant-local day, currency and provider ("" when no
    provider was tried), added to in the same atomic write as the payment change; each spread
    over `slot` rows (models._rows.counter_slot), which a read sums."""
    id = fields.BigIntField(pk=True)
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="payment_rollups", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    day = fields.DateField()
    currency = fields.CharField(max_length=3)
    provider = fields.CharField(max_length=40)
    payments = fields.IntField(default=0)           # attempts to pay (succeeded, declined, failed)
    approved = fields.IntField(default=0)           # of those, approved by a provider
    volume = fields.BigIntField(default=0)          # sum of approved amounts
    captured = fields.BigIntField(default=0)        # captured on this day
    refunded = fields.BigIntField(default=0)        # refunded on this day
    tries = fields.IntField(default=0)              # authorizations at this provider (cascade steps)
    tries_approved = fields.IntField(default=0)
    slot = fields.SmallIntField(default=0, db_default=0)

    UPSERT_KEYS = ("merchant_id", "livemode", "currency", "day", "provider", "slot")
    UPSERT_ADD = ("payments", "approved", "volume", "captured", "refunded", "tries", "tries_approved")

    class Meta:
        table = "payment_rollups"
        unique_together = (("merchant_id", "livemode", "currency", "day", "provider", "slot"),)


class LatencyRollup(Model):
    """How many authorizations at a provider took `bucket` ms (see services.analytics.bucket),
    spread over `slot` rows as PaymentRollup."""
    id = fields.BigIntField(pk=True)
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="latency_rollups", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    day = fields.DateField()
    currency = fields.CharField(max_length=3)
    provider = fields.CharField(max_length=40)
    bucket = fields.IntField()
    count = fields.IntField(default=0)
    slot = fields.SmallIntField(default=0, db_default=0)

    UPSERT_KEYS = ("merchant_id", "livemode", "currency", "day", "provider", "bucket", "slot")
    UPSERT_ADD = ("count",)

    class Meta:
        table = "latency_rollups"
        unique_together = (("merchant_id", "livemode", "currency", "day", "provider", "bucket", "slot"),)
        # The providers read (services.money.analytics.providers) sums `count` by provider and
        # bucket over a window of days: with `count` in the index it is an index-only scan
        # (thousands of rows a month, each a heap fetch from the unique index otherwise).
        indexes = (Index(fields=("merchant_id", "livemode", "currency", "day", "provider", "bucket", "count"),
                         name="latency_rollups_window"),)
