"""GİB documents of a unit: e-Fatura and e-Arşiv Fatura (SATIS) as TRY invoices leave draft,
IADE returns (by hand or on refunds), their way through the integrator, and the statuses the
invoice shows as `gib: {type, profile, number, uuid, status, messages}`.

- Which document: e-Fatura when the buyer's VKN/TCKN is in the integrator's taxpayer list
  (ProfileID the unit's `efatura_profile`), else e-Arşiv (EARSIVFATURA; a buyer without a
  number is TCKN 11111111111). A return follows its original: an e-Fatura's is TEMELFATURA.
- Numbers: prefix + year (Turkey's) + 9 digits, one gapless sequence per unit and year that
  every document shares, taken under the unit's row lock (core.next_number) in the transaction
  that writes the document; a rolled-back transaction gives it back.
- Sending: the document is `pending` and due at once; it is sent right after the issuing
  transaction commits (core.submit) and by the core's `einvoicing.submit` job while the
  integrator is down (backoff, never dropped). The integrator signs it (its financial seal) and
  the signed XML replaces the unsigned one. e-Fatura: `sent` (delivered to the buyer's alias),
  then `accepted`/`rejected` by a TICARIFATURA buyer within 8 days; e-Arşiv: `sent`, then
  `reported` by the integrator at the next midnight (the `gib.report` job), or `canceled`
  within 7 days of issue. A document GİB's rules refuse is `rejected` with their messages."""
from __future__ import annotations

import uuid as uuidlib
from datetime import datetime, timedelta
from decimal import Decimal

from tortoise.transactions import in_transaction

from models import _lookup as lookup
from models.billing import Invoice
from models.einvoicing import EinvoiceDocument, EinvoiceUnit
from models.intents import PaymentIntent
from models.payments import Customer, Payment
from services import addresses, events, scheduler
from services.billing.invoice_objects import invoice_object
from services.einvoicing import core
from services.einvoicing.gib import ids, integrator, sandbox, ubl, units
from services.errors import DomainError, InvalidState, NotFound, PermissionDenied, ServiceUnavailable, ValidationError
from services.ids import check_id, new_id
from services.principal import Principal
from services.validation import Fields

AUTHORITY = "gib"
STATUSES = ("pending", "sent", "accepted", "rejected", "reported", "canceled")
KDV_RATES = (Decimal(20), Decimal(10), Decimal(1), Decimal(0))
CANCEL_DAYS = 7
RESPONSE_DAYS = 8
REPORT_RETRY = timedelta(minutes=15)


class GibRejected(DomainError):
    status = 400
    code = "gib_rejected"


def gib_unavailable() -> ServiceUnavailable:
    return ServiceUnavailable("The GİB integrator could not be reached; try again shortly", code="gib_unavailable",
                              headers={"Retry-After": "60"})


def gib_of(doc: EinvoiceDocument) -> dict:
    return {"type": doc.type, "profile": (doc.external or {}).get("profile"), "number": doc.number,
            "uuid": doc.uuid, "status": doc.status, "messages": doc.messages or []}


def note_entry(doc: EinvoiceDocument) -> dict:
    return core.note_entry(id=doc.id, kind="return", number=doc.number, amount=doc.amount, tax=doc.tax,
                           authority=AUTHORITY, block=gib_of(doc), reason=doc.reason, created_at=doc.created_at)


def _rate(inv: Invoice) -> Decimal:
    rate = Decimal(str(inv.tax_rate))
    if rate not in KDV_RATES:
        raise ValidationError(f"tax_rate must be one of 20, 10, 1, 0 on a Turkish e-invoice (KDV); this invoice's "
                              f"is {inv.tax_rate}", param="tax_rate", code="gib_kdv_rate")
    return rate


def buyer_address(customer: Customer) -> dict:
    """The customer's `address` as the buyer's PostalAddress (line1 and line2 the street, district
    the ilçe, city the il, state the region); {} without one."""
    a = addresses.of(customer) or {}
    street = ", ".join(v for v in (a.get("line1"), a.get("line2")) if v)
    out = {"street": street, "building_number": a.get("building_number"), "district": a.get("district"),
           "city": a.get("city"), "state": a.get("state"), "postal_code": a.get("postal_code"),
           "country": a.get("country")}
    return {k: v for k, v in out.items() if v}


def buyer_of(customer: Customer) -> ubl.Party:
    """The buyer as the document names it: the customer's Turkish tax identity, or GİB's
    placeholder TCKN 11111111111 for a buyer without one; its address, when it has one."""
    tax = customer.tax_id if isinstance(customer.tax_id, dict) else {}
    name = customer.name or customer.email or customer.phone or customer.id
    value = str(tax.get("value") or "")
    where = buyer_address(customer)
    if tax.get("type") == "tr_vkn" and ids.vkn_valid(value):
        return ubl.Party(name, vkn=value, tax_office=tax.get("tax_office"), address=where, email=customer.email,
                         phone=customer.phone)
    if tax.get("type") == "tr_tckn" and (ids.tckn_valid(value) or value == ids.PLACEHOLDER_TCKN):
        return ubl.Party(name, tckn=value, tax_office=tax.get("tax_office"), address=where, email=customer.email,
                         phone=customer.phone)
    return ubl.Party(name, tckn=ids.PLACEHOLDER_TCKN, address=where, email=customer.email, phone=customer.phone)


def seller_of(unit: EinvoiceUnit) -> ubl.Party:
    s = unit.settings
    return ubl.Party(s["title"], vkn=s.get("vkn"), tckn=s.get("tckn"), tax_office=s["tax_office"],
                     address=s["address"])


def net_for(amount: int, rate: Decimal) -> int:
    """The net whose net + KDV (half-up) is `amount`, when one is (else the nearest)."""
    guess = ubl.half_up(Decimal(amount) * 100 / (100 + rate))
    for net in (guess, guess - 1, guess + 1):
        if net >= 0 and net + ubl.line_kdv(net, rate) == amount:
            return net
    return guess


async def _registration(unit: EinvoiceUnit, buyer: ubl.Party) -> str | None:
    """The buyer's e-Fatura alias, or None (an e-Arşiv buyer)."""
    number = buyer.number
    if not number or number == ids.PLACEHOLDER_TCKN:
        return None
    try:
        found = await integrator.lookup(unit, number, livemode=unit.livemode, secrets=units.secrets_of(unit))
    except integrator.Unreachable:      # e-Fatura or e-Arşiv cannot be decided: nothing is issued, try again
        raise gib_unavailable() from None
    return found.get("alias") if found else None


async def buyer_alias(unit: EinvoiceUnit, customer: Customer) -> str | None:
    """The customer's e-Fatura alias, or None; 503 when the integrator cannot say."""
    return await _registration(unit, buyer_of(customer))


async def _issue(*, unit_id: str, inv: Invoice, kind: str, lines: list[ubl.Line], rate: Decimal, now: datetime,
                 buyer: ubl.Party, alias: str | None, original: EinvoiceDocument | None = None,
                 reason: str | None = None, internet: ubl.InternetSale | None = None,
                 payment_id: str | None = None) -> EinvoiceDocument:
    """One document at the head of the unit's numbering (the caller holds the transaction)."""
    unit = await core.lock_unit(unit_id)
    if kind == "invoice":       # a concurrent finalisation of the same invoice got there first: one document
        existing = await EinvoiceDocument.filter(invoice_id=inv.id, authority=AUTHORITY, kind="invoice") \
            .exclude(status="rejected").first()
        if existing is not None:
            return existing
    if original is not None:    # a return is of its original's kind; an e-Fatura's return is TEMELFATURA
        doc_type = original.type
        profile = "TEMELFATURA" if doc_type == "efatura" else "EARSIVFATURA"
        alias = (original.external or {}).get("alias")
    else:
        doc_type = "efatura" if alias else "earsiv"
        profile = unit.settings["efatura_profile"] if alias else "EARSIVFATURA"
    year = ubl.local(now).year
    seq = await core.next_number(unit, year=year)
    number = units.number_of(unit.settings["prefix"], year, seq)
    document = ubl.Document(
        number=number, uuid=str(uuidlib.uuid4()).upper(), issued_at=now, profile=profile,
        type_code="IADE" if original is not None else "SATIS", seller=seller_of(unit), buyer=buyer, lines=lines,
        tax_rate=rate, internet=internet if doc_type == "earsiv" else None,
        billing_reference=(original.number, ubl.local(original.issued_at).date()) if original is not None else None,
        notes=[f"İade nedeni: {reason}"] if reason and original is not None else [])
    body = ubl.to_bytes(ubl.build(document)).decode("utf-8")
    return await EinvoiceDocument.create(
        id=new_id("gdoc"), merchant_id=inv.merchant_id, livemode=inv.livemode, authority=AUTHORITY, unit_id=unit.id,
        invoice_id=inv.id, payment_id=payment_id, original_id=original.id if original else None,
        kind="return" if original is not None else "invoice", type=doc_type, number=number, uuid=document.uuid,
        seq=seq, previous=unit.chain_head, body=body, currency="TRY", amount=document.total, tax=document.tax,
        reason=reason, status="pending", messages=[], external={"profile": profile, "alias": alias},
        attempts=0, next_attempt_at=now, issued_at=now, created_at=now, updated_at=now)


async def _set_invoice(inv: Invoice, doc: EinvoiceDocument) -> None:
    """The document's state on its invoice, and `invoice.updated` (inside the transaction)."""
    block = gib_of(doc)
    if inv.gib == block:
        return
    await Invoice.filter(id=inv.id).update(gib=block)
    inv.gib = block
    await events.emit(merchant_id=inv.merchant_id, livemode=inv.livemode, type="invoice.updated",
                      obj=invoice_object(inv))


async def own_document(inv: Invoice) -> EinvoiceDocument | None:
    """The invoice's own document: the live one, else the last rejected."""
    docs = await EinvoiceDocument.filter(invoice_id=inv.id, authority=AUTHORITY, kind="invoice").order_by("-seq")
    return next((d for d in docs if d.status != "rejected"), docs[0] if docs else None)


async def finalise(inv: Invoice, *, require_cleared: bool, internet: ubl.InternetSale | None = None,
                   payment_id: str | None = None) -> None:
    """A TRY invoice of a merchant set up with GİB leaves draft: its e-document, sent at once.
    A send (`require_cleared`) of an invoice whose document GİB's rules refused is a 400."""
    if inv.currency != "TRY":
        return
    doc = await own_document(inv)
    if doc is None or doc.status == "rejected":
        unit = await core.unit_of(inv.merchant_id, inv.livemode, AUTHORITY)
        if unit is None:
            return
        rate = _rate(inv)
        customer = await Customer.get(id=inv.customer_id)
        buyer = buyer_of(customer)
        alias = await _registration(unit, buyer)
        lines = [ubl.Line(i["name"], i["quantity"], i["amount"], i["amount"] * i["quantity"]) for i in inv.items]
        now = await core.now_of(inv.merchant_id, inv.livemode)
        async with in_transaction():
            doc = await _issue(unit_id=unit.id, inv=inv, kind="invoice", lines=lines, rate=rate, now=now,
                               buyer=buyer, alias=alias, internet=internet, payment_id=payment_id or inv.payment_id)
            await _set_invoice(inv, doc)
        await core.submit(doc.id, now)
        doc = await EinvoiceDocument.get(id=doc.id)
        inv.gib = (await Invoice.get(id=inv.id)).gib
    if require_cleared and doc.status == "rejected":
        texts = "; ".join(f"{m.get('code')}: {m.get('message')}" for m in doc.messages or [])
        raise GibRejected(f"GİB's rules refused this invoice's e-document {doc.number}, so it cannot be sent: {texts}")


# ---------------------------------------------------------------- the integrator (core's sender)

async def send(doc: EinvoiceDocument, unit: EinvoiceUnit, when: datetime) -> core.Outcome:
    try:
        secrets = units.secrets_of(unit)
    except units.UnitUnreadable as exc:
        return core.Outcome(transient=True, messages=[{"code": exc.code, "message": str(exc)}])
    ans = await integrator.send(unit, doc.body.encode("utf-8"), secrets=secrets, when=when,
                                alias=(doc.external or {}).get("alias"))
    status = ans.get("status")
    if status == "sent" and ans.get("signed"):
        import base64

        return core.Outcome(status="sent", messages=[], body=base64.b64decode(ans["signed"]).decode("utf-8"),
                            external={"sent_at": when.isoformat()})
    if status == "rejected":
        return core.Outcome(status="rejected", messages=[{"code": str(m.get("code") or ""),
                                                          "message": str(m.get("message") or "")}
                                                         for m in ans.get("messages") or []])
    return core.Outcome(transient=True, messages=[
        {"code": "gib_unavailable", "message": "The GİB integrator did not answer; trying again"}])


async def changed(doc: EinvoiceDocument) -> None:
    """Inside the transaction that recorded the new status: the invoice's block or its notes;
    a sent e-Arşiv document waits for its report."""
    if doc.type == "earsiv" and doc.status == "sent":
        due = sandbox.report_time(doc.issued_at)
        await EinvoiceDocument.filter(id=doc.id).update(next_attempt_at=due)
        doc.next_attempt_at = due
    if doc.kind == "invoice":
        inv = await Invoice.get(id=doc.invoice_id)
        current = await own_document(inv)
        if current is None or current.id == doc.id:
            await _set_invoice(inv, doc)
            if doc.payment_id:          # the payment that asked for this invoice shows it too
                if not await Payment.filter(id=doc.payment_id, invoice_id=inv.id).update(gib=gib_of(doc)):
                    await PaymentIntent.filter(id=doc.payment_id, invoice_id=inv.id).update(gib=gib_of(doc))
    else:
        await core.record_note(doc.invoice_id, note_entry(doc))


async def _record(doc: EinvoiceDocument, changes: dict, *, when: list[str] | None = None) -> bool:
    """Moves `doc` (conditionally: from a status in `when`) and tells its invoice; False if it moved first."""
    async with in_transaction():
        q = EinvoiceDocument.filter(id=doc.id)
        if when:
            q = q.filter(status__in=when)
        if not await q.update(**changes):
            return False
        for k, v in changes.items():
            setattr(doc, k, v)
        await changed(doc)
    return True


# ---------------------------------------------------------------- e-Arşiv reports (gib.report)

async def _report_due(scope: scheduler.Scope, until: datetime, limit: int) -> list[tuple[datetime, str]]:
    rows = await scope.apply(EinvoiceDocument.filter(authority=AUTHORITY, type="earsiv", status="sent",
                                                     next_attempt_at__lte=until)) \
        .order_by("next_attempt_at").limit(limit).values_list("next_attempt_at", "id")
    return [(when, doc_id) for when, doc_id in rows]


async def report(doc_id: str, when: datetime) -> str | None:
    """Asks the integrator whether a sent e-Arşiv document was reported to GİB (once: claimed)."""
    lease = when + timedelta(seconds=core.CLAIM_SECONDS)
    if not await EinvoiceDocument.filter(id=doc_id, status="sent", next_attempt_at__lte=when) \
            .update(next_attempt_at=lease):
        return None
    doc = await EinvoiceDocument.get(id=doc_id)
    unit = await EinvoiceUnit.get(id=doc.unit_id)
    try:
        ans = await integrator.report(unit, secrets=units.secrets_of(unit), uuid=doc.uuid, issued_at=doc.issued_at,
                                      when=when)
    except units.UnitUnreadable:
        ans = {"status": "unreachable"}
    if ans.get("status") == "reported":
        await _record(doc, {"status": "reported", "next_attempt_at": None, "updated_at": when}, when=["sent"])
        return f"gib earsiv {doc.number}: reported"
    retry = when + REPORT_RETRY if ans.get("status") == "unreachable" else sandbox.report_time(doc.issued_at)
    await EinvoiceDocument.filter(id=doc.id, status="sent").update(next_attempt_at=max(retry, when + REPORT_RETRY))
    return f"gib earsiv {doc.number}: not reported yet"


# ---------------------------------------------------------------- returns (IADE)

async def issue_return(inv: Invoice, *, amount: int, reason: str, payment_id: str | None = None) -> EinvoiceDocument:
    original = await own_document(inv)
    if original is None or original.status in ("rejected", "pending"):
        raise InvalidState(f"Invoice {inv.id} has no e-document GİB took (it is "
                           f"{original.status if original else 'not an e-invoice'}): nothing to return yet")
    if original.status == "canceled":
        raise InvalidState(f"Invoice {inv.id}'s e-Arşiv document was canceled: nothing to return")
    unit = await core.unit_of(inv.merchant_id, inv.livemode, AUTHORITY)
    if unit is None:
        raise InvalidState("This merchant has no GİB unit in this mode")
    rate = _rate(inv)
    net = net_for(amount, rate)
    customer = await Customer.get(id=inv.customer_id)
    now = await core.now_of(inv.merchant_id, inv.livemode)
    async with in_transaction():
        await Invoice.filter(id=inv.id).select_for_update().get()       # one return at a time per invoice
        returned = sum(await EinvoiceDocument.filter(invoice_id=inv.id, authority=AUTHORITY, kind="return")
                       .exclude(status="rejected").values_list("amount", flat=True))
        if returned + amount > inv.total:
            raise ValidationError(f"amount: only {inv.total - returned} of the invoice's {inv.total} is left to "
                                  f"return", param="amount")
        doc = await _issue(unit_id=unit.id, inv=inv, kind="return", lines=[ubl.Line(reason, 1, net, net)], rate=rate,
                           now=now, buyer=buyer_of(customer), alias=None, original=original, reason=reason,
                           payment_id=payment_id)
        await core.record_note(inv.id, note_entry(doc))
    await core.submit(doc.id, now)
    return await EinvoiceDocument.get(id=doc.id)


async def return_for(*, principal: Principal, invoice_id: str, data) -> dict:
    f = Fields(data or {})
    reason = f.str("reason", required=True, min_len=1, max_len=200)
    inv = await core.get_invoice(principal=principal, invoice_id=invoice_id)
    if inv.currency != "TRY" or await own_document(inv) is None:
        raise InvalidState(f"Invoice {inv.id} is not a Turkish e-invoice (finalise a TRY invoice first)")
    amount = f.int("amount", default=inv.total, min=1, max=inv.total)
    f.reject_unknown()
    doc = await issue_return(inv, amount=amount, reason=reason)
    return note_entry(doc)


async def _refund_note(*, merchant_id: str, livemode: bool, payment_id: str, currency: str, amount: int,
                       reason: str | None) -> dict | None:
    """A refund of a payment that paid a Turkish e-invoice: an IADE for what was refunded."""
    if currency != "TRY":
        return None
    inv = await lookup.first(Invoice, payment_id=payment_id, merchant_id=merchant_id, livemode=livemode)
    if inv is None or inv.currency != "TRY":
        return None
    original = await own_document(inv)
    if original is None or original.status in ("rejected", "pending", "canceled"):
        return None
    returned = sum(await EinvoiceDocument.filter(invoice_id=inv.id, authority=AUTHORITY, kind="return")
                   .exclude(status="rejected").values_list("amount", flat=True))
    amount = min(amount, inv.total - returned)
    if amount <= 0:
        return None
    doc = await issue_return(inv, amount=amount, reason=reason or "İade", payment_id=payment_id)
    return note_entry(doc)


# ---------------------------------------------------------------- cancel, buyer's response

async def cancel(*, principal: Principal, invoice_id: str, data=None) -> Invoice:
    """Cancel the invoice's e-Arşiv document (until 7 days after its issue); an optional `reason`
    is kept in its messages."""
    f = Fields(data or {})
    reason = f.str("reason", max_len=200)
    f.reject_unknown()
    inv = await core.get_invoice(principal=principal, invoice_id=invoice_id)
    doc = await own_document(inv) if inv.currency == "TRY" else None
    if doc is None:
        raise InvalidState(f"Invoice {inv.id} has no Turkish e-document to cancel")
    if doc.type == "efatura":
        raise InvalidState("An e-Fatura cannot be canceled: the buyer rejects it (TICARIFATURA, within 8 days) or "
                           "you issue an IADE return (POST /api/invoices/{id}/returns)", code="gib_not_cancelable")
    if doc.status in ("canceled", "rejected"):
        raise InvalidState(f"The e-Arşiv document {doc.number} is already {doc.status}")
    now = await core.now_of(inv.merchant_id, inv.livemode)
    if now > doc.issued_at + timedelta(days=CANCEL_DAYS):
        raise InvalidState(f"An e-Arşiv document can be canceled until {CANCEL_DAYS} days after its issue; "
                           f"{doc.number} was issued on {ubl.local(doc.issued_at).date().isoformat()}: issue an IADE "
                           f"return instead", code="gib_cancel_window_closed")
    unit = await EinvoiceUnit.get(id=doc.unit_id)
    if doc.status != "pending":
        ans = await integrator.cancel(unit, secrets=units.secrets_of(unit), uuid=doc.uuid, when=now)
        if ans.get("status") != "canceled":
            raise gib_unavailable()
    msg = [{"code": "canceled", "message": f"Canceled on {ubl.local(now).date().isoformat()}"
                                          + (f": {reason}" if reason else "")}]
    if not await _record(doc, {"status": "canceled", "next_attempt_at": None, "messages": msg, "updated_at": now},
                         when=["pending", "sent", "reported"]):
        raise InvalidState(f"The e-Arşiv document {doc.number} changed meanwhile; read the invoice again")
    return await Invoice.get(id=inv.id)


async def respond(*, principal: Principal, data) -> Invoice:
    """Test helper: the buyer of a TICARIFATURA e-Fatura accepts or rejects it (within 8 days)."""
    if principal.livemode:
        raise PermissionDenied("Test helpers work with test keys only: use sk_test_...", code="test_mode_only")
    f = Fields(data)
    invoice_id = f.str("invoice_id", required=True, max_len=64)
    response = f.enum("response", ("accept", "reject"), required=True)
    f.reject_unknown()
    check_id(invoice_id, "invoice_id")
    inv = await lookup.first(Invoice, id=invoice_id, **principal.scope)
    if inv is None:
        raise NotFound(param="invoice_id")
    doc = await own_document(inv) if inv.currency == "TRY" else None
    if doc is None or doc.type != "efatura" or (doc.external or {}).get("profile") != "TICARIFATURA":
        raise InvalidState("Only a TICARIFATURA e-Fatura is accepted or rejected by its buyer", param="invoice_id")
    if doc.status != "sent":
        raise InvalidState(f"The e-Fatura {doc.number} is {doc.status}: the buyer answers a sent one",
                           param="invoice_id")
    now = await core.now_of(inv.merchant_id, inv.livemode)
    if now > doc.issued_at + timedelta(days=RESPONSE_DAYS):
        raise InvalidState(f"The buyer's {RESPONSE_DAYS} days to answer the e-Fatura {doc.number} are over",
                           param="invoice_id", code="gib_response_window_closed")
    status = "accepted" if response == "accept" else "rejected"
    msg = [{"code": f"buyer_{status}", "message": f"The buyer {status} the e-Fatura (KABUL)" if status == "accepted"
            else f"The buyer {status} the e-Fatura (RED)"}]
    if not await _record(doc, {"status": status, "messages": msg, "updated_at": now}, when=["sent"]):
        raise InvalidState(f"The e-Fatura {doc.number} changed meanwhile; read the invoice again")
    return await Invoice.get(id=inv.id)


# ---------------------------------------------------------------- reads

async def print_info(inv: Invoice) -> dict | None:
    """What the PDF of a GİB e-document shows (services.billing.pdf.GibPrint): GİB's logo text,
    the number, the ETTN, the scenario and the QR content GİB's guides give (a JSON of the
    document's fields: VKN/TCKN of both sides, scenario, type, date, number, ETTN, currency,
    the taxable amount and KDV per rate, the totals)."""
    doc = await own_document(inv)
    if doc is None or doc.status == "rejected":
        return None
    unit = await EinvoiceUnit.get(id=doc.unit_id)
    customer = await Customer.get(id=inv.customer_id)
    rate = format(Decimal(str(inv.tax_rate)).normalize(), "f")
    net = doc.amount - doc.tax
    qr = {"vkntckn": unit.settings.get("vkn") or unit.settings.get("tckn"), "avkntckn": buyer_of(customer).number,
          "senaryo": (doc.external or {}).get("profile"), "tip": "SATIS", "tarih": ubl.local(doc.issued_at).date().isoformat(),
          "no": doc.number, "ettn": doc.uuid, "parabirimi": "TRY", "malhizmettoplam": ubl.amount(net),
          f"kdvmatrah({rate})": ubl.amount(net), f"hesaplanankdv({rate})": ubl.amount(doc.tax),
          "vergidahil": ubl.amount(doc.amount), "odenecek": ubl.amount(doc.amount)}
    import json

    return {"title": "e-Arşiv Fatura" if doc.type == "earsiv" else "e-Fatura", "number": doc.number,
            "ettn": doc.uuid, "profile": (doc.external or {}).get("profile") or "",
            "qr": json.dumps(qr, ensure_ascii=False, separators=(",", ":"))}


async def _document(inv: Invoice, doc_id: str) -> tuple[str, str, bytes] | None:
    if doc_id == inv.id:
        doc = await own_document(inv)
    elif doc_id.startswith("gdoc_"):
        doc = await lookup.first(EinvoiceDocument, id=doc_id, invoice_id=inv.id, authority=AUTHORITY)
    else:
        doc = None
    if doc is None:
        return None
    return f"{doc.number}.xml", "application/xml", doc.body.encode("utf-8")


async def _finalise(inv: Invoice, require_cleared: bool) -> None:
    await finalise(inv, require_cleared=require_cleared)


async def _cancel(principal: Principal, inv: Invoice, data) -> Invoice:
    return await cancel(principal=principal, invoice_id=inv.id, data=data)


AUTHORITY_ENTRY = core.Authority(AUTHORITY, finalise=_finalise, refund=_refund_note, document=_document,
                                 prefixes=("gdoc_",), cancel=_cancel)
SENDER = core.Sender(send, changed)


def register_jobs() -> None:
    """GİB as an e-invoicing authority, its sender, and the e-Arşiv report job (app/jobs.py)."""
    core.register(AUTHORITY_ENTRY)
    core.register_sender(AUTHORITY, SENDER)
    scheduler.register(scheduler.JobKind("gib.report", _report_due, report, schedules=False))


