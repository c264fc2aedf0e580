"""The chain of a unit's documents, and their way to ZATCA.

- `finalise(inv)`: the first time a SAR invoice of an onboarded merchant leaves draft (sent or
  marked paid) it becomes a signed document: under a row lock on the unit (SELECT ... FOR
  UPDATE on PostgreSQL; SQLite runs one transaction at a time) it takes ICV = unit.icv + 1 and
  PIH = unit.last_hash, is built, hashed and signed, and moves the unit's head to itself -- so
  ICVs have no gaps and each PIH is the hash of the document before, however many finalise at
  once. A rolled-back transaction gives the ICV back.
- Simplified documents (customer without a VAT number) are reported by the `zatca.submit`
  scheduler job, due at once and retried with backoff while ZATCA is unreachable: nothing is
  lost, a document stays `pending` until ZATCA answers. Standard documents are cleared at once
  (and by the same job if ZATCA was down); an invoice is sent only once cleared, and the cleared
  XML is the one stored and served.
- Credit (381) and debit (383) notes refer to their invoice (BillingReference) and join the
  same chain.
- The invoice carries `zatca: {type, uuid, icv, hash, status, messages}`, written in the same
  transaction as the document; `invoice.updated` fires whenever that status changes."""
from __future__ import annotations

import base64
import uuid as uuidlib
from datetime import datetime
from decimal import Decimal

from cryptography.exceptions import InvalidTag
from tortoise.transactions import in_transaction

from models import _lookup as lookup
from models.billing import Invoice
from models.einvoicing import ZatcaDocument, ZatcaUnit
from models.payments import Customer
from services import events, scheduler
from services.billing.invoice_objects import invoice_object
from services import addresses, tax_ids
from services.einvoicing import core
from services.einvoicing.zatca import api, keys, signing, simulator, ubl
from services.einvoicing.zatca.units import ZatcaRefused, check_vat, zatca_unavailable
from services.errors import DomainError, InvalidState, ValidationError
from services.ids import new_id
from services.infra import clock
from services.infra.clock import overridden
from services.infra.runtime import runtime
from services.principal import Principal
from services.validation import Fields, one_of

STATUSES = ("pending", "reported", "cleared", "rejected")
VAT_RATES = (Decimal(15), Decimal(0))
backoff = core.backoff            # the core's schedule: 1, 5, 15, 30 min, 1, 2, 4, 6 h, then every 6 h


def _now() -> datetime:
    return overridden() or runtime().clock.now()


async def _now_for(inv: Invoice) -> datetime:
    """The invoice's billing time: its merchant's test clock in test mode (as invoices date things)."""
    return await clock.now_for(Principal(merchant_id=inv.merchant_id, livemode=inv.livemode, kind="secret"))


class UnitUnreadable(DomainError):
    status = 409
    code = "zatca_unit_unreadable"


def _unseal(unit: ZatcaUnit, token: str) -> bytes:
    """A secret of the unit, decrypted; a QAFILA_SECRET_KEY other than the one it was sealed with
    is a clear 409 (onboard again), never a crash of the caller or of the job."""
    try:
        return keys.decrypt(runtime().config.secret_key, token, context=unit.id)
    except (InvalidTag, ValueError):
        raise UnitUnreadable("The ZATCA unit's key cannot be read with the current QAFILA_SECRET_KEY (was it "
                             "changed?): onboard the unit again (POST /api/einvoicing/zatca/onboard)") from None


def zatca_of(doc: ZatcaDocument) -> dict:
    return {"type": doc.type, "uuid": doc.uuid, "icv": doc.icv, "hash": doc.hash, "status": doc.status,
            "messages": doc.messages or []}


async def _unit(merchant_id: str, livemode: bool) -> ZatcaUnit | None:
    return await lookup.first(ZatcaUnit, merchant_id=merchant_id, livemode=livemode, status="onboarded")


def buyer_address(customer: Customer) -> ubl.Address:
    """The customer's `address` as the buyer's PostalAddress of a standard invoice (line1 the
    StreetName, line2 the AdditionalStreetName, district the CitySubdivisionName, state the
    CountrySubentity); Saudi Arabia's (no field) without one."""
    a = addresses.of(customer) or {}
    return ubl.Address(street=a.get("line1"), building_number=a.get("building_number"), district=a.get("district"),
                       city=a.get("city"), postal_code=a.get("postal_code"), country=a.get("country") or "SA",
                       state=a.get("state"), additional_street=a.get("line2"))


def _buyer(customer: Customer) -> tuple[ubl.Party, bool]:
    """The buyer and whether the document is simplified (the customer has no VAT number); the
    buyer of a standard (B2B) invoice with its address."""
    vat = tax_ids.of_customer(customer.tax_id, customer.metadata, "sa_vat")
    if vat:           # `tax_id` (sa_vat) was checked when set; `metadata.vat_number` of older customers here
        check_vat(vat, "customer.tax_id" if customer.tax_id else "customer.metadata.vat_number")
    name = customer.name or customer.email or customer.phone or customer.id
    if vat is None:
        return ubl.Party(name=name), True
    return ubl.Party(name=name, vat_number=vat, address=buyer_address(customer)), False


def _rate(inv: Invoice) -> Decimal:
    rate = Decimal(inv.tax_rate)
    if rate not in VAT_RATES:
        raise one_of("tax_rate", ("15", "0"), code="zatca_vat_rate",
                     context=f"on a Saudi e-invoice (0: out of scope); this invoice's is {inv.tax_rate}")
    return rate


async def _issue(*, unit_id: str, inv: Invoice, kind: str, lines: list[ubl.Line], subtotal: int, tax: int,
                 total: int, rate: Decimal, reason: str | None = None) -> ZatcaDocument:
    """Sign one document at the head of the unit's chain (the caller holds the transaction)."""
    unit = await ZatcaUnit.filter(id=unit_id).select_for_update().get()
    if kind == "invoice":       # a concurrent finalisation of the same invoice got there first: one document
        existing = await ZatcaDocument.filter(invoice_id=inv.id, kind="invoice").first()
        if existing is not None:
            return existing
    customer = await Customer.get(id=inv.customer_id)
    buyer, simplified = _buyer(customer)
    now = await _now_for(inv)
    icv = unit.icv + 1
    number = inv.number
    if kind != "invoice":
        n = await ZatcaDocument.filter(invoice_id=inv.id, kind=kind).count()
        number = f"{inv.number}-{'C' if kind == 'credit_note' else 'D'}{n + 1}"
    doc = ubl.Document(
        number=number, uuid=str(uuidlib.uuid4()), issued_at=now, kind=kind, simplified=simplified,
        currency=inv.currency, icv=icv, pih=unit.last_hash,
        seller=ubl.Party(unit.organization_name, unit.vat_number, ubl.Address(**(unit.address or {}))),
        buyer=buyer, lines=lines, subtotal=subtotal, tax=tax, total=total, tax_rate=rate,
        billing_reference=inv.number if kind != "invoice" else None, reason=reason)
    key = keys.load_private(_unseal(unit, unit.private_key_enc))
    cert = simulator.certificate_of(unit.token)
    signed = signing.sign(doc, private_key=key, cert=cert, signing_time=now)
    row = await ZatcaDocument.create(
        id=new_id("zdoc"), merchant_id=inv.merchant_id, livemode=inv.livemode, unit_id=unit.id, invoice_id=inv.id,
        kind=kind, type="simplified" if simplified else "standard", number=number, uuid=doc.uuid, icv=icv,
        pih=unit.last_hash, hash=signed.hash, xml=signed.xml.decode("utf-8"), amount=total, tax=tax, reason=reason,
        status="pending", messages=[], attempts=0, next_attempt_at=now, created_at=now, updated_at=now)
    await ZatcaUnit.filter(id=unit.id).update(icv=icv, last_hash=signed.hash, updated_at=now)
    return row


async def _set_invoice(inv: Invoice, doc: ZatcaDocument) -> None:
    """Copy the document's state onto its invoice and tell the merchant (inside the transaction)."""
    block = zatca_of(doc)
    if inv.zatca == block:
        return
    await Invoice.filter(id=inv.id).update(zatca=block)
    inv.zatca = block
    await events.emit(merchant_id=inv.merchant_id, livemode=inv.livemode, type="invoice.updated",
                      obj=invoice_object(inv))


async def finalise(inv: Invoice, *, require_cleared: bool) -> None:
    """Make `inv` an e-invoice if it is one (SAR, onboarded merchant), once; for a send
    (`require_cleared`), a standard invoice must be cleared first."""
    if inv.currency != "SAR":
        return
    doc = await lookup.first(ZatcaDocument, invoice_id=inv.id, kind="invoice")
    if doc is None:
        unit = await _unit(inv.merchant_id, inv.livemode)
        if unit is None:
            return
        rate = _rate(inv)
        lines = [ubl.Line(i["name"], i["quantity"], i["amount"], i["amount"] * i["quantity"]) for i in inv.items]
        async with in_transaction():
            doc = await _issue(unit_id=unit.id, inv=inv, kind="invoice", lines=lines, subtotal=inv.subtotal,
                               tax=inv.tax, total=inv.total, rate=rate)
            await _set_invoice(inv, doc)
    if doc.type == "standard" and doc.status == "pending":
        await submit(doc.id, await _now_for(inv))
        doc = await ZatcaDocument.get(id=doc.id)
        inv.zatca = (await Invoice.get(id=inv.id)).zatca
    if require_cleared and doc.type == "standard":
        _require_cleared(doc)


def _require_cleared(doc: ZatcaDocument) -> None:
    if doc.status == "cleared":
        return
    if doc.status == "rejected":
        texts = "; ".join(f"{m['code']}: {m['message']}" for m in doc.messages or [])
        raise ZatcaRefused(f"ZATCA rejected this standard invoice, so it cannot be sent: {texts}",
                           code="zatca_rejected")
    raise zatca_unavailable()


# ---------------------------------------------------------------- ZATCA

async def submit(doc_id: str, when: datetime) -> str | None:
    """Report (simplified) or clear (standard) one pending document, once: a claim (a conditional
    update of next_attempt_at) keeps two processes from sending it together. Answers a summary,
    or None when the document was not due any more."""
    if not await core.claim(ZatcaDocument, doc_id, when):
        return None
    doc = await ZatcaDocument.get(id=doc_id)
    unit = await ZatcaUnit.get(id=doc.unit_id)
    try:
        secret = _unseal(unit, unit.secret_enc).decode()
    except UnitUnreadable as exc:       # retried with backoff: the merchant re-onboards, nothing is lost
        changes = {"attempts": doc.attempts + 1, "next_attempt_at": when + backoff(doc.attempts + 1),
                   "messages": [{"type": "WARNING", "code": exc.code, "category": "", "message": str(exc)}],
                   "updated_at": when}
        await ZatcaDocument.filter(id=doc.id).update(**changes)
        return f"{doc.kind} {doc.number} (ICV {doc.icv}): {exc.code}; retry later"
    path = "/invoices/clearance/single" if doc.type == "standard" else "/invoices/reporting/single"
    body = {"invoiceHash": doc.hash, "uuid": doc.uuid,
            "invoice": base64.b64encode(doc.xml.encode("utf-8")).decode("ascii")}
    ans = await api.call(path, livemode=doc.livemode, body=body, authorization=api.basic(unit.token, secret))
    now = when
    changes: dict = {"attempts": doc.attempts + 1, "submitted_at": now, "updated_at": now}
    if ans.transient:
        changes["next_attempt_at"] = now + backoff(doc.attempts + 1)
        changes["messages"] = [{"type": "WARNING", "code": "zatca_unavailable", "category": "",
                                "message": f"ZATCA did not answer (attempt {doc.attempts + 1}: "
                                           f"{ans.error or 'HTTP ' + str(ans.status)}); trying again"}]
        outcome = f"ZATCA unavailable; retry at {changes['next_attempt_at'].isoformat()}"
    elif ans.status in (200, 202) and (ans.body.get("reportingStatus") == "REPORTED"
                                       or ans.body.get("clearanceStatus") == "CLEARED"):
        changes.update(status="cleared" if doc.type == "standard" else "reported", next_attempt_at=None,
                       messages=api.messages(ans.body))
        cleared = ans.body.get("clearedInvoice")
        if doc.type == "standard" and isinstance(cleared, str) and cleared:
            changes["xml"] = base64.b64decode(cleared).decode("utf-8")
        outcome = changes["status"]
    else:
        changes.update(status="rejected", next_attempt_at=None, messages=api.messages(ans.body))
        outcome = "rejected"
    async with in_transaction():
        await ZatcaDocument.filter(id=doc.id).update(**changes)
        for k, v in changes.items():
            setattr(doc, k, v)
        if doc.kind == "invoice":
            inv = await Invoice.get(id=doc.invoice_id)
            await _set_invoice(inv, doc)
        else:
            await core.record_note(doc.invoice_id, note_entry(doc))
    return f"{doc.kind} {doc.number} (ICV {doc.icv}): {outcome}"


_due = core.due_reader(ZatcaDocument)


def register_jobs() -> None:
    """ZATCA's job kind and its place in the e-invoicing core, registered when the app starts
    (app/jobs.py)."""
    scheduler.register(scheduler.JobKind("zatca.submit", _due, submit))
    core.register(AUTHORITY)


# ---------------------------------------------------------------- notes and reads

async def issue_note(*, principal: Principal, invoice_id: str, kind: str, data: dict) -> ZatcaDocument:
    """A credit note (refund) or debit note on an e-invoice: `amount` (minor units, VAT
    included) and `reason`. The VAT inside is taken out at the invoice's rate, half-up."""
    f = Fields(data)
    reason = f.str("reason", required=True, min_len=1, max_len=200)
    inv = await core.get_invoice(principal=principal, invoice_id=invoice_id)
    original = await lookup.first(ZatcaDocument, invoice_id=inv.id, kind="invoice")
    if original is None:
        raise InvalidState(f"Invoice {inv.id} is not an e-invoice (finalise it first: send it or mark it paid)")
    if original.status == "rejected":
        raise InvalidState(f"ZATCA rejected invoice {inv.id}; a note cannot amend it")
    amount = f.int("amount", default=inv.total, min=1, max=inv.total if kind == "credit_note" else 10 ** 15)
    f.reject_unknown()
    if kind == "credit_note":
        credited = sum(await ZatcaDocument.filter(invoice_id=inv.id, kind="credit_note").values_list("amount", flat=True))
        if credited + amount > inv.total:
            raise ValidationError(f"amount: only {inv.total - credited} of the invoice's {inv.total} is left to credit",
                                  param="amount")
    return await issue_amount_note(inv, kind=kind, amount=amount, reason=reason)


async def credit_for_refund(*, merchant_id: str, livemode: bool, payment_id: str, currency: str, amount: int,
                            reason: str | None) -> ZatcaDocument | None:
    """A refund of a payment that paid an e-invoice: a credit note for what was refunded (at most
    what is left to credit). Called after the refund committed; None when there is nothing to do."""
    inv = await lookup.first(Invoice, payment_id=payment_id, merchant_id=merchant_id, livemode=livemode)
    if inv is None or inv.currency != currency:
        return None
    original = await lookup.first(ZatcaDocument, invoice_id=inv.id, kind="invoice")
    if original is None or original.status == "rejected":
        return None
    credited = sum(await ZatcaDocument.filter(invoice_id=inv.id, kind="credit_note").values_list("amount", flat=True))
    amount = min(amount, inv.total - credited)
    if amount <= 0:
        return None
    return await issue_amount_note(inv, kind="credit_note", amount=amount, reason=reason or "Refund")


async def _refund_note(**kw) -> dict | None:
    doc = await credit_for_refund(**kw)
    return note_entry(doc) if doc is not None else None


async def issue_amount_note(inv: Invoice, *, kind: str, amount: int, reason: str) -> ZatcaDocument:
    rate = _rate(inv)
    net = int((Decimal(amount) * 100 / (100 + rate)).quantize(Decimal(1), rounding="ROUND_HALF_UP"))
    tax = amount - net
    unit = await _unit(inv.merchant_id, inv.livemode)
    if unit is None:
        raise InvalidState("This merchant has no onboarded ZATCA unit in this mode")
    async with in_transaction():
        doc = await _issue(unit_id=unit.id, inv=inv, kind=kind, lines=[ubl.Line(reason, 1, net, net)],
                           subtotal=net, tax=tax, total=amount, rate=rate, reason=reason)
        await core.record_note(inv.id, note_entry(doc))
    if doc.type == "standard":
        await submit(doc.id, await _now_for(inv))
        doc = await ZatcaDocument.get(id=doc.id)
    return doc


def digits_of(locale: str | None) -> str:
    """BCP 47 numbering-system extension: "ar-SA-u-nu-arab" asks for Arabic-Indic digits."""
    parts = (locale or "").lower().split("-")
    if "u" in parts:
        ext = parts[parts.index("u") + 1:]
        if "nu" in ext and ext.index("nu") + 1 < len(ext):
            return ext[ext.index("nu") + 1]
    return "latn"


async def print_info(inv: Invoice) -> tuple[str, bool, datetime, str, ubl.Party] | None:
    """What the PDF of an e-invoice shows: (QR payload, standard?, issue time in Saudi time,
    digits, the seller as the XML names it), from the stored (cleared) XML; None for an invoice
    that is not an e-invoice."""
    doc = await lookup.first(ZatcaDocument, invoice_id=inv.id, kind="invoice")
    if doc is None:
        return None
    unit = await ZatcaUnit.get(id=doc.unit_id)
    parts = signing.read(doc.xml.encode("utf-8"))
    qr = ubl.text(parts.root, "cac:AdditionalDocumentReference[cbc:ID='QR']/cac:Attachment/"
                              "cbc:EmbeddedDocumentBinaryObject", signing.NS_ALL)
    issued = datetime.fromisoformat(f"{ubl.text(parts.root, 'cbc:IssueDate')}T{ubl.text(parts.root, 'cbc:IssueTime')}")
    seller = ubl.Party(unit.organization_name, unit.vat_number, ubl.Address(**(unit.address or {})))
    return qr or "", doc.type == "standard", issued.replace(tzinfo=ubl.KSA), digits_of(unit.locale), seller


def note_object(d: ZatcaDocument) -> dict:
    return {"id": d.id, "object": "zatca_document", "kind": d.kind, "invoice_id": d.invoice_id, "number": d.number,
            "amount": d.amount, "tax": d.tax, "reason": d.reason, **zatca_of(d), "livemode": d.livemode,
            "created_at": d.created_at.isoformat()}


def note_entry(d: ZatcaDocument) -> dict:
    """The note as its invoice lists it (services.einvoicing.core.note_entry)."""
    return core.note_entry(id=d.id, kind=d.kind, number=d.number, amount=d.amount, tax=d.tax, authority="zatca",
                           block=zatca_of(d), reason=d.reason, created_at=d.created_at)


async def _document(inv: Invoice, doc_id: str) -> tuple[str, str, bytes] | None:
    """The XML of the invoice's own document (`doc_id` the invoice's id) or of one of its notes."""
    if doc_id == inv.id:
        doc = await lookup.first(ZatcaDocument, invoice_id=inv.id, kind="invoice")
    else:
        doc = await lookup.first(ZatcaDocument, id=doc_id, invoice_id=inv.id)
    if doc is None:
        return None
    return f"{doc.number}.xml", "application/xml", doc.xml.encode("utf-8")


async def _finalise(inv: Invoice, require_cleared: bool) -> None:
    await finalise(inv, require_cleared=require_cleared)


AUTHORITY = core.Authority("zatca", finalise=_finalise, refund=_refund_note, document=_document, prefixes=("zdoc_",))
