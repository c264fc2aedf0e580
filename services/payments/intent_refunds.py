"""Refunds of `/v1` payment intents (`POST /v1/payments/{id}/refund`, GraphQL `paymentIntentRefund`).

The money rules are the `/api` refund's (services.payments.payments: the request, the
refundable limit, the provider call, the ledger transaction and the rollups); this module adds
what is the intent's own: the intent's status (`succeeded` while partly refunded, `refunded`
once nothing is left), its `amount_refunded`, the `ref_` record and the `payment.refunded` event.
Concurrency: the intent row is locked (`select_for_update`, PostgreSQL) and changed by a
conditional update on its version and refunded amount, so two refunds can never together
return more than was received.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tortoise.transactions import in_transaction

from models.intents import IntentRefund, PaymentIntent
from services import events, idempotency
from services.identity import audit
from services.errors import Conflict, InvalidState, NotFound, ValidationError
from services.ids import new_id
from services.infra import db
from services.infra.runtime import runtime
from services.money.marketplace import reversals as marketplace_reversals
from services.payments import bnpl, intents, local_methods, payments
from services.principal import Principal
from services.timestamps import iso

REFUNDABLE = ("succeeded", "refunded")      # `refunded` with something left cannot happen; it answers "fully refunded"


@dataclass
class IntentRefundResult:
    intent: PaymentIntent
    refund: IntentRefund
    split_reversals: list[dict] | None = None     # a split payment's: each line's part (marketplace)


def refund_object(r: IntentRefund) -> dict[str, Any]:
    return {"id": r.id, "object": "refund", "amount": r.amount, "currency": r.currency, "reason": r.reason,
            "status": r.status, "payment_intent": r.intent_id, "created_at": iso(r.created_at)}


async def refund_intent(*, principal: Principal, intent_id: str, data: Any,
                        idempotency_key: str | None = None) -> IntentRefundResult:
    """Refund all that is left of a succeeded intent, or `amount` of it (repeatable until nothing is left)."""
    key = intents._idem_key(idempotency_key, data)
    return await idempotency.run(
        principal=principal, operation=f"v1.intent.refund:{intent_id}", key=key, params=intents._params(data),
        execute=lambda: _refund(principal, intent_id, data), encode=lambda r: r.refund.id,
        decode=lambda rid: _load_result(principal, intent_id, rid))


async def _load_result(principal: Principal, intent_id: str, refund_id: str) -> IntentRefundResult:
    intent = await intents._load(principal, intent_id)
    refund = await IntentRefund.get_or_none(id=refund_id, intent_id=intent.id)
    if refund is None:
        raise NotFound("No such refund", param="id")
    return IntentRefundResult(intent=intent, refund=refund)


def _parse(data: Any) -> tuple[int | None, str | None]:
    try:
        return payments.parse_refund(data, also=("idempotency_key", *marketplace_reversals.REFUND_FIELDS))
    except ValidationError as e:
        if e.param == "amount":        # the /v1 code of a bad amount (as on create)
            raise ValidationError(e.message, code="invalid_amount", param="amount") from None
        raise


async def _refund(principal: Principal, intent_id: str, data: Any) -> IntentRefundResult:
    if not isinstance(data, dict):
        raise ValidationError("request body must be a JSON object")
    amount, reason = _parse(data)
    opts = marketplace_reversals.parse_options(data)

    async def attempt() -> IntentRefundResult:
        async with in_transaction():
            intent = await intents._load(principal, intent_id, for_update=True)    # held until commit
            local_methods.check_refundable(intent, amount)       # a Fawry cash payment: refund_not_supported
            part_captured = bnpl.is_bnpl(intent.payment_method) and intent.status == "requires_capture"
            if part_captured:                              # BNPL: what was captured so far refunds
                bnpl.check_refundable(intent)
            elif intent.status not in REFUNDABLE:
                raise InvalidState(f"Payment intent {intent.id} cannot be refunded: its status is {intent.status}; "
                                   "only a succeeded payment intent can be refunded")
            moved = payments.refund_amount(what=f"Payment intent {intent.id}", captured=intent.amount_received,
                                           refunded=intent.amount_refunded, amount=amount, obj=intent)
            now = runtime().clock.now()
            refund_id = new_id("ref")
            # A split payment's sellers first (their reversals), then the provider's refund.
            reversals = await marketplace_reversals.on_refund(payment_id=intent.id, payment_amount=intent.amount,
                                                              refunded_before=intent.amount_refunded,
                                                              refund_amount=moved, refund_id=refund_id, opts=opts,
                                                              now=now)
            # Card-like intents give the money back through the provider that captured it; crypto
            # and cash on delivery have none (the merchant returns the money; the ledger records it).
            if bnpl.is_bnpl(intent.payment_method):       # the BNPL provider's own refund (services.payments.bnpl)
                reference = bnpl.refund_reference(intent, moved, intent.amount_refunded)
            else:
                reference = (await payments.provider_refund(intent.provider, intent.provider_ref, moved,
                                                            intent.currency) if intent.provider else None)
            now = runtime().clock.now()
            total = intent.amount_refunded + moved
            status = "refunded" if total >= intent.amount_received and not part_captured else intent.status
            changed = await PaymentIntent.filter(
                id=intent.id, version=intent.version, amount_refunded=intent.amount_refunded).update(
                amount_refunded=total, status=status, version=intent.version + 1)
            if not changed:      # only without row locks (SQLite): a concurrent refund won
                raise Conflict("The payment intent changed meanwhile; retrieve it and retry", code="conflict")
            intent.amount_refunded, intent.status, intent.version = total, status, intent.version + 1
            refund = await IntentRefund.create(id=refund_id, intent_id=intent.id, merchant_id=intent.merchant_id,
                                               livemode=intent.livemode, amount=moved, currency=intent.currency,
                                               reason=reason, status="succeeded", provider_reference=reference,
                                               created_at=now)
            await payments.post_refund(intent, amount=moved, refund_id=refund.id, now=now, source_id=intent.id)
            await audit.record(merchant_id=intent.merchant_id, action="refund.created", principal=principal,
                               object_type="refund", object_id=refund.id,
                               after={"payment_id": intent.id, "amount": refund.amount, "currency": intent.currency})
            await events.emit(merchant_id=intent.merchant_id, livemode=intent.livemode, type="payment.refunded",
                              obj={**intents.intent_object(intent),
                                   "refund": {"id": refund.id, "amount": moved, "reason": reason}})
            return IntentRefundResult(intent=intent, refund=refund, split_reversals=reversals or None)
    result = await db.retrying(attempt, what=f"refund of intent {intent_id}")
    i = result.intent
    await payments.einvoice_refund(i, result.refund.amount, result.refund.reason)   # e-invoice notes, return receipts
    return result
