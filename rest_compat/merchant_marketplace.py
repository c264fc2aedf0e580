"""Marketplace routes of the merchant interface `/api` (issue 47): sub-merchants, the marketplace
settings, splits, seller balances, payouts and payout batches (with their bank files), and the
payouts' test helpers. Parse -> call services.money.marketplace -> shape."""
from __future__ import annotations

from aiohttp import web

from rest_compat.routing import Call, Route
from rest_compat.shapes import page
from services.money.marketplace import commission, files, payouts, sellers, settings, splits
from services.validation import Fields


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


# ---------------------------------------------------------------- payouts and batches

async def payouts_list(call: Call) -> dict:
    q = call.query
    p = await payouts.list_payouts(principal=call.principal, limit=q.get("limit"),
                                   starting_after=q.get("starting_after"), sub_merchant=q.get("sub_merchant"),
                                   batch=q.get("batch"), status=q.get("status"))
    return page([payouts.payout_object(x) for x in p.items], p)


async def payouts_get(call: Call) -> dict:
    return payouts.payout_object(await payouts.get_payout(principal=call.principal, payout_id=call.params["id"]))


async def payouts_statement(call: Call) -> web.Response:
    text = await payouts.statement_csv(principal=call.principal, payout_id=call.params["id"])
    return web.Response(text=text, content_type="text/csv", charset="utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{call.params["id"]}-statement.csv"'})


async def payout_batches_create(call: Call) -> dict:
    b, made = await payouts.create_batch(principal=call.principal, data=await call.body())
    return payouts.batch_object(b, made)


async def payout_batches_list(call: Call) -> dict:
    q = call.query
    p = await payouts.list_batches(principal=call.principal, limit=q.get("limit"),
                                   starting_after=q.get("starting_after"))
    return page([payouts.batch_object(b) for b in p.items], p)


async def payout_batches_get(call: Call) -> dict:
    b, made = await payouts.get_batch(principal=call.principal, batch_id=call.params["id"])
    return payouts.batch_object(b, made)


async def payout_batches_file(call: Call) -> web.Response:
    body, media, name = await files.batch_file(principal=call.principal, batch_id=call.params["id"],
                                               fmt=call.query.get("format"))
    return web.Response(body=body, content_type=media, charset="utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})


def _settle(outcome: str):
    async def handler(call: Call) -> dict:
        Fields(await call.body()).reject_unknown()
        return payouts.payout_object(await commission.settle(principal=call.principal, payout_id=call.params["id"],
                                                             outcome=outcome))
    handler.__name__ = f"test_payout_{outcome}"
    return handler


SUB_MERCHANT_FIELDS = ("type", "legal_name", "email", "country", "address", "external_id", "tax_id",
                       "registration_number", "payout", "default_fee", "auto_release_days", "payout_schedule")
_SMR = ("id", "object", "type", "legal_name", "country", "currency", "payout", "status", "payouts_enabled",
        "requirements")
_MKT = ("dispute_policy", "payout_account", "commission_invoices")
_SPL = ("id", "object", "payment", "sub_merchant", "line_amount", "fee", "amount", "release", "status")
_PO = ("id", "object", "batch", "sub_merchant", "amount", "currency", "status")
_PB = ("id", "object", "currency", "count", "total")
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
    Route("GET", "/payouts", payouts_list, summary="List payouts to sub-merchants, newest first",
          response_fields=("data", "has_more")),
    Route("GET", "/payouts/{id}", payouts_get, summary="Retrieve a payout", response_fields=_PO),
    Route("GET", "/payouts/{id}/statement", payouts_statement,
          summary="A payout's statement (CSV): its lines adding up to the payout"),
    Route("POST", "/payout-batches", payout_batches_create, status=201,
          summary="Pay the sub-merchants of a currency now, in one batch", request_fields=("currency", "sub_merchants"),
          response_fields=_PB),
    Route("GET", "/payout-batches", payout_batches_list, summary="List payout batches, newest first",
          response_fields=("data", "has_more")),
    Route("GET", "/payout-batches/{id}", payout_batches_get, summary="Retrieve a payout batch with its payouts",
          response_fields=_PB),
    Route("GET", "/payout-batches/{id}/file", payout_batches_file,
          summary="The batch's bank file: ISO 20022 pain.001.001.09 (XML) or CSV"),
    Route("POST", "/test-helpers/payouts/{id}/paid", _settle("paid"), summary="Test mode: the bank paid a payout",
          response_fields=_PO),
    Route("POST", "/test-helpers/payouts/{id}/failed", _settle("failed"),
          summary="Test mode: a payout failed (its money is available again)", response_fields=_PO),
    Route("POST", "/test-helpers/payouts/{id}/returned", _settle("returned"),
          summary="Test mode: a paid payout came back (credited again; payout.iban due)", response_fields=_PO),
    Route("GET", "/marketplace", marketplace_get, summary="The marketplace settings", response_fields=_MKT),
    Route("PUT", "/marketplace", marketplace_update, summary="Update the marketplace settings",
          request_fields=_MKT, response_fields=_MKT),
]
