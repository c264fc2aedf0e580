"""ETA e-invoices (B2B): the document of an invoice whose customer has an Egyptian tax id
(`tax_id.type` "eg_rin"), its credit and debit notes, their submission and status, cancellation.
An invoice in another currency than EGP is one too (ETA takes any currency): each line's
`unitValue` gives the amount sold in its currency, the rate (EGP per unit, the invoice's
`exchange_rate`, else the merchant's CRM rate) and the amount in EGP, and every total is in EGP.

- `finalise(inv)`: the first time such an invoice leaves draft (sent or marked paid) it becomes
  an ETA document (`documentType` "I", version 1.0): under a row lock on the unit it takes the
  unit's next number (`seq`, gapless), is built with ETA's decimals (5), serialized in ETA's
  canonical form, signed (CAdES-BES, `signatures[0]`, type "I") and stored as submitted, pending;
  the invoice's `eta` block is written in the same transaction. It is submitted at once after
  the commit (services.einvoicing.core.submit) and by the core's `einvoicing.submit` job while
  ETA is unreachable: never dropped.
- ETA answers in two steps: the submission (a document with a bad structure is `rejected`, else
  ETA gives its uuid and long id: `submitted`) and the validation (`valid`, or `invalid` with
  ETA's errors: path and message). A valid document can be cancelled within ETA's window.
- Credit (C) and debit (D) notes refer to their original (`references`: its ETA uuid) and are
  listed in the invoice's `notes`; a refund of a payment that paid the invoice makes a credit
  note."""
from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import orjson
from tortoise.transactions import in_transaction

from models import _lookup as lookup
from models.billing import Invoice, MerchantProfile
from models.einvoicing import EinvoiceDocument, EinvoiceUnit
from models.payments import Customer
from services import events
from services.billing.invoice_objects import invoice_object
from services.crm import reports as crm_reports
from services.einvoicing import core
from services.einvoicing.eta import api, canonical, signing, taxes, units
from services.errors import DomainError, InvalidState, ServiceUnavailable, ValidationError
from services.ids import new_id
from services.money.currencies import exponent
from services.principal import Principal
from services.timestamps import iso
from services.validation import Fields

AUTHORITY = "eta"
PREFIX = "edoc"
VERSION = "1.0"
PLACES = Decimal("0.00001")          # ETA: amounts with up to 5 decimals
VAT_SUBTYPES = {Decimal(14): "V009", Decimal(0): "V003"}     # T1: general sales at 14%; exempt at 0
ITEM_TYPES = ("EGS", "GS1")
KINDS = {"invoice": "I", "credit_note": "C", "debit_note": "D"}
ADDRESS_KEYS = ("governate", "region_city", "street", "building_number")
# another authority's currency: an invoice in it of a merchant set up with that authority is its document
HOME_OF = {"SAR": "zatca", "TRY": "gib"}


class EtaRefused(DomainError):
    status = 400
    code = "eta_refused"


def eta_unavailable() -> ServiceUnavailable:
    return ServiceUnavailable("ETA's e-invoicing API could not be reached; try again shortly",
                              code="eta_unavailable", headers={"Retry-After": "30"})


def money(minor: int | Decimal) -> Decimal:
    """Minor units of EGP (piastres) as ETA's amount, 5 decimals."""
    return (Decimal(minor) / 100).quantize(PLACES)


def q(d: Decimal) -> Decimal:
    return d.quantize(PLACES, rounding="ROUND_HALF_UP")


# ---------------------------------------------------------------- the block on the invoice

def status_of(doc: EinvoiceDocument) -> str:
    """pending (not yet accepted), submitted (accepted, not validated), valid, invalid, rejected, cancelled."""
    if doc.status == "pending":
        return "submitted" if (doc.external or {}).get("submission_id") else "pending"
    return doc.status


def eta_of(doc: EinvoiceDocument) -> dict:
    ext = doc.external or {}
    return {"document_id": doc.id, "type": doc.type, "uuid": ext.get("uuid"), "long_id": ext.get("long_id"),
            "submission_id": ext.get("submission_id"), "internal_id": doc.number, "status": status_of(doc),
            "errors": [m for m in doc.messages or [] if m.get("path") is not None]}


def note_entry(doc: EinvoiceDocument) -> dict:
    return core.note_entry(id=doc.id, kind=doc.kind, number=doc.number, amount=doc.amount, tax=doc.tax,
                           authority=AUTHORITY, block=eta_of(doc), reason=doc.reason, created_at=doc.created_at)


def note_object(doc: EinvoiceDocument) -> dict:
    """A note as POST /api/invoices/:id/credit-notes|debit-notes answers it."""
    return {"id": doc.id, "object": "eta_document", "kind": doc.kind, "invoice_id": doc.invoice_id,
            "number": doc.number, "amount": doc.amount, "tax": doc.tax, "reason": doc.reason, "eta": eta_of(doc),
            "livemode": doc.livemode, "created_at": iso(doc.created_at)}


async def _set_invoice(inv_id: str, doc: EinvoiceDocument) -> None:
    block = eta_of(doc)
    inv = await Invoice.filter(id=inv_id).select_for_update().get()
    if inv.eta == block:
        return
    await Invoice.filter(id=inv.id).update(eta=block)
    inv.eta = block
    await events.emit(merchant_id=inv.merchant_id, livemode=inv.livemode, type="invoice.updated",
                      obj=invoice_object(inv))


async def changed(doc: EinvoiceDocument) -> None:
    """The core recorded a new state of `doc` (inside its transaction): the invoice or its note list."""
    if doc.kind == "invoice":
        await _set_invoice(doc.invoice_id, doc)
    else:
        await core.record_note(doc.invoice_id, note_entry(doc))


# ---------------------------------------------------------------- building

def _tax_of(inv: Invoice) -> Decimal:
    rate = Decimal(inv.tax_rate or "0")
    if rate not in VAT_SUBTYPES:
        raise ValidationError("tax_rate: an ETA e-invoice takes VAT (T1) at 14% (V009) or 0 (V003)",
                              param="tax_rate")
    return rate


def receiver_address(customer: Customer) -> dict:
    """The customer's `address` as ETA's receiver address (state -> governate, city -> regionCity,
    line1 -> street, building_number -> buildingNumber, postal_code -> postalCode, line2 ->
    additionalInformation, country, EG if none); for a customer without one, its metadata
    `eta_governate`, `eta_region_city`, `eta_street`, `eta_building_number` (set before addresses)."""
    a = customer.address if isinstance(customer.address, dict) and any(customer.address.values()) else None
    meta = customer.metadata or {}
    if a is None and any(meta.get(f"eta_{k}") for k in ADDRESS_KEYS):
        src = {k: meta.get(f"eta_{k}") for k in ADDRESS_KEYS}
        names = {k: f"metadata.eta_{k}" for k in ADDRESS_KEYS}
    else:
        ours = dict(zip(ADDRESS_KEYS, ("state", "city", "line1", "building_number")))
        src = {k: (a or {}).get(name) for k, name in ours.items()}
        names = {k: f"address.{name}" for k, name in ours.items()}
    missing = [names[k] for k in ADDRESS_KEYS if not str(src.get(k) or "").strip()]
    if missing:
        raise ValidationError(f"customer_id: an ETA e-invoice needs the customer's address ({', '.join(missing)} "
                              "missing): set the customer's address (state, city, line1, building_number)",
                              param="customer_id", code="customer_address_missing")
    out = {"country": (a or {}).get("country") or "EG", "governate": str(src["governate"]),
           "regionCity": str(src["region_city"]), "street": str(src["street"]),
           "buildingNumber": str(src["building_number"])}
    if a is not None and a.get("postal_code"):
        out["postalCode"] = a["postal_code"]
    if a is not None and a.get("line2"):
        out["additionalInformation"] = a["line2"]
    return out


def item_code(item: dict, rin: str, param: str, default: str | None = None) -> tuple[str, str, str]:
    """(itemType, itemCode, unitType) of an invoice line (its own code, else the unit's
    `default_item_code`); EGS codes read EG-<issuer RIN>-<code>."""
    code = str(item.get("item_code") or default or "").strip()
    if not code:
        raise ValidationError(f"{param}.item_code is required on an ETA e-invoice (the merchant's EGS code, or a "
                              "GS1 code with item_type GS1)", param=f"{param}.item_code")
    kind = item.get("item_type") or "EGS"
    if kind == "EGS" and not code.startswith("EG-"):
        code = f"EG-{rin}-{code}"
    return kind, code, item.get("unit_type") or "EA"


def issuer(unit: EinvoiceUnit) -> dict:
    s = unit.settings
    a = s["branch"]["address"]
    return {"address": {"branchID": s["branch"]["id"], "country": "EG", "governate": a["governate"],
                        "regionCity": a["region_city"], "street": a["street"], "buildingNumber": a["building_number"]},
            "type": "B", "id": s["rin"], "name": s["name"]}


def line(description: str, kind: str, code: str, unit_type: str, quantity: int, unit_minor: int,
         rate: Decimal, item_taxes: list[dict] | None = None, *, currency: str = "EGP",
         fx: Decimal | None = None) -> dict:
    """One invoice line: VAT (T1) at `rate` and the item's other taxes (services.einvoicing.eta.taxes).
    In another currency (`fx`: EGP per unit), `unitValue` carries the amount sold, the rate and
    amountEGP = amountSold x rate (half-up, 5 decimals); everything else is in EGP, from amountEGP."""
    if currency == "EGP":
        price = money(unit_minor)
        unit_value = {"currencySold": "EGP", "amountEGP": price}
    else:
        sold = Decimal(unit_minor).scaleb(-exponent(currency)).quantize(PLACES)
        price = q(sold * fx)
        unit_value = {"currencySold": currency, "amountEGP": price, "amountSold": sold,
                      "currencyExchangeRate": fx.quantize(PLACES)}
    sales = q(price * quantity)
    net = sales
    taxable, fees, total = taxes.compute(net, rate, VAT_SUBTYPES[rate], item_taxes or [])
    return {"description": description, "itemType": kind, "itemCode": code, "unitType": unit_type,
            "quantity": Decimal(quantity), "internalCode": code[-50:],
            "salesTotal": sales, "total": total, "valueDifference": money(0), "totalTaxableFees": q(fees),
            "netTotal": net, "itemsDiscount": money(0),
            "unitValue": unit_value,
            "discount": {"rate": Decimal(0), "amount": money(0)},
            "taxableItems": taxable}


def document(*, unit: EinvoiceUnit, receiver: dict, kind: str, number: str, issued: datetime, lines: list[dict],
             references: list[str]) -> dict:
    sales = sum((ln["salesTotal"] for ln in lines), Decimal(0))
    net = sum((ln["netTotal"] for ln in lines), Decimal(0))
    per_type: dict[str, Decimal] = {}
    for ln in lines:
        for t in ln["taxableItems"]:
            per_type[t["taxType"]] = per_type.get(t["taxType"], Decimal(0)) + t["amount"]
    order = ["T1", *taxes.TYPES]
    tax_totals = [{"taxType": k, "amount": q(per_type[k])} for k in order if k in per_type]
    total = sum((ln["total"] for ln in lines), Decimal(0))
    doc = {"issuer": issuer(unit), "receiver": receiver, "documentType": KINDS[kind], "documentTypeVersion": VERSION,
           "dateTimeIssued": issued.strftime("%Y-%m-%dT%H:%M:%SZ"),
           "taxpayerActivityCode": unit.settings["activity_code"], "internalID": number}
    if references:
        doc["references"] = references
    doc.update({"invoiceLines": lines, "totalDiscountAmount": money(0), "totalSalesAmount": q(sales),
                "netAmount": q(net), "taxTotals": tax_totals,
                "totalAmount": q(total), "extraDiscountAmount": money(0), "totalItemsDiscountAmount": money(0)})
    return doc


def signed_body(doc: dict, unit: EinvoiceUnit, when: datetime) -> str:
    """The document as submitted: its canonical text signed, in `signatures` (type I)."""
    value = signing.sign(canonical.serialize(doc), units.material_of(unit), signing_time=when)
    return canonical.dumps({**doc, "signatures": [{"signatureType": "I", "value": value}]})


async def _receiver(inv: Invoice) -> dict | None:
    customer = await Customer.get(id=inv.customer_id)
    tax = customer.tax_id or {}
    if tax.get("type") != "eg_rin":
        return None
    return {"address": receiver_address(customer), "type": "B", "id": str(tax.get("value")),
            "name": customer.name or str(tax.get("value"))}


async def exchange_rate(inv: Invoice) -> Decimal | None:
    """EGP per one unit of a foreign-currency invoice (None for EGP): its `exchange_rate`, else the
    merchant's rate for the pair on the day it leaves draft, from the rates the CRM reports use
    (the linked CRM company's, else the reference rates), half-up to ETA's 5 decimals. None known:
    400 naming `currency`, nothing written (the invoice stays a draft)."""
    if inv.currency == "EGP":
        return None
    if inv.exchange_rate:
        return Decimal(inv.exchange_rate)
    profile = await MerchantProfile.get_or_none(merchant_id=inv.merchant_id)
    on = (await core.now_of(inv.merchant_id, inv.livemode)).date()
    found = await crm_reports.rate_on(company_id=profile.crm_company_id if profile else None, base=inv.currency,
                                      quote="EGP", on=on)
    rate = q(found[0]) if found is not None else None
    if rate is None or rate <= 0:
        raise ValidationError(f"no EGP rate for {inv.currency}: give exchange_rate", param="currency",
                              code="exchange_rate_missing")
    return rate


def _rate_text(rate: Decimal) -> str:
    return format(rate.normalize(), "f")


async def _issue(*, unit_id: str, inv: Invoice, kind: str, lines: list[dict], amount: int, tax: int,
                 receiver: dict, reason: str | None = None, original: EinvoiceDocument | None = None
                 ) -> EinvoiceDocument:
    """One document, numbered on the locked unit (inside the caller's transaction)."""
    unit = await core.lock_unit(unit_id)
    if kind == "invoice":
        existing = await EinvoiceDocument.filter(invoice_id=inv.id, kind="invoice", authority=AUTHORITY).first()
        if existing is not None:        # a concurrent finalisation got there first
            return existing
    now = await core.now_of(inv.merchant_id, inv.livemode)
    seq = await core.next_number(unit, chain="seq")
    number = inv.number
    if kind != "invoice":
        n = await EinvoiceDocument.filter(invoice_id=inv.id, kind=kind, authority=AUTHORITY).count()
        number = f"{inv.number}-{KINDS[kind]}{n + 1}"
    refs = [original.external["uuid"]] if original is not None else []
    doc = document(unit=unit, receiver=receiver, kind=kind, number=number, issued=now, lines=lines, references=refs)
    body = signed_body(doc, unit, now)
    row = await EinvoiceDocument.create(
        id=new_id(PREFIX), merchant_id=inv.merchant_id, livemode=inv.livemode, authority=AUTHORITY, unit_id=unit.id,
        invoice_id=inv.id, original_id=original.id if original else None, kind=kind, type=KINDS[kind],
        number=number, uuid="", seq=seq, previous="", body=body, currency=inv.currency, amount=amount, tax=tax,
        reason=reason, status="pending", messages=[], external={}, attempts=0, next_attempt_at=now, issued_at=now,
        created_at=now, updated_at=now)
    await EinvoiceUnit.filter(id=unit.id).update(updated_at=now)
    return row


async def finalise(inv: Invoice, require_cleared: bool) -> None:
    """Make `inv` an ETA e-invoice if it is one (an eg_rin customer, a set-up unit; any currency but
    another authority's of a merchant set up with it), once. Bad input (a line without item code, a
    rate ETA does not take, no receiver address, no EGP rate): 400, nothing written, the invoice
    stays a draft."""
    home = HOME_OF.get(inv.currency)
    if home is not None and await core.unit_of(inv.merchant_id, inv.livemode, home) is not None:
        return
    doc = await lookup.first(EinvoiceDocument, invoice_id=inv.id, kind="invoice", authority=AUTHORITY)
    if doc is None:
        unit = await core.unit_of(inv.merchant_id, inv.livemode, AUTHORITY)
        if unit is None:
            return
        receiver = await _receiver(inv)
        if receiver is None:
            return
        rate = _tax_of(inv)
        fx = await exchange_rate(inv)
        rin = unit.settings["rin"]
        lines = []
        for n, item in enumerate(inv.items):
            kind, code, unit_type = item_code(item, rin, f"items[{n}]", unit.settings.get("default_item_code"))
            lines.append(line(item["name"], kind, code, unit_type, item["quantity"], item["amount"], rate,
                              item.get("taxes"), currency=inv.currency, fx=fx))
        async with in_transaction():
            doc = await _issue(unit_id=unit.id, inv=inv, kind="invoice", lines=lines, amount=inv.total, tax=inv.tax,
                               receiver=receiver)
            if fx is not None and not inv.exchange_rate:       # the rate the document used, on the invoice
                inv.exchange_rate = _rate_text(fx)
                await Invoice.filter(id=inv.id, exchange_rate__isnull=True).update(exchange_rate=inv.exchange_rate)
            await _set_invoice(inv.id, doc)
        if doc.status == "pending":
            await core.submit(doc.id, await core.now_of(inv.merchant_id, inv.livemode))
    inv.eta = (await Invoice.get(id=inv.id)).eta


# ---------------------------------------------------------------- sending (the core's submit job)

async def _client(unit: EinvoiceUnit) -> api.Client:
    secrets = units.secrets_of(unit)
    return api.Client(merchant_id=unit.merchant_id, livemode=unit.livemode, client_id=secrets["client_id"],
                      client_secret=secrets["client_secret"], pos=unit.settings.get("pos"),
                      base_url=unit.settings.get("base_url"))


async def send(doc: EinvoiceDocument, unit: EinvoiceUnit, when: datetime) -> core.Outcome:
    """Submit a pending document (or, once ETA accepted it, ask its validation)."""
    try:
        client = await _client(unit)
    except units.UnitUnreadable as exc:
        return core.Outcome(transient=True, messages=[{"code": exc.code, "message": str(exc)}])
    ext = dict(doc.external or {})
    if not ext.get("uuid"):
        ans = await api.submit_documents(client, when, [canonical.loads(doc.body)])
        if ans.transient:
            return core.Outcome(transient=True, messages=[{"code": "eta_unavailable", "message":
                                f"ETA did not answer ({ans.error or 'HTTP ' + str(ans.status)}); trying again"}])
        accepted = ans.body.get("acceptedDocuments") or []
        if ans.status not in (200, 202) or not accepted:
            rejected = (ans.body.get("rejectedDocuments") or [{}])[0] if ans.status in (200, 202) else ans.body
            return core.Outcome(status="rejected", messages=api.errors_of(rejected),
                                external={"submission_id": ans.body.get("submissionId")})
        ext = {"uuid": accepted[0].get("uuid"), "long_id": accepted[0].get("longId"),
               "submission_id": ans.body.get("submissionId")}
    ans = await api.document_status(client, when, ext["uuid"])
    if ans.transient or ans.status != 200 or ans.body.get("status") not in ("Valid", "Invalid", "Cancelled"):
        # accepted, not validated yet (or ETA did not answer the question): asked again later
        return core.Outcome(status="pending", external=ext, messages=[],
                            next_attempt_at=when + core.backoff(doc.attempts + 1))
    status = {"Valid": "valid", "Invalid": "invalid", "Cancelled": "cancelled"}[ans.body["status"]]
    return core.Outcome(status=status, external=ext, messages=api.errors_of(ans.body))


SENDER = core.Sender(send=send, changed=changed)


# ---------------------------------------------------------------- notes, cancellation, reads

async def _original(principal: Principal, invoice_id: str) -> tuple[Invoice, EinvoiceDocument | None]:
    inv = await core.get_invoice(principal=principal, invoice_id=invoice_id)
    doc = await lookup.first(EinvoiceDocument, invoice_id=inv.id, kind="invoice", authority=AUTHORITY)
    return inv, doc


async def is_eta(*, principal: Principal, invoice_id: str) -> bool:
    """Whether the caller's invoice is an ETA e-invoice (its notes are ETA's)."""
    return (await _original(principal, invoice_id))[1] is not None


async def issue_note(*, principal: Principal, invoice_id: str, kind: str, data: dict) -> EinvoiceDocument:
    """A credit note (C) or debit note (D) on a valid ETA e-invoice: `amount` (minor units, VAT
    included; a credit note at most what is left to credit) and `reason`."""
    f = Fields(data)
    reason = f.str("reason", required=True, min_len=1, max_len=200)
    inv, original = await _original(principal, invoice_id)
    if original is None:
        raise InvalidState(f"Invoice {inv.id} is not an ETA e-invoice (finalise it first: send it or mark it paid)")
    if original.status != "valid":
        raise InvalidState(f"ETA has not validated invoice {inv.id} (it is {status_of(original)}); a note refers "
                           "to a valid document")
    amount = f.int("amount", default=inv.total, min=1, max=inv.total if kind == "credit_note" else 10 ** 15)
    f.reject_unknown()
    if kind == "credit_note":
        credited = await _credited(inv.id)
        if credited + amount > inv.total:
            raise ValidationError(f"amount: only {inv.total - credited} of the invoice's {inv.total} is left to credit",
                                  param="amount")
    return await issue_amount_note(inv, original, kind=kind, amount=amount, reason=reason)


async def _credited(invoice_id: str) -> int:
    return sum(await EinvoiceDocument.filter(invoice_id=invoice_id, kind="credit_note", authority=AUTHORITY)
               .exclude(status__in=["rejected", "invalid"]).values_list("amount", flat=True))


async def issue_amount_note(inv: Invoice, original: EinvoiceDocument, *, kind: str, amount: int,
                            reason: str) -> EinvoiceDocument:
    rate = _tax_of(inv)
    net = int((Decimal(amount) * 100 / (100 + rate)).quantize(Decimal(1), rounding="ROUND_HALF_UP"))
    unit = await core.unit_of(inv.merchant_id, inv.livemode, AUTHORITY)
    if unit is None or unit.id != original.unit_id:
        raise InvalidState("This merchant's ETA unit in this mode is not the one that issued the invoice")
    first = (inv.items or [{}])[0]
    kind_code = item_code(first, unit.settings["rin"], "items[0]", unit.settings.get("default_item_code"))
    submitted = canonical.loads(original.body)
    receiver = submitted["receiver"]
    sold = submitted["invoiceLines"][0]["unitValue"]
    fx = Decimal(sold["currencyExchangeRate"]) if "currencyExchangeRate" in sold else None    # the original's rate
    ln = line(reason, *kind_code, 1, net, rate, currency=inv.currency, fx=fx)
    tax_minor = amount - net
    async with in_transaction():
        doc = await _issue(unit_id=unit.id, inv=inv, kind=kind, lines=[ln], amount=amount, tax=tax_minor,
                           receiver=receiver, reason=reason, original=original)
        await core.record_note(inv.id, note_entry(doc))
    await core.submit(doc.id, await core.now_of(inv.merchant_id, inv.livemode))
    return await EinvoiceDocument.get(id=doc.id)


async def credit_for_refund(*, merchant_id: str, livemode: bool, payment_id: str, currency: str, amount: int,
                            reason: str | None) -> dict | None:
    """A refund of a payment that paid a valid ETA e-invoice: a credit note for what was refunded."""
    inv = await lookup.first(Invoice, payment_id=payment_id, merchant_id=merchant_id, livemode=livemode)
    if inv is None or inv.currency != currency:
        return None
    original = await lookup.first(EinvoiceDocument, invoice_id=inv.id, kind="invoice", authority=AUTHORITY)
    if original is None or original.status != "valid":
        return None
    amount = min(amount, inv.total - await _credited(inv.id))
    if amount <= 0:
        return None
    doc = await issue_amount_note(inv, original, kind="credit_note", amount=amount, reason=reason or "Refund")
    return note_entry(doc)


async def cancel(*, principal: Principal, invoice_id: str, data: dict) -> Invoice:
    """Cancel a valid e-invoice at ETA (within ETA's window), with a reason."""
    f = Fields(data or {})
    reason = f.str("reason", required=True, min_len=1, max_len=200)
    f.reject_unknown()
    inv, doc = await _original(principal, invoice_id)
    if doc is None:
        raise InvalidState(f"Invoice {inv.id} is not an ETA e-invoice")
    if doc.status != "valid":
        raise InvalidState(f"Only a valid e-invoice can be cancelled; this one is {status_of(doc)}")
    unit = await EinvoiceUnit.get(id=doc.unit_id)
    when = await core.now_of(inv.merchant_id, inv.livemode)
    ans = await api.cancel(await _client(unit), when, doc.external["uuid"], reason)
    if ans.transient:
        raise eta_unavailable()
    if ans.status != 200:
        errs = api.errors_of(ans.body)
        raise EtaRefused("ETA refused the cancellation: " + "; ".join(f"{e['code']}: {e['message']}" for e in errs),
                         code="eta_cancel_refused")
    async with in_transaction():
        await EinvoiceDocument.filter(id=doc.id).update(status="cancelled", reason=reason, updated_at=when)
        doc.status, doc.reason = "cancelled", reason
        await _set_invoice(inv.id, doc)
    return await Invoice.get(id=inv.id)


def as_submitted(body: str) -> orjson.Fragment:
    """A stored document in an answer exactly as submitted: its JSON text spliced in (never parsed
    and dumped again), so every number keeps its literal (301.50000 stays 301.50000) and the
    answer's document hashes and verifies like the one ETA received."""
    return orjson.Fragment(body)


async def document_json(*, principal: Principal, invoice_id: str) -> dict:
    """GET /api/invoices/:id/eta: the document as submitted (with its signature), and its state."""
    inv, doc = await _original(principal, invoice_id)
    if doc is None:
        from services.errors import NotFound
        raise NotFound("This invoice has no ETA e-invoice (not a finalised invoice of an eg_rin customer of a "
                       "merchant set up with ETA)")
    notes = await EinvoiceDocument.filter(invoice_id=inv.id, authority=AUTHORITY).exclude(kind="invoice") \
        .order_by("seq")
    return {"object": "eta_document", "invoice_id": inv.id, **eta_of(doc), "issued_at": iso(doc.issued_at),
            "document": as_submitted(doc.body),
            "notes": [{"id": n.id, "kind": n.kind, **eta_of(n), "document": as_submitted(n.body)} for n in notes]}


async def document_file(inv: Invoice, doc_id: str) -> tuple[str, str, bytes] | None:
    if doc_id == inv.id:
        doc = await lookup.first(EinvoiceDocument, invoice_id=inv.id, kind="invoice", authority=AUTHORITY)
    else:
        doc = await lookup.first(EinvoiceDocument, id=doc_id, invoice_id=inv.id, authority=AUTHORITY)
    if doc is None:
        return None
    return f"{doc.number}.json", "application/json", doc.body.encode("utf-8")
