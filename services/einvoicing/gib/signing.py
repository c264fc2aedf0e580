"""XAdES-BES signing of a UBL-TR document, as an integrator signs with its financial seal (mali
mühür) on the merchant's behalf: an enveloped XML signature (RSA-SHA256, C14N 1.1) in
`ext:UBLExtensions/ext:UBLExtension/ext:ExtensionContent`, its signed properties (signing time,
signing certificate) and the certificate in `ds:KeyInfo/ds:X509Data`, so anyone verifies it with
the certificate it embeds. Built with signxml; the sandbox integrator's key and self-signed
certificate live in the process (made once), as an integrator's seal lives in its HSM."""
from __future__ import annotations

import base64
import datetime as dt
import functools

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from lxml import etree
from signxml.xades import XAdESSignatureConfiguration, XAdESSigner, XAdESVerifier
from signxml.xades.xades import xades_tag

from services.einvoicing.gib import ubl

DS = ubl.NS["ds"]
XPATH_NS = ubl.XPATH_NS


@functools.lru_cache(maxsize=1)
def sandbox_seal() -> tuple[rsa.RSAPrivateKey, x509.Certificate]:
    """The sandbox integrator's seal: an RSA key and its certificate (made once per process)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COUNTRY_NAME, "TR"),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Qafila Sandbox Entegrator"),
                      x509.NameAttribute(NameOID.SERIAL_NUMBER, "1234567808"),
                      x509.NameAttribute(NameOID.COMMON_NAME, "Qafila Sandbox Mali Muhur")])
    start = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(start)
            .not_valid_after(start + dt.timedelta(days=30 * 365))
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=True, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .sign(key, hashes.SHA256()))
    return key, cert


class _Signer(XAdESSigner):
    """signxml's XAdES signer with the signing time given (the merchant's clock), not the host's,
    and the XAdES 1.3.2 SigningCertificate that UBL-TR's schema knows (not SigningCertificateV2)."""

    def __init__(self, signing_time: dt.datetime, signature_id: str):
        super().__init__()
        self._signing_time = signing_time
        self._signature_id = signature_id

    def _build_xades_ds_object(self, sig_root, signing_settings):
        sig_root.set("Id", self._signature_id)      # the Id the document's cac:Signature names
        super()._build_xades_ds_object(sig_root, signing_settings)

    def add_signing_time(self, signed_signature_properties, sig_root, signing_settings):
        el = etree.SubElement(signed_signature_properties, xades_tag("SigningTime"), nsmap=self.namespaces)
        el.text = self._signing_time.astimezone(dt.timezone.utc).isoformat(timespec="seconds")

    def add_signing_certificate(self, signed_signature_properties, sig_root, signing_settings):
        cert = signing_settings.cert_chain[0]
        if not isinstance(cert, x509.Certificate):
            cert = x509.load_pem_x509_certificate(cert.encode() if isinstance(cert, str) else cert)
        node = etree.SubElement(signed_signature_properties, xades_tag("SigningCertificate"), nsmap=self.namespaces)
        one = etree.SubElement(node, xades_tag("Cert"), nsmap=self.namespaces)
        digest = etree.SubElement(one, xades_tag("CertDigest"), nsmap=self.namespaces)
        etree.SubElement(digest, f"{{{DS}}}DigestMethod", Algorithm="http://www.w3.org/2001/04/xmlenc#sha256")
        etree.SubElement(digest, f"{{{DS}}}DigestValue").text = base64.b64encode(
            cert.fingerprint(hashes.SHA256())).decode()
        serial = etree.SubElement(one, xades_tag("IssuerSerial"), nsmap=self.namespaces)
        etree.SubElement(serial, f"{{{DS}}}X509IssuerName").text = cert.issuer.rfc4514_string()
        etree.SubElement(serial, f"{{{DS}}}X509SerialNumber").text = str(cert.serial_number)


def sign(xml: bytes, *, key: rsa.RSAPrivateKey, cert: x509.Certificate, signing_time: dt.datetime,
         number: str) -> bytes:
    """The document signed: its empty ExtensionContent gets the ds:Signature."""
    root = etree.fromstring(xml, etree.XMLParser(resolve_entities=False, no_network=True, remove_blank_text=True))
    content = root.find("ext:UBLExtensions/ext:UBLExtension/ext:ExtensionContent", XPATH_NS)
    for child in list(content):
        content.remove(child)
    etree.SubElement(content, f"{{{DS}}}Signature", Id="placeholder")
    signed = _Signer(signing_time, f"Signature_{number}").sign(root, key=key, cert=[cert],
                                                                 exclude_c14n_transform_element=True)
    return etree.tostring(signed, xml_declaration=True, encoding="UTF-8")


def embedded_certificate(xml: bytes) -> x509.Certificate:
    root = etree.fromstring(xml, etree.XMLParser(resolve_entities=False, no_network=True))
    b64 = root.xpath("string(ext:UBLExtensions//ds:Signature/ds:KeyInfo/ds:X509Data/ds:X509Certificate)",
                     namespaces=XPATH_NS)
    return x509.load_der_x509_certificate(base64.b64decode("".join(b64.split())))


def verify(xml: bytes) -> x509.Certificate:
    """Checks the XAdES-BES signature with the certificate it embeds; the certificate, or
    signxml's InvalidSignature / InvalidDigest."""
    cert = embedded_certificate(xml)
    pem = cert.public_bytes(serialization.Encoding.PEM).decode()
    XAdESVerifier().verify(xml, x509_cert=pem, expect_config=XAdESSignatureConfiguration(expect_references=3))
    return cert
