"""A simulator of ZATCA's e-invoicing API (Fatoora), served under /sandbox/zatca and called
in-process by test mode when QAFILA_ZATCA_URL is not set.

Endpoints (the paths and JSON of ZATCA's developer portal, `Accept-Version: V2`):
- POST /compliance            header OTP, body {csr}: a compliance CSID for OTP 123345
- POST /production/csids      basic auth (compliance CSID), body {compliance_request_id}
- POST /compliance/invoices   basic auth, body {invoiceHash, uuid, invoice}: checks only
- POST /invoices/reporting/single   simplified documents: REPORTED / NOT_REPORTED
- POST /invoices/clearance/single   standard documents: CLEARED (+ clearedInvoice) / NOT_CLEARED

It keeps no state: the CA key is derived from QAFILA_SECRET_KEY, a CSID's secret is an HMAC of
its token, and the compliance request id is the compliance certificate's serial. It checks what
ZATCA checks before it accepts a document: the credentials, the XML, the hash (recomputed, and
equal to the API body's and the signature's), the signature (against the certificate of the
credentials), the QR, the ICV (a positive integer, BR-KSA-33) and the PIH (base64 of a SHA-256,
BR-KSA-26), the type (simplified reported, standard cleared). Sandbox rule: a document whose
buyer VAT number is REJECTED_BUYER_VAT is refused (BR-KSA-40), like a declining test card."""
from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import hmac
from datetime import datetime, timedelta, timezone

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from lxml import etree

from services.einvoicing.zatca import keys, signing, ubl

SANDBOX_OTP = "123345"
REJECTED_BUYER_VAT = "399999999900003"
CERT_DAYS = 5 * 365
_N_SECP256K1 = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


@functools.lru_cache(maxsize=4)
def _ca(secret_key: str) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    seed = hmac.new(secret_key.encode(), b"qafila zatca simulator CA", hashlib.sha256).digest()
    key = ec.derive_private_key(int.from_bytes(seed, "big") % (_N_SECP256K1 - 1) + 1, ec.SECP256K1())
    name = x509.Name([x509.NameAttribute(NameOID.DOMAIN_COMPONENT, "local"),
                      x509.NameAttribute(NameOID.DOMAIN_COMPONENT, "gov"),
                      x509.NameAttribute(NameOID.DOMAIN_COMPONENT, "qafila-sandbox"),
                      x509.NameAttribute(NameOID.COMMON_NAME, "QAFILA-ZATCA-SIMULATOR-CA")])
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(int.from_bytes(seed[:16], "big") >> 1).not_valid_before(start)
            .not_valid_after(start + timedelta(days=30 * 365))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .sign(key, hashes.SHA256()))
    return key, cert


def _secret_for(secret_key: str, token: str) -> str:
    return base64.b64encode(hmac.new(secret_key.encode(), b"csid:" + token.encode(), hashlib.sha256).digest()[:24]).decode()


def _token(cert: x509.Certificate) -> str:
    """binarySecurityToken: base64 of the certificate's base64 text, as ZATCA returns it."""
    return base64.b64encode(base64.b64encode(cert.public_bytes(serialization.Encoding.DER))).decode()


def certificate_of(token: str) -> x509.Certificate:
    return x509.load_der_x509_certificate(base64.b64decode(base64.b64decode(token, validate=True)))


def _issue(secret_key: str, subject: x509.Name, public_key, *, now: datetime, extensions=()) -> x509.Certificate:
    ca_key, ca_cert = _ca(secret_key)
    b = (x509.CertificateBuilder().subject_name(subject).issuer_name(ca_cert.subject).public_key(public_key)
         .serial_number(x509.random_serial_number()).not_valid_before(now - timedelta(minutes=5))
         .not_valid_after(now + timedelta(days=CERT_DAYS))
         .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                      data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                      crl_sign=False, encipher_only=False, decipher_only=False), critical=True))
    for ext in extensions:
        b = b.add_extension(ext.value, critical=ext.critical)
    return b.sign(ca_key, hashes.SHA256())


def _error(status: int, code: str, message: str) -> tuple[int, dict]:
    return status, {"code": code, "message": message, "errors": [{"code": code, "message": message}]}


def _unauthorized() -> tuple[int, dict]:
    return 401, {"code": "Unauthorized", "message": "The CSID or its secret is not valid"}


def _authenticated(secret_key: str, authorization: str | None, now: datetime) -> x509.Certificate | None:
    if not authorization or not authorization.startswith("Basic "):
        return None
    try:
        token, _, secret = base64.b64decode(authorization[6:], validate=True).decode().partition(":")
        cert = certificate_of(token)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return None
    if not hmac.compare_digest(secret, _secret_for(secret_key, token)):
        return None
    try:
        _ca(secret_key)[1].public_key().verify(cert.signature, cert.tbs_certificate_bytes,
                                               ec.ECDSA(cert.signature_hash_algorithm))
    except InvalidSignature:
        return None
    if not cert.not_valid_before_utc <= now <= cert.not_valid_after_utc:
        return None
    return cert


# ---------------------------------------------------------------- onboarding

def compliance_csid(*, secret_key: str, otp: str | None, body: dict, now: datetime) -> tuple[int, dict]:
    if otp != SANDBOX_OTP:
        return _error(400, "Invalid-OTP", "The OTP is not valid (the sandbox OTP is 123345)")
    try:
        csr = keys.load_csr(str((body or {}).get("csr") or ""))
    except (ValueError, binascii.Error):
        return _error(400, "Invalid-CSR", "The csr is not a base64-encoded PEM certificate signing request")
    if not csr.is_signature_valid or not isinstance(csr.public_key(), ec.EllipticCurvePublicKey) \
            or not isinstance(csr.public_key().curve, ec.SECP256K1):
        return _error(400, "Invalid-CSR", "The CSR must be signed with an EC key on secp256k1")
    details = keys.csr_details(csr)
    missing = [k for k, v in details.items() if not v]
    if missing:
        return _error(400, "Invalid-CSR", f"The CSR lacks {', '.join(missing)}")
    cert = _issue(secret_key, csr.subject, csr.public_key(), now=now,
                  extensions=[e for e in csr.extensions])
    token = _token(cert)
    return 200, {"requestID": cert.serial_number, "dispositionMessage": "ISSUED", "binarySecurityToken": token,
                 "secret": _secret_for(secret_key, token), "errors": None}


def production_csid(*, secret_key: str, authorization: str | None, body: dict, now: datetime) -> tuple[int, dict]:
    cert = _authenticated(secret_key, authorization, now)
    if cert is None:
        return _unauthorized()
    request_id = (body or {}).get("compliance_request_id")
    if str(request_id) != str(cert.serial_number):
        return _error(400, "Invalid-Request-ID", "compliance_request_id is not the request of these credentials")
    prod = _issue(secret_key, cert.subject, cert.public_key(), now=now,
                  extensions=[e for e in cert.extensions if not isinstance(e.value, x509.KeyUsage)])
    token = _token(prod)
    return 200, {"requestID": prod.serial_number, "tokenType": "http://docs.oasis-open.org/wss/2004/01/"
                 "oasis-200401-wss-x509-token-profile-1.0#X509v3", "dispositionMessage": "ISSUED",
                 "binarySecurityToken": token, "secret": _secret_for(secret_key, token), "errors": None}


# ---------------------------------------------------------------- documents

def _message(kind: str, code: str, category: str, message: str) -> dict:
    return {"type": kind, "code": code, "category": category, "message": message,
            "status": "ERROR" if kind == "ERROR" else ("WARNING" if kind == "WARNING" else "PASS")}


def validate(body: dict, cert: x509.Certificate) -> tuple[list[dict], list[dict], list[dict], str]:
    """infoMessages, warningMessages, errorMessages and the invoice's type name."""
    errors: list[dict] = []
    warnings: list[dict] = []
    body = body or {}
    try:
        xml = base64.b64decode(str(body.get("invoice") or ""), validate=True)
        root = etree.fromstring(xml, etree.XMLParser(resolve_entities=False, no_network=True))
    except (ValueError, binascii.Error, etree.XMLSyntaxError):
        return [], [], [_message("ERROR", "XSD_SCHEMA_ERROR", "XSD validation",
                                 "invoice is not base64 of a well-formed XML document")], ""
    t = lambda p: ubl.text(root, p)  # noqa: E731
    type_name = t("cbc:InvoiceTypeCode/@name") or ""
    computed = signing.invoice_hash(root)
    if body.get("invoiceHash") != computed:
        errors.append(_message("ERROR", "invalid-invoice-hash", "INVOICE_HASHING_ERRORS",
                               "The invoice hash API body does not match the (calculated) Hash of the attached invoice."))
    if body.get("uuid") != t("cbc:UUID"):
        errors.append(_message("ERROR", "invalid-uuid", "KSA", "The uuid of the API body is not the invoice's cbc:UUID"))
    for code, message in signing.check(xml):
        errors.append(_message("ERROR", code, "SIGNATURE_ERRORS" if "qrcode" not in code else "QRCODE_VALIDATION",
                               message))
    parts = signing.read(xml)
    if parts.certificate is not None and parts.certificate.public_bytes(serialization.Encoding.DER) != \
            cert.public_bytes(serialization.Encoding.DER):
        errors.append(_message("ERROR", "certificate-mismatch", "SIGNATURE_ERRORS",
                               "The document is not signed with the certificate of these credentials"))
    icv = t("cac:AdditionalDocumentReference[cbc:ID='ICV']/cbc:UUID") or ""
    if not icv.isdigit() or int(icv) < 1:
        errors.append(_message("ERROR", "BR-KSA-33", "KSA", "The invoice counter value (KSA-16) must be a positive integer"))
    pih = t("cac:AdditionalDocumentReference[cbc:ID='PIH']/cac:Attachment/cbc:EmbeddedDocumentBinaryObject") or ""
    try:
        pih_ok = len(base64.b64decode(pih, validate=True)) in (32, 64)     # raw digest, or its hex text (first)
    except (ValueError, binascii.Error):
        pih_ok = False
    if not pih_ok:
        errors.append(_message("ERROR", "BR-KSA-26", "KSA", "The previous invoice hash (KSA-13) must be the base64 "
                                                            "of a SHA-256 hash"))
    buyer_vat = t("cac:AccountingCustomerParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID")
    if buyer_vat == REJECTED_BUYER_VAT:
        errors.append(_message("ERROR", "BR-KSA-40", "KSA", "The buyer VAT registration number is not registered "
                                                            "with ZATCA (sandbox: always refused)"))
    if type_name.startswith("01") and not buyer_vat:
        errors.append(_message("ERROR", "BR-KSA-44", "KSA", "A standard tax invoice must carry the buyer's VAT number"))
    info = [] if errors else [_message("INFO", "XSD_ZATCA_VALID", "XSD validation",
                                       "Complied with UBL 2.1 standards in line with ZATCA specifications")]
    return info, warnings, errors, type_name


def _results(info, warnings, errors) -> dict:
    return {"infoMessages": info, "warningMessages": warnings, "errorMessages": errors,
            "status": "ERROR" if errors else ("WARNING" if warnings else "PASS")}


def submit(*, secret_key: str, authorization: str | None, body: dict, now: datetime, action: str) -> tuple[int, dict]:
    """action: reporting | clearance | compliance."""
    cert = _authenticated(secret_key, authorization, now)
    if cert is None:
        return _unauthorized()
    info, warnings, errors, type_name = validate(body, cert)
    if action == "reporting" and type_name and not type_name.startswith("02"):
        errors.append(_message("ERROR", "invoice-type", "KSA", "Only simplified documents are reported; "
                                                               "clear standard documents"))
    if action == "clearance" and type_name and not type_name.startswith("01"):
        errors.append(_message("ERROR", "invoice-type", "KSA", "Only standard documents are cleared; "
                                                               "report simplified documents"))
    results = _results(info if not errors else [], warnings, errors)
    if action == "compliance":
        out = {"validationResults": results,
               "reportingStatus": None if errors or not type_name.startswith("02") else "REPORTED",
               "clearanceStatus": None if errors or not type_name.startswith("01") else "CLEARED"}
        return (400 if errors else 200), out
    if action == "reporting":
        return (400 if errors else 200), {"validationResults": results,
                                          "reportingStatus": "NOT_REPORTED" if errors else "REPORTED"}
    if errors:
        return 400, {"validationResults": results, "clearanceStatus": "NOT_CLEARED", "clearedInvoice": None}
    return 200, {"validationResults": results, "clearanceStatus": "CLEARED", "clearedInvoice": body["invoice"]}

