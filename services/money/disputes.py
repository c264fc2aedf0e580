"""Disputes (chargebacks), sandboxed: a payment with the dispute test card (4000000000000259,
services.cards.DISPUTED) is disputed by the cardholder one day after its capture (a scheduler
job). The payment becomes `disputed`; the dispute (`dp_`) is `needs_response` with
`evidence_due_by` a week later; the ledger debits the disputed amount plus the dispute fee from
the merchant's balance; `payment.disputed` is delivered. Evidence (text fields) moves it to
`under_review`, and the sandbox issuer decides a week later: `won` (the amount comes back, the
fee is kept) unless the evidence contains the text "losing_evidence", then `lost` (the debit
stays). No evidence by `evidence_due_by`: `lost`."""
from __future__ import annotations

from datetime import datetime, timedelta

from tortoise.transactions import in_transaction

from models import _lookup as lookup
from models.money import Dispute
from models.payments import Payment
from services import events, scheduler
from services.identity import audit
from services.money import dispute_view, ledger
from services.money.marketplace import reversals as marketplace_reversals
from services.payments import cards
from services.payments.objects import event_object
from services.errors import InvalidState, NotFound, ValidationError
from services.ids import check_id, new_id
from services.money.currencies import EXPONENTS
from services.pagination import Page, check_limit, paginate
from services.principal import Principal
from services.timestamps import iso
from services.validation import Fields, check_enum
from services.infra import clock

STATUSES = ("needs_response", "under_review", "won", "lost")
OPEN = ("needs_response", "under_review")
DISPUTE_AFTER = timedelta(days=1)
EVIDENCE_DAYS = timedelta(days=7)
DECIDE_AFTER = timedelta(days=7)
REASON = "fraudulent"
EVIDENCE_FIELDS = ("product_description", "customer_name", "customer_email", "customer_communication",
                   "shipping_tracking_number", "refund_policy", "uncategorized_text")
LOSING = "losing_evidence"

# The dispute fee per currency, in major units (configuration: `configure_fees`).
DEFAULT_FEES_MAJOR = {"TRY": 250, "SAR": 55, "AED": 55, "KWD": 5, "QAR": 55, "EGP": 750, "IQD": 20_000,
                     "BHD": 5, "OMR": 5, "JOD": 10, "USD": 15}
FEES: dict[str, int] = {c: v * 10 ** EXPONENTS[c] for c, v in DEFAULT_FEES_MAJOR.items()}


def configure_fees(fees_minor: dict[str, int] | None = None) -> None:
    """Replace dispute fees (minor units per currency); None restores the defaults."""
    FEES.clear()
    FEES.update({c: v * 10 ** EXPONENTS[c] for c, v in DEFAULT_FEES_MAJOR.items()})
    if fees_minor:
        for cur, fee in fees_minor.items():
            if cur not in EXPONENTS or not isinstance(fee, int) or fee < 0:
                raise ValueError(f"bad dispute fee {cur}={fee!r}")
            FEES[cur] = fee


def dispute_object(d: Dispute) -> dict:
    return {"id": d.id, "object": "dispute", "payment_id": d.payment_id, "amount": d.amount, "fee": d.fee,
            "currency": d.currency, "reason": d.reason, "status": d.status, "evidence": d.evidence or {},
            "evidence_due_by": iso(d.evidence_due_by), "livemode": d.livemode, "created_at": iso(d.created_at),
            "closed_at": iso(d.closed_at)}


# ---------------------------------------------------------------- reads

async def get_dispute(*, principal: Principal, dispute_id: str) -> Dispute:
    d = await lookup.first(Dispute, id=dispute_id, **principal.scope) if isinstance(dispute_id, str) else None
    if d is None:
        raise NotFound()
    return d


async def disputes_by_ids(*, principal: Principal, ids: list[str]) -> dict[str, Dispute]:
    return {d.id: d for d in await Dispute.filter(id__in=ids, **principal.scope)}


async def list_disputes(*, principal: Principal, limit=None, starting_after: str | None = None,
                        status: str | None = None, payment_id: str | None = None) -> Page:
    qs = Dispute.filter(**principal.scope)
    if status:
        qs = qs.filter(status=check_enum(status, "status", STATUSES))
    if payment_id:
        qs = qs.filter(payment_id=check_id(payment_id, "payment_id"))
    return await paginate(qs, limit=check_limit(limit), starting_after=starting_after)


# ---------------------------------------------------------------- evidence

async def submit_evidence(*, principal: Principal, dispute_id: str, data: dict | None) -> Dispute:
    f = Fields(data or {})
    evidence = {k: v for k in EVIDENCE_FIELDS if (v := f.str(k, max_len=20_000)) is not None}
    f.reject_unknown()
    if not evidence:
        raise ValidationError(f"give at least one evidence field: {', '.join(EVIDENCE_FIELDS)}",
                              param="uncategorized_text")
    now = await clock.now_for(principal)
    async with in_transaction():
        d = await Dispute.filter(id=dispute_id, **principal.scope).select_for_update().first()
        if d is None:
            raise NotFound()
        if d.status != "needs_response":
            raise InvalidState(f"Dispute {d.id} cannot take evidence: its status is {d.status}; evidence is "
                               "accepted once, while it needs a response")
        if now > d.evidence_due_by:
            raise InvalidState(f"Dispute {d.id}: evidence was due by {iso(d.evidence_due_by)}")
        if (d.evidence or {}).get("files"):            # files attached before (dispute_files) stay
            evidence["files"] = d.evidence["files"]
        d.status, d.evidence, d.decide_at, d.updated_at = "under_review", evidence, now + DECIDE_AFTER, now
        await d.save(update_fields=["status", "evidence", "decide_at", "updated_at"])
        await audit.record(merchant_id=principal.merchant_id, action="dispute.evidence_submitted", principal=principal,
                           object_type="dispute", object_id=d.id, before={"status": "needs_response"},
                           after={"status": "under_review", "evidence_fields": sorted(evidence)})
    return d


# ---------------------------------------------------------------- scheduler jobs

def _dispute_card() -> str:
    return cards.fingerprint(cards.TEST_CARDS["disputed"])


async def _due_open(scope: scheduler.Scope, until: datetime, limit: int) -> list[tuple[datetime, str]]:
    rows = await (scope.apply(Payment.filter(card_fingerprint=_dispute_card(), status__in=("succeeded", "captured"),
                                         captured_at__lte=until - DISPUTE_AFTER))
                  .order_by("captured_at").limit(limit).values_list("captured_at", "id"))
    return [(when + DISPUTE_AFTER, pid) for when, pid in rows]


async def open_dispute(payment_id: str, due: datetime) -> str | None:
    """The cardholder disputes the payment (a job run)."""
    async with in_transaction():
        p = await Payment.filter(id=payment_id).select_for_update(skip_locked=True).first()
        if (p is None or p.status not in ("succeeded", "captured") or p.captured_at is None
                or p.captured_at + DISPUTE_AFTER > due or p.card_fingerprint != _dispute_card()):
            return None
        amount = p.amount_captured - p.amount_refunded
        fee = FEES.get(p.currency, 0)
        d = Dispute(id=new_id("dp"), merchant_id=p.merchant_id, livemode=p.livemode, payment_id=p.id, amount=amount,
                    fee=fee, currency=p.currency, reason=REASON, status="needs_response", evidence={},
                    evidence_due_by=due + EVIDENCE_DAYS, decide_at=due + EVIDENCE_DAYS, created_at=due,
                    updated_at=due)
        await d.save(force_create=True)
        await Payment.filter(id=p.id).update(status="disputed", updated_at=due)
        p.status, p.updated_at = "disputed", due
        legs = [ledger.Leg(ledger.MERCHANT_BALANCE, amount), ledger.Leg(ledger.PROVIDER_RECEIVABLE, -amount)]
        if fee:
            legs += [ledger.Leg(ledger.MERCHANT_BALANCE, fee), ledger.Leg(ledger.FEE_REVENUE, -fee)]
        await ledger.post(merchant_id=p.merchant_id, livemode=p.livemode, currency=p.currency, kind="dispute",
                          legs=legs, payment_id=p.id, source_id=d.id)
        await marketplace_reversals.on_dispute(merchant_id=p.merchant_id, livemode=p.livemode, payment_id=p.id,
                                               payment_amount=p.amount, disputed=amount, now=due)
        await events.emit(merchant_id=p.merchant_id, livemode=p.livemode, type="payment.disputed",
                          obj=event_object(p, dispute=dispute_view.shape(d)))
    return f"payment {p.id} disputed: {d.id}, {amount} + fee {fee} {p.currency} debited"


async def _due_decide(scope: scheduler.Scope, until: datetime, limit: int) -> list[tuple[datetime, str]]:
    rows = await (scope.apply(Dispute.filter(status__in=OPEN, decide_at__lte=until))
                  .order_by("decide_at").limit(limit).values_list("decide_at", "id"))
    return [(when, did) for when, did in rows]


async def decide(dispute_id: str, due: datetime) -> str | None:
    """The sandbox issuer decides (a job run): lost without evidence or with "losing_evidence"."""
    async with in_transaction():
        d = await Dispute.filter(id=dispute_id).select_for_update(skip_locked=True).first()
        if d is None or d.status not in OPEN or d.decide_at is None or d.decide_at > due:
            return None
        text = " ".join(str(v) for k, v in (d.evidence or {}).items() if k != "files")
        won = d.status == "under_review" and LOSING not in text
        d.status, d.closed_at, d.updated_at, d.decide_at = ("won" if won else "lost"), due, due, None
        await d.save(update_fields=["status", "closed_at", "updated_at", "decide_at"])
        if won:
            await ledger.post(merchant_id=d.merchant_id, livemode=d.livemode, currency=d.currency,
                              kind="dispute_won", legs=[ledger.Leg(ledger.MERCHANT_BALANCE, -d.amount),
                                                        ledger.Leg(ledger.PROVIDER_RECEIVABLE, d.amount)],
                              payment_id=d.payment_id, source_id=d.id)
            await marketplace_reversals.on_dispute_won(payment_id=d.payment_id, now=due)
    return f"dispute {d.id} {d.status}" + (f": {d.amount} {d.currency} returned" if won else "")


def register_jobs() -> None:
    """This domain's job kinds, registered with the scheduler when the app starts (app/jobs.py)."""
    scheduler.register(scheduler.JobKind("dispute.open", _due_open, open_dispute))
    scheduler.register(scheduler.JobKind("dispute.decide", _due_decide, decide))
