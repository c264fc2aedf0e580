"""GraphQL for payment links: the same services as /api/payment-links (services.links).
A link's payments_count / amount_collected load through one DataLoader per request."""
from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from schema.context import Context
from schema.errors import UserError, user_errors
from schema.inputs import to_data
from schema.relay import Connection, Node, check_first, connection, node_resolver
from schema.scalars import MinorAmount
from services.payments import links


async def _collected(info: Info[Context, None]):
    async def batch(keys: list[str]):
        found = await links.collected(list(keys))
        return [found.get(k, links.Collected()) for k in keys]
    return info.context.loader("CollectedByPaymentLinkLoader", batch)


@strawberry.type
class PaymentLink(Node):
    id: strawberry.ID
    url: str = strawberry.field(description="The shareable checkout page: {pay_url}/{id}")
    status: str = strawberry.field(description="active, cancelled or expired (expires_at has passed)")
    amount: MinorAmount
    currency: str
    description: str | None
    locale: str | None = strawberry.field(description="ar, tr or en when the merchant set one; null: the pages "
                                                      "follow the buyer's language")
    expires_at: datetime | None
    metadata: JSON
    invoice: bool = strawberry.field(description="Its payments ask for an invoice (a Turkish e-invoice, TRY)")
    livemode: bool
    created_at: datetime
    cancelled_at: datetime | None

    @strawberry.field(description="Successful payments made on this link")
    async def payments_count(self, info: Info[Context, None]) -> int:
        return (await (await _collected(info)).load(str(self.id))).payments_count

    @strawberry.field(description="Captured minus refunded, in minor units")
    async def amount_collected(self, info: Info[Context, None]) -> MinorAmount:
        return (await (await _collected(info)).load(str(self.id))).amount_collected

    @classmethod
    def of(cls, link) -> PaymentLink:
        return cls(id=strawberry.ID(link.id), url=links.url_of(link.id), status=links.status_of(link),
                   amount=link.amount, currency=link.currency, description=link.description, locale=link.locale,
                   expires_at=link.expires_at, metadata=link.metadata or {}, invoice=bool(link.invoice),
                   livemode=link.livemode,
                   created_at=link.created_at, cancelled_at=link.cancelled_at)


@node_resolver("lnk")
async def _link_node(info: Info[Context, None], node_id: str):
    return PaymentLink.of(await links.get_link(principal=info.context.principal, link_id=node_id))


@strawberry.input
class PaymentLinkCreateInput:
    amount: MinorAmount
    currency: str
    description: str | None = strawberry.UNSET
    locale: str | None = strawberry.field(default=strawberry.UNSET,
                                          description="ar, tr or en: the pages' language (default: the buyer's)")
    expires_at: str | None = strawberry.field(default=strawberry.UNSET,
                                              description="ISO 8601 or Unix seconds (as text), in the future")
    metadata: JSON | None = strawberry.UNSET
    invoice: bool | None = strawberry.field(default=strawberry.UNSET,
                                            description="Its payments ask for an invoice (a Turkish e-invoice, TRY)")


@strawberry.input
class PaymentLinkIdInput:
    id: strawberry.ID


@strawberry.type
class PaymentLinkPayload:
    payment_link: PaymentLink | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class Query:
    @strawberry.field
    async def payment_link(self, info: Info[Context, None], id: strawberry.ID) -> PaymentLink:
        return PaymentLink.of(await links.get_link(principal=info.context.principal, link_id=str(id)))

    @strawberry.field(description="Newest first.")
    async def payment_links(self, info: Info[Context, None], first: int | None = None, after: str | None = None,
                            status: str | None = None) -> Connection[PaymentLink]:
        page = await links.list_links(principal=info.context.principal, limit=check_first(first),
                                      starting_after=after, status=status)
        return connection(page, PaymentLink.of, after=after)


@strawberry.type
class Mutation:
    @strawberry.mutation
    async def payment_link_create(self, info: Info[Context, None], input: PaymentLinkCreateInput) -> PaymentLinkPayload:
        principal = info.context.principal
        link, errors = await user_errors(lambda: links.create_link(principal=principal, data=to_data(input)))
        return PaymentLinkPayload(payment_link=PaymentLink.of(link) if link else None, user_errors=errors)

    @strawberry.mutation
    async def payment_link_cancel(self, info: Info[Context, None], input: PaymentLinkIdInput) -> PaymentLinkPayload:
        principal = info.context.principal
        link, errors = await user_errors(lambda: links.cancel_link(principal=principal, link_id=str(input.id)))
        return PaymentLinkPayload(payment_link=PaymentLink.of(link) if link else None, user_errors=errors)
