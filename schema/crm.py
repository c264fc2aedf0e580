"""GraphQL for the CRM (listed in schema.DOMAINS): `crm { customers deals inbox reports }` and
the customer, deal and message mutations, through the same services as the CRM REST API.
Served authenticated by CRM access tokens on the CRM application's /graphql."""
from __future__ import annotations

from datetime import date, datetime

import strawberry
from strawberry.types import Info

from schema.scalars import MinorAmount
from schema.addresses import Address, AddressInput, address_data
from schema.tax_ids import TaxId, TaxIdInput
from schema.context import Context
from schema.errors import UserError, user_errors
from schema.inputs import to_data
from schema.relay import Connection, Node, check_first, connection, node_resolver
from services.crm import customers, deals, members, messaging, reports
from services.crm.accounts import CrmPrincipal
from services.errors import AuthenticationError
from services.principal import Principal


def crm_principal(info: Info[Context, None]) -> CrmPrincipal:
    """The CRM caller; a merchant credential or none is a top-level 401."""
    if info.context._auth_error is not None:      # a bad token: its own 401 (expired, revoked, ...)
        raise info.context._auth_error
    p = info.context.extra.get("crm_member") or info.context.maybe_principal
    if not isinstance(p, CrmPrincipal):
        raise AuthenticationError("Missing access token: send Authorization: Bearer <ACCESS_TOKEN> "
                                  "(a CRM access token, on the CRM port)", code="missing_token")
    return p


async def crm_caller(info: Info[Context, None]) -> CrmPrincipal:
    """The CRM caller, on the main /graphql too for a member's session (the dashboard): the
    member acts on its merchant's CRM company (services.crm.members), as on the CRM port; the
    operation's crm_read / crm_write was checked with the member's roles (schema.permissions)."""
    p = info.context.maybe_principal
    if (info.context._auth_error is None and isinstance(p, Principal) and p.member_id is not None
            and "crm_member" not in info.context.extra):
        info.context.extra["crm_member"] = await members.principal_of(p)
    return crm_principal(info)


# ---------------------------------------------------------------- types

@strawberry.type
class CrmCustomer(Node):
    id: strawberry.ID
    name: str
    email: str | None
    phone: str | None
    tags: list[str]
    tax_id: TaxId | None = strawberry.field(description="The customer's tax identity")
    address: Address | None = strawberry.field(description="The customer's postal address")
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, c) -> CrmCustomer:
        return cls(id=strawberry.ID(c.id), name=c.name, email=c.email, phone=c.phone, tags=customers.tags_of(c),
                   tax_id=TaxId.of(c.tax_id), address=Address.of(c.address), created_at=c.created_at,
                   updated_at=c.updated_at)


@strawberry.type
class CrmCommission(Node):
    id: strawberry.ID
    deal_id: str
    user_id: str
    cycle: int
    amount: MinorAmount
    currency: str
    rate: str
    status: str
    created_at: datetime
    reversed_at: datetime | None

    @classmethod
    def of(cls, m) -> CrmCommission:
        return cls(id=strawberry.ID(m.id), deal_id=m.deal_id, user_id=m.user_id, cycle=m.cycle, amount=m.amount,
                   currency=m.currency, rate=m.rate, status=m.status, created_at=m.created_at,
                   reversed_at=m.reversed_at)


@strawberry.type
class Deal(Node):
    id: strawberry.ID
    title: str
    customer_id: str
    owner_id: str
    stage: str
    value: MinorAmount
    currency: str
    probability: int
    won_at: datetime | None
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, d) -> Deal:
        return cls(id=strawberry.ID(d.id), title=d.title, customer_id=d.customer_id, owner_id=d.owner_id,
                   stage=d.stage, value=d.value, currency=d.currency, probability=d.probability, won_at=d.won_at,
                   created_at=d.created_at, updated_at=d.updated_at)

    @strawberry.field(description="The commissions this deal paid (reversed ones included).")
    async def commissions(self, info: Info[Context, None]) -> list[CrmCommission]:
        principal = crm_principal(info)

        async def batch(keys: list[str]):
            got = await deals.commissions_of(principal=principal, deal_ids=list(keys))
            return [got.get(k, []) for k in keys]
        rows = await info.context.loader("CrmCommissionsByDealLoader", batch).load(str(self.id))
        return [CrmCommission.of(m) for m in rows]


@strawberry.type
class CrmMessage(Node):
    id: strawberry.ID
    direction: str
    customer_id: str | None
    phone: str
    type: str
    text: str
    status: str
    error: str | None
    platform_message_id: str | None
    read: bool
    created_at: datetime

    @classmethod
    def of(cls, m) -> CrmMessage:
        return cls(id=strawberry.ID(m.id), direction=m.direction, customer_id=m.customer_id, phone=m.phone,
                   type=m.type, text=m.body, status=m.status, error=m.error,
                   platform_message_id=m.platform_message_id, read=m.read, created_at=m.created_at)


@strawberry.type
class CrmConversation:
    customer: CrmCustomer | None
    phone: str
    last_message: CrmMessage
    unread_count: int
    message_count: int


@strawberry.type
class CrmInbox:
    conversations: list[CrmConversation]
    has_more: bool
    total_count: int
    next_cursor: str | None


@strawberry.type(description="A rate of the reports: one the company set (source company) or a reference rate "
                             "shipped with the service (source reference: no id, rateDate or updatedAt).")
class CrmExchangeRate:
    id: strawberry.ID | None
    base: str
    quote: str
    rate: str
    rate_date: date | None
    updated_at: datetime | None
    source: str


@strawberry.type(description="Amounts in a currency with no rate to the report's currency, in their own "
                             "currency (minor units); not in the report's totals.")
class CrmUnconverted:
    currency: str
    deal_count: int
    amount: MinorAmount
    weighted_amount: MinorAmount | None = strawberry.field(description="Pipeline only: amount x probability")


@strawberry.type
class CrmMissingRate:
    base: str
    quote: str


def _unconverted(r) -> list[CrmUnconverted]:
    return [CrmUnconverted(currency=u.currency, deal_count=u.deal_count, amount=u.amount,
                           weighted_amount=u.weighted_amount) for u in r.unconverted]


def _missing(r) -> list[CrmMissingRate]:
    return [CrmMissingRate(base=m.base, quote=m.quote) for m in r.missing_rates]


@strawberry.type
class CrmRevenuePart:
    currency: str
    amount: MinorAmount
    deal_count: int
    rate: str
    rate_date: date | None
    inverse: bool
    converted_decimal: str
    source: str


@strawberry.type
class CrmRevenue:
    currency: str
    total: MinorAmount
    total_decimal: str
    deal_count: int
    by_currency: list[CrmRevenuePart]
    unconverted: list[CrmUnconverted]
    missing_rates: list[CrmMissingRate]


@strawberry.type
class CrmPipelineStage:
    stage: str
    count: int = strawberry.field(description="Every open deal of the stage, converted or not")
    value: MinorAmount
    weighted_value: MinorAmount
    unconverted: list[CrmUnconverted] = strawberry.field(
        description="The stage's deals in currencies with no rate to the target, per currency in its own minor "
                    "units: counted in count, not in the values")


@strawberry.type
class CrmPipeline:
    currency: str
    stages: list[CrmPipelineStage]
    count: int
    value: MinorAmount
    weighted_value: MinorAmount
    unconverted: list[CrmUnconverted]
    missing_rates: list[CrmMissingRate]


@strawberry.type
class CrmReports:
    @strawberry.field
    async def revenue(self, info: Info[Context, None], currency: str | None = None) -> CrmRevenue:
        r = await reports.revenue(principal=crm_principal(info), query={"currency": currency} if currency else {})
        return CrmRevenue(currency=r.currency, total=r.total, total_decimal=r.total_decimal, deal_count=r.deal_count,
                          by_currency=[CrmRevenuePart(currency=x.currency, amount=x.amount, deal_count=x.deal_count,
                                                      rate=x.rate, rate_date=x.rate_date, inverse=x.inverse,
                                                      converted_decimal=x.converted_decimal, source=x.source)
                                      for x in r.by_currency],
                          unconverted=_unconverted(r), missing_rates=_missing(r))

    @strawberry.field
    async def pipeline(self, info: Info[Context, None], currency: str | None = None) -> CrmPipeline:
        p = await reports.pipeline(principal=crm_principal(info), query={"currency": currency} if currency else {})
        return CrmPipeline(currency=p.currency, count=p.count, value=p.value, weighted_value=p.weighted_value,
                           stages=[CrmPipelineStage(stage=s.stage, count=s.count, value=s.value,
                                                    weighted_value=s.weighted_value, unconverted=_unconverted(s))
                                   for s in p.stages],
                           unconverted=_unconverted(p), missing_rates=_missing(p))

    @strawberry.field
    async def rates(self, info: Info[Context, None]) -> list[CrmExchangeRate]:
        rows = await reports.list_rates(principal=crm_principal(info))
        return [CrmExchangeRate(id=strawberry.ID(r.id) if r.id else None, base=r.base, quote=r.quote, rate=r.rate,
                                rate_date=r.rate_date, updated_at=r.updated_at, source=r.source) for r in rows]


def _query(**kw) -> dict:
    return {k: str(v) for k, v in kw.items() if v is not None}


@strawberry.type
class CrmQuery:
    @strawberry.field
    async def customers(self, info: Info[Context, None], first: int | None = None, after: str | None = None,
                        search: str | None = None, email: str | None = None, phone: str | None = None,
                        tag: str | None = None, created_gte: datetime | None = None,
                        created_lte: datetime | None = None) -> Connection[CrmCustomer]:
        q = _query(limit=check_first(first), starting_after=after, q=search, email=email, phone=phone, tag=tag,
                   created_gte=created_gte.isoformat() if created_gte else None,
                   created_lte=created_lte.isoformat() if created_lte else None)
        page = await customers.list_customers(principal=crm_principal(info), query=q)
        return connection(page, CrmCustomer.of, after=after)

    @strawberry.field
    async def customer(self, info: Info[Context, None], id: strawberry.ID) -> CrmCustomer:
        return CrmCustomer.of(await customers.get_customer(principal=crm_principal(info), customer_id=str(id)))

    @strawberry.field
    async def deals(self, info: Info[Context, None], first: int | None = None, after: str | None = None,
                    stage: str | None = None, owner_id: str | None = None, customer_id: str | None = None,
                    value_gte: MinorAmount | None = None, value_lte: MinorAmount | None = None) -> Connection[Deal]:
        q = _query(limit=check_first(first), starting_after=after, stage=stage, owner_id=owner_id,
                   customer_id=customer_id, value_gte=value_gte, value_lte=value_lte)
        page = await deals.list_deals(principal=crm_principal(info), query=q)
        return connection(page, Deal.of, after=after)

    @strawberry.field
    async def deal(self, info: Info[Context, None], id: strawberry.ID) -> Deal:
        return Deal.of(await deals.get_deal(principal=crm_principal(info), deal_id=str(id)))

    @strawberry.field(description="Commissions of won deals, newest first (as GET /api/commissions): one per deal "
                                  "and won-cycle, earned by the deal's owner at the time (userId).")
    async def commissions(self, info: Info[Context, None], first: int | None = None, after: str | None = None,
                          deal_id: str | None = None, owner_id: str | None = None,
                          status: str | None = None) -> Connection[CrmCommission]:
        q = _query(limit=check_first(first), starting_after=after, deal_id=deal_id, owner_id=owner_id, status=status)
        page = await deals.list_commissions(principal=crm_principal(info), query=q)
        return connection(page, CrmCommission.of, after=after)

    @strawberry.field
    async def inbox(self, info: Info[Context, None], first: int | None = None, after: str | None = None,
                    unread: bool | None = None) -> CrmInbox:
        q = _query(limit=check_first(first), starting_after=after, unread="true" if unread else None)
        p = await messaging.inbox(principal=crm_principal(info), query=q)
        return CrmInbox(has_more=p.has_more, total_count=p.total, next_cursor=p.next_cursor, conversations=[
            CrmConversation(customer=CrmCustomer.of(c.customer) if c.customer else None, phone=c.phone,
                            last_message=CrmMessage.of(c.last_message), unread_count=c.unread_count,
                            message_count=c.message_count) for c in p.items])

    @strawberry.field
    def reports(self, info: Info[Context, None]) -> CrmReports:
        crm_principal(info)
        return CrmReports()


@node_resolver("ccu")
async def _customer_node(info: Info[Context, None], node_id: str):
    return CrmCustomer.of(await customers.get_customer(principal=crm_principal(info), customer_id=node_id))


@node_resolver("deal")
async def _deal_node(info: Info[Context, None], node_id: str):
    return Deal.of(await deals.get_deal(principal=crm_principal(info), deal_id=node_id))


@strawberry.type
class Query:
    @strawberry.field(description="The CRM of the signed-in company (CRM access token, CRM port; on the main "
                                  "/graphql, a member's session: its merchant's CRM company).")
    async def crm(self, info: Info[Context, None]) -> CrmQuery:
        await crm_caller(info)
        return CrmQuery()


# ---------------------------------------------------------------- mutations

@strawberry.input
class CrmCustomerCreateInput:
    name: str
    email: str | None = strawberry.UNSET
    phone: str | None = strawberry.UNSET
    tags: list[str] | None = strawberry.UNSET
    tax_id: TaxIdInput | None = strawberry.UNSET
    address: AddressInput | None = strawberry.UNSET


@strawberry.input
class CrmCustomerUpdateInput:
    id: strawberry.ID
    name: str | None = strawberry.UNSET
    email: str | None = strawberry.UNSET
    phone: str | None = strawberry.UNSET
    tags: list[str] | None = strawberry.UNSET
    tax_id: TaxIdInput | None = strawberry.UNSET
    address: AddressInput | None = strawberry.UNSET


@strawberry.input
class CrmCustomerDeleteInput:
    id: strawberry.ID


@strawberry.type
class CrmCustomerPayload:
    customer: CrmCustomer | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class CrmCustomerDeletePayload:
    deleted_id: strawberry.ID | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.input
class DealCreateInput:
    title: str
    customer_id: str
    value: MinorAmount
    currency: str
    stage: str | None = strawberry.UNSET
    probability: int | None = strawberry.UNSET
    owner_id: str | None = strawberry.UNSET


@strawberry.input
class DealUpdateInput:
    id: strawberry.ID
    title: str | None = strawberry.UNSET
    customer_id: str | None = strawberry.UNSET
    value: MinorAmount | None = strawberry.UNSET
    currency: str | None = strawberry.UNSET
    stage: str | None = strawberry.UNSET
    probability: int | None = strawberry.UNSET
    owner_id: str | None = strawberry.UNSET


@strawberry.type
class DealPayload:
    deal: Deal | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.input
class MessageSendInput:
    text: str
    customer_id: str | None = strawberry.UNSET
    to: str | None = strawberry.UNSET


@strawberry.type
class MessageSendPayload:
    message: CrmMessage | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


def _update_data(input) -> dict:
    data = to_data(input)
    data.pop("id", None)
    # An explicit null clears e-mail or phone, as in REST.
    for key in ("email", "phone"):
        if getattr(input, key, strawberry.UNSET) is None:
            data[key] = None
    return address_data(data, input)


@strawberry.type
class Mutation:
    @strawberry.mutation
    async def crm_customer_create(self, info: Info[Context, None], input: CrmCustomerCreateInput) -> CrmCustomerPayload:
        p = await crm_caller(info)
        c, errors = await user_errors(lambda: customers.create_customer(principal=p,
                                                                        data=address_data(to_data(input), input)))
        return CrmCustomerPayload(customer=CrmCustomer.of(c) if c else None, user_errors=errors)

    @strawberry.mutation
    async def crm_customer_update(self, info: Info[Context, None], input: CrmCustomerUpdateInput) -> CrmCustomerPayload:
        p = await crm_caller(info)
        c, errors = await user_errors(lambda: customers.update_customer(principal=p, customer_id=str(input.id),
                                                                        data=_update_data(input)))
        return CrmCustomerPayload(customer=CrmCustomer.of(c) if c else None, user_errors=errors)

    @strawberry.mutation
    async def crm_customer_delete(self, info: Info[Context, None],
                                  input: CrmCustomerDeleteInput) -> CrmCustomerDeletePayload:
        p = await crm_caller(info)
        c, errors = await user_errors(lambda: customers.delete_customer(principal=p, customer_id=str(input.id)))
        return CrmCustomerDeletePayload(deleted_id=strawberry.ID(c.id) if c else None, user_errors=errors)

    @strawberry.mutation
    async def deal_create(self, info: Info[Context, None], input: DealCreateInput) -> DealPayload:
        p = await crm_caller(info)
        d, errors = await user_errors(lambda: deals.create_deal(principal=p, data=to_data(input)))
        return DealPayload(deal=Deal.of(d) if d else None, user_errors=errors)

    @strawberry.mutation
    async def deal_update(self, info: Info[Context, None], input: DealUpdateInput) -> DealPayload:
        p = await crm_caller(info)
        d, errors = await user_errors(lambda: deals.update_deal(principal=p, deal_id=str(input.id),
                                                                data=_update_data(input)))
        return DealPayload(deal=Deal.of(d) if d else None, user_errors=errors)

    @strawberry.mutation
    async def message_send(self, info: Info[Context, None], input: MessageSendInput) -> MessageSendPayload:
        p = await crm_caller(info)
        m, errors = await user_errors(lambda: messaging.send_message(principal=p, data=to_data(input)))
        return MessageSendPayload(message=CrmMessage.of(m) if m else None, user_errors=errors)
