"""The EGS unit's key and CSR, and the encryption of its secrets at rest.

- The key: EC on secp256k1 (ZATCA's curve), made with `cryptography`.
- The CSR carries what ZATCA's onboarding reads: subject C=SA, OU, O, CN; the certificate
  template name extension (1.3.6.1.4.1.311.20.2: TSTZATCA-Code-Signing for the sandbox,
  PREZATCA-Code-Signing for simulation, ZATCA-Code-Signing for production); a subject
  alternative name whose directory name holds SN = "1-<solution>|2-<model>|3-<serial>",
  UID = the VAT number, title = the invoice types ("1100": standard and simplified),
  registeredAddress and businessCategory.
- Secrets (the private key, the CSID's secret) are stored AES-256-GCM encrypted under a key
  derived (HKDF-SHA256) from QAFILA_SECRET_KEY; they never leave the service in an answer,
  a log line or an event."""
from __future__ import annotations

import base64

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID, ObjectIdentifier

from services.einvoicing import core

TEMPLATE_OID = ObjectIdentifier("1.3.6.1.4.1.311.20.2")
UID_OID = ObjectIdentifier("0.9.2342.19200300.100.1.1")
REGISTERED_ADDRESS_OID = ObjectIdentifier("2.5.4.26")
BUSINESS_CATEGORY_OID = NameOID.BUSINESS_CATEGORY
TEMPLATES = {"sandbox": "TSTZATCA-Code-Signing", "simulation": "PREZATCA-Code-Signing",
             "production": "ZATCA-Code-Signing"}
SOLUTION = "Qafila"
MODEL = "1.0"


def new_private_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256K1())


def _der_string(tag: int, value: str) -> bytes:
    """A short DER string (PrintableString 0x13 / UTF8String 0x0C): the template name's value."""
    raw = value.encode("utf-8")
    if len(raw) >= 128:
        raise ValueError("template name too long")
    return bytes([tag, len(raw)]) + raw


def template_name(der: bytes) -> str | None:
    if len(der) < 2 or der[0] not in (0x0C, 0x13, 0x16) or der[1] != len(der) - 2:
        return None
    return der[2:].decode("utf-8", "replace")


def make_csr(key: ec.EllipticCurvePrivateKey, *, common_name: str, vat_number: str, organization: str,
             organization_unit: str, invoice_types: str, serial: str, location: str, industry: str,
             environment: str = "sandbox") -> x509.CertificateSigningRequest:
    subject = x509.Name([
        x509.NameAttribute(NameOID.COUNTRY_NAME, "SA"),
        x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, organization_unit),
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization),
        x509.NameAttribute(NameOID.COMMON_NAME, common_name),
    ])
    alt = x509.DirectoryName(x509.Name([
        x509.NameAttribute(NameOID.SURNAME, f"1-{SOLUTION}|2-{MODEL}|3-{serial}"),
        x509.NameAttribute(UID_OID, vat_number),
        x509.NameAttribute(NameOID.TITLE, invoice_types),
        x509.NameAttribute(REGISTERED_ADDRESS_OID, location),
        x509.NameAttribute(BUSINESS_CATEGORY_OID, industry),
    ]))
    return (x509.CertificateSigningRequestBuilder()
            .subject_name(subject)
            .add_extension(x509.UnrecognizedExtension(TEMPLATE_OID, _der_string(0x13, TEMPLATES[environment])),
                           critical=False)
            .add_extension(x509.SubjectAlternativeName([alt]), critical=False)
            .sign(key, hashes.SHA256()))


def csr_base64(csr: x509.CertificateSigningRequest) -> str:
    """ZATCA's `csr` field: base64 of the PEM text."""
    return base64.b64encode(csr.public_bytes(serialization.Encoding.PEM)).decode("ascii")


def load_csr(csr_b64: str) -> x509.CertificateSigningRequest:
    return x509.load_pem_x509_csr(base64.b64decode(csr_b64, validate=True))


def csr_details(csr: x509.CertificateSigningRequest) -> dict[str, str | None]:
    """The fields ZATCA reads from a CSR (None where absent)."""
    out: dict[str, str | None] = {"template": None, "serial": None, "vat_number": None, "invoice_types": None}
    try:
        ext = csr.extensions.get_extension_for_oid(TEMPLATE_OID)
        out["template"] = template_name(ext.value.value)
    except x509.ExtensionNotFound:
        pass
    try:
        san = csr.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        for name in san.get_values_for_type(x509.DirectoryName):
            for attr, key in ((NameOID.SURNAME, "serial"), (UID_OID, "vat_number"), (NameOID.TITLE, "invoice_types")):
                found = name.get_attributes_for_oid(attr)
                if found:
                    out[key] = str(found[0].value)
    except x509.ExtensionNotFound:
        pass
    return out


def private_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def load_private(pem: bytes) -> ec.EllipticCurvePrivateKey:
    key = serialization.load_pem_private_key(pem, password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise ValueError("not an EC key")
    return key


# ---------------------------------------------------------------- secrets at rest

_SALT, _INFO = b"qafila-zatca", b"egs-unit-secrets"      # ZATCA's units: sealed as before the core existed


def encrypt(secret_key: str, plaintext: bytes, *, context: str) -> str:
    """The core's sealing (services.einvoicing.core.seal) under ZATCA's own key derivation."""
    return core.seal(secret_key, plaintext, context=context, salt=_SALT, info=_INFO)


def decrypt(secret_key: str, token: str, *, context: str) -> bytes:
    return core.unseal(secret_key, token, context=context, salt=_SALT, info=_INFO)
