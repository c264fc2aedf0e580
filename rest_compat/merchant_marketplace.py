"""Marketplace routes of the merchant interface `/api` (issue 47): sub-merchants, the marketplace
settings, splits, seller balances, payouts and payout batches (with their bank files), and the
payouts' test helpers. Parse -> call services.money.marketplace -> shape."""
from __future__ import annotations

from rest_compat.routing import Call, Route
from rest_compat.shapes import page
from services.money.marketplace import sellers, settings, splits


# ---------------------------------------------------------------- sub-merchants

async def sub_merchants_create(call: Call) -> dict:
    s = await sellers.create_sub_merchant(principal=call.principal, data=await call.body())
    return sellers.sub_merchant_object(s, await sellers.now_for(call.principal))


async def sub_merchants_list(call: Call) -> dict:
    q = call.query
    p = await sellers.list_sub_merchants(principal=call.principal, limit=q.get("limit"),
                                         starting_after=q.get("starting_after"), external_id=q.get("external_id"))
    now = await sellers.now_for(call.principal)
    return page([sellers.sub_merchant_object(s, now) for s in p.items], p)


async def sub_merchants_get(call: Call) -> dict:
    s = await sellers.get_sub_merchant(principal=call.principal, sub_merchant_id=call.params["id"])
    return sellers.sub_merchant_object(s, await sellers.now_for(call.principal))


async def sub_merchants_update(call: Call) -> dict:
    s = await sellers.update_sub_merchant(principal=call.principal, sub_merchant_id=call.params["id"],
                                          data=await call.body())
    return sellers.sub_merchant_object(s, await sellers.now_for(call.principal))


# ---------------------------------------------------------------- settings

async def marketplace_get(call: Call) -> dict:
    return settings.settings_object(await settings.get_settings(principal=call.principal), call.principal.livemode)


async def marketplace_update(call: Call) -> dict:
    s = await settings.update_settings(principal=call.principal, data=await call.body())
    return settings.settings_object(s, call.principal.livemode)


async def sub_merchants_balance(call: Call) -> dict:
    return await sellers.get_balance(principal=call.principal, sub_merchant_id=call.params["id"])


# ---------------------------------------------------------------- splits

async def splits_list(call: Call) -> dict:
    q = call.query
    p = await splits.list_splits(principal=call.principal, limit=q.get("limit"), starting_after=q.get("starting_after"),
                                 payment=q.get("payment"), sub_merchant=q.get("sub_merchant"), status=q.get("status"))
    return page([splits.split_object(s) for s in p.items], p)


async def splits_get(call: Call) -> dict:
    return splits.split_object(await splits.get_split(principal=call.principal, split_id=call.params["id"]))


async def splits_release(call: Call) -> dict:
    return splits.split_object(await splits.release_split(principal=call.principal, split_id=call.params["id"],
                                                          data=await call.body()))


async def splits_hold(call: Call) -> dict:
    return splits.split_object(await splits.hold_split(principal=call.principal, split_id=call.params["id"],
                                                       data=await call.body()))


SUB_MERCHANT_FIELDS = ("type", "legal_name", "email", "country", "address", "external_id", "tax_id",
                       "registration_number", "payout", "default_fee", "auto_release_days", "payout_schedule")
_SMR = ("id", "object", "type", "legal_name", "country", "currency", "payout", "status", "payouts_enabled",
        "requirements")
_MKT = ("dispute_policy", "payout_account", "commission_invoices")
_SPL = ("id", "object", "payment", "sub_merchant", "line_amount", "fee", "amount", "release", "status")
_BAL = ("held", "pending", "available", "reserve", "in_payout", "paid_out")

ROUTES: list[Route] = [
    Route("POST", "/sub-merchants", sub_merchants_create, status=201, summary="Create a sub-merchant (a seller)",
          request_fields=SUB_MERCHANT_FIELDS, response_fields=_SMR),
    Route("GET", "/sub-merchants", sub_merchants_list, summary="List sub-merchants, newest first",
          response_fields=("data", "has_more")),
    Route("GET", "/sub-merchants/{id}", sub_merchants_get, summary="Retrieve a sub-merchant", response_fields=_SMR),
    Route("PUT", "/sub-merchants/{id}", sub_merchants_update, summary="Update a sub-merchant (the fields given)",
          request_fields=SUB_MERCHANT_FIELDS, response_fields=_SMR),
    Route("GET", "/sub-merchants/{id}/balance", sub_merchants_balance,
          summary="A sub-merchant's balance: held, pending, available, reserve, in payout, paid out", response_fields=_BAL),
    Route("GET", "/splits", splits_list, summary="List split lines, newest first", response_fields=("data", "has_more")),
    Route("GET", "/splits/{id}", splits_get, summary="Retrieve a split line", response_fields=_SPL),
    Route("POST", "/splits/{id}/release", splits_release, summary="Release a held split to its seller",
          response_fields=_SPL),
    Route("POST", "/splits/{id}/hold", splits_hold, summary="Hold a split (a released one while not paid out)",
          response_fields=_SPL),
    Route("GET", "/marketplace", marketplace_get, summary="The marketplace settings", response_fields=_MKT),
    Route("PUT", "/marketplace", marketplace_update, summary="Update the marketplace settings",
          request_fields=_MKT, response_fields=_MKT),
]
