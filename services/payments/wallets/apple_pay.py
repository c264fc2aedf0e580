"""Apple Pay payment tokens (`EC_v1`), as Apple's "Payment token format reference" describes
them: the merchant's payment processing key and CSR, the certificate Apple issues for it, and
the verification and decryption of a `PKPaymentToken`.

Pure functions over bytes and `cryptography` objects (no database, no clock of their own):
services.payments.wallets.service reads the keys and the time and calls them.

Verification, in Apple's order:
1. the certificates of the CMS signature: a leaf with OID 1.2.840.113635.100.6.29, an
   intermediate with 1.2.840.113635.100.6.2.14;
2. the chain leaf -> intermediate -> a trusted root (Apple Root CA - G3, shipped in
   data/apple_root_ca_g3.pem; test mode may add roots);
3. the signature (detached, over `ephemeralPublicKey || data || transactionId || applicationData`)
   by the leaf, with its `messageDigest` attribute equal to that content's SHA-256;
4. the signing time within 5 minutes of now, either way.

Decryption: ECDH between the merchant's key (named by `publicKeyHash`) and the ephemeral key,
the single-step KDF of NIST SP 800-56A (ConcatKDF, SHA-256) with `otherInfo` =
`0x0D || "id-aes256-GCM" || "Apple" || SHA-256(merchant identifier)`, then AES-256-GCM with a
zero IV of 16 bytes.

Nothing here logs or puts into an exception message the device number or the cryptogram.
"""
from __future__ import annotations

import base64
import functools
import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from importlib import resources
from typing import Any

from asn1crypto import cms as asn1_cms
from asn1crypto import core as asn1_core
from cryptography import x509
from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.concatkdf import ConcatKDFHash
from cryptography.x509.oid import NameOID, ObjectIdentifier

from services.payments.wallets import tokens
from services.payments.wallets.errors import TokenExpired, TokenInvalid

LEAF_OID = ObjectIdentifier("1.2.840.113635.100.6.29")
INTERMEDIATE_OID = ObjectIdentifier("1.2.840.113635.100.6.2.14")
MERCHANT_ID_HASH_OID = ObjectIdentifier("1.2.840.113635.100.6.32")
UID_OID = ObjectIdentifier("0.9.2342.19200300.100.1.1")
SIGNING_TOLERANCE = timedelta(minutes=5)
VERSION = "EC_v1"
_ZERO_IV = b"\x00" * 16


# ---------------------------------------------------------------- the merchant's key and certificate



def make_csr(key: ec.EllipticCurvePrivateKey, *, common_name: str) -> str:
    """The CSR (PEM) to upload to Apple for a payment processing certificate."""
    csr = (x509.CertificateSigningRequestBuilder()
           .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name),
                                    x509.NameAttribute(NameOID.COUNTRY_NAME, "SA")]))
           .sign(key, hashes.SHA256()))
    return csr.public_bytes(serialization.Encoding.PEM).decode("ascii")


def public_key_hash(public_key: ec.EllipticCurvePublicKey) -> str:
    """`publicKeyHash` of a token: base64 of the SHA-256 of the key's SubjectPublicKeyInfo (DER)."""
    spki = public_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.b64encode(hashlib.sha256(spki).digest()).decode("ascii")


@dataclass(frozen=True)
class MerchantCertificate:
    merchant_identifier: str | None
    merchant_identifier_hash: str        # hex, 64 characters
    public_key_hash: str
    expires_at: datetime
    certificate: x509.Certificate


def _ext_text(raw: bytes) -> str:
    """The extension's value: a DER string (UTF8String, IA5String, PrintableString, OCTET
    STRING) holding the hex digest, or the bare hex text."""
    try:
        value = asn1_core.load(raw)
        native = value.native
        if isinstance(native, bytes):
            native = native.decode("ascii")
        if isinstance(native, str):
            return native
    except (ValueError, TypeError, UnicodeDecodeError):
        pass
    return raw.decode("ascii", "replace")


def read_certificate(pem: str) -> MerchantCertificate:
    """The merchant identifier hash (extension 1.2.840.113635.100.6.32), the merchant
    identifier (the subject's UID) and the expiry of a payment processing certificate.
    ValueError with a reason when it is not one."""
    try:
        cert = x509.load_pem_x509_certificate(pem.encode("ascii") if isinstance(pem, str) else pem)
    except (ValueError, UnicodeEncodeError) as e:
        raise ValueError("it is not a PEM X.509 certificate") from e
    key = cert.public_key()
    if not isinstance(key, ec.EllipticCurvePublicKey) or not isinstance(key.curve, ec.SECP256R1):
        raise ValueError("its key is not a P-256 key")
    try:
        ext = cert.extensions.get_extension_for_oid(MERCHANT_ID_HASH_OID)
    except x509.ExtensionNotFound as e:
        raise ValueError("it has no merchant identifier extension (1.2.840.113635.100.6.32)") from e
    text = _ext_text(ext.value.value).strip().lower()
    if len(text) != 64 or any(c not in "0123456789abcdef" for c in text):
        raise ValueError("its merchant identifier extension is not a hex SHA-256")
    uid = cert.subject.get_attributes_for_oid(UID_OID)
    return MerchantCertificate(merchant_identifier=str(uid[0].value) if uid else None,
                               merchant_identifier_hash=text, public_key_hash=public_key_hash(key),
                               expires_at=cert.not_valid_after_utc, certificate=cert)


# ---------------------------------------------------------------- trust

@functools.cache
def apple_root() -> x509.Certificate:
    """Apple Root CA - G3, shipped with the package."""
    pem = resources.files("services.payments.wallets").joinpath("data/apple_root_ca_g3.pem").read_bytes()
    return x509.load_pem_x509_certificate(pem)


def load_roots(pem: bytes) -> list[x509.Certificate]:
    return x509.load_pem_x509_certificates(pem)


# ---------------------------------------------------------------- the token

@dataclass(frozen=True)
class Header:
    ephemeral_public_key: bytes
    public_key_hash: str
    transaction_id: str
    application_data: bytes


@dataclass(frozen=True)
class ParsedToken:
    data: bytes
    signature: bytes
    header: Header
    network: str | None
    transaction_identifier: str | None




def _hex(value: Any, what: str) -> bytes:
    if not isinstance(value, str):
        raise TokenInvalid(f"{what} is missing")
    try:
        return bytes.fromhex(value)
    except ValueError as e:
        raise TokenInvalid(f"{what} is not hexadecimal") from e


def parse_token(token: Any) -> ParsedToken:
    """A `PKPaymentToken` (a JSON object, or its JSON text) -> its parts; TokenInvalid naming
    what is wrong (never a value)."""
    if isinstance(token, str):
        try:
            token = json.loads(token)
        except ValueError as e:
            raise TokenInvalid("the token is not valid JSON") from e
    if not isinstance(token, dict):
        raise TokenInvalid("the token must be the PKPaymentToken JSON object")
    pd = token.get("paymentData")
    if not isinstance(pd, dict):
        raise TokenInvalid("paymentData is missing")
    if pd.get("version") != VERSION:
        raise TokenInvalid(f"paymentData.version must be {VERSION}")
    header = pd.get("header")
    if not isinstance(header, dict):
        raise TokenInvalid("paymentData.header is missing")
    app_data = header.get("applicationData")
    transaction_id = header.get("transactionId")
    tokens.b64(header.get("publicKeyHash"), "header.publicKeyHash")
    h = Header(ephemeral_public_key=tokens.b64(header.get("ephemeralPublicKey"), "header.ephemeralPublicKey"),
               public_key_hash=header["publicKeyHash"],
               transaction_id=transaction_id if isinstance(transaction_id, str) else "",
               application_data=_hex(app_data, "header.applicationData") if app_data else b"")
    _hex(h.transaction_id, "header.transactionId")
    if not h.transaction_id:
        raise TokenInvalid("header.transactionId is missing")
    method = token.get("paymentMethod") if isinstance(token.get("paymentMethod"), dict) else {}
    network = method.get("network") if isinstance(method.get("network"), str) else None
    tid = token.get("transactionIdentifier")
    return ParsedToken(data=tokens.b64(pd.get("data"), "paymentData.data"),
                       signature=tokens.b64(pd.get("signature"), "paymentData.signature"), header=h,
                       network=network, transaction_identifier=tid if isinstance(tid, str) else None)


def signed_content(t: ParsedToken) -> bytes:
    return t.header.ephemeral_public_key + t.data + bytes.fromhex(t.header.transaction_id) + t.header.application_data


def _has_ext(cert: x509.Certificate, oid: ObjectIdentifier) -> bool:
    try:
        cert.extensions.get_extension_for_oid(oid)
        return True
    except x509.ExtensionNotFound:
        return False




def _issued_by(cert: x509.Certificate, issuer: x509.Certificate) -> bool:
    try:
        cert.verify_directly_issued_by(issuer)
        return True
    except (ValueError, TypeError, InvalidSignature):
        return False


_HASHES = {"sha256": hashes.SHA256, "sha384": hashes.SHA384, "sha512": hashes.SHA512}


def verify_signature(t: ParsedToken, *, roots: list[x509.Certificate], now: datetime) -> datetime:
    """Apple's steps 1-4 (see the module); the signing time. TokenInvalid or TokenExpired."""
    try:
        info = asn1_cms.ContentInfo.load(t.signature)
        if info["content_type"].native != "signed_data":
            raise TokenInvalid("the signature is not CMS signed data")
        sd = info["content"]
        certs = [x509.load_der_x509_certificate(c.chosen.dump()) for c in (sd["certificates"] or [])]
        signers = list(sd["signer_infos"])
    except TokenInvalid:
        raise
    except Exception as e:
        raise TokenInvalid("the signature is not valid CMS (PKCS #7) signed data") from e
    if sd["encap_content_info"]["content"].native is not None:
        raise TokenInvalid("the signature must be detached")
    leaf = next((c for c in certs if _has_ext(c, LEAF_OID)), None)
    inter = next((c for c in certs if _has_ext(c, INTERMEDIATE_OID)), None)
    if leaf is None:
        raise TokenInvalid("the signature has no leaf certificate with OID 1.2.840.113635.100.6.29")
    if inter is None:
        raise TokenInvalid("the signature has no intermediate certificate with OID 1.2.840.113635.100.6.2.14")
    if not _issued_by(leaf, inter):
        raise TokenInvalid("the leaf certificate is not signed by the intermediate")
    try:
        bc = inter.extensions.get_extension_for_class(x509.BasicConstraints).value
        if not bc.ca:
            raise TokenInvalid("the intermediate certificate is not a CA")
    except x509.ExtensionNotFound as e:
        raise TokenInvalid("the intermediate certificate is not a CA") from e
    if not any(_issued_by(inter, root) for root in roots):
        raise TokenInvalid("the certificate chain does not end at Apple Root CA - G3")
    if len(signers) != 1:
        raise TokenInvalid("the signature must have exactly one signer")
    signer = signers[0]
    attrs = signer["signed_attrs"]
    if not attrs:
        raise TokenInvalid("the signature has no signed attributes")
    found = {a["type"].native: a["values"][0] for a in attrs}
    algo = signer["digest_algorithm"]["algorithm"].native
    if algo not in _HASHES:
        raise TokenInvalid("the signature's digest algorithm is not supported")
    digest = hashlib.new(algo, signed_content(t)).digest()
    if "message_digest" not in found or found["message_digest"].native != digest:
        raise TokenInvalid("the signature does not match the token's content")
    sid = signer["sid"]
    if sid.name == "issuer_and_serial_number":
        ias = sid.chosen
        if ias["serial_number"].native != leaf.serial_number:
            raise TokenInvalid("the signature was not made by the leaf certificate")
    # The signature covers the DER of the signed attributes as a SET (RFC 5652, 5.4).
    signed_attrs = attrs.untag().dump(force=True)
    if not tokens.ecdsa_ok(leaf.public_key(), signer["signature"].native, signed_attrs, _HASHES[algo]()):
        raise TokenInvalid("the signature is not valid")
    signing_time = found.get("signing_time")
    if signing_time is None:
        raise TokenInvalid("the signature has no signing time")
    when = signing_time.native
    for c in (leaf, inter):
        if not c.not_valid_before_utc <= when <= c.not_valid_after_utc:
            raise TokenInvalid("a certificate of the signature was not valid at the signing time")
    if abs(now - when) > SIGNING_TOLERANCE:
        raise TokenExpired("the token was signed more than 5 minutes from now")
    return when


def decrypt(t: ParsedToken, *, private_key: ec.EllipticCurvePrivateKey, merchant_identifier_hash: str) -> dict:
    """The payment data (a dict); TokenInvalid when it does not decrypt."""
    try:
        ephemeral = serialization.load_der_public_key(t.header.ephemeral_public_key)
    except ValueError as e:
        raise TokenInvalid("header.ephemeralPublicKey is not a public key") from e
    if not isinstance(ephemeral, ec.EllipticCurvePublicKey) or not isinstance(ephemeral.curve, ec.SECP256R1):
        raise TokenInvalid("header.ephemeralPublicKey is not a P-256 key")
    shared = private_key.exchange(ec.ECDH(), ephemeral)
    other_info = b"\x0did-aes256-GCM" + b"Apple" + bytes.fromhex(merchant_identifier_hash)
    key = ConcatKDFHash(algorithm=hashes.SHA256(), length=32, otherinfo=other_info).derive(shared)
    try:
        plain = AESGCM(key).decrypt(_ZERO_IV, t.data, None)
    except InvalidTag as e:
        raise TokenInvalid("the token does not decrypt with this merchant's key") from e
    try:
        payload = json.loads(plain)
    except ValueError as e:
        raise TokenInvalid("the decrypted payment data is not JSON") from e
    if not isinstance(payload, dict):
        raise TokenInvalid("the decrypted payment data is not a JSON object")
    return payload


@dataclass(frozen=True)
class Payload:
    """The decrypted payment data, in memory only (`repr` hides the secrets)."""
    number: str = field(repr=False)
    exp_month: int
    exp_year: int
    exp_day: int
    currency_numeric: str
    amount: int
    data_type: str                       # 3DSecure | EMV
    cryptogram: str | None = field(repr=False)
    eci: str | None


def read_payload(payload: dict) -> Payload:
    number = payload.get("applicationPrimaryAccountNumber")
    exp = payload.get("applicationExpirationDate")
    cur = payload.get("currencyCode")
    amount = payload.get("transactionAmount")
    kind = payload.get("paymentDataType")
    data = payload.get("paymentData") if isinstance(payload.get("paymentData"), dict) else {}
    if not isinstance(number, str) or not number.isdigit():
        raise TokenInvalid("the payment data has no device account number")
    if not isinstance(exp, str) or len(exp) != 6 or not exp.isdigit():
        raise TokenInvalid("the payment data's applicationExpirationDate is not YYMMDD")
    if not isinstance(cur, str) or len(cur) != 3 or not cur.isdigit():
        raise TokenInvalid("the payment data's currencyCode is not an ISO 4217 numeric code")
    if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
        raise TokenInvalid("the payment data's transactionAmount is not an amount")
    if kind not in ("3DSecure", "EMV"):
        raise TokenInvalid("the payment data's paymentDataType must be 3DSecure or EMV")
    cryptogram = data.get("onlinePaymentCryptogram") if kind == "3DSecure" else data.get("emvData")
    if not isinstance(cryptogram, str) or not cryptogram:
        raise TokenInvalid("the payment data has no cryptogram")
    eci = data.get("eciIndicator")
    yy, mm, dd = int(exp[:2]), int(exp[2:4]), int(exp[4:])
    if not 1 <= mm <= 12:
        raise TokenInvalid("the payment data's applicationExpirationDate is not a date")
    return Payload(number=number, exp_month=mm, exp_year=2000 + yy, exp_day=dd, currency_numeric=cur,
                   amount=amount, data_type=kind, cryptogram=cryptogram, eci=eci if isinstance(eci, str) else None)
