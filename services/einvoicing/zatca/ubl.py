"""The UBL 2.1 XML of a ZATCA document (tax invoice 388, credit note 381, debit note 383), as
ZATCA's XML implementation standard lays it out, built with lxml from a plain `Document`.

Amounts are the invoice's own integer minor units written with the currency's exponent, so the
XML agrees with the invoice to the halala: LineExtensionAmount = sum of lines, TaxAmount = the
invoice's tax (rounded once, half-up, as invoices.compute_totals rounds it), TaxInclusiveAmount
= total. Each line carries its own VAT (its net x rate, rounded half-up) and RoundingAmount
(net + that VAT), as ZATCA asks (BR-KSA-50/51).

The tree is written without indentation: the invoice hash is taken over the canonical form,
and whitespace would be part of it."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from decimal import Decimal

from lxml import etree

from services.money.currencies import EXPONENTS, round_minor

NS = {
    None: "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
    "cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
    "cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
    "ext": "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2",
}
XPATH_NS = {k: v for k, v in NS.items() if k} | {"inv": NS[None]}
KSA = timezone(timedelta(hours=3), "AST")       # Saudi Arabia: UTC+3 all year, no summer time

TYPE_CODES = {"invoice": "388", "credit_note": "381", "debit_note": "383"}
SIMPLIFIED = "0200000"      # KSA-2: 02 = simplified tax invoice, no third party / nominal / export / summary / self-billed
STANDARD = "0100000"        # 01 = standard (B2B) tax invoice
PAYMENT_MEANS = "10"        # UNTDID 4461 "in cash": the sample's; Qafila does not know the instrument here


def cac(tag: str) -> str:
    return f"{{{NS['cac']}}}{tag}"


def cbc(tag: str) -> str:
    return f"{{{NS['cbc']}}}{tag}"


@dataclass
class Address:
    street: str | None = None
    building_number: str | None = None
    district: str | None = None
    city: str | None = None
    postal_code: str | None = None
    country: str = "SA"
    state: str | None = None                 # CountrySubentity
    additional_street: str | None = None     # AdditionalStreetName


@dataclass
class Party:
    name: str
    vat_number: str | None = None
    address: Address = field(default_factory=Address)


@dataclass
class Line:
    name: str
    quantity: int
    unit_price: int          # minor units
    net: int                 # unit_price x quantity, minor units


@dataclass
class Document:
    number: str                      # cbc:ID: the invoice number (INV-2026-000042)
    uuid: str
    issued_at: datetime              # aware; written in Saudi time
    kind: str                        # invoice | credit_note | debit_note
    simplified: bool
    currency: str
    icv: int
    pih: str                         # base64 hash of the previous document of the unit
    seller: Party
    buyer: Party | None
    lines: list[Line]
    subtotal: int
    tax: int
    total: int
    tax_rate: Decimal                # 15 (category S) or 0 (category O, out of scope)
    billing_reference: str | None = None   # notes: the number of the invoice they amend
    reason: str | None = None              # notes: why (KSA-10, the InstructionNote)

    @property
    def type_code(self) -> str:
        return TYPE_CODES[self.kind]

    @property
    def type_name(self) -> str:
        return SIMPLIFIED if self.simplified else STANDARD

    @property
    def local_time(self) -> datetime:
        return self.issued_at.astimezone(KSA)

    @property
    def timestamp(self) -> str:
        """QR tag 3: the issue date and time as written in the XML (Saudi time)."""
        return self.local_time.strftime("%Y-%m-%dT%H:%M:%S")


def amount(minor: int, currency: str) -> str:
    """Minor units -> the decimal text UBL wants ("1108.90" for SAR, "1.250" for KWD)."""
    exp = EXPONENTS[currency]
    sign = "-" if minor < 0 else ""
    q, r = divmod(abs(minor), 10 ** exp)
    return f"{sign}{q}.{r:0{exp}d}" if exp else f"{sign}{q}"


def line_tax(net: int, rate: Decimal) -> int:
    return round_minor(Decimal(net) * rate / Decimal(100))


def _percent(rate: Decimal) -> str:
    return f"{rate.quantize(Decimal('0.01'))}"


def _sub(parent, tag: str, text: str | None = None, **attrs) -> etree._Element:
    el = etree.SubElement(parent, tag, {k: v for k, v in attrs.items() if v is not None})
    if text is not None:
        el.text = text
    return el


def _tax_category(parent, tag: str, rate: Decimal, *, scheme_ids: bool) -> None:
    cat = _sub(parent, cac(tag))
    extra = {"schemeID": "UN/ECE 5305", "schemeAgencyID": "6"} if scheme_ids else {}
    code = "S" if rate else "O"
    _sub(cat, cbc("ID"), code, **extra)
    _sub(cat, cbc("Percent"), _percent(rate))
    if code == "O":
        _sub(cat, cbc("TaxExemptionReasonCode"), "VATEX-SA-OOS")
        _sub(cat, cbc("TaxExemptionReason"), "Not subject to VAT")
    scheme = _sub(cat, cac("TaxScheme"))
    _sub(scheme, cbc("ID"), "VAT", **({"schemeID": "UN/ECE 5153", "schemeAgencyID": "6"} if scheme_ids else {}))


def _party(parent, tag: str, party: Party) -> None:
    p = _sub(_sub(parent, cac(tag)), cac("Party"))
    a = party.address
    addr = _sub(p, cac("PostalAddress"))
    for el, value in (("StreetName", a.street), ("AdditionalStreetName", a.additional_street),
                      ("BuildingNumber", a.building_number), ("CitySubdivisionName", a.district),
                      ("CityName", a.city), ("PostalZone", a.postal_code), ("CountrySubentity", a.state)):
        if value:
            _sub(addr, cbc(el), value)
    _sub(_sub(addr, cac("Country")), cbc("IdentificationCode"), a.country or "SA")
    scheme = _sub(p, cac("PartyTaxScheme"))
    if party.vat_number:
        _sub(scheme, cbc("CompanyID"), party.vat_number)
    _sub(_sub(scheme, cac("TaxScheme")), cbc("ID"), "VAT")
    _sub(_sub(p, cac("PartyLegalEntity")), cbc("RegistrationName"), party.name)


def build(doc: Document) -> etree._Element:
    """The document without ext:UBLExtensions, the QR reference and cac:Signature: exactly the
    part the invoice hash covers. signing.sign() adds the three."""
    cur = doc.currency
    root = etree.Element(f"{{{NS[None]}}}Invoice", nsmap=NS)
    _sub(root, cbc("ProfileID"), "reporting:1.0")
    _sub(root, cbc("ID"), doc.number)
    _sub(root, cbc("UUID"), doc.uuid)
    local = doc.local_time
    _sub(root, cbc("IssueDate"), local.strftime("%Y-%m-%d"))
    _sub(root, cbc("IssueTime"), local.strftime("%H:%M:%S"))
    _sub(root, cbc("InvoiceTypeCode"), doc.type_code, name=doc.type_name)
    _sub(root, cbc("DocumentCurrencyCode"), cur)
    _sub(root, cbc("TaxCurrencyCode"), cur)
    if doc.billing_reference:
        ref = _sub(_sub(root, cac("BillingReference")), cac("InvoiceDocumentReference"))
        _sub(ref, cbc("ID"), doc.billing_reference)
    icv = _sub(root, cac("AdditionalDocumentReference"))
    _sub(icv, cbc("ID"), "ICV")
    _sub(icv, cbc("UUID"), str(doc.icv))
    pih = _sub(root, cac("AdditionalDocumentReference"))
    _sub(pih, cbc("ID"), "PIH")
    _sub(_sub(pih, cac("Attachment")), cbc("EmbeddedDocumentBinaryObject"), doc.pih, mimeCode="text/plain")
    _party(root, "AccountingSupplierParty", doc.seller)
    if doc.buyer is not None:
        _party(root, "AccountingCustomerParty", doc.buyer)
    else:                       # UBL requires the element; a simplified invoice may leave it empty
        _sub(root, cac("AccountingCustomerParty"))
    means = _sub(root, cac("PaymentMeans"))
    _sub(means, cbc("PaymentMeansCode"), PAYMENT_MEANS)
    if doc.reason:
        _sub(means, cbc("InstructionNote"), doc.reason)
    total = _sub(root, cac("TaxTotal"))
    _sub(total, cbc("TaxAmount"), amount(doc.tax, cur), currencyID=cur)
    sub = _sub(total, cac("TaxSubtotal"))
    _sub(sub, cbc("TaxableAmount"), amount(doc.subtotal, cur), currencyID=cur)
    _sub(sub, cbc("TaxAmount"), amount(doc.tax, cur), currencyID=cur)
    _tax_category(sub, "TaxCategory", doc.tax_rate, scheme_ids=True)
    # KSA: a second TaxTotal, the VAT in the tax currency (SAR), without subtotals (BR-KSA-EN16931-09).
    _sub(_sub(root, cac("TaxTotal")), cbc("TaxAmount"), amount(doc.tax, cur), currencyID=cur)
    money = _sub(root, cac("LegalMonetaryTotal"))
    for el, value in (("LineExtensionAmount", doc.subtotal), ("TaxExclusiveAmount", doc.subtotal),
                      ("TaxInclusiveAmount", doc.total), ("AllowanceTotalAmount", 0),
                      ("PrepaidAmount", 0), ("PayableAmount", doc.total)):
        _sub(money, cbc(el), amount(value, cur), currencyID=cur)
    for n, line in enumerate(doc.lines, start=1):
        el = _sub(root, cac("InvoiceLine"))
        _sub(el, cbc("ID"), str(n))
        _sub(el, cbc("InvoicedQuantity"), str(line.quantity), unitCode="PCE")
        _sub(el, cbc("LineExtensionAmount"), amount(line.net, cur), currencyID=cur)
        vat = line_tax(line.net, doc.tax_rate)
        lt = _sub(el, cac("TaxTotal"))
        _sub(lt, cbc("TaxAmount"), amount(vat, cur), currencyID=cur)
        _sub(lt, cbc("RoundingAmount"), amount(line.net + vat, cur), currencyID=cur)
        item = _sub(el, cac("Item"))
        _sub(item, cbc("Name"), line.name)
        _tax_category(item, "ClassifiedTaxCategory", doc.tax_rate, scheme_ids=False)
        _sub(_sub(el, cac("Price")), cbc("PriceAmount"), amount(line.unit_price, cur), currencyID=cur)
    return root


def text(root: etree._Element, path: str, namespaces: dict[str, str] | None = None) -> str | None:
    found = root.xpath(path, namespaces=namespaces or XPATH_NS)
    if not found:
        return None
    node = found[0]
    return node if isinstance(node, str) else node.text
