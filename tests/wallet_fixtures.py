"""Tests play Apple and Google: real tokens, made the way the wallets make them, with keys and
roots made here (a fake "Apple root" CA -> an intermediate with OID 1.2.840.113635.100.6.2.14
-> a leaf with 1.2.840.113635.100.6.29 signing a detached CMS; a fake Google root key signing
an intermediate key that signs the message)."""
from __future__ import annotations

import base64
import hashlib
import json
import os
import struct
from datetime import datetime, timedelta, timezone

from asn1crypto import algos as asn1_algos
from asn1crypto import cms as asn1_cms
from asn1crypto import core as asn1_core
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import hashes, hmac, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.concatkdf import ConcatKDFHash
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.x509.oid import NameOID, ObjectIdentifier

LEAF_OID = ObjectIdentifier("1.2.840.113635.100.6.29")
INTERMEDIATE_OID = ObjectIdentifier("1.2.840.113635.100.6.2.14")
MERCHANT_ID_HASH_OID = ObjectIdentifier("1.2.840.113635.100.6.32")
UID_OID = ObjectIdentifier("0.9.2342.19200300.100.1.1")

NUMERIC = {"SAR": "682", "AED": "784", "KWD": "414", "BHD": "048", "TRY": "949", "QAR": "634", "EGP": "818",
           "OMR": "512", "JOD": "400", "IQD": "368"}


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _cert(subject: x509.Name, key, issuer: x509.Name, issuer_key, *, ca: bool, not_before: datetime,
          days: int = 3650, ext: ObjectIdentifier | None = None, ext_value: bytes = b"\x05\x00") -> x509.Certificate:
    b = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(key.public_key())
         .serial_number(x509.random_serial_number()).not_valid_before(not_before)
         .not_valid_after(not_before + timedelta(days=days))
         .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if ext is not None:
        b = b.add_extension(x509.UnrecognizedExtension(ext, ext_value), critical=False)
    return b.sign(issuer_key, hashes.SHA256())


class FakeApple:
    """A fake Apple: its root, intermediate and leaf, and the certificates it issues to
    merchants for their CSRs."""

    def __init__(self, start: datetime | None = None):
        start = start or datetime(2025, 1, 1, tzinfo=timezone.utc)
        self.root_key = ec.generate_private_key(ec.SECP384R1())
        self.root = _cert(_name("Fake Apple Root CA - G3"), self.root_key, _name("Fake Apple Root CA - G3"),
                          self.root_key, ca=True, not_before=start, days=20 * 365)
        self.inter_key = ec.generate_private_key(ec.SECP256R1())
        self.inter = _cert(_name("Fake Apple Application Integration CA - G3"), self.inter_key, self.root.subject,
                           self.root_key, ca=True, not_before=start, ext=INTERMEDIATE_OID)
        self.leaf_key = ec.generate_private_key(ec.SECP256R1())
        self.leaf = _cert(_name("ecc-smp-broker-sign_UC4-PROD"), self.leaf_key, self.inter.subject, self.inter_key,
                          ca=False, not_before=start, ext=LEAF_OID)

    def roots_pem(self) -> bytes:
        return self.root.public_bytes(serialization.Encoding.PEM)

    def issue(self, csr_pem: str, merchant_identifier: str, *, days: int = 20 * 365,
              start: datetime | None = None) -> str:
        """The payment processing certificate for a merchant's CSR (PEM). By default valid from
        2025 for 20 years: each test's clock starts on a day of its own, years after 2026 in a
        full run; a test of expiry gives its own window."""
        csr = x509.load_pem_x509_csr(csr_pem.encode())
        hexhash = hashlib.sha256(merchant_identifier.encode()).hexdigest()
        ext_value = asn1_core.UTF8String(hexhash).dump()
        subject = x509.Name([x509.NameAttribute(UID_OID, merchant_identifier),
                             x509.NameAttribute(NameOID.COMMON_NAME, f"Apple Pay Payment Processing:{merchant_identifier}")])
        cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(self.inter.subject)
                .public_key(csr.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(start or datetime(2025, 1, 1, tzinfo=timezone.utc))
                .not_valid_after((start or datetime(2025, 1, 1, tzinfo=timezone.utc)) + timedelta(days=days))
                .add_extension(x509.UnrecognizedExtension(MERCHANT_ID_HASH_OID, ext_value), critical=False)
                .sign(self.inter_key, hashes.SHA256()))
        return cert.public_bytes(serialization.Encoding.PEM).decode()

    def _cms(self, content: bytes, signing_time: datetime, leaf=None, leaf_key=None, certs=None) -> bytes:
        leaf = leaf or self.leaf
        leaf_key = leaf_key or self.leaf_key
        attrs = asn1_cms.CMSAttributes([
            asn1_cms.CMSAttribute({"type": "content_type", "values": ["data"]}),
            asn1_cms.CMSAttribute({"type": "signing_time", "values": [asn1_cms.Time({"utc_time": signing_time})]}),
            asn1_cms.CMSAttribute({"type": "message_digest", "values": [hashlib.sha256(content).digest()]}),
        ])
        signature = leaf_key.sign(attrs.dump(), ec.ECDSA(hashes.SHA256()))
        a_leaf = asn1_x509.Certificate.load(leaf.public_bytes(serialization.Encoding.DER))
        signer = asn1_cms.SignerInfo({
            "version": "v1",
            "sid": asn1_cms.SignerIdentifier({"issuer_and_serial_number": asn1_cms.IssuerAndSerialNumber(
                {"issuer": a_leaf.issuer, "serial_number": a_leaf.serial_number})}),
            "digest_algorithm": asn1_algos.DigestAlgorithm({"algorithm": "sha256"}),
            "signed_attrs": attrs,
            "signature_algorithm": asn1_algos.SignedDigestAlgorithm({"algorithm": "sha256_ecdsa"}),
            "signature": signature,
        })
        certs = certs if certs is not None else [leaf, self.inter]
        sd = asn1_cms.SignedData({
            "version": "v1",
            "digest_algorithms": [asn1_algos.DigestAlgorithm({"algorithm": "sha256"})],
            "encap_content_info": {"content_type": "data"},
            "certificates": [asn1_x509.Certificate.load(c.public_bytes(serialization.Encoding.DER)) for c in certs],
            "signer_infos": [signer],
        })
        return asn1_cms.ContentInfo({"content_type": "signed_data", "content": sd}).dump()

    def token(self, certificate_pem: str, merchant_identifier: str, *, amount: int, currency: str,
              number: str = "4242424242424242", expiry: str = "301231", network: str = "Visa",
              signed_at: datetime, transaction_id: str | None = None, data_type: str = "3DSecure",
              tamper: str | None = None, currency_numeric: str | None = None, **cms) -> dict:
        """A PKPaymentToken for the merchant's certificate, as the device makes it."""
        cert = x509.load_pem_x509_certificate(certificate_pem.encode())
        eph = ec.generate_private_key(ec.SECP256R1())
        shared = eph.exchange(ec.ECDH(), cert.public_key())
        other = b"\x0did-aes256-GCM" + b"Apple" + hashlib.sha256(merchant_identifier.encode()).digest()
        key = ConcatKDFHash(algorithm=hashes.SHA256(), length=32, otherinfo=other).derive(shared)
        payment_data = ({"onlinePaymentCryptogram": base64.b64encode(b"cryptogram-bytes-20!").decode(),
                         "eciIndicator": "05"} if data_type == "3DSecure" else {"emvData": "9F2608ABCDEF"})
        payload = {"applicationPrimaryAccountNumber": number, "applicationExpirationDate": expiry,
                   "currencyCode": currency_numeric or NUMERIC[currency], "transactionAmount": amount,
                   "deviceManufacturerIdentifier": "040010030273", "paymentDataType": data_type,
                   "paymentData": payment_data}
        data = AESGCM(key).encrypt(b"\x00" * 16, json.dumps(payload).encode(), None)
        eph_der = eph.public_key().public_bytes(serialization.Encoding.DER,
                                                serialization.PublicFormat.SubjectPublicKeyInfo)
        tid = transaction_id or os.urandom(32).hex()
        spki = cert.public_key().public_bytes(serialization.Encoding.DER,
                                              serialization.PublicFormat.SubjectPublicKeyInfo)
        if tamper == "data":
            data = data[:-1] + bytes([data[-1] ^ 1])
            signed = eph_der + data + bytes.fromhex(tid)
        else:
            signed = eph_der + data + bytes.fromhex(tid)
            if tamper == "signature":
                signed = signed + b"x"
        sig = self._cms(signed, signed_at, **cms)
        return {"paymentData": {"version": "EC_v1", "data": base64.b64encode(data).decode(),
                                "signature": base64.b64encode(sig).decode(),
                                "header": {"ephemeralPublicKey": base64.b64encode(eph_der).decode(),
                                           "publicKeyHash": base64.b64encode(hashlib.sha256(spki).digest()).decode(),
                                           "transactionId": tid}},
                "paymentMethod": {"displayName": f"{network} {number[-4:]}", "network": network, "type": "debit"},
                "transactionIdentifier": tid.upper()}


def _lp(*parts: bytes) -> bytes:
    return b"".join(struct.pack("<I", len(p)) + p for p in parts)


class FakeGoogle:
    """A fake Google: a root signing key (published in Google's key-list format) and an
    intermediate signing key it signs."""

    def __init__(self):
        self.root_key = ec.generate_private_key(ec.SECP256R1())
        self.inter_key = ec.generate_private_key(ec.SECP256R1())

    def root_keys_json(self, expiration_ms: int = 32506264800000) -> str:
        der = self.root_key.public_key().public_bytes(serialization.Encoding.DER,
                                                      serialization.PublicFormat.SubjectPublicKeyInfo)
        return json.dumps({"keys": [{"keyValue": base64.b64encode(der).decode(), "protocolVersion": "ECv2",
                                     "keyExpiration": str(expiration_ms)}]})

    def token(self, public_key_b64: str, *, gateway_merchant_id: str, now: datetime,
              number: str = "4242424242424242", auth_method: str = "CRYPTOGRAM_3DS", exp_month: int = 12,
              exp_year: int = 2030, key_expires: datetime | None = None, message_expires: datetime | None = None,
              recipient: str = "gateway:qafila", root_key=None, tamper: str | None = None,
              message_id: str | None = None) -> str:
        """The `tokenizationData.token` string Google Pay hands the merchant's page."""
        recipient_pub = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), base64.b64decode(public_key_b64))
        details = {"pan": number, "expirationMonth": exp_month, "expirationYear": exp_year, "authMethod": auth_method}
        if auth_method == "CRYPTOGRAM_3DS":
            details.update(cryptogram="AgAAAAAABk4DWZ4C28yUQAAAAAA=", eciIndicator="05")
        ms = lambda d: str(int(d.timestamp() * 1000))  # noqa: E731
        message = {"gatewayMerchantId": gateway_merchant_id,
                   "messageExpiration": ms(message_expires or now + timedelta(days=7)),
                   "messageId": message_id or "AH2Ejtc" + os.urandom(12).hex(), "paymentMethod": "CARD",
                   "paymentMethodDetails": details}
        eph = ec.generate_private_key(ec.SECP256R1())
        eph_bytes = eph.public_key().public_bytes(serialization.Encoding.X962,
                                                  serialization.PublicFormat.UncompressedPoint)
        shared = eph.exchange(ec.ECDH(), recipient_pub)
        derived = HKDF(algorithm=hashes.SHA256(), length=64, salt=b"\x00" * 32, info=b"Google").derive(eph_bytes + shared)
        enc = Cipher(algorithms.AES(derived[:32]), modes.CTR(b"\x00" * 16)).encryptor()
        ct = enc.update(json.dumps(message).encode()) + enc.finalize()
        mac = hmac.HMAC(derived[32:], hashes.SHA256())
        mac.update(ct)
        tag = mac.finalize()
        if tamper == "tag":
            tag = bytes([tag[0] ^ 1]) + tag[1:]
        signed_message = json.dumps({"encryptedMessage": base64.b64encode(ct).decode(),
                                     "ephemeralPublicKey": base64.b64encode(eph_bytes).decode(),
                                     "tag": base64.b64encode(tag).decode()})
        inter_der = self.inter_key.public_key().public_bytes(serialization.Encoding.DER,
                                                             serialization.PublicFormat.SubjectPublicKeyInfo)
        signed_key = json.dumps({"keyValue": base64.b64encode(inter_der).decode(),
                                 "keyExpiration": ms(key_expires or now + timedelta(days=30))})
        key_sig = (root_key or self.root_key).sign(_lp(b"Google", b"ECv2", signed_key.encode()),
                                                   ec.ECDSA(hashes.SHA256()))
        msg_sig = self.inter_key.sign(_lp(b"Google", recipient.encode(), b"ECv2", signed_message.encode()),
                                      ec.ECDSA(hashes.SHA256()))
        return json.dumps({"protocolVersion": "ECv2", "signature": base64.b64encode(msg_sig).decode(),
                           "intermediateSigningKey": {"signedKey": signed_key,
                                                      "signatures": [base64.b64encode(key_sig).decode()]},
                           "signedMessage": signed_message})
