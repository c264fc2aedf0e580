"""Invoice hash, XAdES enveloped signature and phase-2 QR of a ZATCA document.

How ZATCA computes them (checked against the SDK's published simplified invoice sample in
tests/data/zatca/simplified_sample.xml, whose hash, signature and certificate digest these
functions reproduce):
- the invoice hash: the document minus `ext:UBLExtensions`, `cac:Signature` and the QR
  `cac:AdditionalDocumentReference` (the three XPath transforms of the signature's first
  reference: only those subtrees go, the text around them stays), canonicalised with C14N 1.1
  (lxml writes inclusive C14N 1.0, which is the same for documents without xml:id/xml:base
  attributes, as UBL has none), SHA-256, base64 of the 32 raw bytes;
- the signature value: ECDSA (secp256k1) with SHA-256 over those 32 bytes, DER, base64;
- the certificate digest in the signed properties: base64 of the *hex* SHA-256 of the
  certificate's base64 text (ZATCA's own convention); the signed-properties digest likewise,
  over the canonical form of `xades:SignedProperties`;
- QR tags 1-9: seller, VAT number, timestamp, total with VAT, VAT, the hash (its base64 text),
  the signature (its base64 text), the public key (DER SubjectPublicKeyInfo) and, for
  simplified documents, the certificate's own signature (DER).
"""
from __future__ import annotations

import base64
import copy
import hashlib
from dataclasses import dataclass
from datetime import datetime, timezone

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from lxml import etree

from services.einvoicing.zatca import tlv, ubl

DS = "http://www.w3.org/2000/09/xmldsig#"
XADES = "http://uri.etsi.org/01903/v1.3.2#"
SIG = "urn:oasis:names:specification:ubl:schema:xsd:CommonSignatureComponents-2"
SAC = "urn:oasis:names:specification:ubl:schema:xsd:SignatureAggregateComponents-2"
SBC = "urn:oasis:names:specification:ubl:schema:xsd:SignatureBasicComponents-2"
EXT = ubl.NS["ext"]
C14N11 = "http://www.w3.org/2006/12/xml-c14n11"
XPATH = "http://www.w3.org/TR/1999/REC-xpath-19991116"
SHA256 = "http://www.w3.org/2001/04/xmlenc#sha256"
ECDSA_SHA256 = "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256"
EXCLUDED = ("not(//ancestor-or-self::ext:UBLExtensions)", "not(//ancestor-or-self::cac:Signature)",
            "not(//ancestor-or-self::cac:AdditionalDocumentReference[cbc:ID='QR'])")
NS_ALL = {**ubl.XPATH_NS, "ds": DS, "xades": XADES, "sig": SIG, "sac": SAC, "sbc": SBC}


def _parse(xml: bytes | etree._Element) -> etree._Element:
    if isinstance(xml, etree._Element):
        return copy.deepcopy(xml)
    parser = etree.XMLParser(resolve_entities=False, no_network=True, remove_comments=False)
    return etree.fromstring(xml, parser)


def _drop(el: etree._Element) -> None:
    """Remove `el` but keep the text after it, as an XPath node-set filter does."""
    parent = el.getparent()
    if el.tail:
        prev = el.getprevious()
        if prev is not None:
            prev.tail = (prev.tail or "") + el.tail
        else:
            parent.text = (parent.text or "") + el.tail
    parent.remove(el)


def canonical_invoice(xml: bytes | etree._Element) -> bytes:
    root = _parse(xml)
    for path in ("ext:UBLExtensions", "cac:Signature", "cac:AdditionalDocumentReference[cbc:ID='QR']"):
        for el in root.xpath(path, namespaces=NS_ALL):
            _drop(el)
    return etree.tostring(root, method="c14n", exclusive=False, with_comments=False)


def invoice_hash(xml: bytes | etree._Element) -> str:
    return base64.b64encode(hashlib.sha256(canonical_invoice(xml)).digest()).decode("ascii")


def hex_digest_b64(data: bytes) -> str:
    """ZATCA's digest convention for the certificate and the signed properties."""
    return base64.b64encode(hashlib.sha256(data).hexdigest().encode("ascii")).decode("ascii")


def sign_hash(private_key: ec.EllipticCurvePrivateKey, hash_b64: str) -> str:
    return base64.b64encode(private_key.sign(base64.b64decode(hash_b64), ec.ECDSA(hashes.SHA256()))).decode("ascii")


def verify_hash_signature(public_key: ec.EllipticCurvePublicKey, hash_b64: str, signature_b64: str) -> bool:
    try:
        public_key.verify(base64.b64decode(signature_b64), base64.b64decode(hash_b64), ec.ECDSA(hashes.SHA256()))
        return True
    except (InvalidSignature, ValueError):
        return False


def spki(public_key) -> bytes:
    return public_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def issuer_name(cert: x509.Certificate) -> str:
    """The issuer as ZATCA writes it: RFC 4514 attributes joined by ", " (most specific first)."""
    return ", ".join(rdn.rfc4514_string() for rdn in reversed(cert.issuer.rdns))


@dataclass
class Signed:
    xml: bytes
    hash: str           # base64
    signature: str      # base64 DER ECDSA
    qr: str             # base64 TLV


def qr_payload(doc: ubl.Document, *, hash_b64: str, signature_b64: str, cert: x509.Certificate) -> str:
    fields: dict[int, str | bytes] = {
        1: doc.seller.name, 2: doc.seller.vat_number or "", 3: doc.timestamp,
        4: ubl.amount(doc.total, doc.currency), 5: ubl.amount(doc.tax, doc.currency),
        6: hash_b64, 7: signature_b64, 8: spki(cert.public_key()),
    }
    if doc.simplified:
        fields[9] = cert.signature
    return tlv.encode(fields)


def _el(parent, ns: str, tag: str, text: str | None = None, **attrs) -> etree._Element:
    el = etree.SubElement(parent, f"{{{ns}}}{tag}", attrs)
    if text is not None:
        el.text = text
    return el


def sign(doc: ubl.Document, *, private_key: ec.EllipticCurvePrivateKey, cert: x509.Certificate,
         signing_time: datetime) -> Signed:
    """Build, hash, sign and stamp `doc`: the full signed XML, its hash, signature and QR."""
    root = ubl.build(doc)
    hash_b64 = invoice_hash(root)
    signature_b64 = sign_hash(private_key, hash_b64)
    cert_b64 = base64.b64encode(cert.public_bytes(serialization.Encoding.DER)).decode("ascii")
    qr = qr_payload(doc, hash_b64=hash_b64, signature_b64=signature_b64, cert=cert)

    # The QR reference follows the PIH reference, cac:Signature follows the QR (UBL's order).
    pih = root.xpath("cac:AdditionalDocumentReference[cbc:ID='PIH']", namespaces=NS_ALL)[0]
    qr_ref = etree.Element(ubl.cac("AdditionalDocumentReference"))
    etree.SubElement(qr_ref, ubl.cbc("ID")).text = "QR"
    obj = etree.SubElement(etree.SubElement(qr_ref, ubl.cac("Attachment")), ubl.cbc("EmbeddedDocumentBinaryObject"),
                           mimeCode="text/plain")
    obj.text = qr
    pih.addnext(qr_ref)
    sig_ref = etree.Element(ubl.cac("Signature"))
    etree.SubElement(sig_ref, ubl.cbc("ID")).text = "urn:oasis:names:specification:ubl:signature:Invoice"
    etree.SubElement(sig_ref, ubl.cbc("SignatureMethod")).text = "urn:oasis:names:specification:ubl:dsig:enveloped:xades"
    qr_ref.addnext(sig_ref)

    exts = etree.Element(f"{{{EXT}}}UBLExtensions")
    root.insert(0, exts)
    ext = _el(exts, EXT, "UBLExtension")
    _el(ext, EXT, "ExtensionURI", "urn:oasis:names:specification:ubl:dsig:enveloped:xades")
    content = _el(ext, EXT, "ExtensionContent")
    docsigs = etree.SubElement(content, f"{{{SIG}}}UBLDocumentSignatures", nsmap={"sig": SIG, "sac": SAC, "sbc": SBC})
    info = _el(docsigs, SAC, "SignatureInformation")
    etree.SubElement(info, ubl.cbc("ID")).text = "urn:oasis:names:specification:ubl:signature:1"
    _el(info, SBC, "ReferencedSignatureID", "urn:oasis:names:specification:ubl:signature:Invoice")
    ds = etree.SubElement(info, f"{{{DS}}}Signature", {"Id": "signature"}, nsmap={"ds": DS})
    signed_info = _el(ds, DS, "SignedInfo")
    _el(signed_info, DS, "CanonicalizationMethod", Algorithm=C14N11)
    _el(signed_info, DS, "SignatureMethod", Algorithm=ECDSA_SHA256)
    ref = _el(signed_info, DS, "Reference", Id="invoiceSignedData", URI="")
    transforms = _el(ref, DS, "Transforms")
    for xp in EXCLUDED:
        _el(_el(transforms, DS, "Transform", Algorithm=XPATH), DS, "XPath", xp)
    _el(transforms, DS, "Transform", Algorithm=C14N11)
    _el(ref, DS, "DigestMethod", Algorithm=SHA256)
    _el(ref, DS, "DigestValue", hash_b64)
    props_ref = _el(signed_info, DS, "Reference", Type="http://www.w3.org/2000/09/xmldsig#SignatureProperties",
                    URI="#xadesSignedProperties")
    _el(props_ref, DS, "DigestMethod", Algorithm=SHA256)
    props_digest = _el(props_ref, DS, "DigestValue")
    _el(ds, DS, "SignatureValue", signature_b64)
    _el(_el(_el(ds, DS, "KeyInfo"), DS, "X509Data"), DS, "X509Certificate", cert_b64)
    qualifying = etree.SubElement(_el(ds, DS, "Object"), f"{{{XADES}}}QualifyingProperties", {"Target": "signature"},
                                  nsmap={"xades": XADES})
    props = _el(qualifying, XADES, "SignedProperties", Id="xadesSignedProperties")
    ssp = _el(props, XADES, "SignedSignatureProperties")
    _el(ssp, XADES, "SigningTime", signing_time.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
    c = _el(_el(ssp, XADES, "SigningCertificate"), XADES, "Cert")
    digest = _el(c, XADES, "CertDigest")
    _el(digest, DS, "DigestMethod", Algorithm=SHA256)
    _el(digest, DS, "DigestValue", hex_digest_b64(cert_b64.encode("ascii")))
    serial = _el(c, XADES, "IssuerSerial")
    _el(serial, DS, "X509IssuerName", issuer_name(cert))
    _el(serial, DS, "X509SerialNumber", str(cert.serial_number))
    props_digest.text = signed_properties_digest(root)
    xml = etree.tostring(root, xml_declaration=True, encoding="UTF-8")
    return Signed(xml=xml, hash=hash_b64, signature=signature_b64, qr=qr)


def signed_properties_digest(root: etree._Element) -> str | None:
    found = root.xpath("//xades:SignedProperties", namespaces=NS_ALL)
    if not found:
        return None
    props = found[0]
    return hex_digest_b64(etree.tostring(props, method="c14n", exclusive=False, with_comments=False))


# ---------------------------------------------------------------- reading and checking

@dataclass
class Parts:
    """What a verifier reads out of a signed document."""
    root: etree._Element
    digest: str | None
    signature: str | None
    certificate: x509.Certificate | None
    qr: dict[int, bytes]
    props_digest: str | None
    cert_digest: str | None


def read(xml: bytes) -> Parts:
    root = _parse(xml)
    t = lambda p: ubl.text(root, p, NS_ALL)  # noqa: E731
    cert_b64 = t("//ds:X509Certificate")
    cert = None
    if cert_b64:
        try:
            cert = x509.load_der_x509_certificate(base64.b64decode("".join(cert_b64.split())))
        except ValueError:
            cert = None
    qr_text = t("cac:AdditionalDocumentReference[cbc:ID='QR']/cac:Attachment/cbc:EmbeddedDocumentBinaryObject")
    try:
        qr = tlv.decode(qr_text) if qr_text else {}
    except ValueError:
        qr = {}
    return Parts(root=root, digest=t("//ds:Reference[@Id='invoiceSignedData']/ds:DigestValue"),
                 signature=t("//ds:SignatureValue"), certificate=cert, qr=qr,
                 props_digest=t("//ds:Reference[@URI='#xadesSignedProperties']/ds:DigestValue"),
                 cert_digest=t("//xades:CertDigest/ds:DigestValue"))


def check(xml: bytes) -> list[tuple[str, str]]:
    """The signature checks ZATCA runs on a signed document: (code, message) of each failure."""
    errors: list[tuple[str, str]] = []
    try:
        parts = read(xml)
    except etree.XMLSyntaxError as exc:
        return [("XSD_SCHEMA_ERROR", f"The document is not well-formed XML: {exc.msg}")]
    computed = invoice_hash(parts.root)
    if parts.digest != computed:
        errors.append(("invalid-invoice-hash", "The invoice hash API body does not match the (calculated) Hash of "
                                               "the attached invoice"))
    if parts.certificate is None:
        errors.append(("certificate-missing", "The document carries no signing certificate"))
        return errors
    if not parts.signature or not verify_hash_signature(parts.certificate.public_key(), computed, parts.signature):
        errors.append(("signature", "The invoice signature does not verify with the certificate's public key"))
    cert_b64 = base64.b64encode(parts.certificate.public_bytes(serialization.Encoding.DER)).decode("ascii")
    if parts.cert_digest != hex_digest_b64(cert_b64.encode("ascii")):
        errors.append(("invalid-signing-certificate", "The certificate digest does not match the certificate"))
    if parts.props_digest is None or parts.props_digest != signed_properties_digest(parts.root):
        errors.append(("signed-properties-hashing", "The signed properties digest does not match"))
    qr = parts.qr
    if not qr:
        errors.append(("BR-KSA-27", "The document must contain a QR code (cbc:ID = QR)"))
        return errors
    if qr.get(6, b"").decode("ascii", "replace") != computed:
        errors.append(("qrcode-hash", "QR tag 6 is not the invoice hash"))
    if qr.get(7, b"").decode("ascii", "replace") != (parts.signature or ""):
        errors.append(("qrcode-signature", "QR tag 7 is not the invoice signature"))
    if qr.get(8) != spki(parts.certificate.public_key()):
        errors.append(("qrcode-public-key", "QR tag 8 is not the certificate's public key"))
    simplified = (ubl.text(parts.root, "cbc:InvoiceTypeCode/@name", NS_ALL) or "").startswith("02")
    if simplified and qr.get(9) != parts.certificate.signature:
        errors.append(("qrcode-certificate-signature", "QR tag 9 is not the certificate's signature"))
    return errors
