"""The printed copy of a ZATCA e-invoice: the phase-2 QR, the bilingual title, the Gregorian and
Hijri (Umm al-Qura) issue date, Arabic-Indic digits when the merchant's locale asks for them;
and the PDF the app serves for an e-invoice carries the QR of its XML."""
from __future__ import annotations

import unicodedata
from datetime import date, datetime, timezone

from lxml import etree

from services.billing.pdf import EInvoice, arabic_indic, format_hijri, render_invoice_pdf
from services.einvoicing.zatca import signing, tlv
from services.einvoicing.zatca.documents import digits_of
from services.einvoicing.zatca.ubl import KSA
from tests.billing_fixtures import call, customer
from tests.test_billing_invoices import pdf_text as app_pdf_text
from tests.test_billing_pdf import make_doc, pdf_text, qr_image, qr_matches
from tests.test_zatca_api import finalise, onboard, sar_invoice

PHASE2 = tlv.encode({1: "Acme Trading LLC", 2: "300000000000003", 3: "2026-11-23T13:15:00", 4: "14530.25",
                     5: "1895.25", 6: "A" * 44, 7: "B" * 96, 8: b"\x30" * 88, 9: b"\x30" * 72})
ISSUED_KSA = datetime(2026, 11, 23, 13, 15, tzinfo=KSA)


def shown(text: str, digits: str) -> bool:
    """`digits` is in the extracted text: pypdf gives an Arabic-Indic run inside right-to-left text
    in the order its glyphs are drawn, each run of digits reversed (the page itself reads right)."""
    import re
    return digits in text or re.sub(r"[٠-٩]+", lambda m: m.group(0)[::-1], digits) in text


def einvoice_doc(locale="en", *, standard=False, digits="latn"):
    doc = make_doc(locale, "SAR", country="SA", tax_number="300000000000003", tax_rate="15")
    doc.einvoice = EInvoice(qr=PHASE2, standard=standard, issued_at=ISSUED_KSA)
    doc.digits = digits
    return doc


def test_hijri_dates_are_umm_al_qura():
    assert format_hijri(date(2026, 11, 23), "en") == "13 Jumada al-Akhirah 1448 AH"
    assert format_hijri(date(2026, 3, 1), "en") == "12 Ramadan 1447 AH"
    assert format_hijri(date(2026, 3, 1), "ar") == "12 رمضان 1447 هـ"
    assert format_hijri(date(1900, 1, 1), "en") == ""              # outside the Umm al-Qura table
    assert arabic_indic("14,530.25 SAR") == "١٤,٥٣٠.٢٥ SAR"
    assert (digits_of("ar-SA-u-nu-arab"), digits_of("ar-SA"), digits_of(None), digits_of("en-u-ca-islamic")) == \
        ("arab", "latn", "latn", "latn")


def test_english_simplified_einvoice_pdf():
    data = render_invoice_pdf(einvoice_doc("en"))
    text = unicodedata.normalize("NFKC", pdf_text(data))
    assert "Simplified Tax Invoice" in text
    assert "مبسطة" in text and "فاتورة" in text                    # فاتورة ضريبية مبسطة
    assert "23 November 2026" in text and "13 Jumada al-Akhirah 1448 AH" in text
    images = qr_image(data)
    assert len(images) == 1 and qr_matches(images[0].image, PHASE2)


def test_arabic_standard_einvoice_with_arabic_indic_digits():
    data = render_invoice_pdf(einvoice_doc("ar", standard=True, digits="arab"))
    text = unicodedata.normalize("NFKC", pdf_text(data))
    assert "Tax Invoice" in text and "Simplified" not in text and "ضريبية" in text and "مبسطة" not in text
    assert shown(text, "١٤٤٨") and shown(text, "١٤,٥٣٠.٢٥")        # Hijri year and the total, Arabic-Indic
    assert "14,530.25" not in text
    latin = unicodedata.normalize("NFKC", pdf_text(render_invoice_pdf(einvoice_doc("ar", standard=True))))
    assert "14,530.25" in latin and "١٤,٥٣٠.٢٥" not in latin          # the default locale keeps Western digits


async def test_the_app_prints_the_qr_of_the_einvoice_xml(client, merchant):
    await onboard(client, merchant.sk, locale="ar-SA-u-nu-arab")
    cid = await customer(client, merchant.sk, saved_card=None, metadata={"locale": "ar"})
    inv = await finalise(client, merchant.sk, (await sar_invoice(client, merchant.sk, cid))["id"])
    r = await client.get(f"/api/invoices/{inv['id']}/xml", headers={"Authorization": f"Bearer {merchant.sk}"})
    root = etree.fromstring(await r.read())
    qr = root.xpath("cac:AdditionalDocumentReference[cbc:ID='QR']/cac:Attachment/cbc:EmbeddedDocumentBinaryObject",
                    namespaces=signing.NS_ALL)[0].text
    text, reader = await app_pdf_text(client, inv["pdf_url"])
    text = unicodedata.normalize("NFKC", text)
    ksa = datetime.fromisoformat(inv["created_at"].replace("Z", "+00:00")).astimezone(KSA).date()
    hijri_year = arabic_indic(format_hijri(ksa, "en").split()[-2])
    assert "Simplified Tax Invoice" in text and shown(text, hijri_year)
    assert "Acme Trading LLC" in text and shown(text, "300000000000003")   # the seller of the XML
    assert shown(text, "٦٩.٠٠") and "69.00" not in text              # 69.00 SAR, Arabic-Indic
    images = [img for page in reader.pages for img in page.images]
    assert len(images) == 1 and qr_matches(images[0].image, qr)
    assert sorted(tlv.decode(qr)) == list(range(1, 10))
