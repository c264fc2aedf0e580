"""Google Pay payment method tokens (`ECv2`), as Google's "Payment data cryptography" describes
them, with Qafila as the gateway (`PAYMENT_GATEWAY` tokenization, `gateway: "qafila"`).

Pure functions over bytes and `cryptography` objects; services.payments.wallets.service reads
the keys and the time and calls them.

1. The intermediate signing key (`intermediateSigningKey.signedKey`, a JSON string of
   `keyValue` and `keyExpiration`) is signed (ECDSA P-256, SHA-256) by one of Google's
   non-expired ECv2 root signing keys over `len("Google") || "Google" || len("ECv2") || "ECv2"
   || len(signedKey) || signedKey` (lengths: 4 bytes, little-endian).
2. `keyExpiration` (milliseconds since the epoch) has not passed.
3. `signature` is the intermediate key's signature over `len || "Google" || len ||
   "gateway:qafila" || len || "ECv2" || len || signedMessage`.
4. Decrypt `signedMessage`: ECDH with the ephemeral key (an uncompressed P-256 point), HKDF-SHA256
   (salt: 32 zero bytes, info: "Google") over `ephemeralPublicKey || shared secret` -> 64 bytes:
   the AES-256 key, then the HMAC-SHA256 key. The tag (HMAC of the ciphertext) is checked
   before AES-256-CTR (zero IV) decrypts.
5. `messageExpiration` has not passed.
"""
from __future__ import annotations

import base64
import hmac as std_hmac
import json
import struct
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from cryptography.hazmat.primitives import hashes, hmac, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from services.payments.wallets import tokens
from services.payments.wallets.errors import TokenExpired, TokenInvalid

PROTOCOL = "ECv2"
SENDER = "Google"
GATEWAY_ID = "qafila"
RECIPIENT = f"gateway:{GATEWAY_ID}"

# Google's root signing key of its TEST environment for ECv2 (`paymentmethodtoken/test/keys.json`
# of payments.developers.google.com), in Google's key-list format: the tokens a merchant's checkout
# gets from Google Pay in its TEST environment chain to it, so test mode verifies them. Live mode
# reads Google's production key list from the file named by QAFILA_GOOGLE_PAY_ROOT_KEYS (Google
# rotates it; a gateway keeps its copy current), and never this one.
TEST_ROOT_KEYS: dict = {"keys": [{
    "keyValue": "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEGnJ7Yo1sX9b4kr4Aa5uq58JRQfzD8bIJXw7WXaap/hVE+PnFxvjx4nVxt79SdRuUVeu++HZD0cGAv4IOznc96w==",
    "protocolVersion": "ECv2", "keyExpiration": "2154841200000"}]}


def length_prefixed(*parts: bytes) -> bytes:
    return b"".join(struct.pack("<I", len(p)) + p for p in parts)


# ---------------------------------------------------------------- Qafila's key pair



def public_key_b64(key: ec.EllipticCurvePrivateKey | ec.EllipticCurvePublicKey) -> str:
    """The form Google asks gateways for: base64 of the uncompressed point (65 bytes)."""
    pub = key.public_key() if isinstance(key, ec.EllipticCurvePrivateKey) else key
    return base64.b64encode(pub.public_bytes(serialization.Encoding.X962,
                                             serialization.PublicFormat.UncompressedPoint)).decode("ascii")


# ---------------------------------------------------------------- root keys

@dataclass(frozen=True)
class RootKey:
    key: ec.EllipticCurvePublicKey
    expires_ms: int | None


def load_root_keys(doc: Any) -> list[RootKey]:
    """The ECv2 keys of a key list in Google's format (`{"keys": [{keyValue, protocolVersion,
    keyExpiration}]}`); other protocol versions are skipped. ValueError when malformed."""
    if isinstance(doc, (bytes, str)):
        doc = json.loads(doc)
    if not isinstance(doc, dict) or not isinstance(doc.get("keys"), list):
        raise ValueError('a root key list is {"keys": [...]}')
    out = []
    for k in doc["keys"]:
        if not isinstance(k, dict) or k.get("protocolVersion") != PROTOCOL:
            continue
        key = serialization.load_der_public_key(base64.b64decode(k["keyValue"], validate=True))
        if not isinstance(key, ec.EllipticCurvePublicKey):
            raise ValueError("a root key is not an EC key")
        exp = k.get("keyExpiration")
        out.append(RootKey(key=key, expires_ms=int(exp) if exp not in (None, "") else None))
    return out


# ---------------------------------------------------------------- the token

def _ms(now: datetime) -> int:
    return int(now.timestamp() * 1000)




def _json(value: Any, what: str) -> dict:
    if not isinstance(value, str):
        raise TokenInvalid(f"{what} is missing")
    try:
        out = json.loads(value)
    except ValueError as e:
        raise TokenInvalid(f"{what} is not valid JSON") from e
    if not isinstance(out, dict):
        raise TokenInvalid(f"{what} is not a JSON object")
    return out




@dataclass(frozen=True)
class Verified:
    signed_message: dict


def verify(token: Any, *, roots: list[RootKey], now: datetime) -> Verified:
    """Steps 1-3 of the module. `token` is the `tokenizationData.token` string (or its JSON)."""
    if isinstance(token, str):
        try:
            token = json.loads(token)
        except ValueError as e:
            raise TokenInvalid("the token is not valid JSON") from e
    if not isinstance(token, dict):
        raise TokenInvalid("the token must be the PaymentMethodToken JSON")
    if token.get("protocolVersion") != PROTOCOL:
        raise TokenInvalid(f"protocolVersion must be {PROTOCOL}")
    signature = tokens.b64(token.get("signature"), "signature")
    isk = token.get("intermediateSigningKey")
    if not isinstance(isk, dict):
        raise TokenInvalid("intermediateSigningKey is missing")
    signed_key_text = isk.get("signedKey")
    signed_key = _json(signed_key_text, "intermediateSigningKey.signedKey")
    sigs = isk.get("signatures")
    if not isinstance(sigs, list) or not sigs:
        raise TokenInvalid("intermediateSigningKey.signatures is missing")
    signed_message_text = token.get("signedMessage")
    signed_message = _json(signed_message_text, "signedMessage")
    now_ms = _ms(now)
    live_roots = [r for r in roots if r.expires_ms is None or r.expires_ms > now_ms]
    key_data = length_prefixed(SENDER.encode(), PROTOCOL.encode(), signed_key_text.encode("utf-8"))
    decoded = [tokens.b64(s, "intermediateSigningKey.signatures") for s in sigs]
    if not any(tokens.ecdsa_ok(r.key, s, key_data) for r in live_roots for s in decoded):
        raise TokenInvalid("the intermediate signing key is not signed by a Google root signing key")
    exp = signed_key.get("keyExpiration")
    if not isinstance(exp, str) or not exp.isdigit():
        raise TokenInvalid("the intermediate signing key has no keyExpiration")
    if int(exp) <= now_ms:
        raise TokenExpired("the intermediate signing key has expired")
    try:
        inter = serialization.load_der_public_key(tokens.b64(signed_key.get("keyValue"), "signedKey.keyValue"))
    except ValueError as e:
        raise TokenInvalid("the intermediate signing key is not a public key") from e
    if not isinstance(inter, ec.EllipticCurvePublicKey):
        raise TokenInvalid("the intermediate signing key is not an EC key")
    msg_data = length_prefixed(SENDER.encode(), RECIPIENT.encode(), PROTOCOL.encode(),
                               signed_message_text.encode("utf-8"))
    if not tokens.ecdsa_ok(inter, signature, msg_data):
        raise TokenInvalid("the message signature is not valid")
    return Verified(signed_message=signed_message)


def decrypt(signed_message: dict, *, private_keys: list[ec.EllipticCurvePrivateKey]) -> dict:
    """Step 4 with the first key whose MAC checks (the current key, then the previous)."""
    ct = tokens.b64(signed_message.get("encryptedMessage"), "signedMessage.encryptedMessage")
    eph_bytes = tokens.b64(signed_message.get("ephemeralPublicKey"), "signedMessage.ephemeralPublicKey")
    tag = tokens.b64(signed_message.get("tag"), "signedMessage.tag")
    try:
        eph = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), eph_bytes)
    except ValueError as e:
        raise TokenInvalid("signedMessage.ephemeralPublicKey is not a P-256 point") from e
    for key in private_keys:
        shared = key.exchange(ec.ECDH(), eph)
        derived = HKDF(algorithm=hashes.SHA256(), length=64, salt=b"\x00" * 32,
                       info=SENDER.encode()).derive(eph_bytes + shared)
        aes_key, mac_key = derived[:32], derived[32:]
        mac = hmac.HMAC(mac_key, hashes.SHA256())
        mac.update(ct)
        if not std_hmac.compare_digest(mac.finalize(), tag):
            continue
        dec = Cipher(algorithms.AES(aes_key), modes.CTR(b"\x00" * 16)).decryptor()
        plain = dec.update(ct) + dec.finalize()
        return _json(plain.decode("utf-8", "replace"), "the decrypted message")
    raise TokenInvalid("the message tag does not verify with Qafila's Google Pay key")


@dataclass(frozen=True)
class Payload:
    """The decrypted message, in memory only (`repr` hides the secrets)."""
    gateway_merchant_id: str | None
    message_id: str
    number: str = field(repr=False)
    exp_month: int
    exp_year: int
    auth_method: str                     # PAN_ONLY | CRYPTOGRAM_3DS
    cryptogram: str | None = field(repr=False)
    eci: str | None


def read_payload(msg: dict, *, now: datetime) -> Payload:
    """Step 5 and the payment method's fields."""
    exp = msg.get("messageExpiration")
    if not isinstance(exp, str) or not exp.isdigit():
        raise TokenInvalid("the message has no messageExpiration")
    if int(exp) <= _ms(now):
        raise TokenExpired("the message has expired (messageExpiration)")
    if msg.get("paymentMethod") != "CARD":
        raise TokenInvalid("the message's paymentMethod must be CARD")
    d = msg.get("paymentMethodDetails")
    if not isinstance(d, dict):
        raise TokenInvalid("the message has no paymentMethodDetails")
    pan = d.get("pan")
    month, year = d.get("expirationMonth"), d.get("expirationYear")
    auth = d.get("authMethod")
    if not isinstance(pan, str) or not pan.isdigit():
        raise TokenInvalid("the message has no card number")
    if isinstance(month, bool) or not isinstance(month, int) or not 1 <= month <= 12 \
            or isinstance(year, bool) or not isinstance(year, int) or not 2000 <= year <= 9999:
        raise TokenInvalid("the message's card expiry is not a month and a year")
    if auth not in ("PAN_ONLY", "CRYPTOGRAM_3DS"):
        raise TokenInvalid("the message's authMethod must be PAN_ONLY or CRYPTOGRAM_3DS")
    cryptogram = d.get("cryptogram")
    if auth == "CRYPTOGRAM_3DS" and (not isinstance(cryptogram, str) or not cryptogram):
        raise TokenInvalid("a CRYPTOGRAM_3DS message has no cryptogram")
    eci = d.get("eciIndicator")
    gmid = msg.get("gatewayMerchantId")
    mid = msg.get("messageId")
    return Payload(gateway_merchant_id=gmid if isinstance(gmid, str) else None,
                   message_id=mid if isinstance(mid, str) else "", number=pan, exp_month=month, exp_year=year,
                   auth_method=auth, cryptogram=cryptogram if auth == "CRYPTOGRAM_3DS" else None,
                   eci=eci if isinstance(eci, str) else None)
