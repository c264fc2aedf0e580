"""ETA e-receipts (B2C): one receipt per EGP payment of a set-up merchant (every one, or only
those created with `eta_receipt: true`), one return receipt per refund of a receipted payment.

- The payment's own statement writes a request (`einvoice_requests`) and nothing else: the
  `eta.receipt_build` job takes each request (deleting it: once), and under a row lock on the
  unit numbers the receipt on the unit's receipt chain (`receipt_seq`), sets `previousUUID` to the
  unit's `chain_head` (empty for the first), computes ETA's uuid (SHA-256 hex of the receipt
  serialized in ETA's canonical form with an empty uuid) and moves the head to it -- so the chain
  never forks, however many payments and processes run at once.
- The `eta.receipt_submit` job sends the unit's queued receipts in chain order, in batches of up
  to ETA's batch size, retried with the core's backoff while ETA is unreachable (never dropped).
- The payment shows `eta_receipt: {uuid, number, status, qr_url, returns}`; the QR code is ETA's
  receipt URL with the uuid and the issue time."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from decimal import Decimal

from tortoise.expressions import F, Q
from tortoise.transactions import in_transaction

from models import _lookup as lookup
from models.billing import Invoice
from models.einvoicing import EinvoiceDocument, EinvoiceRequest, EinvoiceUnit
from models.intents import PaymentIntent
from models.payments import Customer, Payment
from services import scheduler
from services.einvoicing import core
from services.einvoicing.eta import api, canonical, units
from services.einvoicing.eta.documents import AUTHORITY, PREFIX, as_submitted, money, q
from services.errors import NotFound
from services.ids import check_id, new_id
from services.principal import Principal

BATCH = 500                      # receipts per submission (ETA's e-receipt batch limit)
BATCH_WINDOW = timedelta(seconds=60)    # a new receipt waits this long, so a busy minute's go together
VERSION = "1.2"
VAT = Decimal(14)
KINDS = {"receipt": "S", "return_receipt": "R"}
METHODS = {"card": "V", "mada": "V", "tap_to_pay": "V", "cod": "C"}   # ETA's paymentMethod: V card, C cash; O others


# ---------------------------------------------------------------- amounts

def split(amount_minor: int) -> tuple[Decimal, Decimal]:
    """(net, VAT) of a VAT-inclusive EGP amount at 14%, in ETA's 5 decimals, adding up exactly to
    the amount when one of the nearest nets allows it (ETA checks VAT = net x 14 / 100)."""
    total = money(amount_minor)
    base = q(total * 100 / (100 + VAT))
    best = None
    for net in (base, base - Decimal("0.00001"), base + Decimal("0.00001")):
        tax = q(net * VAT / 100)
        if net + tax == total:
            return net, tax
        best = best or (net, tax)
    return best


# ---------------------------------------------------------------- building (the build job)

def receipt_body(*, unit: EinvoiceUnit, kind: str, number: str, issued: datetime, previous: str,
                 reference: str | None, payment: Payment | PaymentIntent, customer: Customer | None, amount: int) -> dict:
    s = unit.settings
    a = s["branch"]["address"]
    net, tax = split(amount)
    code = s.get("default_item_code") or "PAYMENT"
    code = code if code.startswith("EG-") else f"EG-{s['rin']}-{code}"
    header = {"dateTimeIssued": issued.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "receiptNumber": number, "uuid": "", "previousUUID": previous}
    if reference:
        header["referenceUUID"] = reference
    header.update({"currency": "EGP", "exchangeRate": Decimal(0)})
    return {
        "header": header,
        "documentType": {"receiptType": KINDS[kind], "typeVersion": VERSION},
        "seller": {"rin": s["rin"], "companyTradeName": s["name"], "branchCode": s["branch"]["id"],
                   "branchAddress": {"country": "EG", "governate": a["governate"], "regionCity": a["region_city"],
                                     "street": a["street"], "buildingNumber": a["building_number"]},
                   "deviceSerialNumber": (s.get("pos") or {}).get("serial", ""), "activityCode": s["activity_code"]},
        "buyer": {"type": "P", "id": "", "name": (customer.name if customer else None) or "",
                  "mobileNumber": (customer.phone if customer else None) or ""},
        "itemData": [{"internalCode": payment.id, "description": (payment.description or "Payment")[:500],
                      "itemType": "EGS", "itemCode": code, "unitType": "EA", "quantity": Decimal(1),
                      "unitPrice": net, "netSale": net, "totalSale": net, "total": net + tax,
                      "taxableItems": [{"taxType": "T1", "amount": tax, "subType": "V009", "rate": VAT}]}],
        "totalSales": net, "totalCommercialDiscount": money(0), "totalItemsDiscount": money(0),
        "netAmount": net, "feesAmount": money(0), "totalAmount": net + tax,
        "taxTotals": [{"taxType": "T1", "amount": tax}],
        "paymentMethod": _method(payment),
    }


def with_uuid(receipt: dict) -> tuple[dict, str]:
    """ETA's uuid: SHA-256 (hex) of the canonical text of the receipt with an empty uuid."""
    uuid = canonical.digest({**receipt, "header": {**receipt["header"], "uuid": ""}})
    return {**receipt, "header": {**receipt["header"], "uuid": uuid}}, uuid


def qr_url(doc: EinvoiceDocument) -> str:
    r = canonical.loads(doc.body)
    return api.receipt_url(doc.uuid, r["header"]["dateTimeIssued"], livemode=doc.livemode,
                           total=str(r["totalAmount"]), rin=r["seller"]["rin"])


def block(doc: EinvoiceDocument) -> dict:
    return {"document_id": doc.id, "uuid": doc.uuid, "number": doc.number, "status": doc.status,
            "qr_url": qr_url(doc), "amount": doc.amount}


async def _paid(payment_id: str) -> Payment | PaymentIntent:
    """The payment (`/api`) or payment intent (`/v1`) a receipt is for (both ids read pay_...)."""
    return await Payment.get_or_none(id=payment_id) or await PaymentIntent.get(id=payment_id)


def _method(p: Payment | PaymentIntent) -> str:
    return METHODS.get(getattr(p, "payment_method_type", None) or getattr(p, "payment_method", None), "O")


async def _set_payment(payment_id: str) -> None:
    """The payment's `eta_receipt`, from its receipt and return receipts (inside the caller's transaction)."""
    docs = await EinvoiceDocument.filter(payment_id=payment_id, authority=AUTHORITY,
                                         kind__in=list(KINDS)).order_by("seq")
    sale = next((d for d in docs if d.kind == "receipt"), None)
    if sale is None:
        return
    out = {**block(sale), "returns": [block(d) for d in docs if d.kind == "return_receipt"]}
    if not await Payment.filter(id=payment_id).update(eta_receipt=out):
        await PaymentIntent.filter(id=payment_id).update(eta_receipt=out)


async def _due_requests(scope: scheduler.Scope, until: datetime, limit: int) -> list[tuple[datetime, str]]:
    rows = await scope.apply(EinvoiceRequest.filter(authority=AUTHORITY, due_at__lte=until)) \
        .order_by("due_at", "id").limit(limit).values_list("due_at", "id")
    return [(when, rid) for when, rid in rows]


async def build(request_id: str, when: datetime) -> str | None:
    """One request becomes a chained receipt (or is dropped when no receipt is due); once."""
    req = await lookup.first(EinvoiceRequest, id=request_id)
    if req is None:
        return None
    unit = await core.unit_of(req.merchant_id, req.livemode, AUTHORITY)
    payment = await _paid(req.payment_id)
    why = None
    original = None
    if unit is None:
        why = "no ETA unit"
    elif req.kind == "receipt" and unit.settings.get("receipts") != "all" and not req.asked:
        why = "receipts on request only"
    elif not (unit.settings.get("pos") or {}).get("serial"):
        why = "the unit has no POS for e-receipts"
    elif await Invoice.filter(payment_id=payment.id, merchant_id=payment.merchant_id).exclude(eta=None).exists():
        why = "the payment paid an ETA e-invoice"
    elif req.kind == "return_receipt":
        original = await EinvoiceDocument.filter(payment_id=payment.id, kind="receipt", authority=AUTHORITY).first()
        if original is None:
            why = "the payment has no e-receipt"
    async with in_transaction():
        if not await EinvoiceRequest.filter(id=req.id).delete():
            return None                 # another process took it
        if why is not None:
            if req.asked and payment.eta_receipt and payment.eta_receipt.get("status") == "queued":
                await type(payment).filter(id=payment.id).update(eta_receipt={"uuid": None, "number": None,
                                                                              "status": "not_issued", "reason": why})
            return f"{req.kind} of {payment.id}: none ({why})"
        unit = await core.lock_unit(unit.id)
        seq = await core.next_number(unit, chain="receipt_seq")
        number = f"RCP-{seq:08d}"
        customer = await Customer.get_or_none(id=payment.customer_id) if payment.customer_id else None
        issued = (getattr(payment, "succeeded_at", None) or payment.created_at) if req.kind == "receipt" \
            else req.created_at
        body, uuid = with_uuid(receipt_body(unit=unit, kind=req.kind, number=number, issued=issued,
                                            previous=unit.chain_head, reference=original.uuid if original else None,
                                            payment=payment, customer=customer, amount=req.amount))
        tax = split(req.amount)[1]
        await EinvoiceDocument.create(
            id=new_id(PREFIX), merchant_id=req.merchant_id, livemode=req.livemode, authority=AUTHORITY,
            unit_id=unit.id, invoice_id=None, payment_id=payment.id, original_id=original.id if original else None,
            kind=req.kind, type=KINDS[req.kind], number=number, uuid=uuid, seq=seq, previous=unit.chain_head,
            body=canonical.dumps(body), currency="EGP", amount=req.amount,
            tax=int((tax * 100).to_integral_value(rounding="ROUND_HALF_UP")), reason=None, status="queued",
            messages=[], external={"refund_id": req.refund_id} if req.refund_id else {}, attempts=0,
            next_attempt_at=when + BATCH_WINDOW, issued_at=issued, created_at=when, updated_at=when)
        await EinvoiceUnit.filter(id=unit.id).update(chain_head=uuid, updated_at=when)
        await _set_payment(payment.id)
    return f"{req.kind} {number} of {payment.id}: queued"


# ---------------------------------------------------------------- submitting (the submit job)

async def _due_receipts(scope: scheduler.Scope, until: datetime, limit: int) -> list[tuple[datetime, str]]:
    rows = await scope.apply(EinvoiceDocument.filter(authority=AUTHORITY, status="queued",
                                                     next_attempt_at__lte=until)) \
        .order_by("next_attempt_at", "seq").limit(limit).values_list("next_attempt_at", "id")
    return [(when, did) for when, did in rows]


async def submit(doc_id: str, when: datetime) -> str | None:
    """The unit's due queued receipts (this one among them), with those built since that were
    never tried (they ride along), in chain order, as one batch."""
    doc = await lookup.first(EinvoiceDocument, id=doc_id)
    if doc is None or doc.status != "queued" or doc.next_attempt_at is None or doc.next_attempt_at > when:
        return None
    ready = Q(next_attempt_at__lte=when) | Q(attempts=0)
    ids = await EinvoiceDocument.filter(ready, unit_id=doc.unit_id, authority=AUTHORITY, status="queued") \
        .order_by("seq").limit(BATCH).values_list("id", flat=True)
    lease = when + timedelta(seconds=core.CLAIM_SECONDS)
    batch = []
    for i in ids:                   # each claimed once: two processes never send one receipt together
        if await EinvoiceDocument.filter(ready, id=i, status="queued").update(next_attempt_at=lease, attempts=F("attempts") + 1):
            batch.append(i)
    if not batch:
        return None
    docs = sorted(await EinvoiceDocument.filter(id__in=batch), key=lambda d: d.seq)
    unit = await EinvoiceUnit.get(id=doc.unit_id)
    try:
        secrets = units.secrets_of(unit)
        client = api.Client(merchant_id=unit.merchant_id, livemode=unit.livemode, client_id=secrets["client_id"],
                            client_secret=secrets["client_secret"], pos=unit.settings.get("pos"),
                            base_url=unit.settings.get("base_url"))
        ans = await api.submit_receipts(client, when, [canonical.loads(d.body) for d in docs])
    except units.UnitUnreadable as exc:
        ans = api.Answer(0, error=exc.code)
    results: dict[str, tuple[str, list]] = {}
    if not ans.transient and ans.status in (200, 202):
        for a in ans.body.get("acceptedDocuments") or []:
            results[str(a.get("uuid"))] = ("valid", [])
        for r in ans.body.get("rejectedDocuments") or []:
            results[str(r.get("uuid"))] = ("invalid", api.errors_of(r))
    elif not ans.transient:         # the whole submission refused (its structure)
        results = {d.uuid: ("invalid", api.errors_of(ans.body)) for d in docs}
    async with in_transaction():
        for d in docs:
            attempts = d.attempts           # counted when claimed
            if d.uuid in results:
                status, errors = results[d.uuid]
                changes = {"status": status, "messages": errors, "next_attempt_at": None,
                           "external": {**(d.external or {}), "submission_id": ans.body.get("submissionId")}}
            else:               # no answer (or none for this receipt): again later, never dropped
                changes = {"next_attempt_at": when + core.backoff(attempts),
                           "messages": [{"code": "eta_unavailable",
                                         "message": f"ETA did not answer (attempt {attempts}); trying again"}]}
            await EinvoiceDocument.filter(id=d.id).update(attempts=attempts, submitted_at=when, updated_at=when,
                                                          **changes)
        for pid in {d.payment_id for d in docs}:
            await _set_payment(pid)
    done = sum(1 for d in docs if d.uuid in results)
    return f"{len(docs)} receipt(s) of unit {unit.id}: {done} answered" + ("" if done else "; retry later")


# ---------------------------------------------------------------- refunds, reads

async def queue_return(*, merchant_id: str, livemode: bool, payment_id: str, currency: str, amount: int,
                       refund_id: str | None = None) -> None:
    """A refund of an EGP payment that has (or will have) an e-receipt: its return receipt's request."""
    if currency != "EGP":
        return
    has = await EinvoiceDocument.filter(payment_id=payment_id, kind="receipt", authority=AUTHORITY).exists() or \
        await EinvoiceRequest.filter(payment_id=payment_id, kind="receipt", authority=AUTHORITY).exists()
    if not has:
        return
    now = await core.now_of(merchant_id, livemode)
    await EinvoiceRequest.create(id=new_id("eir"), merchant_id=merchant_id, livemode=livemode, authority=AUTHORITY,
                                 kind="return_receipt", payment_id=payment_id, refund_id=refund_id, amount=amount,
                                 currency=currency, asked=True, due_at=now, created_at=now)


async def receipt_of(*, principal: Principal, payment_id: str) -> dict:
    """GET /api/payments/:id/eta-receipt: the receipt as submitted, its state and QR code, and its returns."""
    check_id(payment_id)
    p = await lookup.first(Payment, id=payment_id, **principal.scope) or \
        await lookup.first(PaymentIntent, id=payment_id, **principal.scope)
    if p is None:
        raise NotFound()
    docs = await EinvoiceDocument.filter(payment_id=p.id, authority=AUTHORITY, kind__in=list(KINDS)).order_by("seq")
    sale = next((d for d in docs if d.kind == "receipt"), None)
    if sale is None:
        raise NotFound(f"Payment {p.id} has no ETA e-receipt (yet: receipts are built by the scheduler)")

    def one(d: EinvoiceDocument) -> dict:
        return {**block(d), "previous_uuid": d.previous, "errors": d.messages if d.status == "invalid" else [],
                "receipt": as_submitted(d.body)}

    return {"object": "eta_receipt", "payment_id": p.id, **one(sale),
            "returns": [one(d) for d in docs if d.kind == "return_receipt"]}


def register_jobs() -> None:
    scheduler.register(scheduler.JobKind("eta.receipt_build", _due_requests, build))
    scheduler.register(scheduler.JobKind("eta.receipt_submit", _due_receipts, submit))
