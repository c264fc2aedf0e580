"""Invoice PDFs (services/billing/pdf.py): a pure function, tested by parsing its output back
with pypdf. No app, no database."""
from __future__ import annotations

import base64
import tomllib
import unicodedata
from dataclasses import replace
from datetime import date, datetime, timedelta, timezone
from io import BytesIO
from pathlib import Path

import pytest
import segno
from pypdf import PdfReader

from services.billing.pdf import (
    FONTS_DIR, LABELS, InvoiceDocument, Line, Party, format_amount, format_date, format_rate,
    render_invoice_pdf, zatca_qr_payload,
)

ISSUED = datetime(2026, 11, 23, 10, 15, tzinfo=timezone.utc)
DUE = date(2026, 12, 7)
PAID_AT = datetime(2026, 11, 25, 9, 0, tzinfo=timezone.utc)
URL = "https://pay.qafila.example/i/inv_3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"


def make_doc(locale="en", currency="TRY", *, country="TR", status="sent", merchant_name=None,
             customer_name=None, items=None, tax_number="1234567890", payment_url=URL, tax_rate="20"):
    items = items if items is not None else [
        Line(name="Website hosting, annual plan", amount=1_250_000, quantity=1, total=1_250_000),
        Line(name="Domain name", amount=4_500, quantity=3, total=13_500),
    ]
    subtotal = sum(i.total for i in items)
    tax = subtotal * int(tax_rate.split(".")[0]) // 100
    return InvoiceDocument(
        number="INV-2026-000042", locale=locale, currency=currency, issued_at=ISSUED, due_date=DUE,
        merchant=Party(name=merchant_name or "Acme Trading LLC", address="12 Corniche Rd\nDubai",
                       tax_number=tax_number, email="billing@acme.example", phone="+971 4 000 0000",
                       country=country),
        customer=Party(name=customer_name or "Jane Customer", address="P.O. Box 5\nJeddah",
                       email="jane@example.org", phone="+90 532 000 11 22"),
        items=items, subtotal=subtotal, tax=tax, tax_rate=tax_rate, total=subtotal + tax,
        status=status, paid_at=PAID_AT if status == "paid" else None, payment_url=payment_url)


def pdf_text(data: bytes) -> str:
    reader = PdfReader(BytesIO(data))
    return "\n".join(page.extract_text() for page in reader.pages)


def font_names(data: bytes) -> set[str]:
    names = set()
    for page in PdfReader(BytesIO(data)).pages:
        for ref in page["/Resources"]["/Font"].values():
            names.add(str(ref.get_object()["/BaseFont"]).split("+", 1)[-1])
    return names


def positions(data: bytes, page: int = 0) -> list[tuple[str, float]]:
    """(text, x in points) of each text run on a page."""
    out: list[tuple[str, float]] = []

    def visit(text, cm, tm, font, size):
        if text.strip():
            out.append((text, tm[4]))

    PdfReader(BytesIO(data)).pages[page].extract_text(visitor_text=visit)
    return out


def x_of(data: bytes, needle: str) -> float:
    for text, x in positions(data):
        if needle in text:
            return x
    raise AssertionError(f"{needle!r} not found on the page")


# -- amounts, dates, rates ------------------------------------------------------------------

def test_format_amount_uses_the_currency_minor_units_per_locale():
    assert format_amount(1_234_500, "KWD", "en") == "1,234.500 KWD"
    assert format_amount(1_234_500, "IQD", "en") == "1,234.500 IQD"
    assert format_amount(123_450, "TRY", "en") == "1,234.50 TRY"
    assert format_amount(11_500, "SAR", "en") == "115.00 SAR"
    assert format_amount(123_456_789, "TRY", "tr") == "1.234.567,89 TRY"
    assert format_amount(1_234_500, "KWD", "tr") == "1.234,500 KWD"
    assert format_amount(1_234_500, "KWD", "ar") == "1,234.500 KWD"
    assert format_amount(5, "KWD", "en") == "0.005 KWD"
    assert format_amount(0, "EGP", "en") == "0.00 EGP"
    assert format_amount(-50, "AED", "en") == "-0.50 AED"
    assert format_amount(99_999, "qar", "en-GB") == "999.99 QAR"       # case and region tolerated
    with pytest.raises(ValueError):
        format_amount(100, "EUR", "en")


def test_dates_and_rates_per_locale():
    assert format_date(DUE, "en") == "7 December 2026"
    assert format_date(DUE, "tr") == "7 Aralık 2026"
    assert format_date(DUE, "ar") == "7 ديسمبر 2026"
    # An aware datetime is taken in UTC: 01:00 in Riyadh on the 24th is the 23rd UTC.
    assert format_date(datetime(2026, 11, 24, 1, 0, tzinfo=timezone(timedelta(hours=3))), "en") == "23 November 2026"
    assert format_rate("15", "en") == "15"
    assert format_rate("15.00", "en") == "15"
    assert format_rate("7.5", "tr") == "7,5"
    assert format_rate("0", "ar") == "0"


def test_every_locale_has_every_label():
    keys = set(LABELS["en"])
    for locale in ("tr", "ar"):
        assert set(LABELS[locale]) == keys, locale
        assert len(LABELS[locale]["months"].split()) == 12


# -- English and Turkish PDFs ----------------------------------------------------------------

def test_english_pdf_has_the_invoice_facts():
    doc = make_doc("en", "TRY")
    data = render_invoice_pdf(doc)
    assert data.startswith(b"%PDF-")
    text = pdf_text(data)
    for needle in ("INV-2026-000042", "Acme Trading LLC", "Jane Customer", "7 December 2026",
                   "23 November 2026", "Invoice number", "Due date", "Bill to".upper(), "Unit price",
                   "Subtotal", "Tax (20%)", "Total", "Website hosting, annual plan", "Domain name",
                   "12,635.00 TRY", "2,527.00 TRY", "15,162.00 TRY", "45.00 TRY", "135.00 TRY",
                   "VAT number: 1234567890", "Awaiting payment", "Pay online", URL):
        assert needle in text, needle
    assert "PAID" not in text
    assert "NotoSans" in font_names(data)


def test_turkish_pdf_keeps_turkish_characters():
    doc = make_doc("tr", "TRY", merchant_name="Işık Yazılım Ticaret A.Ş.",
                   customer_name="Gülşen Çağlayan Öztürk", status="paid", payment_url=None)
    text = pdf_text(render_invoice_pdf(doc))
    for needle in ("INV-2026-000042", "Işık Yazılım Ticaret A.Ş.", "Gülşen Çağlayan Öztürk",
                   "Müşteri", "Fatura numarası", "Son ödeme tarihi", "7 Aralık 2026", "23 Kasım 2026",
                   "Birim fiyat", "Ara toplam", "KDV (%20)", "Genel toplam", "15.162,00 TRY",
                   "ÖDENDİ", "Ödeme tarihi: 25 Kasım 2026", "Vergi numarası: 1234567890"):
        assert needle in text, needle
    assert "Çevrimiçi öde" not in text          # no payment link given


def test_paid_invoice_shows_paid_and_the_date():
    text = pdf_text(render_invoice_pdf(make_doc("en", status="paid")))
    assert "PAID" in text and "Paid on 25 November 2026" in text
    draft = pdf_text(render_invoice_pdf(make_doc("en", status="draft")))
    assert "DRAFT" in draft and "PAID" not in draft


def test_payment_link_is_printed_and_clickable():
    reader = PdfReader(BytesIO(render_invoice_pdf(make_doc("en"))))
    uris = [a.get_object()["/A"]["/URI"] for a in reader.pages[0].get("/Annots", [])]
    assert uris == [URL]


# -- Arabic ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def arabic_doc() -> InvoiceDocument:
    doc = make_doc("ar", "SAR", country="SA", tax_number="300000000000003", tax_rate="15",
                   merchant_name="شركة الأمل للتجارة", customer_name="محمد عبدالله")
    doc.merchant.address = "طريق الملك فهد، Olaya Towers\nالرياض 12211"
    return doc


@pytest.fixture(scope="module")
def arabic_pdf(arabic_doc) -> bytes:
    return render_invoice_pdf(arabic_doc)


def test_arabic_pdf_has_shaped_arabic_labels_and_the_arabic_font(arabic_pdf):
    text = unicodedata.normalize("NFKC", pdf_text(arabic_pdf))
    # Each word of the labels comes back (shaped glyphs map back to their letters).
    for label in ("invoice_number", "due_date", "bill_to", "subtotal", "total", "unit_price"):
        for word in LABELS["ar"][label].split():
            assert word in text, (label, word)
    # Latin, digits and Arabic are each drawn in the right font: text right after a line that
    # ended in the fallback font (the address's second line here) once came out as garbage
    # (an fpdf2 font-state bug, worked around in pdf._select_font).
    for needle in ("شركة الأمل للتجارة", "محمد عبدالله", "INV-2026-000042", "ديسمبر",
                   "فاتورة ضريبية مبسطة", "Domain name", "12,500.00 SAR", "45.00 SAR", "135.00 SAR",
                   "14,530.25 SAR", "1,895.25 SAR", "+90 532 000 11 22", "Olaya Towers", "الرياض"):
        assert needle in text, needle
    assert "NotoNaskhArabic" in font_names(arabic_pdf)
    assert "NotoSans" in font_names(arabic_pdf)      # the Latin fallback, for the number


def test_arabic_layout_is_mirrored(arabic_pdf):
    en = render_invoice_pdf(make_doc("en", "SAR", country="SA", tax_number="300000000000003"))
    middle = 595.28 / 2
    # The seller is top left in English and top right in Arabic; the title the other way round.
    assert x_of(en, "Acme Trading LLC") < middle
    assert x_of(arabic_pdf, "شركة الأمل للتجارة") > middle
    assert x_of(en, "Simplified Tax Invoice") > middle
    assert x_of(arabic_pdf, "فاتورة ضريبية مبسطة") < middle
    # The item column is on the right in Arabic, the amounts on the left.
    assert x_of(arabic_pdf, LABELS["ar"]["item"]) > x_of(arabic_pdf, LABELS["ar"]["amount"])


# -- ZATCA QR --------------------------------------------------------------------------------

def parse_tlv(raw: bytes) -> list[tuple[int, str]]:
    fields, i = [], 0
    while i < len(raw):
        tag, length = raw[i], raw[i + 1]
        fields.append((tag, raw[i + 2:i + 2 + length].decode("utf-8")))
        i += 2 + length
    return fields


def test_zatca_payload_is_base64_of_the_five_tlv_fields():
    payload = zatca_qr_payload(seller="Bobs Records", vat_number="310122393500003",
                               timestamp=datetime(2022, 4, 25, 15, 30, tzinfo=timezone.utc),
                               total="1000.00", vat="150.00")
    expected = (b"\x01\x0c" + b"Bobs Records"
                + b"\x02\x0f" + b"310122393500003"
                + b"\x03\x14" + b"2022-04-25T15:30:00Z"
                + b"\x04\x07" + b"1000.00"
                + b"\x05\x06" + b"150.00")
    assert base64.b64decode(payload) == expected
    assert parse_tlv(base64.b64decode(payload)) == [
        (1, "Bobs Records"), (2, "310122393500003"), (3, "2022-04-25T15:30:00Z"), (4, "1000.00"), (5, "150.00")]


def test_zatca_lengths_are_utf8_bytes_and_time_is_utc():
    payload = zatca_qr_payload(seller="شركة", vat_number="300000000000003",
                               timestamp=datetime(2026, 11, 23, 13, 15, tzinfo=timezone(timedelta(hours=3))),
                               total="115.00", vat="15.00")
    raw = base64.b64decode(payload)
    assert raw[:10] == b"\x01\x08" + "شركة".encode("utf-8")     # 4 letters, 8 bytes
    assert parse_tlv(raw)[2] == (3, "2026-11-23T10:15:00Z")
    with pytest.raises(ValueError):
        zatca_qr_payload(seller="x" * 256, vat_number="1", timestamp=ISSUED, total="1.00", vat="0.00")


def qr_image(data: bytes):
    images = [img for page in PdfReader(BytesIO(data)).pages for img in page.images]
    return images


def qr_matches(image, payload: str) -> bool:
    """The embedded picture is the QR symbol of `payload` (module by module)."""
    img = image.convert("L")
    dark = [(x, y) for y in range(img.height) for x in range(img.width) if img.getpixel((x, y)) < 128]
    x0, y0 = min(x for x, _ in dark), min(y for _, y in dark)
    x1, y1 = max(x for x, _ in dark), max(y for _, y in dark)
    for error in "lmqh":
        matrix = segno.make(payload, error=error, micro=False).matrix
        n = len(matrix)
        module = (x1 - x0 + 1) / n
        if abs((y1 - y0 + 1) / n - module) > 0.01 or module < 1:
            continue
        if all((img.getpixel((int(x0 + (c + 0.5) * module), int(y0 + (r + 0.5) * module))) < 128) == bool(matrix[r][c])
               for r in range(n) for c in range(n)):
            return True
    return False


def test_saudi_pdf_carries_the_zatca_qr_and_turkish_does_not(arabic_doc, arabic_pdf):
    images = qr_image(arabic_pdf)
    assert len(images) == 1
    assert (arabic_doc.total, arabic_doc.tax) == (1_453_025, 189_525)
    expected = zatca_qr_payload(seller="شركة الأمل للتجارة", vat_number="300000000000003",
                                timestamp=ISSUED, total="14530.25", vat="1895.25")
    assert qr_matches(images[0].image, expected)
    assert qr_image(render_invoice_pdf(make_doc("tr", "TRY"))) == []
    # A Saudi merchant without a VAT number: no QR, a plain invoice.
    no_vat = render_invoice_pdf(make_doc("en", "SAR", country="SA", tax_number=None))
    assert qr_image(no_vat) == [] and "Tax Invoice" not in pdf_text(no_vat)


def test_b2b_saudi_invoice_is_a_tax_invoice():
    doc = make_doc("en", "SAR", country="sa", tax_number="300000000000003")
    doc.customer.tax_number = "310000000000003"
    text = pdf_text(render_invoice_pdf(doc))
    assert "Tax Invoice" in text and "Simplified" not in text


# -- currencies, pages, determinism, packaging ---------------------------------------------

@pytest.mark.parametrize("currency, unit, total", [
    ("KWD", "1.234 KWD", "2,961.600 KWD"), ("IQD", "1.234 IQD", "2,961.600 IQD"),
    ("TRY", "12.34 TRY", "29,616.00 TRY"), ("SAR", "12.34 SAR", "29,616.00 SAR"),
])
def test_pdf_amounts_use_the_currency_minor_units(currency, unit, total):
    items = [Line(name="Widget", amount=1_234, quantity=2_000, total=2_468_000)]
    text = pdf_text(render_invoice_pdf(make_doc("en", currency, items=items)))
    assert unit in text and total in text


def test_long_invoices_continue_on_more_pages():
    items = [Line(name=f"Item number {i} with a name long enough to wrap onto a second line of the table",
                  amount=1_000, quantity=i, total=1_000 * i) for i in range(1, 41)]
    data = render_invoice_pdf(make_doc("en", items=items))
    reader = PdfReader(BytesIO(data))
    assert len(reader.pages) >= 2
    text = pdf_text(data)
    assert all(f"Item number {i} " in text for i in range(1, 41))
    assert "Unit price" in reader.pages[1].extract_text()                 # header repeated
    assert "Page 2" in reader.pages[1].extract_text()
    assert format_amount(1_000 * 820, "TRY", "en") in reader.pages[-1].extract_text()   # subtotal


def test_same_document_same_bytes_and_unknown_locale_is_english():
    doc = make_doc("en")
    assert render_invoice_pdf(doc) == render_invoice_pdf(replace(doc))
    assert "Invoice number" in pdf_text(render_invoice_pdf(replace(doc, locale="fr")))
    assert "Fatura numarası" in pdf_text(render_invoice_pdf(replace(doc, locale="tr-TR")))


def test_fonts_are_bundled_with_their_license_and_shipped_as_package_data():
    files = sorted(p.name for p in FONTS_DIR.iterdir())
    assert "OFL.txt" in files
    ttfs = [p for p in FONTS_DIR.glob("*.ttf")]
    assert {p.name for p in ttfs} == {"NotoSans-Regular.ttf", "NotoSans-Bold.ttf",
                                      "NotoNaskhArabic-Regular.ttf", "NotoNaskhArabic-Bold.ttf"}
    assert sum(p.stat().st_size for p in ttfs) < 1_600_000
    pyproject = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    patterns = pyproject["tool"]["setuptools"]["package-data"]["services.billing"]
    assert "fonts/*.ttf" in patterns and "fonts/OFL.txt" in patterns
