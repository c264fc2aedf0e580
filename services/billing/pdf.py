"""Invoice PDFs: one pure function, `render_invoice_pdf(InvoiceDocument) -> bytes`.

No database, no I/O beyond reading the bundled fonts: the caller (services/billing/invoices.py)
maps its invoice into an `InvoiceDocument` and gets the PDF bytes back.

- fpdf2 with text shaping (uharfbuzz): Arabic is shaped and laid out right to left, and for
  `locale="ar"` the whole page is mirrored (blocks, columns and alignments swap sides);
  Turkish and English are left to right.
- Fonts are bundled in `fonts/` (Noto Sans for Latin/Greek/Cyrillic incl. Turkish, Noto Naskh
  Arabic; OFL, see fonts/OFL.txt) and each is the other's fallback, so an Arabic name in an
  English invoice, or "INV-2026-000042" in an Arabic one, renders. Nothing is looked up on
  the system or the network.
- Every printed word comes from `LABELS` (one dictionary per locale).
- Amounts are integer minor units, printed with the currency's ISO 4217 exponent
  (`format_amount`: KWD and IQD 3 decimals, the others 2).
- Saudi merchants with a VAT number get the ZATCA phase 1 QR code (`zatca_qr_payload`: base64
  of the TLV of seller, VAT number, timestamp, total with VAT, VAT), and the invoice is titled
  a (simplified) tax invoice.

Rendering takes roughly 0.1 s of CPU; async callers may want `asyncio.to_thread`.
"""
from __future__ import annotations

import base64
import io
import unicodedata
from dataclasses import dataclass
from datetime import date, datetime, timezone
from decimal import Decimal, InvalidOperation
from pathlib import Path

import segno
from fpdf import FPDF

from services.money.currencies import EXPONENTS

__all__ = [
    "FONTS_DIR", "LABELS", "LOCALES", "EInvoice", "InvoiceDocument", "Line", "Party", "arabic_indic",
    "GibPrint", "format_amount", "format_date", "format_hijri", "format_rate", "render_invoice_pdf", "zatca_qr_payload",
]

FONTS_DIR = Path(__file__).resolve().parent / "fonts"
_FONT_FILES = {
    ("latin", ""): "NotoSans-Regular.ttf",
    ("latin", "B"): "NotoSans-Bold.ttf",
    ("arabic", ""): "NotoNaskhArabic-Regular.ttf",
    ("arabic", "B"): "NotoNaskhArabic-Bold.ttf",
}

LOCALES = ("en", "tr", "ar")


@dataclass
class Party:
    """The merchant (seller) or the customer (buyer)."""
    name: str
    address: str | None = None     # may be multi-line
    tax_number: str | None = None  # VAT / tax number
    email: str | None = None
    phone: str | None = None
    country: str | None = None     # ISO 3166 alpha-2


@dataclass
class Line:
    name: str
    amount: int          # unit price, minor units
    quantity: int
    total: int           # amount * quantity, minor units


@dataclass
class InvoiceDocument:
    number: str          # e.g. INV-2026-000042
    locale: str          # "en" | "tr" | "ar"
    currency: str        # TRY SAR AED KWD QAR EGP IQD
    issued_at: datetime  # aware UTC
    due_date: date
    merchant: Party
    customer: Party
    items: list[Line]
    subtotal: int
    tax: int
    tax_rate: str        # percentage as a decimal string, e.g. "15" or "7.5"
    total: int
    status: str          # draft | sent | paid
    paid_at: datetime | None = None
    payment_url: str | None = None   # the hosted payment page, printed as a link
    einvoice: EInvoice | None = None  # a ZATCA phase 2 e-invoice: its QR and kind (services/einvoicing/zatca)
    digits: str = "latn"             # "arab": Arabic-Indic digits on Arabic documents (the merchant's locale -u-nu-arab)
    gib: GibPrint | None = None      # a Turkish e-Fatura / e-Arşiv Fatura (services/einvoicing/gib)


@dataclass
class GibPrint:
    """What the printed copy of a GİB e-document shows beyond an invoice: GİB's logo text, the
    document number, the ETTN and the QR code of its GİB fields (GİB's JSON QR content)."""
    title: str                       # "e-Fatura" or "e-Arşiv Fatura"
    number: str                      # QAF2026000000001
    ettn: str                        # the UUID
    profile: str                     # TICARIFATURA, TEMELFATURA, EARSIVFATURA
    qr: str                          # the QR payload (JSON of the document's GİB fields)


@dataclass
class EInvoice:
    """What the printed copy of a ZATCA phase 2 e-invoice shows beyond an invoice."""
    qr: str                          # the phase-2 QR payload (base64 TLV, tags 1-9), as in the XML
    standard: bool                   # standard (tax invoice, B2B) or simplified (B2C)
    issued_at: datetime              # the issue time written in the XML (Saudi time)


# ---------------------------------------------------------------------------------------------
# Labels: every word printed on an invoice, one dictionary per locale.
# "{rate}" and "{date}" are filled in by the renderer.
# ---------------------------------------------------------------------------------------------

LABELS: dict[str, dict[str, str]] = {
    "en": {
        "invoice": "Invoice",
        "tax_invoice": "Tax Invoice",
        "simplified_tax_invoice": "Simplified Tax Invoice",
        "invoice_number": "Invoice number",
        "issue_date": "Date",
        "due_date": "Due date",
        "status": "Status",
        "status_draft": "Draft",
        "status_sent": "Awaiting payment",
        "status_paid": "Paid",
        "from": "From",
        "bill_to": "Bill to",
        "vat_number": "VAT number",
        "email": "Email",
        "phone": "Phone",
        "item": "Item",
        "quantity": "Quantity",
        "unit_price": "Unit price",
        "amount": "Amount",
        "subtotal": "Subtotal",
        "tax": "Tax ({rate}%)",
        "total": "Total",
        "paid_stamp": "PAID",
        "draft_stamp": "DRAFT",
        "paid_on": "Paid on {date}",
        "pay_online": "Pay online",
        "zatca_qr": "ZATCA e-invoice QR code",
        "hijri_date": "Hijri date",
        "page": "Page {page}",
        "months": "January February March April May June July August September October November December",
    },
    "tr": {
        "invoice": "Fatura",
        "tax_invoice": "Vergi Faturası",
        "simplified_tax_invoice": "Basitleştirilmiş Vergi Faturası",
        "invoice_number": "Fatura numarası",
        "issue_date": "Düzenleme tarihi",
        "due_date": "Son ödeme tarihi",
        "status": "Durum",
        "status_draft": "Taslak",
        "status_sent": "Ödeme bekleniyor",
        "status_paid": "Ödendi",
        "from": "Satıcı",
        "bill_to": "Müşteri",
        "vat_number": "Vergi numarası",
        "email": "E-posta",
        "phone": "Telefon",
        "item": "Ürün / Hizmet",
        "quantity": "Miktar",
        "unit_price": "Birim fiyat",
        "amount": "Tutar",
        "subtotal": "Ara toplam",
        "tax": "KDV (%{rate})",
        "total": "Genel toplam",
        "paid_stamp": "ÖDENDİ",
        "draft_stamp": "TASLAK",
        "paid_on": "Ödeme tarihi: {date}",
        "pay_online": "Çevrimiçi öde",
        "zatca_qr": "ZATCA e-fatura karekodu",
        "hijri_date": "Hicri tarih",
        "page": "Sayfa {page}",
        "months": "Ocak Şubat Mart Nisan Mayıs Haziran Temmuz Ağustos Eylül Ekim Kasım Aralık",
    },
    "ar": {
        "invoice": "فاتورة",
        "tax_invoice": "فاتورة ضريبية",
        "simplified_tax_invoice": "فاتورة ضريبية مبسطة",
        "invoice_number": "رقم الفاتورة",
        "issue_date": "تاريخ الإصدار",
        "due_date": "تاريخ الاستحقاق",
        "status": "الحالة",
        "status_draft": "مسودة",
        "status_sent": "بانتظار الدفع",
        "status_paid": "مدفوعة",
        "from": "من",
        "bill_to": "فاتورة إلى",
        "vat_number": "الرقم الضريبي",
        "email": "البريد الإلكتروني",
        "phone": "الهاتف",
        "item": "البند",
        "quantity": "الكمية",
        "unit_price": "سعر الوحدة",
        "amount": "المبلغ",
        "subtotal": "المجموع الفرعي",
        "tax": "ضريبة القيمة المضافة ({rate}%)",
        "total": "الإجمالي",
        "paid_stamp": "مدفوعة",
        "draft_stamp": "مسودة",
        "paid_on": "تاريخ الدفع: {date}",
        "pay_online": "ادفع عبر الإنترنت",
        "zatca_qr": "رمز الاستجابة السريعة للفاتورة الإلكترونية",
        "hijri_date": "التاريخ الهجري",
        "page": "صفحة {page}",
        "months": "يناير فبراير مارس أبريل مايو يونيو يوليو أغسطس سبتمبر أكتوبر نوفمبر ديسمبر",
    },
}

# Number formatting per locale: (thousands separator, decimal separator). Arabic invoices in
# the Gulf print Western digits; keeping them also keeps amounts searchable and copyable.
_SEPARATORS = {"en": (",", "."), "tr": (".", ","), "ar": (",", ".")}


def _locale(locale: str | None) -> str:
    """'ar', 'ar-SA', 'TR_tr' -> 'ar', 'tr'; anything unknown -> 'en'."""
    base = (locale or "en").replace("_", "-").split("-")[0].lower()
    return base if base in LABELS else "en"


def _currency(currency: str) -> str:
    code = (currency or "").upper()
    if code not in EXPONENTS:
        raise ValueError(f"unsupported currency {currency!r}")
    return code


def _group(digits: str, sep: str) -> str:
    out = []
    while len(digits) > 3:
        out.append(digits[-3:])
        digits = digits[:-3]
    out.append(digits)
    return sep.join(reversed(out))


def format_amount(amount: int, currency: str, locale: str) -> str:
    """Minor units -> the amount with its currency code, per locale.

    123450 KWD en -> '123.450 KWD'; 123456789 TRY tr -> '1.234.567,89 TRY';
    -500 SAR ar -> '-5.00 SAR'. KWD and IQD have 3 decimals, the others 2 (services.money).
    """
    code = _currency(currency)
    exp = EXPONENTS[code]
    thousands, decimal_sep = _SEPARATORS[_locale(locale)]
    sign = "-" if amount < 0 else ""
    whole, frac = divmod(abs(int(amount)), 10**exp)
    text = _group(str(whole), thousands)
    if exp:
        text += f"{decimal_sep}{frac:0{exp}d}"
    return f"{sign}{text} {code}"


def _plain_decimal(amount: int, currency: str) -> str:
    """Minor units -> '115.00' (no grouping, '.' decimal): the ZATCA amount format."""
    exp = EXPONENTS[_currency(currency)]
    sign = "-" if amount < 0 else ""
    whole, frac = divmod(abs(int(amount)), 10**exp)
    return f"{sign}{whole}.{frac:0{exp}d}" if exp else f"{sign}{whole}"


def format_rate(rate: str | Decimal | int | float, locale: str) -> str:
    """'15' / '15.00' / Decimal('7.50') -> '15' / '7.5' ('7,5' in Turkish)."""
    try:
        value = Decimal(str(rate))
    except (InvalidOperation, ValueError):
        return str(rate)
    if not value.is_finite():
        return str(rate)
    text = format(value.normalize(), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    if _locale(locale) == "tr":
        text = text.replace(".", ",")
    return text


def format_date(value: date | datetime, locale: str) -> str:
    """A date (or an aware datetime, taken in UTC) -> '23 November 2026' / '23 Kasım 2026' /
    '23 نوفمبر 2026'."""
    if isinstance(value, datetime):
        value = _utc(value).date()
    months = LABELS[_locale(locale)]["months"].split()
    return f"{value.day} {months[value.month - 1]} {value.year}"


_ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")


def arabic_indic(text: str) -> str:
    """'1,234.50' -> '١,٢٣٤.٥٠' (digits only; separators stay as the amount format has them)."""
    return text.translate(_ARABIC_INDIC)


def format_hijri(value: date, locale: str) -> str:
    """A Gregorian date -> its Umm al-Qura (Saudi official) Hijri date: '12 Ramadan 1447 AH' /
    '12 رمضان 1447 هـ' (hijridate; dates outside its table, before 1937 or after 2077, print empty)."""
    from hijridate import Gregorian

    try:
        h = Gregorian(value.year, value.month, value.day).to_hijri()
    except (OverflowError, ValueError):
        return ""
    lang = "ar" if _locale(locale) == "ar" else "en"
    return f"{h.day} {h.month_name(lang)} {h.year} {h.notation(lang)}"


def _utc(value: datetime) -> datetime:
    """Aware -> UTC; a naive datetime is taken to be UTC already."""
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)


# ---------------------------------------------------------------------------------------------
# ZATCA (Saudi e-invoicing) phase 1 QR code
# ---------------------------------------------------------------------------------------------

def _tlv(tag: int, value: str) -> bytes:
    data = value.encode("utf-8")
    if len(data) > 255:
        raise ValueError(f"ZATCA QR field {tag} is longer than 255 bytes")
    return bytes((tag, len(data))) + data


def zatca_qr_payload(*, seller: str, vat_number: str, timestamp: datetime, total: str, vat: str) -> str:
    """The content of the ZATCA phase 1 QR code: base64 of the TLV records
    1 seller name, 2 VAT registration number, 3 invoice timestamp (ISO 8601 in UTC,
    '2026-11-23T10:15:00Z'), 4 invoice total with VAT, 5 VAT total ('115.00', '15.00').
    Each record is 1 byte tag, 1 byte length of the UTF-8 value, the UTF-8 bytes; a value
    longer than 255 bytes raises ValueError. A naive timestamp is taken to be UTC."""
    stamp = _utc(timestamp).strftime("%Y-%m-%dT%H:%M:%SZ")
    raw = b"".join((_tlv(1, seller), _tlv(2, vat_number), _tlv(3, stamp), _tlv(4, total), _tlv(5, vat)))
    return base64.b64encode(raw).decode("ascii")


def _zatca_applies(doc: InvoiceDocument) -> bool:
    return (doc.merchant.country or "").strip().upper() == "SA" and bool((doc.merchant.tax_number or "").strip())


def _qr_png(payload: str) -> io.BytesIO:
    buf = io.BytesIO()
    segno.make(payload, error="m", micro=False).save(buf, kind="png", scale=8, border=4)
    buf.seek(0)
    return buf


# ---------------------------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------------------------

_PAGE_W, _PAGE_H, _MARGIN = 210.0, 297.0, 15.0
_CONTENT_W = _PAGE_W - 2 * _MARGIN
_BOTTOM = _PAGE_H - 22.0          # content stops here; the footer lives below

_INK = (33, 37, 41)
_MUTED = (108, 117, 125)
_ACCENT = (22, 62, 110)
_RULE = (206, 212, 218)
_HEAD_FILL = (236, 240, 245)
_GREEN = (25, 135, 84)
_LINK = (13, 87, 200)


def _select_font(pdf: FPDF, family: str, other: str, style: str, size: float) -> None:
    """set_font that always takes effect. Works around fpdf2 (2.8.9): after a text line whose
    last fragment was drawn in the fallback font, the PDF's active font is the fallback while
    fpdf2 believes the primary one is set, so a set_font() with unchanged arguments emits
    nothing and the next text's glyph ids are drawn in the wrong font (garbled Arabic/digits).
    Selecting another font first forces a real switch; set_font itself writes nothing."""
    pdf.set_font(other, style, size)
    pdf.set_font(family, style, size)


def _has_arabic(text: str) -> bool:
    return any(unicodedata.bidirectional(ch) in ("R", "AL") for ch in text)


class _PDF(FPDF):
    footer_text = ""
    footer_page_label = "{page}"
    footer_rtl = False
    footer_font = "latin"

    def footer(self) -> None:  # called by fpdf2 on every page
        self.set_draw_color(*_RULE)
        self.line(_MARGIN, _PAGE_H - 16, _PAGE_W - _MARGIN, _PAGE_H - 16)
        page = self.footer_page_label.format(page=self.page_no())
        text = f"{page}  ·  {self.footer_text}" if self.footer_rtl else f"{self.footer_text}  ·  {page}"
        self.set_text_shaping(True, direction="rtl" if self.footer_rtl else "ltr")
        other = "arabic" if self.footer_font == "latin" else "latin"
        self.set_fallback_fonts([other], exact_match=False)
        _select_font(self, self.footer_font, other, "", 8)
        self.set_text_color(*_MUTED)
        self.set_xy(_MARGIN, _PAGE_H - 14)
        self.cell(_CONTENT_W, 5, text, align="C")


class _Renderer:
    def __init__(self, doc: InvoiceDocument):
        self.doc = doc
        self.locale = _locale(doc.locale)
        self.currency = _currency(doc.currency)
        self.rtl = self.locale == "ar"
        self.t = LABELS[self.locale]
        # Noto Naskh Arabic looks smaller than Noto Sans at the same point size.
        self.scale = 1.12 if self.rtl else 1.0
        self.pdf = pdf = _PDF(orientation="P", unit="mm", format="A4")
        pdf.set_auto_page_break(False)
        pdf.set_margins(_MARGIN, _MARGIN, _MARGIN)
        # The layout's primary font; the other one is its fallback for the glyphs it lacks.
        self.main, self.fallback = ("arabic", "latin") if self.rtl else ("latin", "arabic")
        for (family, style), filename in _FONT_FILES.items():
            pdf.add_font(family, style, str(FONTS_DIR / filename))
        pdf.set_fallback_fonts([self.fallback], exact_match=False)
        pdf.set_text_shaping(True)
        pdf.footer_text = doc.number
        pdf.footer_page_label = self.t["page"]
        pdf.footer_rtl = self.rtl
        pdf.footer_font = self.main
        pdf.set_lang(self.locale)
        pdf.set_title(f"{doc.gib.title} {doc.gib.number}" if doc.gib is not None
                      else f"{self.t[self._title_key()]} {doc.number}")
        pdf.set_author(doc.merchant.name)
        pdf.set_creator("Qafila")
        pdf.set_creation_date(_utc(doc.issued_at))   # same document -> same bytes

    # -- primitives: x is given for the left-to-right layout and mirrored for RTL ------------

    def _x(self, x: float, w: float) -> float:
        return _PAGE_W - x - w if self.rtl else x

    def _align(self, align: str) -> str:
        if self.rtl and align in ("L", "R"):
            return "R" if align == "L" else "L"
        return align

    def _style(self, text: str, size: float, bold: bool, color: tuple[int, int, int]) -> None:
        # The paragraph direction: the layout's, except that text without Arabic (a phone number,
        # an amount, a Latin name) stays left to right in the Arabic layout, so "+90 532 000 11 22"
        # is not reordered; Arabic inside a left-to-right paragraph is still laid out RTL (bidi).
        rtl = self.rtl and _has_arabic(text)
        self.pdf.set_text_shaping(True, direction="rtl" if rtl else "ltr")
        # Text without Arabic (amounts, e-mail, phone, the number, a URL) is set in Noto Sans in
        # every layout, so digits and punctuation look the same everywhere.
        family = self.main if _has_arabic(text) else "latin"
        other = "latin" if family == "arabic" else "arabic"
        self.pdf.set_fallback_fonts([other], exact_match=False)
        _select_font(self.pdf, family, other, "B" if bold else "", size * self.scale)
        self.pdf.set_text_color(*color)

    def text(self, x: float, y: float, w: float, h: float, text: str, *, align: str = "L",
             size: float = 9, bold: bool = False, color=_INK, link: str | None = None) -> None:
        self._style(text, size, bold, color)
        self.pdf.set_xy(self._x(x, w), y)
        self.pdf.cell(w, h, text, align=self._align(align), link=link or "")

    def para(self, x: float, y: float, w: float, lh: float, text: str, *, align: str = "L",
             size: float = 9, bold: bool = False, color=_INK, wrap: str = "WORD", dry: bool = False) -> float:
        """A wrapped block; returns its height (and draws it unless dry)."""
        if not text:
            return 0.0
        self._style(text, size, bold, color)
        self.pdf.set_xy(self._x(x, w), y)
        if dry:
            lines = self.pdf.multi_cell(w, lh, text, align=self._align(align), wrapmode=wrap,
                                        dry_run=True, output="LINES")
            return lh * len(lines)
        self.pdf.multi_cell(w, lh, text, align=self._align(align), wrapmode=wrap,
                            new_x="LEFT", new_y="NEXT")
        return self.pdf.get_y() - y

    def rule(self, x: float, y: float, w: float, color=_RULE, width: float = 0.2) -> None:
        self.pdf.set_draw_color(*color)
        self.pdf.set_line_width(width)
        x0 = self._x(x, w)
        self.pdf.line(x0, y, x0 + w, y)

    def box(self, x: float, y: float, w: float, h: float, fill=_HEAD_FILL) -> None:
        self.pdf.set_fill_color(*fill)
        self.pdf.rect(self._x(x, w), y, w, h, style="F")

    # -- content ------------------------------------------------------------------------

    def _title_key(self) -> str:
        if self.doc.gib is not None:
            return "gib_title"
        if self.doc.einvoice is not None:
            return "tax_invoice" if self.doc.einvoice.standard else "simplified_tax_invoice"
        if not _zatca_applies(self.doc):
            return "invoice"
        # ZATCA: B2B (the buyer has a VAT number) is a tax invoice, B2C a simplified one.
        return "tax_invoice" if (self.doc.customer.tax_number or "").strip() else "simplified_tax_invoice"

    def _money(self, amount: int) -> str:
        return self._num(format_amount(amount, self.currency, self.locale))

    def _num(self, text: str) -> str:
        """Digits as the document wants them: Arabic-Indic on an Arabic e-invoice that asks for them."""
        return arabic_indic(text) if self.rtl and self.doc.digits == "arab" else text

    def _party_lines(self, party: Party, *, with_contact: bool) -> list[tuple[str, bool]]:
        """(text, muted) lines under a party's name."""
        lines: list[tuple[str, bool]] = []
        for row in (party.address or "").splitlines():
            if row.strip():
                lines.append((row.strip(), False))
        if party.country:
            lines.append((party.country.strip().upper(), False))
        if party.tax_number:
            lines.append((f"{self.t['vat_number']}: {party.tax_number}", False))
        if with_contact:
            if party.email:
                lines.append((party.email, True))
            if party.phone:
                lines.append((party.phone, True))
        return lines

    def _party(self, x: float, y: float, w: float, label: str, party: Party, *, with_contact: bool,
               name_size: float = 11) -> float:
        """A party block; returns the y below it."""
        if label:
            self.text(x, y, w, 5, label.upper() if self.locale == "en" else label, size=8, bold=True, color=_MUTED)
            y += 6
        y += self.para(x, y, w, 6 * name_size / 11 * self.scale, party.name, size=name_size, bold=True)
        for line, muted in self._party_lines(party, with_contact=with_contact):
            y += self.para(x, y, w, 4.6 * self.scale, line, size=9, color=_MUTED if muted else _INK,
                           wrap="CHAR" if muted else "WORD")
        return y

    def header(self) -> float:
        doc, t = self.doc, self.t
        left_w, right_x, right_w = 100.0, 115.0, 80.0
        # Seller, top left (top right in Arabic).
        y_left = self._party(_MARGIN, _MARGIN, left_w, "", doc.merchant, with_contact=True, name_size=15)
        # Title and the invoice's facts, top right (top left in Arabic).
        y = _MARGIN
        title = doc.gib.title if doc.gib is not None else t[self._title_key()]
        y += self.para(right_x, y, right_w, 9 * self.scale, title, align="R", size=18, bold=True, color=_ACCENT) + 2
        issued = doc.issued_at
        if doc.einvoice is not None:
            # ZATCA: the title in Arabic and English; the date as the XML has it (Saudi), with its Hijri date.
            other = LABELS["en" if self.rtl else "ar"][self._title_key()]
            y += self.para(right_x, y, right_w, 6 * self.scale, other, align="R", size=11, bold=True, color=_ACCENT) + 1
            issued = doc.einvoice.issued_at.replace(tzinfo=None)
        facts = [
            (t["invoice_number"], doc.number),
            (t["issue_date"], self._num(format_date(issued, self.locale))),
            (t["due_date"], self._num(format_date(doc.due_date, self.locale))),
            (t["status"], t.get(f"status_{doc.status}", doc.status.capitalize())),
        ]
        if doc.einvoice is not None:
            facts.insert(2, (t["hijri_date"], self._num(format_hijri(issued.date(), self.locale))))
        if doc.gib is not None:     # GİB: the e-document's number, its ETTN and scenario
            facts[0:1] = [("Fatura No", doc.gib.number), ("ETTN", doc.gib.ettn), ("Senaryo", doc.gib.profile)]
        row_h = 5.2 * self.scale
        for label, value in facts:
            self.text(right_x, y, 34, row_h, label, size=9, color=_MUTED)
            self.text(right_x + 34, y, right_w - 34, row_h, value, align="R", size=9, bold=True)
            y += row_h
        if doc.status == "paid":
            y += 2
            self.text(right_x, y, right_w, 9 * self.scale, t["paid_stamp"], align="R", size=20, bold=True, color=_GREEN)
            y += 9 * self.scale
            if doc.paid_at:
                self.text(right_x, y, right_w, 5 * self.scale,
                          t["paid_on"].format(date=format_date(doc.paid_at, self.locale)),
                          align="R", size=9, color=_GREEN)
                y += 5 * self.scale
        elif doc.status == "draft":
            y += 2
            self.text(right_x, y, right_w, 9 * self.scale, t["draft_stamp"], align="R", size=20, bold=True, color=_MUTED)
            y += 9 * self.scale
        return max(y_left, y) + 6

    def parties(self, y: float) -> float:
        self.rule(_MARGIN, y, _CONTENT_W)
        y += 5
        y_bill = self._party(_MARGIN, y, 110, self.t["bill_to"], self.doc.customer, with_contact=True)
        y_qr = y
        if self.doc.gib is not None:
            size = 32.0
            qx = _PAGE_W - _MARGIN - size
            self.pdf.image(_qr_png(self.doc.gib.qr), x=self._x(qx, size), y=y - 2, w=size, h=size,
                           alt_text=f"{self.doc.gib.title} karekodu")
            y_qr = y - 2 + size
        elif self.doc.einvoice is not None or _zatca_applies(self.doc):
            size = 32.0
            doc = self.doc
            payload = doc.einvoice.qr if doc.einvoice is not None else zatca_qr_payload(
                seller=doc.merchant.name, vat_number=doc.merchant.tax_number.strip(),
                timestamp=doc.issued_at, total=_plain_decimal(doc.total, self.currency),
                vat=_plain_decimal(doc.tax, self.currency))
            qx = _PAGE_W - _MARGIN - size
            self.pdf.image(_qr_png(payload), x=self._x(qx, size), y=y - 2, w=size, h=size,
                           alt_text=self.t["zatca_qr"])
            y_qr = y - 2 + size
        return max(y_bill, y_qr) + 6

    # Items table columns: (key, width, alignment) in the left-to-right layout.
    _COLUMNS = (("item", 92.0, "L"), ("quantity", 22.0, "C"), ("unit_price", 33.0, "R"), ("amount", 33.0, "R"))

    def _table_head(self, y: float) -> float:
        h = 8.0
        self.box(_MARGIN, y, _CONTENT_W, h)
        x = _MARGIN
        for key, w, align in self._COLUMNS:
            self.text(x + 2, y, w - 4, h, self.t[key], align=align, size=8.5, bold=True, color=_ACCENT)
            x += w
        return y + h

    def items(self, y: float) -> float:
        y = self._table_head(y)
        lh = 4.8 * self.scale
        for line in self.doc.items:
            name_w = self._COLUMNS[0][1] - 4
            row_h = max(lh, self.para(0, 0, name_w, lh, line.name, size=9, dry=True)) + 4
            if y + row_h > _BOTTOM:
                self.pdf.add_page()
                y = self._table_head(_MARGIN)
            cells = (line.name, self._num(str(line.quantity)), self._money(line.amount), self._money(line.total))
            x = _MARGIN
            for (key, w, align), value in zip(self._COLUMNS, cells):
                if key == "item":
                    self.para(x + 2, y + 2, w - 4, lh, value, size=9)
                else:
                    self.text(x + 2, y + 2, w - 4, lh, value, align=align, size=9)
                x += w
            y += row_h
            self.rule(_MARGIN, y, _CONTENT_W)
        return y + 3

    def totals(self, y: float) -> float:
        t, doc = self.t, self.doc
        rows = [
            (t["subtotal"], self._money(doc.subtotal), False),
            (t["tax"].format(rate=self._num(format_rate(doc.tax_rate, self.locale))), self._money(doc.tax), False),
            (t["total"], self._money(doc.total), True),
        ]
        block_x, label_w, value_w = 95.0, 55.0, 45.0
        row_h = 6.5 * self.scale
        if y + row_h * len(rows) + 4 > _BOTTOM:
            self.pdf.add_page()
            y = _MARGIN
        for label, value, strong in rows:
            if strong:
                self.rule(block_x, y + 0.5, label_w + value_w, color=_INK, width=0.4)
                y += 1.5
            size = 11 if strong else 9.5
            self.text(block_x, y, label_w, row_h, label, size=size, bold=strong, color=_INK if strong else _MUTED)
            self.text(block_x + label_w, y, value_w, row_h, value, align="R", size=size, bold=strong)
            y += row_h
        return y + 6

    def payment_link(self, y: float) -> float:
        url = self.doc.payment_url
        if not url:
            return y
        need = 6 + self.para(_MARGIN, y, _CONTENT_W, 5, url, size=9, wrap="CHAR", dry=True) + 4
        if y + need > _BOTTOM:
            self.pdf.add_page()
            y = _MARGIN
        self.rule(_MARGIN, y, _CONTENT_W)
        y += 3
        self.text(_MARGIN, y, _CONTENT_W, 6 * self.scale, self.t["pay_online"], size=10, bold=True, color=_ACCENT)
        y += 6 * self.scale
        # The URL is left to right in every layout; it is a clickable link.
        self._style(url, 9, False, _LINK)
        self.pdf.set_xy(self._x(_MARGIN, _CONTENT_W), y)
        self.pdf.multi_cell(_CONTENT_W, 5, url, align=self._align("L"), wrapmode="CHAR", link=url,
                            new_x="LEFT", new_y="NEXT")
        return self.pdf.get_y() + 4

    def render(self) -> bytes:
        self.pdf.add_page()
        y = self.header()
        y = self.parties(y)
        y = self.items(y)
        y = self.totals(y)
        self.payment_link(y)
        return bytes(self.pdf.output())


def render_invoice_pdf(doc: InvoiceDocument) -> bytes:
    """The invoice as an A4 PDF (bytes). Pure: the same document gives the same bytes.

    Unknown locales fall back to English; an unsupported currency raises ValueError, and so
    does a ZATCA field (seller name, VAT number) longer than 255 UTF-8 bytes."""
    return _Renderer(doc).render()
