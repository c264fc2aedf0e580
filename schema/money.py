"""GraphQL for the money views: balance, settlements (with their lines), disputes, and the
`reports` root (overview, revenue by day, providers, balance, settlements) -- the same services
as /api/balance, /api/settlements, /api/analytics and /api/disputes."""
from __future__ import annotations

from datetime import date, datetime
from typing import Annotated

import strawberry
from strawberry.types import Info

from schema.context import Context
from schema.crm import CrmReports, crm_principal
from schema.errors import UserError, user_errors
from schema.inputs import to_data
from schema.relay import Connection, Node, check_first, connection, node_resolver
from schema.scalars import MinorAmount
from services.money import analytics, balance, dispute_files, disputes


# ---------------------------------------------------------------- types

@strawberry.type
class BalanceAmount:
    amount: MinorAmount
    currency: str


@strawberry.type(description="What the merchant is owed, per currency: `pending` until each line's settlement "
                             "date (T+1 business day of the merchant's market), then `available` until a "
                             "settlement pays it out. May be negative (refunds, disputes).")
class Balance:
    available: list[BalanceAmount]
    pending: list[BalanceAmount]

    @classmethod
    def of(cls, b: dict) -> Balance:
        return cls(available=[BalanceAmount(**x) for x in b["available"]],
                   pending=[BalanceAmount(**x) for x in b["pending"]])


@strawberry.type(description="One ledger transaction in a settlement: a capture, refund, dispute...")
class SettlementLine:
    id: strawberry.ID
    type: str
    payment_id: str | None
    refund_id: str | None
    source_id: str | None
    gross: MinorAmount
    fee: MinorAmount
    net: MinorAmount = strawberry.field(description="gross - fee: what the line adds to the settlement")
    currency: str
    created_at: datetime

    @classmethod
    def of(cls, line) -> SettlementLine:
        return cls(id=strawberry.ID(line.id), type=line.kind, payment_id=line.payment_id, refund_id=line.refund_id,
                   source_id=line.source_id, gross=line.gross, fee=line.fee, net=line.net, currency=line.currency,
                   created_at=line.created_at)


async def _first_lines(info: Info[Context, None], limit: int):
    principal = info.context.principal

    async def batch(keys: list[str]):
        found = await balance.first_lines_of(principal=principal, settlement_ids=list(keys), limit=limit)
        return [found[k] for k in keys]
    return info.context.loader(f"SettlementLinesBySettlementLoader:{limit}", batch)


@strawberry.type(description="A payout of the lines available by `settledOn`, arriving on `arrivalDate`.")
class Settlement(Node):
    id: strawberry.ID
    amount: MinorAmount = strawberry.field(description="The sum of its lines' net amounts")
    currency: str
    status: str = strawberry.field(description="in_transit, then paid on the arrival date")
    arrival_date: date
    settled_on: date
    transactions: int = strawberry.field(description="The number of its lines")
    gross: MinorAmount
    fee: MinorAmount
    created_at: datetime
    paid_at: datetime | None

    @strawberry.field(description="Its lines, newest first.")
    async def lines(self, info: Info[Context, None], first: int | None = None,
                    after: str | None = None) -> Connection[SettlementLine]:
        limit = check_first(first)
        if after is None:           # the first page of every settlement in the list: one query (DataLoader)
            page = await (await _first_lines(info, limit)).load(str(self.id))
        else:
            page = await balance.settlement_lines(principal=info.context.principal, settlement_id=str(self.id),
                                                  limit=limit, starting_after=after)
        return connection(page, SettlementLine.of, after=after)

    @classmethod
    def of(cls, s) -> Settlement:
        return cls(id=strawberry.ID(s.id), amount=s.amount, currency=s.currency, status=s.status,
                   arrival_date=s.arrival_date, settled_on=s.settled_on, transactions=s.transactions, gross=s.gross,
                   fee=s.fee, created_at=s.created_at, paid_at=s.paid_at)


@strawberry.type(description="A file of a dispute's evidence (its content is not shown).")
class DisputeEvidenceFile:
    id: strawberry.ID
    filename: str
    content_type: str
    size: int = strawberry.field(description="bytes")
    sha256: str


@strawberry.type(description="A cardholder's dispute of a payment (sandbox: card 4000000000000259).")
class Dispute(Node):
    id: strawberry.ID
    payment_id: str
    amount: MinorAmount = strawberry.field(description="Debited from the balance when the dispute opened")
    fee: MinorAmount = strawberry.field(description="The dispute fee, debited too and kept whatever the outcome")
    currency: str
    reason: str
    status: str = strawberry.field(description="needs_response, under_review, won (the amount returns) or lost")
    evidence: strawberry.scalars.JSON
    evidence_due_by: datetime
    created_at: datetime
    closed_at: datetime | None

    evidence_files: list[DisputeEvidenceFile] = strawberry.field(
        default_factory=list, description="The files attached to the evidence (evidence.files), oldest first")

    @classmethod
    def of(cls, d) -> Dispute:
        return cls(id=strawberry.ID(d.id), payment_id=d.payment_id, amount=d.amount, fee=d.fee, currency=d.currency,
                   reason=d.reason, status=d.status, evidence=d.evidence or {}, evidence_due_by=d.evidence_due_by,
                   created_at=d.created_at, closed_at=d.closed_at,
                   evidence_files=[DisputeEvidenceFile(id=strawberry.ID(f["id"]), filename=f["filename"],
                                                       content_type=f["content_type"], size=f["size"],
                                                       sha256=f["sha256"])
                                   for f in (d.evidence or {}).get("files") or []])


@strawberry.type
class AnalyticsOverview:
    volume: MinorAmount = strawberry.field(description="Sum of approved payment amounts in the period")
    transactions: int = strawberry.field(description="Payment attempts: succeeded, declined and failed")
    approved: int
    approval_rate: float = strawberry.field(description="approved / transactions x 100 (percent, 2 decimals)")
    period: str
    currency: str


@strawberry.type
class RevenueDay:
    date: date
    amount: MinorAmount


@strawberry.type
class Revenue:
    total: MinorAmount = strawberry.field(description="Captured minus refunded in the period")
    currency: str
    period: str
    by_day: list[RevenueDay] = strawberry.field(description="One entry per merchant-local day, zero-filled, "
                                                            "oldest first")


@strawberry.type
class ProviderStats:
    provider: str
    volume: MinorAmount = strawberry.field(description="Approved amounts of the payments this provider approved")
    authorizations: int
    approval_rate: float = strawberry.field(description="Approved authorizations / authorizations x 100")
    latency: int = strawberry.field(description="Median authorization time in ms")


From = Annotated[date | None, strawberry.argument(name="from")]


def _window_args(period, from_, to, currency) -> dict:
    return {"period": period, "from_": from_.isoformat() if from_ else None, "to": to.isoformat() if to else None,
            "currency": currency}


@strawberry.type(description="Reports for a dashboard in one query. Windows: `period` 7d, 30d or 90d (default "
                             "30d, local days of the merchant's market) or `from`/`to`; `currency` defaults to "
                             "the most used one. Amounts are never summed across currencies.")
class Reports:
    @strawberry.field
    async def overview(self, info: Info[Context, None], period: str | None = None, from_: From = None,
                       to: date | None = None, currency: str | None = None) -> AnalyticsOverview:
        p = info.context.principal
        w = await analytics.window(principal=p, chosen_by_read=True, **_window_args(period, from_, to, currency))
        o = await analytics.overview(principal=p, w=w)
        return AnalyticsOverview(volume=o["volume"], transactions=o["transactions"], approved=o["approved"],
                                 approval_rate=o["approval_rate"], period=o["period"], currency=o["currency"])

    @strawberry.field
    async def revenue(self, info: Info[Context, None], period: str | None = None, from_: From = None,
                      to: date | None = None, currency: str | None = None) -> Revenue:
        p = info.context.principal
        w = await analytics.window(principal=p, chosen_by_read=True, **_window_args(period, from_, to, currency))
        r = await analytics.revenue(principal=p, w=w)
        return Revenue(total=r["total"], currency=r["currency"], period=r["period"],
                       by_day=[RevenueDay(date=date.fromisoformat(d["date"]), amount=d["amount"]) for d in r["by_day"]])

    @strawberry.field
    async def providers(self, info: Info[Context, None], period: str | None = None, from_: From = None,
                        to: date | None = None, currency: str | None = None) -> list[ProviderStats]:
        p = info.context.principal
        w = await analytics.window(principal=p, chosen_by_read=True, **_window_args(period, from_, to, currency))
        return [ProviderStats(**d) for d in (await analytics.providers(principal=p, w=w))["data"]]

    @strawberry.field
    async def balance(self, info: Info[Context, None]) -> Balance:
        return Balance.of(await balance.get_balance(principal=info.context.principal))

    @strawberry.field(description="Newest first.")
    async def settlements(self, info: Info[Context, None], first: int | None = None, after: str | None = None,
                          status: str | None = None, currency: str | None = None) -> Connection[Settlement]:
        page = await balance.list_settlements(principal=info.context.principal, limit=check_first(first),
                                              starting_after=after, status=status, currency=currency)
        return connection(page, Settlement.of, after=after)

    @strawberry.field(description="The CRM's pipeline, revenue and rates reports (the same as crm { reports }): "
                                  "for a CRM user's token on the CRM port. A merchant key has no CRM company "
                                  "(the two are separate tenants), so it gets a 401 here.")
    def crm(self, info: Info[Context, None]) -> CrmReports:
        crm_principal(info)
        return CrmReports()


@node_resolver("set")
async def _settlement_node(info: Info[Context, None], node_id: str):
    return Settlement.of(await balance.get_settlement(principal=info.context.principal, settlement_id=node_id))


@node_resolver("dp")
async def _dispute_node(info: Info[Context, None], node_id: str):
    return Dispute.of(await disputes.get_dispute(principal=info.context.principal, dispute_id=node_id))


# ---------------------------------------------------------------- inputs and payloads

@strawberry.input
class DisputeEvidenceInput:
    id: strawberry.ID
    product_description: str | None = strawberry.UNSET
    customer_name: str | None = strawberry.UNSET
    customer_email: str | None = strawberry.UNSET
    customer_communication: str | None = strawberry.UNSET
    shipping_tracking_number: str | None = strawberry.UNSET
    refund_policy: str | None = strawberry.UNSET
    uncategorized_text: str | None = strawberry.UNSET


@strawberry.input
class DisputeEvidenceFileAddInput:
    dispute_id: strawberry.ID
    filename: str
    content_type: str = strawberry.field(description="application/pdf, image/png or image/jpeg (checked against the content)")
    content_base64: str = strawberry.field(description="The file's bytes, base64; at most 700 KiB decoded")


@strawberry.type
class DisputePayload:
    dispute: Dispute | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


# ---------------------------------------------------------------- root fields

@strawberry.type
class Query:
    @strawberry.field(description="Volume, transactions and approval rate (as GET /api/analytics; the same as "
                                  "reports { overview }, read with payments_read)")
    async def analytics(self, info: Info[Context, None], period: str | None = None, from_: From = None,
                        to: date | None = None, currency: str | None = None) -> AnalyticsOverview:
        return await Reports().overview(info, period, from_, to, currency)

    @strawberry.field(description="The balance (as GET /api/balance).")
    async def balance(self, info: Info[Context, None]) -> Balance:
        return Balance.of(await balance.get_balance(principal=info.context.principal))

    @strawberry.field
    async def settlement(self, info: Info[Context, None], id: strawberry.ID) -> Settlement:
        return Settlement.of(await balance.get_settlement(principal=info.context.principal, settlement_id=str(id)))

    @strawberry.field(description="Newest first; arrival dates inclusive.")
    async def settlements(self, info: Info[Context, None], first: int | None = None, after: str | None = None,
                          status: str | None = None, currency: str | None = None,
                          arrival_date_gte: date | None = None,
                          arrival_date_lte: date | None = None) -> Connection[Settlement]:
        page = await balance.list_settlements(
            principal=info.context.principal, limit=check_first(first), starting_after=after, status=status,
            currency=currency, arrival_date_gte=arrival_date_gte.isoformat() if arrival_date_gte else None,
            arrival_date_lte=arrival_date_lte.isoformat() if arrival_date_lte else None)
        return connection(page, Settlement.of, after=after)

    @strawberry.field
    async def dispute(self, info: Info[Context, None], id: strawberry.ID) -> Dispute:
        return Dispute.of(await disputes.get_dispute(principal=info.context.principal, dispute_id=str(id)))

    @strawberry.field(description="Newest first.")
    async def disputes(self, info: Info[Context, None], first: int | None = None, after: str | None = None,
                       status: str | None = None, payment_id: strawberry.ID | None = None) -> Connection[Dispute]:
        page = await disputes.list_disputes(principal=info.context.principal, limit=check_first(first),
                                            starting_after=after, status=status,
                                            payment_id=str(payment_id) if payment_id else None)
        return connection(page, Dispute.of, after=after)

    @strawberry.field(description="Reports for a dashboard in one query: with a merchant key the analytics, "
                                  "balance and settlements; with a CRM user's token (on the CRM port) `crm` "
                                  "(pipeline, revenue, rates). Each field checks its own credential.")
    async def reports(self, info: Info[Context, None]) -> Reports:
        return Reports()


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Attach a file (PDF, PNG or JPEG; at most 700 KiB and 5 per dispute) to the "
                                     "evidence of a dispute that needs a response.")
    async def dispute_evidence_file_add(self, info: Info[Context, None],
                                        input: DisputeEvidenceFileAddInput) -> DisputePayload:
        principal = info.context.principal
        data = {"filename": input.filename, "content_type": input.content_type,
                "content_base64": input.content_base64}
        d, errors = await user_errors(lambda: dispute_files.add_file(principal=principal,
                                                                     dispute_id=str(input.dispute_id), data=data))
        return DisputePayload(dispute=Dispute.of(d) if d else None, user_errors=errors)

    @strawberry.mutation(description="Submit evidence (text) for a dispute that needs a response: under_review, "
                                     "decided a week later.")
    async def dispute_evidence_submit(self, info: Info[Context, None], input: DisputeEvidenceInput) -> DisputePayload:
        principal = info.context.principal
        data = {k: v for k, v in to_data(input).items() if k != "id"}
        d, errors = await user_errors(lambda: disputes.submit_evidence(principal=principal, dispute_id=str(input.id),
                                                                       data=data))
        return DisputePayload(dispute=Dispute.of(d) if d else None, user_errors=errors)
