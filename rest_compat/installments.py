"""Routes of installments (taksit): the merchant's plans on `/api/installments/plans` and a
card's options on `/v1/installments` (mounted by merchant_api.py and intents_v1.py). Parse ->
call services.payments.installments -> shape; no rule lives here."""
from __future__ import annotations

from rest_compat.routing import Call, Route
from services.errors import ValidationError
from services.money import analytics
from services.payments import installments


def plans_shape(plans: list[dict], livemode: bool) -> dict:
    return {"object": "installment_plans", "livemode": livemode, "data": plans}


async def installment_plans_get(call: Call) -> dict:
    return plans_shape(await installments.get_plans(principal=call.principal), call.principal.livemode)


async def installment_plans_replace(call: Call) -> dict:
    plans = await installments.replace_plans(principal=call.principal, data=await call.body())
    return plans_shape(plans, call.principal.livemode)


async def installments_options(call: Call) -> dict:
    q = call.query
    for k in q:
        if k not in ("bin", "amount", "currency"):
            raise ValidationError(f"unknown query parameter {k}", param=k)
    opts = await installments.installment_options(principal=call.principal, bin=q.get("bin"),
                                                  amount=q.get("amount"), currency=q.get("currency"))
    return opts.as_dict()


async def analytics_installments(call: Call) -> dict:
    q = call.query
    w = await analytics.window(principal=call.principal, period=q.get("period"), from_=q.get("from"),
                               to=q.get("to"), currency=q.get("currency"))
    return await installments.analytics_by_count(principal=call.principal, w=w)


MERCHANT_ROUTES: list[Route] = [
    Route("GET", "/installments/plans", installment_plans_get, summary="The installment plans per card program",
          response_fields=("object", "livemode", "data")),
    Route("PUT", "/installments/plans", installment_plans_replace, summary="Replace the installment plans",
          request_fields=("plans",), response_fields=("object", "livemode", "data")),
    Route("GET", "/analytics/installments", analytics_installments, summary="Approved payments by installment count",
          response_fields=("object", "currency", "period", "data")),
]

V1_ROUTES: list[Route] = [
    Route("GET", "/installments", installments_options, auth="key_or_publishable",
          summary="Installment options of a card (its BIN) for an amount",
          response_fields=("object", "bank", "program", "card_type", "options")),
]
