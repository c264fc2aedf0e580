"""E-invoicing (ZATCA phase 2): one EGS unit per merchant and mode (its certificate, its
encrypted key and the head of its hash chain), and the signed documents of the chain."""
from __future__ import annotations

from tortoise import fields
from tortoise.models import Model


class ZatcaUnit(Model):
    """The merchant's e-invoice generation solution unit (EGS) in one mode. `icv` and `last_hash`
    are the head of the chain: a document takes them under a row lock on this row."""
    id = fields.CharField(pk=True, max_length=40)                 # egs_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="zatca_units", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    status = fields.CharField(max_length=16)                      # onboarded
    vat_number = fields.CharField(max_length=15)
    organization_name = fields.CharField(max_length=200)
    organization_unit = fields.CharField(max_length=200)
    common_name = fields.CharField(max_length=200)
    invoice_types = fields.CharField(max_length=4)                # "1100": standard + simplified
    egs_serial = fields.CharField(max_length=100)                 # 1-Qafila|2-1.0|3-<uuid>
    address = fields.JSONField(default=dict)                      # street, building_number, district, city, postal_code
    industry = fields.CharField(max_length=100)
    locale = fields.CharField(max_length=35, default="ar-SA")      # BCP 47; "-u-nu-arab": Arabic-Indic digits on PDFs
    certificate = fields.TextField()                              # base64 DER of the production CSID
    certificate_serial = fields.CharField(max_length=64)
    certificate_expires_at = fields.DatetimeField()
    token = fields.TextField()                                    # binarySecurityToken (the certificate, public)
    secret_enc = fields.TextField()                               # the CSID's secret, encrypted
    private_key_enc = fields.TextField()                          # PKCS#8 PEM, encrypted (QAFILA_SECRET_KEY)
    icv = fields.BigIntField(default=0)                           # the last document's counter value
    last_hash = fields.CharField(max_length=100)                  # the last document's hash (the next PIH)
    created_at = fields.DatetimeField()
    updated_at = fields.DatetimeField()

    class Meta:
        table = "zatca_units"
        unique_together = (("merchant_id", "livemode"),)


class ZatcaDocument(Model):
    """One signed document of a unit's chain: an invoice (388), a credit note (381) or a debit
    note (383). `xml` is the signed XML, or ZATCA's cleared XML once a standard one is cleared."""
    id = fields.CharField(pk=True, max_length=40)                 # zdoc_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="zatca_documents", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    unit = fields.ForeignKeyField("einvoicing.ZatcaUnit", related_name="documents", on_delete=fields.CASCADE)
    invoice_id = fields.CharField(max_length=40)                  # the invoice, or the one a note amends
    kind = fields.CharField(max_length=12)                        # invoice | credit_note | debit_note
    type = fields.CharField(max_length=10)                        # simplified | standard
    number = fields.CharField(max_length=40)
    uuid = fields.CharField(max_length=36)
    icv = fields.BigIntField()
    pih = fields.CharField(max_length=100)
    hash = fields.CharField(max_length=100)
    xml = fields.TextField()
    amount = fields.BigIntField()                                 # total with VAT, minor units
    tax = fields.BigIntField()
    reason = fields.CharField(max_length=200, null=True)
    status = fields.CharField(max_length=10)                      # pending | reported | cleared | rejected
    messages = fields.JSONField(default=list)                     # ZATCA's validation messages
    attempts = fields.IntField(default=0)
    next_attempt_at = fields.DatetimeField(null=True)             # null: nothing more to send
    submitted_at = fields.DatetimeField(null=True)
    created_at = fields.DatetimeField()
    updated_at = fields.DatetimeField()

    class Meta:
        table = "zatca_documents"
        unique_together = (("unit_id", "icv"),)
        indexes = (("invoice_id",), ("status", "next_attempt_at"))


class EinvoiceUnit(Model):
    """A merchant's unit with one tax authority other than ZATCA (`gib`, `eta`) in one mode: what
    the authority package keeps public in `settings`, its secrets sealed in `secrets_enc` (JSON,
    encrypted with QAFILA_SECRET_KEY), and the head of its chains (`seq`, `seq_year`, `chain_head`),
    which a document takes under a row lock on this row (services.einvoicing.core.lock_unit)."""
    id = fields.CharField(pk=True, max_length=40)                 # eiu_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="einvoice_units", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    authority = fields.CharField(max_length=8)                    # gib | eta
    status = fields.CharField(max_length=16)                      # active
    settings = fields.JSONField(default=dict)                     # the authority's public set-up (never a secret)
    secrets_enc = fields.TextField(default="")                    # sealed JSON of the unit's secrets
    seq = fields.BigIntField(default=0)                           # the last number given (gapless)
    seq_year = fields.IntField(null=True)                         # the year `seq` counts in, when it restarts yearly
    receipt_seq = fields.BigIntField(default=0)                   # a second chain (ETA's e-receipts)
    chain_head = fields.CharField(max_length=128, default="")     # the last chained document's uuid or hash
    created_at = fields.DatetimeField()
    updated_at = fields.DatetimeField()

    class Meta:
        table = "einvoice_units"
        unique_together = (("merchant_id", "livemode", "authority"),)


class EinvoiceDocument(Model):
    """One document of a unit: an invoice, a note or return that refers to its original
    (`original_id`), or a receipt. `body` is the document as the authority receives it (signed
    XML or JSON); `status` moves pending -> the authority's outcome; the submit job retries a
    pending one at `next_attempt_at` with backoff and never drops it."""
    id = fields.CharField(pk=True, max_length=40)                 # eid_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="einvoice_documents", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    authority = fields.CharField(max_length=8)
    unit = fields.ForeignKeyField("einvoicing.EinvoiceUnit", db_constraint=False, related_name="documents", on_delete=fields.CASCADE)
    invoice_id = fields.CharField(max_length=40, null=True)       # the invoice, or the one a note amends
    payment_id = fields.CharField(max_length=40, null=True)       # a receipt's payment (or the payment that asked)
    original_id = fields.CharField(max_length=40, null=True)      # a note's or return's original document
    kind = fields.CharField(max_length=16)                        # invoice | credit_note | debit_note | receipt | return_receipt
    type = fields.CharField(max_length=16)                        # the authority's kind (efatura, earsiv, I, C, D, R, ...)
    number = fields.CharField(max_length=64)
    uuid = fields.CharField(max_length=64)
    seq = fields.BigIntField()
    previous = fields.CharField(max_length=128, default="")       # the chain's previous uuid or hash
    body = fields.TextField()
    currency = fields.CharField(max_length=3)
    amount = fields.BigIntField()                                 # total with tax, minor units
    tax = fields.BigIntField()
    reason = fields.CharField(max_length=200, null=True)
    status = fields.CharField(max_length=12)
    messages = fields.JSONField(default=list)
    external = fields.JSONField(default=dict)                     # the authority's references (long id, submission id, ...)
    attempts = fields.IntField(default=0)
    next_attempt_at = fields.DatetimeField(null=True)
    submitted_at = fields.DatetimeField(null=True)
    issued_at = fields.DatetimeField()
    created_at = fields.DatetimeField()
    updated_at = fields.DatetimeField()

    class Meta:
        table = "einvoice_documents"
        unique_together = (("unit_id", "number"),)
        indexes = (("invoice_id",), ("payment_id",), ("status", "next_attempt_at"))


class EinvoiceRequest(Model):
    """A document asked for on a hot path (a payment's e-receipt, a refund's return receipt),
    written in the payment's own statement and built later by the authority's job: the
    payment's request never builds, signs or chains an e-document."""
    id = fields.CharField(pk=True, max_length=40)                 # eir_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="einvoice_requests", on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    authority = fields.CharField(max_length=8)                    # eta
    kind = fields.CharField(max_length=16)                        # receipt | return_receipt
    payment_id = fields.CharField(max_length=40)
    refund_id = fields.CharField(max_length=40, null=True)        # a return receipt's refund
    amount = fields.BigIntField()                                 # minor units
    currency = fields.CharField(max_length=3)
    asked = fields.BooleanField(default=False)                    # the payment asked for it (eta_receipt: true)
    due_at = fields.DatetimeField()
    created_at = fields.DatetimeField()

    class Meta:
        table = "einvoice_requests"
        indexes = (("livemode", "due_at"),)
