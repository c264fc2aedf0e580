"""GraphQL for installments (taksit): a card's options (`installmentOptions`), the merchant's
plans (`installmentPlans`, `installmentPlansReplace`) and the `installments` terms of a payment
or intent -- the same services as GET /v1/installments and GET/PUT /api/installments/plans."""
from __future__ import annotations

from datetime import date

import strawberry
from strawberry.types import Info

from schema.context import Context
from schema.errors import UserError, user_errors
from schema.inputs import to_data
from schema.money import From, _window_args
from schema.scalars import MinorAmount
from services.money import analytics
from services.payments import installments


@strawberry.type(description="The installment terms of a payment: the card is charged `totalAmount`, in "
                             "`count` installments of `installmentAmount` (the first carries the remainder).")
class Installments:
    count: int
    installment_amount: MinorAmount | None
    first_installment_amount: MinorAmount | None
    total_amount: MinorAmount | None
    commission: MinorAmount | None
    paid_by: str | None = strawberry.field(description="customer or merchant")
    program: str | None
    bank: str | None

    @classmethod
    def of(cls, t: dict | None) -> Installments | None:
        o = installments.as_object(t)
        return cls(**o) if o else None


@strawberry.type
class InstallmentOption:
    count: int
    installment_amount: MinorAmount
    first_installment_amount: MinorAmount
    total_amount: MinorAmount
    commission: MinorAmount
    paid_by: str | None


@strawberry.type(description="What a card (its BIN) may pay an amount in: count 1 always, more only for "
                             "TRY credit cards of an installment program.")
class InstallmentOptions:
    brand: str | None = strawberry.field(description="The card's brand by its BIN: visa, mastercard, troy (a "
                                                     "65... BIN in the Turkish BIN table is Troy Global), ...")
    networks: list[str] = strawberry.field(description="The card's networks: [\"troy\"] (Troy Yerel), "
                                                       "[\"troy\", \"discover\"] (Troy Global), [\"visa\"], ...")
    bank: str | None
    program: str | None
    card_type: str | None
    amount: MinorAmount
    currency: str
    options: list[InstallmentOption]


@strawberry.type
class InstallmentPlanOption:
    count: int
    commission_bps: int


@strawberry.type
class InstallmentPlan:
    program: str
    paid_by: str
    options: list[InstallmentPlanOption]

    @classmethod
    def of(cls, p: dict) -> InstallmentPlan:
        return cls(program=p["program"], paid_by=p["paid_by"],
                   options=[InstallmentPlanOption(**o) for o in p["options"]])


@strawberry.input
class InstallmentPlanOptionInput:
    count: int | None = strawberry.UNSET
    commission_bps: int | None = strawberry.UNSET


@strawberry.input
class InstallmentPlanInput:
    program: str | None = strawberry.UNSET
    paid_by: str | None = strawberry.UNSET
    options: list[InstallmentPlanOptionInput] | None = strawberry.UNSET


@strawberry.input
class InstallmentPlansReplaceInput:
    plans: list[InstallmentPlanInput]


@strawberry.type
class InstallmentPlansPayload:
    plans: list[InstallmentPlan] | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class InstallmentCountStats:
    count: int
    payments: int
    volume: MinorAmount = strawberry.field(description="The sum of the payments' amounts")
    charged: MinorAmount = strawberry.field(description="What the cards were charged: volume plus the commissions "
                                                        "customers paid")


@strawberry.type
class InstallmentAnalytics:
    currency: str
    period: str
    data: list[InstallmentCountStats]


@strawberry.type
class Query:
    @strawberry.field(description="A card's installment options for an amount (GET /v1/installments).")
    async def installment_options(self, info: Info[Context, None], bin: str, amount: MinorAmount,
                                  currency: str) -> InstallmentOptions:
        o = (await installments.installment_options(principal=info.context.principal, bin=bin, amount=amount,
                                                    currency=currency)).as_dict()
        return InstallmentOptions(brand=o["brand"], networks=o["networks"], bank=o["bank"], program=o["program"], card_type=o["card_type"], amount=o["amount"],
                                  currency=o["currency"], options=[InstallmentOption(**x) for x in o["options"]])

    @strawberry.field(description="Approved payments by installment count (GET /api/analytics/installments).")
    async def installment_analytics(self, info: Info[Context, None], period: str | None = None,
                                    from_: From = None, to: date | None = None,
                                    currency: str | None = None) -> InstallmentAnalytics:
        principal = info.context.principal
        w = await analytics.window(principal=principal, **_window_args(period, from_, to, currency))
        out = await installments.analytics_by_count(principal=principal, w=w)
        return InstallmentAnalytics(currency=out["currency"], period=out["period"],
                                    data=[InstallmentCountStats(**e) for e in out["data"]])

    @strawberry.field(description="The merchant's installment plans per program (GET /api/installments/plans).")
    async def installment_plans(self, info: Info[Context, None]) -> list[InstallmentPlan]:
        return [InstallmentPlan.of(p) for p in await installments.get_plans(principal=info.context.principal)]


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Replace the installment plans (PUT /api/installments/plans).")
    async def installment_plans_replace(self, info: Info[Context, None],
                                        input: InstallmentPlansReplaceInput) -> InstallmentPlansPayload:
        principal = info.context.principal
        plans, errors = await user_errors(lambda: installments.replace_plans(principal=principal, data=to_data(input)))
        return InstallmentPlansPayload(plans=[InstallmentPlan.of(p) for p in plans] if plans is not None else None,
                                       user_errors=errors)
