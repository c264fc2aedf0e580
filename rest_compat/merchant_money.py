"""Money routes of the merchant interface `/api`: balance, settlements (with their lines and a CSV
for reconciliation), analytics and disputes (merchant-api.md plus the money-views issue).
Parse -> call services.balance / analytics / disputes -> shape."""
from __future__ import annotations

from aiohttp import web

from rest_compat.routing import Call, Route
from rest_compat.shapes import page
from services.money import analytics, balance, dispute_files, disputes
from services.validation import one_of


async def balance_get(call: Call) -> dict:
    return await balance.get_balance(principal=call.principal)


async def settlements_list(call: Call) -> dict:
    q = call.query
    p = await balance.list_settlements(principal=call.principal, limit=q.get("limit"),
                                       starting_after=q.get("starting_after"), status=q.get("status"),
                                       currency=q.get("currency"), arrival_date_gte=q.get("arrival_date_gte"),
                                       arrival_date_lte=q.get("arrival_date_lte"))
    return page([balance.settlement_object(s) for s in p.items], p)


async def settlements_get(call: Call) -> dict:
    return balance.settlement_object(await balance.get_settlement(principal=call.principal,
                                                                  settlement_id=call.params["id"]))


async def settlements_transactions(call: Call):
    q = call.query
    fmt = q.get("format") or "json"
    if fmt not in ("json", "csv"):
        raise one_of("format", ("json", "csv"))
    if fmt == "csv":
        text = await balance.settlement_csv(principal=call.principal, settlement_id=call.params["id"],
                                            limit=q.get("limit"), starting_after=q.get("starting_after"))
        return web.Response(text=text, content_type="text/csv", charset="utf-8",
                            headers={"Content-Disposition": f'attachment; filename="{call.params["id"]}.csv"'})
    p = await balance.settlement_lines(principal=call.principal, settlement_id=call.params["id"],
                                       limit=q.get("limit"), starting_after=q.get("starting_after"))
    return page([balance.line_object(line) for line in p.items], p)


async def _window(call: Call) -> analytics.Window:
    q = call.query
    return await analytics.window(principal=call.principal, period=q.get("period"), from_=q.get("from"),
                                  to=q.get("to"), currency=q.get("currency"), chosen_by_read=True)


async def analytics_overview(call: Call) -> dict:
    return await analytics.overview(principal=call.principal, w=await _window(call))


async def analytics_revenue(call: Call) -> dict:
    return await analytics.revenue(principal=call.principal, w=await _window(call))


async def analytics_providers(call: Call) -> dict:
    return await analytics.providers(principal=call.principal, w=await _window(call))


async def disputes_list(call: Call) -> dict:
    q = call.query
    p = await disputes.list_disputes(principal=call.principal, limit=q.get("limit"),
                                     starting_after=q.get("starting_after"), status=q.get("status"),
                                     payment_id=q.get("payment_id"))
    return page([disputes.dispute_object(d) for d in p.items], p)


async def disputes_get(call: Call) -> dict:
    return disputes.dispute_object(await disputes.get_dispute(principal=call.principal,
                                                              dispute_id=call.params["id"]))


async def disputes_evidence(call: Call) -> dict:
    return disputes.dispute_object(await disputes.submit_evidence(principal=call.principal,
                                                                  dispute_id=call.params["id"],
                                                                  data=await call.body()))


async def disputes_evidence_file(call: Call) -> dict:
    d = await dispute_files.add_file(principal=call.principal, dispute_id=call.params["id"], data=await call.body())
    return disputes.dispute_object(d)


_SET = ("id", "amount", "currency", "status", "arrival_date", "transactions", "settled_on", "created_at")
_DP = ("id", "payment_id", "amount", "fee", "currency", "reason", "status", "evidence_due_by")

ROUTES: list[Route] = [
    Route("GET", "/balance", balance_get, summary="The balance: available and pending, per currency",
          response_fields=("available", "pending")),
    Route("GET", "/settlements", settlements_list, summary="List settlements (payouts), newest first",
          response_fields=("data", "has_more")),
    Route("GET", "/settlements/{id}", settlements_get, summary="Retrieve a settlement", response_fields=_SET),
    Route("GET", "/settlements/{id}/transactions", settlements_transactions,
          summary="The lines of a settlement (JSON, or CSV with format=csv)", response_fields=("data", "has_more")),
    Route("GET", "/analytics", analytics_overview, summary="Volume, transactions and approval rate",
          response_fields=("volume", "transactions", "approval_rate", "period")),
    Route("GET", "/analytics/revenue", analytics_revenue, summary="Revenue by day",
          response_fields=("total", "currency", "by_day")),
    Route("GET", "/analytics/providers", analytics_providers, summary="Volume, approval rate and latency per provider",
          response_fields=("data",)),
    Route("GET", "/disputes", disputes_list, summary="List disputes", response_fields=("data", "has_more")),
    Route("GET", "/disputes/{id}", disputes_get, summary="Retrieve a dispute", response_fields=_DP),
    Route("POST", "/disputes/{id}/evidence", disputes_evidence, summary="Submit evidence for a dispute",
          request_fields=disputes.EVIDENCE_FIELDS, response_fields=_DP),
    Route("POST", "/disputes/{id}/evidence/files", disputes_evidence_file, status=201,
          summary="Attach a file (PDF, PNG, JPEG; at most 700 KiB, 5 per dispute) to a dispute's evidence",
          request_fields=("filename", "content_type", "content_base64"), response_fields=_DP),
]
