"""What Apple Pay's and Google Pay's token formats share: base64 fields read strictly, the P-256
keys their merchants decrypt with, and ECDSA signatures checked without raising."""
from __future__ import annotations

import base64
import binascii
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from services.payments.wallets.errors import TokenInvalid


def b64(value: Any, what: str) -> bytes:
    """A token's base64 field (RFC 4648, padding and alphabet checked); TokenInvalid naming `what`."""
    if not isinstance(value, str) or not value:
        raise TokenInvalid(f"{what} is missing")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError) as e:
        raise TokenInvalid(f"{what} is not valid base64") from e


def new_private_key() -> ec.EllipticCurvePrivateKey:
    """A merchant's P-256 key: both wallets' ECDH (Apple's EC_v1, Google's ECv2) use that curve."""
    return ec.generate_private_key(ec.SECP256R1())


def ecdsa_ok(public_key: Any, signature: bytes, data: bytes, hash_algo: hashes.HashAlgorithm | None = None) -> bool:
    """True when `signature` (DER) is `public_key`'s ECDSA signature of `data` (SHA-256 unless
    `hash_algo`); False for a bad signature or a key that is not an EC key."""
    if not isinstance(public_key, ec.EllipticCurvePublicKey):
        return False
    try:
        public_key.verify(signature, data, ec.ECDSA(hash_algo or hashes.SHA256()))
        return True
    except InvalidSignature:
        return False
