"""Invoices: create (items, tax, gapless numbers), read, list, send (e-mail with the PDF, or a
document message), mark paid, and the PDF behind the unguessable `pdf_url`.

Money in integer minor units: subtotal = sum(amount x quantity); tax = subtotal x tax_rate / 100,
rounded half-up to the currency's minor unit once; total = subtotal + tax. Numbers are
`INV-<year>-<sequence>`; the sequence counts per merchant and mode, is taken in the invoice's
own transaction (a row lock on the counter), and so has no gaps even under concurrent creates.
States: draft -> sent (again allowed) -> paid; draft -> paid. A paid invoice cannot be sent.
A foreign-currency invoice may carry `exchange_rate` (EGP per unit, for its ETA e-invoice), set on
create or while it is a draft (`update_invoice`)."""
from __future__ import annotations

import asyncio
import re
import secrets
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from tortoise.transactions import in_transaction

from models import _lookup as lookup
from models.billing import Invoice, InvoiceCounter, MerchantProfile
from models.core import Merchant
from models.einvoicing import EinvoiceUnit
from models.payments import Customer
from services import events
from services.payments import customers
from services.errors import DomainError, InvalidState, NotFound, ValidationError
from services.ids import check_id, new_id
from services.infra.runtime import runtime
from services.billing.invoice_objects import invoice_object, urls  # noqa: F401 (part of this module's API)
from services.einvoicing.eta import taxes as eta_taxes
from services.money.currencies import LIMITS, check_currency, format_amount, round_minor
from services.pagination import Page, check_limit, paginate
from services.principal import Principal
from services.validation import Fields, check_enum
from services.infra import clock

STATUSES = ("draft", "sent", "paid")
CHANNELS = ("email", "messaging")
LOCALES = ("en", "tr", "ar")
MAX_ITEMS = 100
MAX_QUANTITY = 1_000_000
ITEM_TYPES = ("EGS", "GS1")
_ITEM_CODE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]*")
_UNIT_TYPE = re.compile(r"[A-Za-z0-9]+")
DEFAULT_DUE_DAYS = 14
_AR_PHONE = ("+966", "+971", "+965", "+974", "+20", "+964", "+973", "+968", "+962")


class MessagingFailed(DomainError):
    status = 502
    code = "messaging_send_failed"
    type = "api_error"


class DeliveryFailed(DomainError):
    status = 502
    code = "email_send_failed"
    type = "api_error"


# ---------------------------------------------------------------- input

@dataclass
class Item:
    name: str
    amount: int
    quantity: int
    # the item's code at a tax authority (ETA: EGS, the merchant's code, or GS1) and unit of measure;
    # kept only when given (an ETA e-invoice defaults item_type to EGS and unit_type to EA)
    item_code: str | None = None
    item_type: str | None = None
    unit_type: str | None = None
    # ETA's taxes beside VAT (table tax, withholding, fees), an EGP invoice's only: services.einvoicing.eta.taxes
    taxes: list[dict] | None = None

    def as_dict(self) -> dict:
        out = {"name": self.name, "amount": self.amount, "quantity": self.quantity}
        for k in ("item_code", "item_type", "unit_type", "taxes"):
            if getattr(self, k):
                out[k] = getattr(self, k)
        return out


def parse_tax_rate(value: Any, param: str = "tax_rate") -> Decimal:
    """A percentage from 0 to 100 with at most 2 decimals, as a JSON number or a decimal string."""
    if value is None:
        return Decimal(0)
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValidationError(f"{param} must be a number from 0 to 100", param=param)
    try:
        rate = Decimal(str(value).strip())
    except InvalidOperation:
        raise ValidationError(f"{param} must be a number from 0 to 100", param=param) from None
    if not rate.is_finite() or not Decimal(0) <= rate <= Decimal(100):
        raise ValidationError(f"{param} must be a number from 0 to 100", param=param)
    if rate.as_tuple().exponent < -2 and rate != rate.quantize(Decimal("0.01")):
        raise ValidationError(f"{param} may have at most 2 decimals", param=param)
    return rate.quantize(Decimal("0.01")).normalize() if rate else Decimal(0)


MAX_EXCHANGE_RATE = Decimal(1_000_000)
EXCHANGE_RATE_PATTERN = r"^\s*(?=[0-9.]*[1-9])([0-9]{1,6}(\.[0-9]{1,5})?|1000000(\.0{1,5})?)\s*$"
_EXCHANGE_RATE = re.compile(EXCHANGE_RATE_PATTERN)


def parse_exchange_rate(value: Any, param: str = "exchange_rate") -> Decimal | None:
    """EGP per one unit of the invoice's currency: a decimal string (a JSON number is read as
    written), above 0 and at most 1,000,000, with at most 5 decimals (ETA's); None when not given."""
    if value is None:
        return None
    message = (f"{param} must be a decimal string of EGP per one unit, above 0 with at most 5 decimals "
               "(e.g. \"48.25\")")
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValidationError(message, param=param)
    text = value if isinstance(value, str) else str(value)
    if isinstance(value, float):          # as written, without the exponent repr may use (2e-05)
        text = str(int(value)) if value.is_integer() else format(Decimal(repr(value)), "f")
    if not _EXCHANGE_RATE.match(text):
        raise ValidationError(message, param=param)
    return Decimal(text.strip())


def _fx_text(rate: Decimal | None) -> str | None:
    return None if rate is None else format(rate.normalize(), "f")


def _check_fx(rate: Decimal | None, currency: str) -> None:
    if rate is not None and currency == "EGP":
        raise ValidationError("exchange_rate: an EGP invoice takes no exchange rate (it is EGP per one unit of "
                              "another currency)", param="exchange_rate")


def compute_totals(items: list[Item], tax_rate: Decimal) -> tuple[int, int, int]:
    subtotal = sum(i.amount * i.quantity for i in items)
    if any(i.taxes for i in items):
        # ETA's taxes: each line's taxes as its e-document computes them (5 decimals; the table tax
        # inside the VAT base, withholding subtracted), added up, rounded half-up to the piastre once
        taxed = Decimal(0)
        for i in items:
            net = Decimal(i.amount * i.quantity) / 100
            _items_, _fees, total = eta_taxes.compute(net, tax_rate, "V009", i.taxes or [])
            taxed += total - net
        tax = round_minor(taxed * 100)
        return subtotal, tax, subtotal + tax
    tax = round_minor(Decimal(subtotal) * tax_rate / Decimal(100))
    return subtotal, tax, subtotal + tax


# Characters XML 1.0 cannot carry (C0 controls but tab, line feed, carriage return; DEL; U+FFFE/FFFF).
_NOT_XML_TEXT = re.compile("[\x01-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff]")


def _items(raw: list, currency: str) -> list[Item]:
    out = []
    for n, entry in enumerate(raw):
        f = Fields(entry, f"items[{n}]")
        name = f.str("name", required=True, min_len=1, max_len=200)
        if _NOT_XML_TEXT.search(name):      # every e-invoice (ZATCA, GİB, ETA's PDF) writes it as XML text
            raise ValidationError(f"items[{n}].name must not contain control characters", param=f"items[{n}].name")
        # A line may be small (a fee); the currency table's maximum bounds it and the total.
        amount = f.int("amount", required=True, min=0, max=LIMITS[currency].maximum)
        quantity = f.int("quantity", default=1, min=1, max=MAX_QUANTITY)
        code = f.str("item_code", min_len=1, max_len=100, pattern=_ITEM_CODE)
        kind = f.enum("item_type", ITEM_TYPES)
        unit_type = f.str("unit_type", min_len=1, max_len=10, pattern=_UNIT_TYPE)
        raw_taxes = f.list("taxes", max_items=eta_taxes.MAX_TAXES)
        if raw_taxes and currency != "EGP":
            raise ValidationError(f"items[{n}].taxes: item taxes are ETA's (Egypt), on EGP invoices only",
                                  param=f"items[{n}].taxes")
        taxes = eta_taxes.parse(raw_taxes, f"items[{n}].taxes", max_amount=LIMITS[currency].maximum)
        f.reject_unknown()
        out.append(Item(name, amount, quantity, code, kind, unit_type, taxes or None))
    return out


def locale_of(customer: Customer, merchant_country: str | None = None) -> str:
    """The customer's language: metadata `locale`, else the phone's country, else English."""
    given = (customer.metadata or {}).get("locale") if isinstance(customer.metadata, dict) else None
    if given in LOCALES:
        return given
    phone = (customer.phone or "").replace(" ", "")
    if phone.startswith("+90"):
        return "tr"
    if phone.startswith(_AR_PHONE):
        return "ar"
    return "en"


def _token() -> str:
    return secrets.token_urlsafe(24)


# ---------------------------------------------------------------- numbering

_NEXT_PG = ('WITH c AS (INSERT INTO "invoice_counters" ("id", "value") VALUES ({}, 1) ON CONFLICT ("id") '
            'DO UPDATE SET "value" = "invoice_counters"."value" + 1 RETURNING "value") SELECT "value" FROM c')
_NEXT_SQLITE = ('INSERT INTO "invoice_counters" ("id", "value") VALUES ({}, 1) ON CONFLICT ("id") '
                'DO UPDATE SET "value" = "invoice_counters"."value" + 1 RETURNING "value"')


async def _next_sequence(principal: Principal) -> int:
    """Inside the invoice's transaction: the counter row stays locked until COMMIT, so concurrent
    creates take numbers one after the other, and a rollback gives the number back."""
    db = InvoiceCounter._meta.db
    sql = _NEXT_PG if db.capabilities.dialect == "postgres" else _NEXT_SQLITE
    rows = await lookup.query(InvoiceCounter, sql, [f"{principal.merchant_id}:{principal.mode}"])
    return int(rows[0]["value"])


def number_for(sequence: int, when: datetime) -> str:
    return f"INV-{when.year}-{sequence:06d}"


# ---------------------------------------------------------------- create

async def create_invoice(*, principal: Principal, data: dict) -> Invoice:
    f = Fields(data)
    customer_id = f.str("customer_id", required=True, max_len=64)
    currency = check_currency(f._get("currency", True))
    raw_items = f.list("items", required=True, min_items=1, max_items=MAX_ITEMS)
    due = f.date("due_date")
    f.seen.add("tax_rate")
    rate = parse_tax_rate(data.get("tax_rate"))
    locale = f.enum("locale", LOCALES)
    f.seen.add("metadata")
    f.seen.add("exchange_rate")
    fx = parse_exchange_rate(data.get("exchange_rate"))
    f.reject_unknown()
    _check_fx(fx, currency)
    items = _items(raw_items, currency)
    customer = await _customer(principal, customer_id)
    now = await clock.now_for(principal)
    if due is None:
        due = (now + timedelta(days=DEFAULT_DUE_DAYS)).date()
    elif due < now.date():
        raise ValidationError(f"due_date must not be in the past (today is {now.date().isoformat()})",
                              param="due_date")
    return await create_for(principal=principal, customer=customer, currency=currency, items=items,
                            tax_rate=rate, due_date=due, locale=locale, now=now, exchange_rate=fx)


async def _customer(principal: Principal, customer_id: str) -> Customer:
    try:
        check_id(customer_id, "customer_id")
        return await customers.get_customer(principal=principal, customer_id=customer_id, param="customer_id")
    except NotFound:
        raise ValidationError("customer_id is not a customer of this merchant in this mode",
                              param="customer_id", code="resource_missing") from None


async def create_for(*, principal: Principal, customer: Customer, currency: str, items: list[Item],
                     tax_rate: Decimal, due_date: date, now: datetime, locale: str | None = None,
                     subscription_id: str | None = None, period: tuple[datetime, datetime] | None = None,
                     exchange_rate: Decimal | None = None) -> Invoice:
    """A numbered draft invoice (the caller may already hold a transaction: subscriptions)."""
    subtotal, tax, total = compute_totals(items, tax_rate)
    if currency == "TRY" and await _per_line_kdv(principal):
        if tax_rate not in _KDV_RATES:
            raise ValidationError("tax_rate must be one of 20, 10, 1, 0 on a Turkish e-invoice (KDV)", param="tax_rate",
                                  code="gib_kdv_rate")
        tax = sum(round_minor(Decimal(i.amount * i.quantity) * tax_rate / Decimal(100)) for i in items)
        total = subtotal + tax
    if total > LIMITS[currency].maximum:
        raise ValidationError(f"the invoice total {format_amount(total, currency)} is above the most one payment "
                              f"may be ({format_amount(LIMITS[currency].maximum, currency)})", param="items")
    if locale is None:
        locale = locale_of(customer)
    async with in_transaction():
        sequence = await _next_sequence(principal)
        inv = await Invoice.create(
            id=new_id("inv"), merchant_id=principal.merchant_id, livemode=principal.livemode,
            customer_id=customer.id, subscription_id=subscription_id,
            period_start=period[0] if period else None, period_end=period[1] if period else None,
            sequence=sequence, number=number_for(sequence, now), status="draft", currency=currency,
            items=[i.as_dict() for i in items], subtotal=subtotal, tax_rate=_rate_text(tax_rate), tax=tax,
            total=total, exchange_rate=_fx_text(exchange_rate), due_date=due_date, locale=locale, access_token=_token(), created_at=now, updated_at=now)
        await events.emit(merchant_id=inv.merchant_id, livemode=inv.livemode, type="invoice.created",
                          obj=invoice_object(inv))
    return inv


_KDV_RATES = (Decimal(20), Decimal(10), Decimal(1), Decimal(0))


async def _per_line_kdv(principal: Principal) -> bool:
    """A merchant set up with GİB: its TRY invoices' KDV is each line's, half-up to the kuruş,
    added up, as their e-document computes it (services.einvoicing.gib.ubl.kdv_of)."""
    return await EinvoiceUnit.exists(merchant_id=principal.merchant_id, livemode=principal.livemode,
                                     authority="gib", status="active")


def _rate_text(rate: Decimal) -> str:
    return format(rate.normalize(), "f") if rate else "0"


# ---------------------------------------------------------------- reads

async def get_invoice(*, principal: Principal, invoice_id: str) -> Invoice:
    check_id(invoice_id)
    inv = await lookup.first(Invoice, id=invoice_id, **principal.scope)
    if inv is None:
        raise NotFound()
    return inv


async def list_invoices(*, principal: Principal, limit=None, starting_after: str | None = None,
                        status: str | None = None, customer_id: str | None = None,
                        subscription_id: str | None = None) -> Page:
    qs = Invoice.filter(**principal.scope)
    if status:
        qs = qs.filter(status=check_enum(status, "status", STATUSES))
    if customer_id:
        qs = qs.filter(customer_id=check_id(customer_id, "customer_id"))
    if subscription_id:
        qs = qs.filter(subscription_id=check_id(subscription_id, "subscription_id"))
    return await paginate(qs, limit=check_limit(limit), starting_after=starting_after)


async def invoices_by_ids(*, principal: Principal, ids: list[str]) -> dict[str, Invoice]:
    rows = await Invoice.filter(id__in=list(set(ids)), **principal.scope) if ids else []
    return {i.id: i for i in rows}


# ---------------------------------------------------------------- changes of a draft

async def update_invoice(*, principal: Principal, invoice_id: str, data: dict | None) -> Invoice:
    """`PUT /api/invoices/:id`: a draft's `exchange_rate` (null clears it). Once the invoice left
    draft, or its e-document was made, it is fixed: 400 invalid_state."""
    data = data or {}
    f = Fields(data)
    f.seen.add("exchange_rate")
    f.reject_unknown()
    if "exchange_rate" not in data:
        raise ValidationError("give exchange_rate (or null to clear it)", param="exchange_rate")
    fx = parse_exchange_rate(data["exchange_rate"])
    inv = await get_invoice(principal=principal, invoice_id=invoice_id)
    _check_fx(fx, inv.currency)
    now = await clock.now_for(principal)
    async with in_transaction():
        changes = {"exchange_rate": _fx_text(fx), "updated_at": now}
        if not await Invoice.filter(id=inv.id, status="draft", eta__isnull=True).update(**changes):
            fresh = await Invoice.get(id=inv.id)
            why = "its ETA e-invoice is made" if fresh.eta is not None else f"it is {fresh.status}"
            raise InvalidState(f"Invoice {inv.id} can no longer change: {why}")
        for k, v in changes.items():
            setattr(inv, k, v)
        await events.emit(merchant_id=inv.merchant_id, livemode=inv.livemode, type="invoice.updated",
                          obj=invoice_object(inv))
    return inv


# ---------------------------------------------------------------- moves

async def _move(inv: Invoice, allowed: tuple[str, ...], changes: dict, event: str) -> Invoice:
    async with in_transaction():
        if not await Invoice.filter(id=inv.id, status__in=list(allowed)).update(**changes):
            fresh = await Invoice.get(id=inv.id)
            raise InvalidState(f"Invoice {inv.id} is {fresh.status} now; read it again")
        for k, v in changes.items():
            setattr(inv, k, v)
        await events.emit(merchant_id=inv.merchant_id, livemode=inv.livemode, type=event, obj=invoice_object(inv))
    return inv


async def mark_paid(*, principal: Principal, invoice_id: str, payment_id: str | None = None,
                    data: dict | None = None) -> Invoice:
    Fields(data or {}).reject_unknown()
    inv = await get_invoice(principal=principal, invoice_id=invoice_id)
    if inv.status == "paid":
        raise InvalidState(f"Invoice {inv.id} is already paid (at {inv.paid_at.isoformat()})")
    await _einvoice(inv, require_cleared=False)
    now = await clock.now_for(principal)
    return await _move(inv, ("draft", "sent"), {"status": "paid", "paid_at": now, "payment_id": payment_id,
                                               "updated_at": now}, "invoice.paid")


async def send_invoice(*, principal: Principal, invoice_id: str, data: dict | None) -> Invoice:
    f = Fields(data or {})
    channel = f.enum("channel", CHANNELS, required=True)
    f.reject_unknown()
    inv = await get_invoice(principal=principal, invoice_id=invoice_id)
    if inv.status == "paid":
        raise InvalidState(f"Invoice {inv.id} is paid: a paid invoice cannot be sent")
    await _einvoice(inv, require_cleared=True)      # a standard e-invoice is cleared before it is sent
    customer = await Customer.get(id=inv.customer_id)
    to = await deliver(inv, customer, channel)
    now = await clock.now_for(principal)
    return await _move(inv, ("draft", "sent"), {"status": "sent", "sent_to": to, "sent_via": channel,
                                               "sent_at": now, "updated_at": now}, "invoice.sent")


async def _einvoice(inv: Invoice, *, require_cleared: bool) -> None:
    """An invoice of a merchant set up with a tax authority (a SAR invoice and ZATCA, ...) becomes
    its e-document as it leaves draft."""
    from services.einvoicing import core

    await core.finalise_invoice(inv, require_cleared=require_cleared)


async def deliver(inv: Invoice, customer: Customer, channel: str) -> str:
    """Send the invoice over `channel`; answers the address used. No contact: 400."""
    merchant = await Merchant.get(id=inv.merchant_id)
    link = urls(inv)
    if channel == "email":
        if not customer.email:
            raise ValidationError("This customer has no e-mail address: add one, or send by messaging",
                                  param="channel", code="customer_has_no_email")
        pdf = await render_pdf(inv)
        text = (f"{merchant.name or 'Your supplier'} sent you invoice {inv.number} for "
                f"{format_amount(inv.total, inv.currency)}, due {inv.due_date.isoformat()}.\n\n"
                f"Pay online: {link['hosted_invoice_url']}\nPDF: {link['pdf_url']}\n")
        try:
            await runtime().mailer.send(to=customer.email, subject=f"Invoice {inv.number}", text=text,
                                        attachments=[(f"{inv.number}.pdf", "application/pdf", pdf)])
        except Exception as exc:  # noqa: BLE001 - the mail server's failure, reported
            raise DeliveryFailed(f"The mail server did not accept the invoice ({type(exc).__name__})") from None
        return customer.email
    if not customer.phone:
        raise ValidationError("This customer has no phone number: add one, or send by email",
                              param="channel", code="customer_has_no_phone")
    await _send_document(customer.phone, link["pdf_url"], f"{inv.number}.pdf",
                         f"{merchant.name or 'Invoice'} {inv.number}: {format_amount(inv.total, inv.currency)}, "
                         f"pay at {link['hosted_invoice_url']}")
    return customer.phone


async def _send_document(phone: str, link: str, filename: str, caption: str) -> None:
    """A document message through the messaging platform (Graph-API style), as the CRM sends text."""
    from services.errors import ServiceUnavailable

    rt = runtime()
    cfg = rt.config
    if not cfg.messaging_phone_number_id or not cfg.messaging_access_token:
        raise ServiceUnavailable("Messaging is not configured: set QAFILA_MESSAGING_PHONE_NUMBER_ID and "
                                 "QAFILA_MESSAGING_ACCESS_TOKEN", code="messaging_not_configured")
    url = f"{cfg.messaging_graph_url.rstrip('/')}/{cfg.messaging_graph_version}/{cfg.messaging_phone_number_id}/messages"
    payload = {"messaging_product": "whatsapp", "recipient_type": "individual", "to": phone.lstrip("+").replace(" ", ""),
               "type": "document", "document": {"link": link, "filename": filename, "caption": caption[:1024]}}
    res = await rt.http.post_json(url, json=payload, headers={"Authorization": f"Bearer {cfg.messaging_access_token}"})
    if not 200 <= res.status < 300:
        why = f"HTTP {res.status}" if res.status else f"no answer ({res.error})"
        raise MessagingFailed(f"The messaging platform did not accept the invoice ({why})")


# ---------------------------------------------------------------- the PDF

async def invoice_by_token(token: str) -> Invoice:
    if not isinstance(token, str) or not 20 <= len(token) <= 64 or not token.replace("-", "").replace("_", "").isalnum():
        raise NotFound()
    inv = await lookup.first(Invoice, access_token=token)
    if inv is None:
        raise NotFound()
    return inv


async def render_pdf(inv: Invoice) -> bytes:
    from services.billing import pdf

    merchant = await Merchant.get(id=inv.merchant_id)
    profile = await MerchantProfile.get_or_none(merchant_id=inv.merchant_id)
    customer = await Customer.get(id=inv.customer_id)
    doc = pdf.InvoiceDocument(
        number=inv.number, locale=inv.locale, currency=inv.currency, issued_at=inv.created_at,
        due_date=inv.due_date,
        merchant=pdf.Party(name=(profile.legal_name if profile and profile.legal_name else merchant.name) or merchant.email,
                           address=profile.address if profile else None,
                           tax_number=profile.tax_number if profile else None, email=merchant.email,
                           country=merchant.country),
        customer=pdf.Party(name=customer.name or customer.email or customer.phone or customer.id,
                           email=customer.email, phone=customer.phone),
        items=[pdf.Line(name=i["name"], amount=i["amount"], quantity=i["quantity"], total=i["amount"] * i["quantity"])
               for i in inv.items],
        subtotal=inv.subtotal, tax=inv.tax, tax_rate=inv.tax_rate, total=inv.total, status=inv.status,
        paid_at=inv.paid_at, payment_url=urls(inv)["hosted_invoice_url"] if inv.status != "paid" else None)
    if inv.zatca is not None:                   # a ZATCA e-invoice: its phase-2 QR, Hijri date, digits
        from services.einvoicing.zatca import documents

        info = await documents.print_info(inv)
        if info is not None:
            doc.einvoice = pdf.EInvoice(qr=info[0], standard=info[1], issued_at=info[2])
            doc.digits = info[3]
            a = info[4].address          # the seller as the XML (and the QR) name it
            doc.merchant.name, doc.merchant.tax_number, doc.merchant.country = info[4].name, info[4].vat_number, "SA"
            doc.merchant.address = "\n".join(x for x in (a.street and f"{a.building_number or ''} {a.street}".strip(),
                                                          a.district, " ".join(filter(None, (a.city, a.postal_code))))
                                             if x) or doc.merchant.address
    if inv.gib is not None:                     # a GİB e-document: its logo text, number, ETTN, QR, Turkish amounts
        from services.einvoicing.gib import documents as gib_documents

        info = await gib_documents.print_info(inv)
        if info is not None:
            doc.gib = pdf.GibPrint(**info)
            doc.locale = "tr"
    # 0.1-0.2 s of CPU: off the event loop, so other requests go on meanwhile.
    return await asyncio.to_thread(pdf.render_invoice_pdf, doc)


async def pdf_for_token(token: str) -> tuple[str, bytes]:
    inv = await invoice_by_token(token)
    return inv.number, await render_pdf(inv)
