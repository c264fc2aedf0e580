"""The UBL-TR 1.2 XML of a GİB document (e-Fatura or e-Arşiv Fatura; SATIS or IADE), as GİB's
UBL-TR Kılavuzu lays it out, built with lxml from a plain `Document`.

Amounts are the invoice's own integer kuruş written with two decimals. KDV is computed per line,
half-up to the kuruş, and the document's KDV is the sum of the lines' (`kdv_of`): a TRY invoice
of a merchant set up with GİB rounds its own `tax` the same way, so invoice and document agree.
LineExtensionAmount = sum of the lines, TaxExclusiveAmount = the same, TaxInclusiveAmount =
PayableAmount = that plus the KDV. The amount in words (num2words, Turkish) is a `cbc:Note`
("Yalnız ... TL ... Kr"), and the visual template (xslt/qafila.xslt) an embedded
`AdditionalDocumentReference` (DocumentType XSLT), as GİB asks, so an integrator's viewer
renders it. `ext:UBLExtensions/ext:UBLExtension/ext:ExtensionContent` is left for the signature."""
from __future__ import annotations

import base64
import functools
import pathlib
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from decimal import ROUND_HALF_UP, Decimal

from lxml import etree
from num2words import num2words

from services import addresses

NS = {
    None: "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
    "cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
    "cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
    "ext": "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2",
    "ds": "http://www.w3.org/2000/09/xmldsig#",
    "xades": "http://uri.etsi.org/01903/v1.3.2#",
}
XPATH_NS = {k: v for k, v in NS.items() if k} | {"inv": NS[None]}
TURKEY = timezone(timedelta(hours=3), "TRT")        # Turkey: UTC+3 all year since 2016
EXEMPTION_0 = ("351", "KDV - İstisna Olmayan Diğer")  # GİB's code for a KDV of 0 that is not an exemption
XSLT = pathlib.Path(__file__).parent / "xslt" / "qafila.xslt"
PAYMENT_MEANS = {"KREDIKARTI/BANKAKARTI": "48", "EFT/HAVALE": "42", "KAPIDAODEME": "10", "ODEMEARACISI": "ZZZ",
                 "DIGER": "ZZZ"}


def local(at: datetime) -> datetime:
    return at.astimezone(TURKEY)


def cac(tag: str) -> str:
    return f"{{{NS['cac']}}}{tag}"


def cbc(tag: str) -> str:
    return f"{{{NS['cbc']}}}{tag}"


def half_up(value: Decimal) -> int:
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def line_kdv(net: int, rate: Decimal) -> int:
    return half_up(Decimal(net) * rate / Decimal(100))


def kdv_of(nets: list[int], rate: Decimal) -> int:
    """The document's KDV: each line's, half-up to the kuruş, added up."""
    return sum(line_kdv(n, rate) for n in nets)


def amount(kurus: int) -> str:
    sign = "-" if kurus < 0 else ""
    q, r = divmod(abs(kurus), 100)
    return f"{sign}{q}.{r:02d}"


def in_words(kurus: int) -> str:
    """'Yalnız binikiyüzotuzdört TL ellialtı Kr', as Turkish invoices print the total."""
    lira, kr = divmod(kurus, 100)
    text = f"Yalnız {num2words(lira, lang='tr')} TL"
    if kr:
        text += f" {num2words(kr, lang='tr')} Kr"
    return text


@dataclass
class Party:
    name: str
    vkn: str | None = None
    tckn: str | None = None
    tax_office: str | None = None
    address: dict = field(default_factory=dict)
    website: str | None = None
    email: str | None = None
    phone: str | None = None

    @property
    def number(self) -> str:
        return self.vkn or self.tckn or ""


@dataclass
class Line:
    name: str
    quantity: int
    unit_price: int          # kuruş
    net: int                 # unit_price x quantity
    kdv: int = 0             # set by Document


@dataclass
class InternetSale:
    """The e-Arşiv extras of an internet sale (e-Arşiv Fatura Uygulaması Teknik Kılavuzu)."""
    website: str
    payment_date: date
    payment_means: str = "KREDIKARTI/BANKAKARTI"
    payment_agent: str | None = None
    carrier_name: str | None = None
    carrier_number: str | None = None
    shipped_on: date | None = None


@dataclass
class Document:
    number: str                      # QAF2026000000001
    uuid: str                        # the ETTN
    issued_at: datetime              # aware; written in Turkey's time
    profile: str                     # TICARIFATURA | TEMELFATURA | EARSIVFATURA
    type_code: str                   # SATIS | IADE
    seller: Party
    buyer: Party
    lines: list[Line]
    tax_rate: Decimal
    billing_reference: tuple[str, date] | None = None     # IADE: the original's number and issue date
    internet: InternetSale | None = None
    currency: str = "TRY"
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        for line in self.lines:
            line.kdv = line_kdv(line.net, self.tax_rate)

    @property
    def subtotal(self) -> int:
        return sum(line.net for line in self.lines)

    @property
    def tax(self) -> int:
        return sum(line.kdv for line in self.lines)

    @property
    def total(self) -> int:
        return self.subtotal + self.tax

    @property
    def local_time(self) -> datetime:
        return local(self.issued_at)

    @property
    def earsiv(self) -> bool:
        return self.profile == "EARSIVFATURA"


def _sub(parent, tag: str, text: str | None = None, **attrs) -> etree._Element:
    el = etree.SubElement(parent, tag, {k: v for k, v in attrs.items() if v is not None})
    if text is not None:
        el.text = text
    return el


def _money(parent, tag: str, kurus: int, cur: str) -> None:
    _sub(parent, cbc(tag), amount(kurus), currencyID=cur)


@functools.lru_cache(maxsize=1)
def xslt_b64() -> str:
    return base64.b64encode(XSLT.read_bytes()).decode("ascii")


def _party(parent, tag: str, p: Party) -> None:
    party = _sub(_sub(parent, cac(tag)), cac("Party"))
    if p.website:
        _sub(party, cbc("WebsiteURI"), p.website)
    if p.vkn:
        _sub(_sub(party, cac("PartyIdentification")), cbc("ID"), p.vkn, schemeID="VKN")
    else:
        _sub(_sub(party, cac("PartyIdentification")), cbc("ID"), p.tckn, schemeID="TCKN")
    if p.vkn:
        _sub(_sub(party, cac("PartyName")), cbc("Name"), p.name)
    a = p.address or {}
    addr = _sub(party, cac("PostalAddress"))
    if a.get("street"):
        _sub(addr, cbc("StreetName"), a["street"])
    if a.get("building_number"):
        _sub(addr, cbc("BuildingNumber"), a["building_number"])
    _sub(addr, cbc("CitySubdivisionName"), a.get("district") or "-")
    _sub(addr, cbc("CityName"), a.get("city") or "-")
    if a.get("postal_code"):
        _sub(addr, cbc("PostalZone"), a["postal_code"])
    if a.get("state"):
        _sub(addr, cbc("Region"), a["state"])
    country = a.get("country") or "TR"
    _sub(_sub(addr, cac("Country")), cbc("Name"), "Türkiye" if country == "TR" else addresses.country_name(country))
    if p.tax_office:
        _sub(_sub(_sub(party, cac("PartyTaxScheme")), cac("TaxScheme")), cbc("Name"), p.tax_office)
    if p.email or p.phone:
        contact = _sub(party, cac("Contact"))
        if p.phone:
            _sub(contact, cbc("Telephone"), p.phone)
        if p.email:
            _sub(contact, cbc("ElectronicMail"), p.email)
    if not p.vkn:                    # a person: first and family name (GİB: both required with a TCKN)
        first, _, family = p.name.strip().rpartition(" ")
        person = _sub(party, cac("Person"))
        _sub(person, cbc("FirstName"), first or p.name.strip() or "-")
        _sub(person, cbc("FamilyName"), family if first else "-")


def _tax_subtotal(parent, taxable: int, tax: int, rate: Decimal, cur: str) -> None:
    sub = _sub(parent, cac("TaxSubtotal"))
    _money(sub, "TaxableAmount", taxable, cur)
    _money(sub, "TaxAmount", tax, cur)
    _sub(sub, cbc("Percent"), format(rate.normalize(), "f"))
    cat = _sub(sub, cac("TaxCategory"))
    if not tax:                     # GİB: a KDV of 0 (0%, or a line too small to carry any) names its reason
        _sub(cat, cbc("TaxExemptionReasonCode"), EXEMPTION_0[0])
        _sub(cat, cbc("TaxExemptionReason"), EXEMPTION_0[1])
    scheme = _sub(cat, cac("TaxScheme"))
    _sub(scheme, cbc("Name"), "KDV")
    _sub(scheme, cbc("TaxTypeCode"), "0015")


def build(doc: Document) -> etree._Element:
    """The unsigned document, with an empty ExtensionContent for the integrator's signature."""
    cur = doc.currency
    root = etree.Element(f"{{{NS[None]}}}Invoice", nsmap=NS)
    _sub(_sub(_sub(root, f"{{{NS['ext']}}}UBLExtensions"), f"{{{NS['ext']}}}UBLExtension"),
         f"{{{NS['ext']}}}ExtensionContent")
    _sub(root, cbc("UBLVersionID"), "2.1")
    _sub(root, cbc("CustomizationID"), "TR1.2")
    _sub(root, cbc("ProfileID"), doc.profile)
    _sub(root, cbc("ID"), doc.number)
    _sub(root, cbc("CopyIndicator"), "false")
    _sub(root, cbc("UUID"), doc.uuid)
    t = doc.local_time
    _sub(root, cbc("IssueDate"), t.strftime("%Y-%m-%d"))
    _sub(root, cbc("IssueTime"), t.strftime("%H:%M:%S"))
    _sub(root, cbc("InvoiceTypeCode"), doc.type_code)
    _sub(root, cbc("Note"), in_words(doc.total))
    for note in doc.notes:
        _sub(root, cbc("Note"), note)
    _sub(root, cbc("DocumentCurrencyCode"), cur)
    _sub(root, cbc("LineCountNumeric"), str(len(doc.lines)))
    if doc.billing_reference:
        ref = _sub(_sub(root, cac("BillingReference")), cac("InvoiceDocumentReference"))
        _sub(ref, cbc("ID"), doc.billing_reference[0])
        _sub(ref, cbc("IssueDate"), doc.billing_reference[1].isoformat())
        _sub(ref, cbc("DocumentTypeCode"), "IADE")
    xslt = _sub(root, cac("AdditionalDocumentReference"))
    _sub(xslt, cbc("ID"), doc.uuid)
    _sub(xslt, cbc("IssueDate"), t.strftime("%Y-%m-%d"))
    _sub(xslt, cbc("DocumentType"), "XSLT")
    _sub(_sub(xslt, cac("Attachment")), cbc("EmbeddedDocumentBinaryObject"), xslt_b64(), characterSetCode="UTF-8",
         encodingCode="Base64", filename=f"{doc.number}.xslt", mimeCode="application/xml")
    if doc.earsiv:                   # e-Arşiv: how the document reaches the buyer (electronically)
        send = _sub(root, cac("AdditionalDocumentReference"))
        _sub(send, cbc("ID"), "ELEKTRONIK")
        _sub(send, cbc("IssueDate"), t.strftime("%Y-%m-%d"))
        _sub(send, cbc("DocumentTypeCode"), "SEND_TYPE")
        if doc.internet is not None:
            sale = _sub(root, cac("AdditionalDocumentReference"))
            _sub(sale, cbc("ID"), "INTERNET_SATIS")
            _sub(sale, cbc("IssueDate"), t.strftime("%Y-%m-%d"))
            _sub(sale, cbc("DocumentTypeCode"), "SALES_CHANNEL")
            if doc.internet.payment_agent:
                agent = _sub(root, cac("AdditionalDocumentReference"))
                _sub(agent, cbc("ID"), doc.internet.payment_agent)
                _sub(agent, cbc("IssueDate"), doc.internet.payment_date.isoformat())
                _sub(agent, cbc("DocumentTypeCode"), "ODEME_ARACISI")
    sig = _sub(root, cac("Signature"))
    _sub(sig, cbc("ID"), doc.seller.number, schemeID="VKN_TCKN")
    signatory = _sub(sig, cac("SignatoryParty"))
    _sub(_sub(signatory, cac("PartyIdentification")), cbc("ID"), doc.seller.number,
         schemeID="VKN" if doc.seller.vkn else "TCKN")
    a = doc.seller.address or {}
    saddr = _sub(signatory, cac("PostalAddress"))
    _sub(saddr, cbc("CitySubdivisionName"), a.get("district") or "-")
    _sub(saddr, cbc("CityName"), a.get("city") or "-")
    _sub(_sub(saddr, cac("Country")), cbc("Name"), "Türkiye")
    _sub(_sub(_sub(sig, cac("DigitalSignatureAttachment")), cac("ExternalReference")), cbc("URI"),
         f"#Signature_{doc.number}")
    seller = doc.seller
    if doc.internet is not None and not seller.website:
        seller = Party(**{**seller.__dict__, "website": doc.internet.website})
    _party(root, "AccountingSupplierParty", seller)
    _party(root, "AccountingCustomerParty", doc.buyer)
    if doc.internet is not None and (doc.internet.carrier_name or doc.internet.shipped_on):
        delivery = _sub(root, cac("Delivery"))
        if doc.internet.carrier_name:
            carrier = _sub(delivery, cac("CarrierParty"))
            number = doc.internet.carrier_number or ""
            _sub(_sub(carrier, cac("PartyIdentification")), cbc("ID"), number,
                 schemeID="TCKN" if len(number) == 11 else "VKN")
            _sub(_sub(carrier, cac("PartyName")), cbc("Name"), doc.internet.carrier_name)
            caddr = _sub(carrier, cac("PostalAddress"))
            _sub(caddr, cbc("CitySubdivisionName"), "-")
            _sub(caddr, cbc("CityName"), "-")
            _sub(_sub(caddr, cac("Country")), cbc("Name"), "Türkiye")
        if doc.internet.shipped_on:
            _sub(_sub(delivery, cac("Despatch")), cbc("ActualDespatchDate"), doc.internet.shipped_on.isoformat())
    if doc.internet is not None:
        means = _sub(root, cac("PaymentMeans"))
        _sub(means, cbc("PaymentMeansCode"), PAYMENT_MEANS.get(doc.internet.payment_means, "ZZZ"))
        _sub(means, cbc("PaymentDueDate"), doc.internet.payment_date.isoformat())
        _sub(means, cbc("InstructionNote"), doc.internet.payment_means)
    total = _sub(root, cac("TaxTotal"))
    _money(total, "TaxAmount", doc.tax, cur)
    _tax_subtotal(total, doc.subtotal, doc.tax, doc.tax_rate, cur)
    money = _sub(root, cac("LegalMonetaryTotal"))
    for el, value in (("LineExtensionAmount", doc.subtotal), ("TaxExclusiveAmount", doc.subtotal),
                      ("TaxInclusiveAmount", doc.total), ("AllowanceTotalAmount", 0), ("PayableAmount", doc.total)):
        _money(money, el, value, cur)
    for n, line in enumerate(doc.lines, start=1):
        el = _sub(root, cac("InvoiceLine"))
        _sub(el, cbc("ID"), str(n))
        _sub(el, cbc("InvoicedQuantity"), str(line.quantity), unitCode="C62")
        _money(el, "LineExtensionAmount", line.net, cur)
        lt = _sub(el, cac("TaxTotal"))
        _money(lt, "TaxAmount", line.kdv, cur)
        _tax_subtotal(lt, line.net, line.kdv, doc.tax_rate, cur)
        _sub(_sub(el, cac("Item")), cbc("Name"), line.name)
        _money(_sub(el, cac("Price")), "PriceAmount", line.unit_price, cur)
    return root


def to_bytes(root: etree._Element) -> bytes:
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8")


def text(root: etree._Element, path: str) -> str | None:
    found = root.xpath(path, namespaces=XPATH_NS)
    if not found:
        return None
    node = found[0]
    return node if isinstance(node, str) else node.text
