"""GraphQL for the payment method registry and the local methods' test helper:
paymentMethodTypes(currency, amount, country) and fawryPay (test mode). Thin adapters over
services.payments.methods and services.payments.local_methods, as REST is."""
from __future__ import annotations

from datetime import date

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from schema.bnpl_types import BnplScheduleRule
from schema.context import Context
from schema.errors import UserError, user_errors
from schema.inputs import to_data
from schema.intents import PaymentIntentPayload, _payload
from schema.money import From, _window_args
from schema.scalars import MinorAmount
from services.money import analytics
from services.payments import bills_rtp, local_methods, method_analytics, methods


@strawberry.type
class DisplayName:
    ar: str
    en: str
    tr: str


@strawberry.type(description="The fee a method costs the merchant: bps of the amount plus fixed, at most cap.")
class PaymentMethodFee:
    bps: int
    fixed: MinorAmount
    cap: MinorAmount | None


@strawberry.type
class PaymentMethodLimits:
    minimum: MinorAmount
    maximum: MinorAmount


@strawberry.type(description="A payment method available for a currency (GET /v1/payment_method_types).")
class PaymentMethodType:
    type: str = strawberry.field(description="card, mada, knet, benefit, naps, omannet, fawry, eg_wallet, stcpay, "
                                             "sadad, cliq, aani, qr, "
                                             "tap_to_pay, cod, crypto")
    flow: str = strawberry.field(description="card, card_present, redirect, reference, otp, request_to_pay, qr, "
                                             "cod, crypto")
    currency: str
    display_name: DisplayName
    fee: PaymentMethodFee
    limits: PaymentMethodLimits
    providers: list[str]
    sandbox: JSON
    schedule: BnplScheduleRule | None = strawberry.field(default=None, description="BNPL: how the order is split")

    @classmethod
    def of(cls, d: dict) -> "PaymentMethodType":
        return cls(type=d["type"], flow=d["flow"], currency=d["currency"], display_name=DisplayName(**d["display_name"]),
                   fee=PaymentMethodFee(**d["fee"]), limits=PaymentMethodLimits(**d["limits"]),
                   providers=d["providers"], sandbox=d["sandbox"],
                   schedule=BnplScheduleRule(**d["schedule"]) if d.get("schedule") else None)


@strawberry.input
class FawryPayInput:
    reference: str | None = strawberry.UNSET


@strawberry.input
class SadadPayInput:
    reference: str | None = strawberry.UNSET


@strawberry.input
class RequestToPayInput:
    payment_intent: str | None = strawberry.UNSET


@strawberry.type
class MethodStats:
    method: str = strawberry.field(description="card, mada, knet, benefit, fawry, stcpay, crypto, cod, qr, tap_to_pay")
    payments: int = strawberry.field(description="Approved payments")
    volume: MinorAmount = strawberry.field(description="The sum of their amounts")


@strawberry.type
class MethodAnalytics:
    currency: str
    period: str
    from_: date = strawberry.field(name="from")
    to: date
    data: list[MethodStats]


@strawberry.type
class Query:
    @strawberry.field(description="Approved payments by payment method (GET /api/analytics/methods).")
    async def method_analytics(self, info: Info[Context, None], period: str | None = None, from_: From = None,
                               to: date | None = None, currency: str | None = None) -> MethodAnalytics:
        principal = info.context.principal
        w = await analytics.window(principal=principal, **_window_args(period, from_, to, currency))
        out = await method_analytics.analytics_by_method(principal=principal, w=w)
        return MethodAnalytics(currency=out["currency"], period=out["period"], from_=w.start, to=w.end,
                               data=[MethodStats(**e) for e in out["data"]])

    @strawberry.field(description="The payment methods available for a payment in `currency` (card first).")
    async def payment_method_types(self, info: Info[Context, None], currency: str, amount: MinorAmount | None = None,
                                   country: str | None = None) -> list[PaymentMethodType]:
        found = await methods.list_payment_method_types(principal=info.context.principal, currency=currency,
                                                        amount=amount, country=country)
        return [PaymentMethodType.of(d) for d in found]


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Test mode: pay a Fawry reference at an outlet (POST /api/test-helpers/fawry/pay).")
    async def fawry_pay(self, info: Info[Context, None], input: FawryPayInput) -> PaymentIntentPayload:
        principal = info.context.principal
        return _payload(*await user_errors(lambda: local_methods.fawry_pay(principal=principal, data=to_data(input))))

    @strawberry.mutation(description="Test mode: the buyer's bank pays a SADAD bill (POST /api/test-helpers/sadad/pay).")
    async def sadad_pay(self, info: Info[Context, None], input: SadadPayInput) -> PaymentIntentPayload:
        principal = info.context.principal
        return _payload(*await user_errors(lambda: bills_rtp.sadad_pay(principal=principal, data=to_data(input))))

    @strawberry.mutation(description="Test mode: the buyer approves a CliQ or Aani request to pay "
                                     "(POST /api/test-helpers/request-to-pay/approve).")
    async def request_to_pay_approve(self, info: Info[Context, None], input: RequestToPayInput) -> PaymentIntentPayload:
        principal = info.context.principal
        return _payload(*await user_errors(lambda: bills_rtp.request_to_pay_answer(
            principal=principal, data=to_data(input), approve=True)))

    @strawberry.mutation(description="Test mode: the buyer rejects a CliQ or Aani request to pay "
                                     "(POST /api/test-helpers/request-to-pay/reject).")
    async def request_to_pay_reject(self, info: Info[Context, None], input: RequestToPayInput) -> PaymentIntentPayload:
        principal = info.context.principal
        return _payload(*await user_errors(lambda: bills_rtp.request_to_pay_answer(
            principal=principal, data=to_data(input), approve=False)))


__all__ = ["Query", "Mutation", "UserError"]
