"""The country-agnostic core of e-invoicing, shared by every authority package (`zatca/`, `gib/`,
`eta/`): the registry of authorities that the invoices and payments call, secrets sealed at rest,
a unit's chains taken under a row lock, the submit job's claim and backoff (a pending document is
retried, never dropped), test-mode outages of an authority's simulator, and the notes (credit,
debit, returns) that refer to their original invoice and are listed on it.

An authority package builds, signs and speaks its authority's format and registers an
`Authority` here (app/jobs.py, at start-up); this module never imports one."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Awaitable, Callable

from tortoise.transactions import in_transaction

from models import _lookup as lookup
from models.billing import Invoice
from models.einvoicing import EinvoiceDocument, EinvoiceUnit
from services import events, scheduler
from services.billing.invoice_objects import invoice_object
from services.errors import InvalidState, NotFound, PermissionDenied
from services.ids import check_id
from services.infra import clock
from services.infra.clock import overridden
from services.infra.runtime import runtime
from services.principal import Principal
from services.timestamps import iso
from services.validation import Fields

BACKOFF = (60, 300, 900, 1800, 3600, 7200, 14400, 21600)      # seconds after attempt 1, 2, ...; then every 6 h
CLAIM_SECONDS = 120
OUTAGE_AUTHORITIES = ("gib", "eta")
OUTAGE_MAX_MINUTES = 7 * 24 * 60


def backoff(attempts: int) -> timedelta:
    """How long a document waits after its `attempts`-th failed try (the last step repeats)."""
    return timedelta(seconds=BACKOFF[min(max(attempts, 1), len(BACKOFF)) - 1])


def now() -> datetime:
    return overridden() or runtime().clock.now()


async def now_of(merchant_id: str, livemode: bool) -> datetime:
    """The merchant's time in that mode (its test clock in test mode), as invoices date things."""
    return await clock.now_for(Principal(merchant_id=merchant_id, livemode=livemode, kind="secret"))


# ---------------------------------------------------------------- secrets at rest

from services.infra.sealing import seal, unseal  # noqa: E402,F401  (the units' credentials)


# ---------------------------------------------------------------- authorities

@dataclass(frozen=True)
class Authority:
    """One tax authority's package, as the rest of Qafila sees it. `name` is also the name of the
    invoice's block (`invoice.zatca`, `invoice.gib`, `invoice.eta`) and of a note's."""
    name: str
    # an invoice leaving draft (send: require_cleared=True; mark-paid: False); does nothing when
    # the invoice is not this authority's (another currency, no unit)
    finalise: Callable[[Invoice, bool], Awaitable[None]]
    # a refund of a payment that paid an invoice: the note it caused (its entry), or None
    refund: Callable[..., Awaitable[dict | None]] | None = None
    # a document of this authority by id (the invoice's own or a note's): (file name, media type, body)
    document: Callable[[Invoice, str], Awaitable[tuple[str, str, bytes] | None]] | None = None
    # the id prefixes of this authority's documents (a note id names its authority)
    prefixes: tuple[str, ...] = field(default_factory=tuple)
    # cancels the invoice's own document (principal, invoice, request data) -> the invoice; None:
    # this authority's documents are never canceled (a credit note amends them)
    cancel: Callable[[Principal, Invoice, Any], Awaitable[Invoice]] | None = None


AUTHORITIES: dict[str, Authority] = {}


def register(authority: Authority) -> Authority:
    """Adds an authority (once: registering it again, as every app start does, is a no-op)."""
    known = AUTHORITIES.get(authority.name)
    if known is not None and known != authority:
        raise ValueError(f"e-invoicing authority {authority.name} registered twice")
    AUTHORITIES[authority.name] = authority
    return authority


async def finalise_invoice(inv: Invoice, *, require_cleared: bool) -> None:
    """An invoice leaves draft: every authority whose invoice it is makes its e-document."""
    for authority in AUTHORITIES.values():
        await authority.finalise(inv, require_cleared)


async def notes_for_refund(*, merchant_id: str, livemode: bool, payment_id: str, currency: str, amount: int,
                           reason: str | None) -> list[dict]:
    """A refund of a payment that paid an e-invoice: the notes it caused (credit notes, returns).
    Called after the refund committed; the refund stands whatever happens here (a failure is
    logged: the note can still be issued by hand)."""
    import logging

    out = []
    for authority in AUTHORITIES.values():
        if authority.refund is None:
            continue
        try:
            entry = await authority.refund(merchant_id=merchant_id, livemode=livemode, payment_id=payment_id,
                                           currency=currency, amount=amount, reason=reason)
        except Exception:  # noqa: BLE001 - the money moved; the note can be issued by hand
            logging.getLogger("qafila.einvoicing").exception("%s note for refund of %s failed",
                                                             authority.name, payment_id)
            continue
        if entry is not None:
            out.append(entry)
    return out


# ---------------------------------------------------------------- notes on their original

def note_entry(*, id: str, kind: str, number: str, amount: int, tax: int, authority: str, block: dict,
               reason: str | None = None, created_at: datetime | None = None) -> dict:
    """A note as its invoice lists it: `{id, kind, number, amount, tax, <authority>: block}`."""
    return {"id": id, "kind": kind, "number": number, "amount": amount, "tax": tax, "reason": reason,
            "created_at": iso(created_at), authority: block}


async def record_note(invoice_id: str, entry: dict) -> Invoice:
    """Adds `entry` to its invoice's notes, or replaces the entry with the same id (a status that
    moved), under a row lock on the invoice; `invoice.updated` when it changed. The caller holds
    the transaction, so the note and its listing commit together."""
    inv = await Invoice.filter(id=invoice_id).select_for_update().get()
    notes = [n for n in (inv.notes or [])]
    for i, n in enumerate(notes):
        if n.get("id") == entry["id"]:
            if n == entry:
                return inv
            notes[i] = entry
            break
    else:
        notes.append(entry)
    await Invoice.filter(id=inv.id).update(notes=notes)
    inv.notes = notes
    await events.emit(merchant_id=inv.merchant_id, livemode=inv.livemode, type="invoice.updated",
                      obj=invoice_object(inv))
    return inv


async def get_invoice(*, principal: Principal, invoice_id: str) -> Invoice:
    """The caller's invoice (another tenant's id: 404, as GET /api/invoices/{id})."""
    check_id(invoice_id)
    inv = await lookup.first(Invoice, id=invoice_id, **principal.scope)
    if inv is None:
        raise NotFound()
    return inv


async def notes_of(*, principal: Principal, invoice_id: str) -> list[dict]:
    """The notes (credit, debit, returns) of the caller's invoice, oldest first."""
    inv = await get_invoice(principal=principal, invoice_id=invoice_id)
    return list(inv.notes or [])


async def document_of(*, principal: Principal, invoice_id: str, note_id: str | None = None) -> tuple[str, str, bytes]:
    """The e-document of the caller's invoice, or of one of its notes: (file name, media type, body)."""
    inv = await get_invoice(principal=principal, invoice_id=invoice_id)
    if note_id is not None:
        check_id(note_id, param="note_id")
        entry = next((n for n in inv.notes or [] if n.get("id") == note_id), None)
        if entry is None:
            raise NotFound(f"Invoice {inv.id} has no note {note_id}", param="note_id")
    for authority in AUTHORITIES.values():
        if authority.document is None:
            continue
        if note_id is not None and not note_id.startswith(authority.prefixes):
            continue
        found = await authority.document(inv, note_id or inv.id)
        if found is not None:
            return found
    if note_id is not None:
        raise NotFound(f"Note {note_id} has no e-document", param="note_id")
    raise NotFound("This invoice has no e-invoice XML (not a finalised e-invoice of a merchant set up with a "
                   "tax authority)")


async def cancel_einvoice(*, principal: Principal, invoice_id: str, data: Any) -> Invoice:
    """`POST /api/invoices/{id}/cancel-einvoice`: the authority whose document the invoice carries
    cancels it, by its own rules (GİB: an e-Arşiv within 7 days; ETA: a valid one, with a reason)."""
    inv = await get_invoice(principal=principal, invoice_id=invoice_id)
    for authority in AUTHORITIES.values():
        if getattr(inv, authority.name, None):
            if authority.cancel is None:
                raise InvalidState(f"A {authority.name.upper()} e-invoice cannot be canceled: issue a credit note "
                                   f"(POST /api/invoices/{inv.id}/credit-notes)", code="einvoice_not_cancelable")
            return await authority.cancel(principal, inv, data)
    raise InvalidState(f"Invoice {inv.id} has no e-document to cancel")


# ---------------------------------------------------------------- units and their chains

async def unit_of(merchant_id: str, livemode: bool, authority: str) -> EinvoiceUnit | None:
    return await lookup.first(EinvoiceUnit, merchant_id=merchant_id, livemode=livemode, authority=authority,
                              status="active")


async def lock_unit(unit_id: str) -> EinvoiceUnit:
    """The unit, locked until the caller's transaction ends (SELECT ... FOR UPDATE on PostgreSQL;
    SQLite runs one writing transaction at a time): the head of its chains is the caller's."""
    return await EinvoiceUnit.filter(id=unit_id).select_for_update().get()


async def next_number(unit: EinvoiceUnit, *, year: int | None = None, chain: str = "seq") -> int:
    """The next number of the locked `unit`'s chain (`seq`, or `receipt_seq`), gapless; with
    `year`, `seq` starts again at 1 in a new year. A rolled-back transaction gives it back."""
    if chain == "seq" and year is not None and unit.seq_year != year:
        n = 1
        await EinvoiceUnit.filter(id=unit.id).update(seq=n, seq_year=year)
        unit.seq, unit.seq_year = n, year
        return n
    n = getattr(unit, chain) + 1
    await EinvoiceUnit.filter(id=unit.id).update(**{chain: n})
    setattr(unit, chain, n)
    return n


# ---------------------------------------------------------------- the submit job

@dataclass
class Outcome:
    """What the authority answered one submission: `transient` (no answer, 5xx: try again later),
    else the document's new `status` and the authority's `messages`; `external` merges into the
    document's references, `body` replaces it (a document the authority stamped)."""
    transient: bool = False
    status: str | None = None
    messages: list[dict] = field(default_factory=list)
    external: dict[str, Any] | None = None
    body: str | None = None
    next_attempt_at: datetime | None = None     # still pending, asked again then (a status poll)


@dataclass(frozen=True)
class Sender:
    """How one authority sends a pending document (`send`), and what follows a change of its
    status (`changed`, inside the transaction that records it: copy it to the invoice, notify)."""
    send: Callable[[EinvoiceDocument, EinvoiceUnit, datetime], Awaitable[Outcome]]
    changed: Callable[[EinvoiceDocument], Awaitable[None]]


SENDERS: dict[str, Sender] = {}


def register_sender(authority: str, sender: Sender) -> None:
    known = SENDERS.get(authority)
    if known is not None and known != sender:
        raise ValueError(f"e-invoicing sender {authority} registered twice")
    SENDERS[authority] = sender


async def claim(model: Any, doc_id: str, when: datetime) -> bool:
    """Takes a pending document due at `when` for one sender (a conditional update of
    `next_attempt_at`): two processes never send it together; a crashed sender's claim lapses."""
    lease = when + timedelta(seconds=CLAIM_SECONDS)
    return bool(await model.filter(id=doc_id, status="pending", next_attempt_at__lte=when)
                .update(next_attempt_at=lease))


async def submit(doc_id: str, when: datetime) -> str | None:
    """Sends one pending document of `einvoice_documents`, once (claimed), and records the answer:
    a transient failure keeps it pending with backoff, never dropped. A summary, or None."""
    if not await claim(EinvoiceDocument, doc_id, when):
        return None
    doc = await EinvoiceDocument.get(id=doc_id)
    unit = await EinvoiceUnit.get(id=doc.unit_id)
    sender = SENDERS.get(doc.authority)
    if sender is None:          # its package is not loaded in this process: leave it for one that has it
        await EinvoiceDocument.filter(id=doc.id).update(next_attempt_at=when + backoff(1))
        return None
    try:
        outcome = await sender.send(doc, unit, when)
    except Exception as exc:  # noqa: BLE001 - a bug or a broken answer: kept pending, said, retried
        outcome = Outcome(transient=True, messages=[{"code": "send_failed", "message": type(exc).__name__}])
    attempts = doc.attempts + 1
    changes: dict[str, Any] = {"attempts": attempts, "submitted_at": when, "updated_at": when}
    if outcome.transient:
        changes["next_attempt_at"] = when + backoff(attempts)
        changes["messages"] = outcome.messages or [
            {"code": f"{doc.authority}_unavailable",
             "message": f"The authority did not answer (attempt {attempts}); trying again"}]
        summary = f"unavailable; retry at {changes['next_attempt_at'].isoformat()}"
    else:
        changes["status"] = outcome.status or doc.status
        changes["messages"] = outcome.messages
        changes["next_attempt_at"] = outcome.next_attempt_at if changes["status"] == "pending" else None
        if outcome.external:
            changes["external"] = {**(doc.external or {}), **outcome.external}
        if outcome.body is not None:
            changes["body"] = outcome.body
        summary = changes["status"]
    async with in_transaction():
        await EinvoiceDocument.filter(id=doc.id).update(**changes)
        for k, v in changes.items():
            setattr(doc, k, v)
        await sender.changed(doc)
    return f"{doc.authority} {doc.kind} {doc.number}: {summary}"


def due_reader(model: Any) -> Callable[[scheduler.Scope, datetime, int], Awaitable[list[tuple[datetime, str]]]]:
    """The scheduler's read of `model`'s pending documents due by `until` (a document table with
    merchant_id, livemode, status and next_attempt_at). Made once per table, at import."""
    async def due(scope: scheduler.Scope, until: datetime, limit: int) -> list[tuple[datetime, str]]:
        rows = await scope.apply(model.filter(status="pending", next_attempt_at__lte=until)) \
            .order_by("next_attempt_at").limit(limit).values_list("next_attempt_at", "id")
        return [(when, doc_id) for when, doc_id in rows]
    return due


_due = due_reader(EinvoiceDocument)


def register_jobs() -> None:
    """The core's job kind (`einvoicing.submit`: every pending document of `einvoice_documents`)."""
    scheduler.register(scheduler.JobKind("einvoicing.submit", _due, submit))


# ---------------------------------------------------------------- test-mode outages

def _outage_key(authority: str, merchant_id: str) -> str:
    return f"einvoicing:outage:{authority}:{merchant_id}"


async def set_outage(*, principal: Principal, data: Any) -> dict:
    """Test helper: the authority's simulator is unreachable for this merchant for `minutes` of
    its test clock (0 ends an outage). Test keys only."""
    if principal.livemode:
        raise PermissionDenied("Test helpers work with test keys only: use sk_test_...", code="test_mode_only")
    f = Fields(data)
    authority = f.enum("authority", OUTAGE_AUTHORITIES, required=True)
    minutes = f.int("minutes", required=True, min=0, max=OUTAGE_MAX_MINUTES)
    f.reject_unknown()
    start = await clock.now_for(principal)
    until = start + timedelta(minutes=minutes)
    key = _outage_key(authority, principal.merchant_id)
    if minutes:
        await runtime().kv.set(key, until.isoformat(), ttl=None)
    else:
        await runtime().kv.delete(key)
    return {"object": "einvoicing_outage", "authority": authority, "minutes": minutes,
            "until": iso(until) if minutes else None, "livemode": False}


async def unreachable(*, merchant_id: str, livemode: bool, authority: str, at: datetime) -> bool:
    """Whether a test outage makes the authority's simulator unreachable for the merchant at `at`
    (its test clock's time). Live mode never has one."""
    if livemode:
        return False
    until = await runtime().kv.get(_outage_key(authority, merchant_id))
    if not until:
        return False
    try:
        return at < datetime.fromisoformat(until)
    except ValueError:
        return False

