"""The unit's signing certificate and ETA's document signature: a detached CAdES-BES CMS
(SignedData, SHA-256, RSA PKCS#1 v1.5) over the canonical serialization, with the signed
attributes ETA's signer puts there (content type, signing time, message digest and the
signing-certificate-v2 reference to the certificate), base64 in `signatures[].value`
(`signatureType` "I"). Built with cryptography (keys, X.509, RSA) and asn1crypto (CMS)."""
from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta

from asn1crypto import algos, cms, core as asn1, tsp, x509 as asn1_x509
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.x509.oid import NameOID

# ETA's signer wraps the content as id-digestedData (1.2.840.113549.1.7.5), detached.
CONTENT_TYPE = "1.2.840.113549.1.7.5"
TEST_CERT_YEARS = 2


@dataclass
class Material:
    certificate: x509.Certificate
    private_key: rsa.RSAPrivateKey


def self_signed(*, rin: str, name: str, now: datetime) -> Material:
    """A test-mode certificate for the taxpayer (CN the name, serialNumber the RIN), RSA 2048."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    subject = x509.Name([x509.NameAttribute(NameOID.COUNTRY_NAME, "EG"),
                         x509.NameAttribute(NameOID.ORGANIZATION_NAME, name[:64] or "Taxpayer"),
                         x509.NameAttribute(NameOID.SERIAL_NUMBER, rin),
                         x509.NameAttribute(NameOID.COMMON_NAME, (name[:50] or "Taxpayer") + " (test)")])
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - timedelta(minutes=5))
            .not_valid_after(now + timedelta(days=365 * TEST_CERT_YEARS))
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=True, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .sign(key, hashes.SHA256()))
    return Material(cert, key)


def load(certificate_pem: str, private_key_pem: str) -> Material:
    """A merchant's own certificate and RSA key (PEM); ValueError when unreadable, not RSA, or not a pair."""
    cert = x509.load_pem_x509_certificate(certificate_pem.encode("utf-8"))
    key = serialization.load_pem_private_key(private_key_pem.encode("utf-8"), password=None)
    if not isinstance(key, rsa.RSAPrivateKey) or not isinstance(cert.public_key(), rsa.RSAPublicKey):
        raise ValueError("not an RSA key")
    if cert.public_key().public_numbers() != key.public_key().public_numbers():
        raise ValueError("the key is not the certificate's")
    return Material(cert, key)


def private_pem(key: rsa.RSAPrivateKey) -> str:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode("ascii")


def certificate_pem(cert: x509.Certificate) -> str:
    return cert.public_bytes(serialization.Encoding.PEM).decode("ascii")


def _signed_attrs(digest: bytes, cert_der: bytes, signing_time: datetime) -> cms.CMSAttributes:
    ess = tsp.SigningCertificateV2({"certs": [tsp.ESSCertIDv2({
        "hash_algorithm": algos.DigestAlgorithm({"algorithm": "sha256"}),
        "cert_hash": hashlib.sha256(cert_der).digest(),
        "issuer_serial": {"issuer": [asn1_x509.GeneralName(
            name="directory_name", value=asn1_x509.Certificate.load(cert_der).issuer)],
            "serial_number": asn1_x509.Certificate.load(cert_der).serial_number}})]})
    return cms.CMSAttributes([
        cms.CMSAttribute({"type": "content_type", "values": [cms.ContentType(CONTENT_TYPE)]}),
        cms.CMSAttribute({"type": "signing_time", "values": [cms.Time(name="utc_time", value=signing_time)]}),
        cms.CMSAttribute({"type": "message_digest", "values": [asn1.OctetString(digest)]}),
        cms.CMSAttribute({"type": "signing_certificate_v2", "values": [ess]}),
    ])


def sign(serialized: str, material: Material, *, signing_time: datetime) -> str:
    """The base64 CAdES-BES signature of `serialized` (detached)."""
    cert_der = material.certificate.public_bytes(serialization.Encoding.DER)
    attrs = _signed_attrs(hashlib.sha256(serialized.encode("utf-8")).digest(), cert_der, signing_time)
    signature = material.private_key.sign(attrs.dump(), padding.PKCS1v15(), hashes.SHA256())
    cert = asn1_x509.Certificate.load(cert_der)
    signer = cms.SignerInfo({
        "version": "v1",
        "sid": cms.SignerIdentifier(name="issuer_and_serial_number", value={
            "issuer": cert.issuer, "serial_number": cert.serial_number}),
        "digest_algorithm": algos.DigestAlgorithm({"algorithm": "sha256"}),
        "signed_attrs": attrs,
        "signature_algorithm": algos.SignedDigestAlgorithm({"algorithm": "rsassa_pkcs1v15"}),
        "signature": signature,
    })
    signed = cms.SignedData({
        "version": "v3",
        "digest_algorithms": [algos.DigestAlgorithm({"algorithm": "sha256"})],
        "encap_content_info": {"content_type": CONTENT_TYPE},
        "certificates": [cert],
        "signer_infos": [signer],
    })
    return base64.b64encode(cms.ContentInfo({"content_type": "signed_data", "content": signed}).dump()).decode("ascii")


def verify(serialized: str, signature_b64: str) -> tuple[list[str], x509.Certificate | None]:
    """What ETA checks of a signature: (problems, the signer's certificate). No problems: valid."""
    try:
        info = cms.ContentInfo.load(base64.b64decode(signature_b64, validate=True))
        signed = info["content"]
        signer = signed["signer_infos"][0]
        cert_der = signed["certificates"][0].chosen.dump()
        cert = x509.load_der_x509_certificate(cert_der)
        attrs = {a["type"].native: a["values"][0] for a in signer["signed_attrs"]}
    except Exception:  # noqa: BLE001 - anything unreadable is an invalid signature
        return ["the signature is not a readable CMS SignedData with its certificate"], None
    problems = []
    if info["content_type"].native != "signed_data":
        problems.append("not a CMS SignedData")
    if signed["encap_content_info"]["content"].native is not None:
        problems.append("the signature must be detached")
    if "signing_certificate_v2" not in attrs:
        problems.append("CAdES-BES: the signing-certificate-v2 attribute is missing")
    elif attrs["signing_certificate_v2"]["certs"][0]["cert_hash"].native != hashlib.sha256(cert_der).digest():
        problems.append("CAdES-BES: signing-certificate-v2 does not name the signer's certificate")
    digest = attrs.get("message_digest")
    if digest is None or digest.native != hashlib.sha256(serialized.encode("utf-8")).digest():
        problems.append("the message digest is not the SHA-256 of the document's serialization")
    try:
        signed_bytes = b"\x31" + signer["signed_attrs"].dump()[1:]    # [0] IMPLICIT back to SET OF
        cert.public_key().verify(signer["signature"].native, signed_bytes, padding.PKCS1v15(), hashes.SHA256())
    except (InvalidSignature, TypeError, ValueError):
        problems.append("the signature does not verify with the certificate's key")
    return problems, cert
