"""Why a wallet token is refused. The crypto modules raise these (the message names what is
wrong, never a value of the token); services.payments.wallets.service turns each into a 400
with its own code, naming the field the token came in."""
from __future__ import annotations


class WalletError(Exception):
    code = "wallet_token_invalid"


class TokenInvalid(WalletError):
    """Bad JSON or base64, a bad signature, a certificate chain or a key that does not verify."""
    code = "wallet_token_invalid"


class TokenExpired(WalletError):
    """The signing time, the intermediate key, the message or the device number's expiry."""
    code = "wallet_token_expired"


class TokenMismatch(WalletError):
    """The amount, the currency or the merchant differs from the payment's."""
    code = "wallet_token_mismatch"


class TokenReused(WalletError):
    code = "wallet_token_reused"


class NotConfigured(WalletError):
    """No certificate (Apple Pay) for the token's key hash, or no key (Google Pay)."""
    code = "wallet_not_configured"
