"""The ZATCA document core: hash, signature, signed properties, TLV QR, UBL 2.1 validity -- first
against ZATCA's published simplified-invoice sample, then on documents Qafila builds."""
from __future__ import annotations

import base64
from datetime import datetime, timezone
from decimal import Decimal

import pytest
from cryptography.hazmat.primitives import serialization
from lxml import etree

from services.einvoicing.zatca import keys, signing, simulator, tlv, ubl
from tests.zatca_fixtures import SAMPLE, SECRET, document, schema_errors, unit

NS = signing.NS_ALL


# ---------------------------------------------------------------- the published sample

def test_sample_invoice_hash_is_the_digest_the_sample_carries():
    xml = SAMPLE.read_bytes()
    parts = signing.read(xml)
    assert parts.digest == "QnVEexW4nWv4CaE39a/66Jp/OXO/evHQ8pDlG7weq/4="
    assert signing.invoice_hash(xml) == parts.digest


def test_sample_hash_changes_when_a_covered_element_changes_and_not_when_the_qr_does():
    xml = SAMPLE.read_bytes()
    assert signing.invoice_hash(xml.replace(b"1108.90</cbc:PayableAmount>", b"1108.91</cbc:PayableAmount>")) != \
        "QnVEexW4nWv4CaE39a/66Jp/OXO/evHQ8pDlG7weq/4="
    # The QR reference, cac:Signature and UBLExtensions are outside the hash.
    assert signing.invoice_hash(xml.replace(b"<cbc:ID>urn:oasis:names:specification:ubl:signature:Invoice</cbc:ID>",
                                            b"<cbc:ID>other</cbc:ID>")) == "QnVEexW4nWv4CaE39a/66Jp/OXO/evHQ8pDlG7weq/4="


def test_sample_qr_tlv_tags_and_signature_verify():
    parts = signing.read(SAMPLE.read_bytes())
    qr = parts.qr
    assert sorted(qr) == list(range(1, 10))
    assert qr[1].decode() == "Ahmed Mohamed AL Ahmady"
    assert qr[2].decode() == "301121971500003"
    assert qr[3].decode() == "2022-03-13T14:40:40Z"
    assert (qr[4].decode(), qr[5].decode()) == ("1108.90", "144.9")
    assert qr[6].decode() == parts.digest
    assert qr[7].decode() == parts.signature
    # Tag 7 is ECDSA-SHA256 over the 32 bytes of the hash, verifying with tag 8 (DER SubjectPublicKeyInfo).
    public = serialization.load_der_public_key(qr[8])
    assert signing.verify_hash_signature(public, parts.digest, parts.signature)
    assert not signing.verify_hash_signature(public, base64.b64encode(b"\0" * 32).decode(), parts.signature)
    # Tag 8 is the certificate's key, tag 9 the certificate's own signature; the cert digest is ZATCA's hex convention.
    assert qr[8] == signing.spki(parts.certificate.public_key())
    assert qr[9] == parts.certificate.signature
    cert_b64 = base64.b64encode(parts.certificate.public_bytes(serialization.Encoding.DER))
    assert signing.hex_digest_b64(cert_b64) == parts.cert_digest
    assert signing.issuer_name(parts.certificate) == "CN=TSZEINVOICE-SubCA-1, DC=extgazt, DC=gov, DC=local"


def test_sample_is_valid_ubl_2_1():
    assert schema_errors(SAMPLE.read_bytes()) == []


# ---------------------------------------------------------------- Qafila's documents

def _amounts(xml: bytes) -> dict[str, str]:
    root = etree.fromstring(xml)
    t = lambda p: root.xpath(p, namespaces=NS)[0].text  # noqa: E731
    return {"line_ext": t("cac:LegalMonetaryTotal/cbc:LineExtensionAmount"),
            "tax": t("cac:TaxTotal/cbc:TaxAmount"), "incl": t("cac:LegalMonetaryTotal/cbc:TaxInclusiveAmount"),
            "payable": t("cac:LegalMonetaryTotal/cbc:PayableAmount"),
            "lines": [e.text for e in root.xpath("cac:InvoiceLine/cbc:LineExtensionAmount", namespaces=NS)],
            "line_tax": [e.text for e in root.xpath("cac:InvoiceLine/cac:TaxTotal/cbc:TaxAmount", namespaces=NS)]}


def test_signed_simplified_invoice_is_valid_and_verifies():
    key, cert, _, _ = unit()
    doc = document()
    signed = signing.sign(doc, private_key=key, cert=cert, signing_time=doc.issued_at)
    assert schema_errors(signed.xml) == []
    assert signing.check(signed.xml) == []
    assert signed.hash == signing.invoice_hash(signed.xml)
    assert signing.verify_hash_signature(cert.public_key(), signed.hash, signed.signature)
    qr = tlv.decode(signed.qr)
    assert sorted(qr) == list(range(1, 10))
    assert qr[1].decode() == "Acme Trading" and qr[2].decode() == "300000000000003"
    assert qr[3].decode() == "2026-03-01T12:30:00"          # Saudi time (UTC+3), as IssueDate/IssueTime
    assert (qr[4].decode(), qr[5].decode()) == ("69.00", "9.00")
    assert qr[9] == cert.signature
    # Amounts to the halala: lines, VAT rounded as the invoice rounds it, totals.
    a = _amounts(signed.xml)
    assert a["lines"] == ["59.97", "0.03"] and a["line_ext"] == "60.00"
    assert a["tax"] == "9.00" and a["incl"] == "69.00" and a["payable"] == "69.00"
    assert a["line_tax"] == ["9.00", "0.00"]                 # 59.97 x 15% = 8.9955 -> 9.00; 0.03 x 15% -> 0.00
    root = etree.fromstring(signed.xml)
    assert root.xpath("cbc:InvoiceTypeCode", namespaces=NS)[0].attrib["name"] == "0200000"
    assert root.xpath("cbc:InvoiceTypeCode", namespaces=NS)[0].text == "388"
    assert root.xpath("cac:AdditionalDocumentReference[cbc:ID='ICV']/cbc:UUID", namespaces=NS)[0].text == "1"


def test_standard_credit_note_with_billing_reference_and_eight_qr_tags():
    key, cert, _, _ = unit()
    doc = document(kind="credit_note", simplified=False, buyer=ubl.Party("Buyer Co", "311111111111113",
                                                                          ubl.Address("Tahlia", "4321", "Rawdah", "Jeddah", "23434")),
                   billing_reference="INV-2026-000001", reason="Refund", lines=[ubl.Line("Widget", 1, 1000, 1000)],
                   subtotal=1000, tax=150, total=1150)
    signed = signing.sign(doc, private_key=key, cert=cert, signing_time=doc.issued_at)
    assert schema_errors(signed.xml) == []
    assert signing.check(signed.xml) == []
    root = etree.fromstring(signed.xml)
    code = root.xpath("cbc:InvoiceTypeCode", namespaces=NS)[0]
    assert (code.text, code.attrib["name"]) == ("381", "0100000")
    assert root.xpath("cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID", namespaces=NS)[0].text == "INV-2026-000001"
    assert root.xpath("cac:PaymentMeans/cbc:InstructionNote", namespaces=NS)[0].text == "Refund"
    assert sorted(tlv.decode(signed.qr)) == list(range(1, 9))   # tag 9 only on simplified documents


def test_zero_rate_is_out_of_scope_category_and_valid():
    key, cert, _, _ = unit()
    doc = document(tax_rate=Decimal(0), tax=0, total=6000)
    signed = signing.sign(doc, private_key=key, cert=cert, signing_time=doc.issued_at)
    assert schema_errors(signed.xml) == []
    root = etree.fromstring(signed.xml)
    assert root.xpath("cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory/cbc:TaxExemptionReasonCode",
                      namespaces=NS)[0].text == "VATEX-SA-OOS"


def test_tampering_is_caught():
    key, cert, _, _ = unit()
    signed = signing.sign(document(), private_key=key, cert=cert, signing_time=datetime.now(timezone.utc))
    forged = signed.xml.replace(b">69.00</cbc:PayableAmount>", b">6.90</cbc:PayableAmount>")
    codes = [c for c, _ in signing.check(forged)]
    assert "invalid-invoice-hash" in codes and "signature" in codes and "qrcode-hash" in codes
    other_key = keys.new_private_key()
    resigned = signing.sign(document(), private_key=other_key, cert=cert, signing_time=datetime.now(timezone.utc))
    assert [c for c, _ in signing.check(resigned.xml)] == ["signature"]


@pytest.mark.parametrize("currency,minor,text", [("SAR", 110890, "1108.90"), ("SAR", 5, "0.05"),
                                                 ("KWD", 1250, "1.250"), ("IQD", 250000, "250.000"),
                                                 ("AED", -1999, "-19.99")])
def test_amount_text_follows_the_currency_exponent(currency, minor, text):
    assert ubl.amount(minor, currency) == text


def test_tlv_round_trip_and_limits():
    payload = tlv.encode({1: "مؤسسة", 2: "300000000000003", 8: b"\x00\x01"})
    assert tlv.decode(payload) == {1: "مؤسسة".encode(), 2: b"300000000000003", 8: b"\x00\x01"}
    with pytest.raises(ValueError):
        tlv.encode({1: "x" * 256})
    with pytest.raises(ValueError):
        tlv.decode(base64.b64encode(b"\x01\x05ab").decode())


# ---------------------------------------------------------------- keys, CSR, secrets, the simulator

def test_csr_carries_zatca_fields_on_secp256k1():
    key = keys.new_private_key()
    csr = keys.make_csr(key, common_name="EGS-1", vat_number="300000000000003", organization="Acme",
                        organization_unit="Riyadh", invoice_types="1100", serial="abc", location="Riyadh",
                        industry="Retail", environment="production")
    loaded = keys.load_csr(keys.csr_base64(csr))
    assert loaded.is_signature_valid and loaded.public_key().curve.name == "secp256k1"
    assert keys.csr_details(loaded) == {"template": "ZATCA-Code-Signing", "serial": "1-Qafila|2-1.0|3-abc",
                                        "vat_number": "300000000000003", "invoice_types": "1100"}


def test_secrets_are_encrypted_bound_to_their_unit():
    token = keys.encrypt(SECRET, b"-----BEGIN PRIVATE KEY-----", context="egs_1")
    assert b"PRIVATE" not in token.encode() and keys.decrypt(SECRET, token, context="egs_1").startswith(b"-----")
    with pytest.raises(Exception):
        keys.decrypt(SECRET, token, context="egs_2")
    with pytest.raises(Exception):
        keys.decrypt("another-secret-key-0123456789abcdef012345", token, context="egs_1")


def test_simulator_refuses_a_wrong_otp_and_bad_credentials():
    key = keys.new_private_key()
    csr = keys.make_csr(key, common_name="EGS-1", vat_number="300000000000003", organization="Acme",
                        organization_unit="Riyadh", invoice_types="1100", serial="abc", location="Riyadh", industry="Retail")
    now = datetime.now(timezone.utc)
    status, body = simulator.compliance_csid(secret_key=SECRET, otp="111111", body={"csr": keys.csr_base64(csr)}, now=now)
    assert status == 400 and body["code"] == "Invalid-OTP"
    _, cert, token, secret = unit()
    signed = signing.sign(document(), private_key=keys.new_private_key(), cert=cert, signing_time=now)
    wrong = "Basic " + base64.b64encode(f"{token}:nope".encode()).decode()
    body = {"invoiceHash": signed.hash, "uuid": "x", "invoice": base64.b64encode(signed.xml).decode()}
    assert simulator.submit(secret_key=SECRET, authorization=wrong, body=body, now=now, action="reporting")[0] == 401
    good = "Basic " + base64.b64encode(f"{token}:{secret}".encode()).decode()
    status, out = simulator.submit(secret_key=SECRET, authorization=good, body=body, now=now, action="reporting")
    assert status == 400 and out["reportingStatus"] == "NOT_REPORTED"
    codes = {m["code"] for m in out["validationResults"]["errorMessages"]}
    assert {"signature", "invalid-uuid"} <= codes


def test_simulator_reports_a_good_document_and_refuses_clearing_a_simplified_one():
    key, cert, token, secret = unit()
    doc = document()
    signed = signing.sign(doc, private_key=key, cert=cert, signing_time=doc.issued_at)
    auth = "Basic " + base64.b64encode(f"{token}:{secret}".encode()).decode()
    body = {"invoiceHash": signed.hash, "uuid": doc.uuid, "invoice": base64.b64encode(signed.xml).decode()}
    now = datetime.now(timezone.utc)
    status, out = simulator.submit(secret_key=SECRET, authorization=auth, body=body, now=now, action="reporting")
    assert status == 200 and out["reportingStatus"] == "REPORTED" and out["validationResults"]["status"] == "PASS"
    status, out = simulator.submit(secret_key=SECRET, authorization=auth, body=body, now=now, action="clearance")
    assert status == 400 and out["clearanceStatus"] == "NOT_CLEARED"


def test_compliance_samples_cover_each_declared_type_and_are_valid():
    from services.einvoicing.zatca.units import compliance_samples

    now = datetime(2026, 3, 1, tzinfo=timezone.utc)
    docs = compliance_samples(types="1100", vat="300000000000003", organization="Acme", address={}, now=now)
    assert sorted((d.simplified, d.type_code) for d in docs) == [(False, "381"), (False, "383"), (False, "388"),
                                                                 (True, "381"), (True, "383"), (True, "388")]
    assert [d.simplified for d in compliance_samples(types="0100", vat="300000000000003", organization="A",
                                                     address={}, now=now)] == [True] * 3
    key, cert, _, _ = unit()
    for d in docs:
        signed = signing.sign(d, private_key=key, cert=cert, signing_time=now)
        assert schema_errors(signed.xml) == [] and signing.check(signed.xml) == []


def test_zatca_url_setting_is_checked(tmp_path):
    from app.settings import SettingsError, load_settings

    env = {"QAFILA_ENV": "test", "QAFILA_VAR_DIR": str(tmp_path)}
    assert load_settings(env).zatca_url == ""
    url = "https://gw-fatoora.zatca.gov.sa/e-invoicing/simulation"
    assert load_settings({**env, "QAFILA_ZATCA_URL": url + "/"}).zatca_url == url
    with pytest.raises(SettingsError, match="QAFILA_ZATCA_URL"):
        load_settings({**env, "QAFILA_ZATCA_URL": "ftp://x"})


@pytest.mark.parametrize("invoice", [
    "not base64!", base64.b64encode(b"<not-xml").decode(), base64.b64encode(b"<Invoice/>").decode(),
    base64.b64encode(b'<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><x/></Invoice>').decode(),
])
def test_simulator_answers_garbage_with_zatca_errors_not_a_crash(invoice):
    _, cert, token, secret = unit()
    auth = "Basic " + base64.b64encode(f"{token}:{secret}".encode()).decode()
    for action in ("reporting", "clearance", "compliance"):
        status, out = simulator.submit(secret_key=SECRET, authorization=auth, now=datetime.now(timezone.utc),
                                       body={"invoiceHash": "x", "uuid": "y", "invoice": invoice}, action=action)
        assert status == 400 and out["validationResults"]["errorMessages"], out
    for bad in (None, "Basic !!!", "Bearer x", "Basic " + base64.b64encode(b"nocolon").decode()):
        assert simulator.submit(secret_key=SECRET, authorization=bad, body={}, now=datetime.now(timezone.utc),
                                action="reporting")[0] == 401
