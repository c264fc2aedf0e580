"""GraphQL for buy now, pay later: bnplEligibility and paymentIntentCapture. Thin adapters over
services.payments.bnpl, as REST (rest_compat/bnpl.py) is."""
from __future__ import annotations

import strawberry
from strawberry.types import Info

from schema.bnpl_types import BnplScheduleEntry, schedule_of
from schema.context import Context
from schema.errors import UserError, user_errors
from schema.inputs import to_data
from schema.intents import PaymentIntentPayload, _payload
from schema.scalars import MinorAmount
from services.payments import bnpl


@strawberry.type(description="The BNPL provider's answer (GET /v1/bnpl/eligibility): eligible with the schedule, "
                               "or not_eligible with the reason (amount_too_low, amount_too_high, buyer_rejected).")
class BnplEligibility:
    status: str
    reason: str | None
    schedule: list[BnplScheduleEntry] | None


@strawberry.input
class PaymentIntentCaptureInput:
    id: strawberry.ID
    amount: MinorAmount | None = strawberry.field(default=strawberry.UNSET,
                                                  description="Default: all that is still authorized.")
    idempotency_key: str | None = strawberry.UNSET


@strawberry.type
class Query:
    @strawberry.field(description="Is the buyer eligible for a BNPL method, and the schedule "
                                  "(GET /v1/bnpl/eligibility).")
    async def bnpl_eligibility(self, info: Info[Context, None], method: str, amount: MinorAmount, currency: str,
                               phone: str, email: str | None = None) -> BnplEligibility:
        query = {"method": method, "amount": amount, "currency": currency, "phone": phone, "email": email}
        e = await bnpl.check_eligibility(principal=info.context.principal,
                                         query={k: v for k, v in query.items() if v is not None})
        return BnplEligibility(status=e.status, reason=e.reason, schedule=schedule_of(e.schedule))


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Capture an authorized BNPL payment, fully or partly "
                                     "(POST /v1/payments/{id}/capture).")
    async def payment_intent_capture(self, info: Info[Context, None],
                                     input: PaymentIntentCaptureInput) -> PaymentIntentPayload:
        principal = info.context.principal
        data = to_data(input)
        intent_id = str(data.pop("id"))
        return _payload(*await user_errors(lambda: bnpl.capture_intent(principal=principal, intent_id=intent_id,
                                                                       data=data)))


__all__ = ["Query", "Mutation", "UserError"]
