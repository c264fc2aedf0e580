"""Apple Pay and Google Pay (services.payments.wallets): the merchants' Apple Pay payment
processing keys and certificates, the platform's Google Pay key pairs, and the wallet
transactions already paid with (a token is accepted once per merchant). Private keys are stored
AES-256-GCM encrypted under QAFILA_SECRET_KEY, never shown."""
from __future__ import annotations

from tortoise import fields
from tortoise.models import Model


class ApplePayKey(Model):
    """A P-256 payment processing key of a merchant in one mode; `pending` until the certificate
    Apple issued for its CSR is uploaded, then `active` (two may be active while one is rotated;
    a token names its key by `public_key_hash`)."""
    id = fields.CharField(pk=True, max_length=40)                 # apk_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="apple_pay_keys",
                                      on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    status = fields.CharField(max_length=12)                      # pending | active | inactive
    public_key_hash = fields.CharField(max_length=64)             # base64 SHA-256 of the SubjectPublicKeyInfo
    private_key_enc = fields.TextField()                          # PKCS#8 PEM, encrypted (QAFILA_SECRET_KEY)
    csr = fields.TextField()                                      # PEM, public
    certificate = fields.TextField(null=True)                     # PEM Apple issued, public
    merchant_identifier = fields.CharField(max_length=200, null=True)
    merchant_identifier_hash = fields.CharField(max_length=64, null=True)   # hex SHA-256 (Apple's KDF)
    expires_at = fields.DatetimeField(null=True)
    created_at = fields.DatetimeField()
    updated_at = fields.DatetimeField()

    class Meta:
        table = "apple_pay_keys"
        unique_together = (("merchant_id", "livemode", "public_key_hash"),)
        indexes = (("merchant_id", "livemode", "created_at"),)


class GooglePayKey(Model):
    """The platform's ECv2 key pair of one mode: `current` decrypts and is published; `previous`
    (the one before the last rotation) still decrypts; `retired` neither."""
    id = fields.CharField(pk=True, max_length=40)                 # gpk_...
    livemode = fields.BooleanField()
    status = fields.CharField(max_length=12)                      # current | previous | retired
    public_key = fields.TextField()                               # base64 of the uncompressed point
    private_key_enc = fields.TextField()                          # PKCS#8 PEM, encrypted (QAFILA_SECRET_KEY)
    created_at = fields.DatetimeField()

    class Meta:
        table = "google_pay_keys"
        indexes = (("livemode", "status"),)


class WalletTransaction(Model):
    """A wallet token already paid with: Apple's `transactionId`, Google's `messageId`, kept as
    a keyed hash. The unique key makes a token pay once per merchant, even when two requests
    race."""
    id = fields.CharField(pk=True, max_length=40)                 # wtx_...
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="wallet_transactions",
                                      on_delete=fields.CASCADE)
    livemode = fields.BooleanField()
    wallet = fields.CharField(max_length=12)                      # apple_pay | google_pay
    token_hash = fields.CharField(max_length=64)
    created_at = fields.DatetimeField()

    class Meta:
        table = "wallet_transactions"
        unique_together = (("merchant_id", "wallet", "token_hash"),)
