"""Secrets at rest: AES-256-GCM under a key derived (HKDF-SHA256) from QAFILA_SECRET_KEY, each
ciphertext bound to the row it belongs to. E-invoicing credentials and members' TOTP secrets."""
from __future__ import annotations

import base64
import os

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF


def _aead(secret_key: str, salt: bytes, info: bytes) -> AESGCM:
    return AESGCM(HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=info).derive(secret_key.encode("utf-8")))


def seal(secret_key: str, plaintext: bytes, *, context: str, salt: bytes = b"qafila-einvoicing",
         info: bytes = b"unit-secrets") -> str:
    """`v1.<nonce>.<ciphertext>` (base64url); `context` (the unit id) is bound as associated data,
    so a ciphertext copied to another unit's row does not decrypt."""
    nonce = os.urandom(12)
    ct = _aead(secret_key, salt, info).encrypt(nonce, plaintext, context.encode("utf-8"))
    return "v1." + base64.urlsafe_b64encode(nonce).decode() + "." + base64.urlsafe_b64encode(ct).decode()


def unseal(secret_key: str, token: str, *, context: str, salt: bytes = b"qafila-einvoicing",
           info: bytes = b"unit-secrets") -> bytes:
    """The plaintext of `seal`; ValueError or cryptography's InvalidTag when it cannot be read."""
    version, nonce, ct = token.split(".")
    if version != "v1":
        raise ValueError("unknown secret version")
    return _aead(secret_key, salt, info).decrypt(base64.urlsafe_b64decode(nonce), base64.urlsafe_b64decode(ct),
                                                 context.encode("utf-8"))
