"""GraphQL for billing: subscriptions, invoices, the merchant profile and the test clock -- the
same services as /api/subscriptions, /api/invoices, /api/merchant and /api/test-helpers.
Subscription.customer / latestInvoice and Invoice.customer load through DataLoaders."""
from __future__ import annotations

from datetime import date, datetime

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from schema.context import Context
from schema.einvoicing import InvoiceEta, InvoiceGib, InvoiceNote, InvoiceZatca, eta_of, gib_of, zatca_of
from schema.errors import UserError, user_errors
from schema.inputs import to_data
from schema.payments import Customer, _customers_by_id
from schema.relay import Connection, Node, check_first, connection, node_resolver
from schema.scalars import MinorAmount
from services.billing import invoices, profiles, subscriptions, test_clock


def _without_id(data: dict) -> dict:
    return {k: v for k, v in data.items() if k != "id"}


def _with_nulls(input, *keys: str) -> dict:
    """The input's data, with an explicit null of `keys` kept (it clears, as in REST)."""
    data = _without_id(to_data(input))
    for key in keys:
        if getattr(input, key, strawberry.UNSET) is None:
            data[key] = None
    return data


async def _invoices_by_id(info: Info[Context, None]):
    principal = info.context.principal

    async def batch(keys: list[str]):
        found = await invoices.invoices_by_ids(principal=principal, ids=list(keys))
        return [found.get(k) for k in keys]
    return info.context.loader("InvoiceByIdLoader", batch)


# ---------------------------------------------------------------- types

@strawberry.type
class InvoiceItemTax:
    type: str
    subtype: str
    rate: str | None = strawberry.field(default=None, description="A percentage (decimal text)")
    amount: MinorAmount | None = strawberry.field(default=None, description="A fixed amount for the line")


@strawberry.type
class InvoiceItem:
    name: str
    amount: MinorAmount
    quantity: int
    item_code: str | None = strawberry.field(default=None, description="The item's code at a tax authority (ETA: EGS or GS1)")
    item_type: str | None = strawberry.field(default=None, description="EGS or GS1 (an ETA e-invoice: EGS when not given)")
    unit_type: str | None = strawberry.field(default=None, description="Unit of measure (an ETA e-invoice: EA when not given)")
    taxes: list[InvoiceItemTax] | None = strawberry.field(
        default=None, description="ETA's taxes beside VAT (table tax, withholding, fees), when given")


@strawberry.type
class Invoice(Node):
    id: strawberry.ID
    number: str
    status: str = strawberry.field(description="draft, sent or paid")
    customer_id: str
    subscription_id: str | None
    currency: str
    items: list[InvoiceItem]
    subtotal: MinorAmount = strawberry.field(description="Sum of amount x quantity, in minor units")
    tax_rate: float = strawberry.field(description="A percentage, 0 to 100, at most 2 decimals")
    tax: MinorAmount = strawberry.field(description="subtotal x tax_rate / 100, rounded half-up to the minor unit")
    total: MinorAmount = strawberry.field(description="subtotal + tax")
    exchange_rate: str | None = strawberry.field(description="EGP per one unit of currency (decimal text) of a "
                                                             "foreign-currency ETA e-invoice: given, or the merchant's "
                                                             "rate taken as it left draft")
    due_date: date
    pdf_url: str
    hosted_invoice_url: str
    sent_to: str | None
    sent_via: str | None
    sent_at: datetime | None
    paid_at: datetime | None
    payment_id: str | None
    locale: str
    zatca: InvoiceZatca | None = strawberry.field(description="The ZATCA e-invoice (Saudi SAR invoices of an "
                                                              "onboarded merchant once finalised); null otherwise")
    gib: InvoiceGib | None = strawberry.field(description="The GİB e-Fatura / e-Arşiv document (Turkish TRY invoices "
                                                          "of a set-up merchant once finalised); null otherwise")
    eta: InvoiceEta | None = strawberry.field(description="The ETA e-invoice (Egyptian EGP invoices of an eg_rin "
                                                          "customer of a set-up merchant once finalised); null otherwise")
    notes: list[InvoiceNote] = strawberry.field(description="The notes that refer to this invoice (credit, debit, "
                                                            "returns), oldest first")
    livemode: bool
    created_at: datetime

    @strawberry.field
    async def customer(self, info: Info[Context, None]) -> Customer | None:
        c = await (await _customers_by_id(info)).load(self.customer_id)
        return Customer.of(c) if c is not None else None

    @classmethod
    def of(cls, i) -> Invoice:
        return cls(id=strawberry.ID(i.id), number=i.number, status=i.status, customer_id=i.customer_id,
                   subscription_id=i.subscription_id, currency=i.currency,
                   items=[InvoiceItem(name=x["name"], amount=x["amount"], quantity=x["quantity"],
                                      item_code=x.get("item_code"), item_type=x.get("item_type"),
                                      unit_type=x.get("unit_type"),
                                      taxes=[InvoiceItemTax(type=t["type"], subtype=t["subtype"], rate=t.get("rate"),
                                                            amount=t.get("amount")) for t in x["taxes"]]
                                      if x.get("taxes") else None) for x in i.items],
                   subtotal=i.subtotal, tax_rate=float(i.tax_rate), tax=i.tax, total=i.total,
                   exchange_rate=i.exchange_rate, due_date=i.due_date,
                   **invoices.urls(i), sent_to=i.sent_to, sent_via=i.sent_via, sent_at=i.sent_at,
                   paid_at=i.paid_at, payment_id=i.payment_id, locale=i.locale, zatca=zatca_of(i.zatca), gib=gib_of(i.gib),
                   eta=eta_of(i.eta),
                   notes=[InvoiceNote.of(n) for n in i.notes or []], livemode=i.livemode, created_at=i.created_at)


@strawberry.type
class Subscription(Node):
    id: strawberry.ID
    status: str = strawberry.field(description="active, past_due, unpaid, paused or cancelled")
    customer_id: str
    plan: str
    amount: MinorAmount
    currency: str
    interval: str = strawberry.field(description="day, week, month or year")
    interval_count: int
    next_billing: date | None = strawberry.field(description="The next billing date (UTC); none when nothing "
                                                             "is due: paused, unpaid or cancelled")
    current_period_start: datetime
    current_period_end: datetime
    latest_invoice_id: strawberry.Private[str | None]
    metadata: JSON
    livemode: bool
    created_at: datetime
    paused_at: datetime | None
    cancelled_at: datetime | None

    @strawberry.field
    async def customer(self, info: Info[Context, None]) -> Customer | None:
        c = await (await _customers_by_id(info)).load(self.customer_id)
        return Customer.of(c) if c is not None else None

    @strawberry.field
    async def latest_invoice(self, info: Info[Context, None]) -> Invoice | None:
        if not self.latest_invoice_id:
            return None
        i = await (await _invoices_by_id(info)).load(self.latest_invoice_id)
        return Invoice.of(i) if i is not None else None

    @classmethod
    def of(cls, s) -> Subscription:
        return cls(id=strawberry.ID(s.id), status=s.status, customer_id=s.customer_id, plan=s.plan, amount=s.amount,
                   currency=s.currency, interval=s.interval, interval_count=s.interval_count,
                   next_billing=s.next_billing_at.date() if s.next_billing_at else None,
                   current_period_start=s.current_period_start, current_period_end=s.current_period_end,
                   latest_invoice_id=s.latest_invoice_id, metadata=s.metadata or {}, livemode=s.livemode,
                   created_at=s.created_at, paused_at=s.paused_at, cancelled_at=s.cancelled_at)


@strawberry.type
class MerchantProfile:
    id: strawberry.ID
    email: str
    name: str
    country: str
    legal_name: str | None
    address: str | None
    tax_number: str | None
    crm_company_id: str | None = strawberry.field(description="The CRM company whose exchange rates price the "
                                                              "merchant's foreign-currency ETA invoices")

    @classmethod
    def of(cls, p: dict) -> MerchantProfile:
        return cls(id=strawberry.ID(p["id"]), email=p["email"], name=p["name"], country=p["country"],
                   legal_name=p["legal_name"], address=p["address"], tax_number=p["tax_number"],
                   crm_company_id=p.get("crm_company_id"))


@strawberry.type
class ClockRun:
    kind: str
    id: str
    at: datetime
    outcome: str


@strawberry.type
class TestClock:
    now: datetime
    offset_seconds: int
    previous: datetime | None = None
    ran: list[ClockRun] = strawberry.field(default_factory=list)


@node_resolver("sub")
async def _subscription_node(info: Info[Context, None], node_id: str):
    return Subscription.of(await subscriptions.get_subscription(principal=info.context.principal,
                                                                subscription_id=node_id))


@node_resolver("inv")
async def _invoice_node(info: Info[Context, None], node_id: str):
    return Invoice.of(await invoices.get_invoice(principal=info.context.principal, invoice_id=node_id))


# ---------------------------------------------------------------- inputs and payloads

@strawberry.input
class SubscriptionCreateInput:
    customer_id: strawberry.ID
    plan: str
    amount: MinorAmount
    currency: str
    interval: str
    interval_count: int | None = strawberry.UNSET
    metadata: JSON | None = strawberry.UNSET


@strawberry.input
class SubscriptionIdInput:
    id: strawberry.ID


@strawberry.type
class SubscriptionPayload:
    subscription: Subscription | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.input
class InvoiceItemTaxInput:
    type: str
    subtype: str
    rate: str | None = strawberry.UNSET
    amount: MinorAmount | None = strawberry.UNSET


@strawberry.input
class InvoiceItemInput:
    name: str
    amount: MinorAmount
    quantity: int | None = strawberry.UNSET
    item_code: str | None = strawberry.UNSET
    item_type: str | None = strawberry.UNSET
    unit_type: str | None = strawberry.UNSET
    taxes: list[InvoiceItemTaxInput] | None = strawberry.UNSET


@strawberry.input
class InvoiceCreateInput:
    customer_id: strawberry.ID
    currency: str
    items: list[InvoiceItemInput]
    due_date: str | None = strawberry.UNSET
    tax_rate: float | None = strawberry.UNSET
    locale: str | None = strawberry.UNSET
    exchange_rate: str | None = strawberry.field(default=strawberry.UNSET,
                                                 description="EGP per one unit of currency (a foreign-currency ETA "
                                                             "e-invoice): a decimal string, > 0, at most 5 decimals")


@strawberry.input
class InvoiceUpdateInput:
    id: strawberry.ID
    exchange_rate: str | None = strawberry.field(default=strawberry.UNSET,
                                                 description="EGP per one unit of currency; null clears it")


@strawberry.input
class InvoiceSendInput:
    id: strawberry.ID
    channel: str


@strawberry.input
class InvoiceIdInput:
    id: strawberry.ID


@strawberry.type
class InvoicePayload:
    invoice: Invoice | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.input
class MerchantProfileUpdateInput:
    name: str | None = strawberry.UNSET
    country: str | None = strawberry.UNSET
    legal_name: str | None = strawberry.UNSET
    address: str | None = strawberry.UNSET
    tax_number: str | None = strawberry.UNSET
    crm_access_token: str | None = strawberry.field(
        default=strawberry.UNSET, description="An access token of an admin of the merchant's CRM company: links it "
                                              "(its exchange rates price foreign-currency ETA invoices); null unlinks")


@strawberry.type
class MerchantProfilePayload:
    merchant: MerchantProfile | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.input
class TestClockAdvanceInput:
    days: int | None = strawberry.UNSET
    to: str | None = strawberry.UNSET


@strawberry.type
class TestClockPayload:
    test_clock: TestClock | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


def _clock(c: dict) -> TestClock:
    return TestClock(now=c["now"], offset_seconds=c.get("offset_seconds", 0), previous=c.get("previous"),
                     ran=[ClockRun(**r) for r in c.get("ran", [])])


async def _move(info: Info[Context, None], input: SubscriptionIdInput, service) -> SubscriptionPayload:
    """pause, resume or cancel: the service's move, its refusal as a userError."""
    principal = info.context.principal
    s, errors = await user_errors(lambda: service(principal=principal, subscription_id=str(input.id)))
    return SubscriptionPayload(subscription=Subscription.of(s) if s else None, user_errors=errors)


# ---------------------------------------------------------------- root fields

@strawberry.type
class Query:
    @strawberry.field
    async def subscription(self, info: Info[Context, None], id: strawberry.ID) -> Subscription:
        return Subscription.of(await subscriptions.get_subscription(principal=info.context.principal,
                                                                    subscription_id=str(id)))

    @strawberry.field(description="Newest first.")
    async def subscriptions(self, info: Info[Context, None], first: int | None = None, after: str | None = None,
                            status: str | None = None,
                            customer_id: strawberry.ID | None = None) -> Connection[Subscription]:
        page = await subscriptions.list_subscriptions(
            principal=info.context.principal, limit=check_first(first), starting_after=after, status=status,
            customer_id=str(customer_id) if customer_id else None)
        return connection(page, Subscription.of, after=after)

    @strawberry.field
    async def invoice(self, info: Info[Context, None], id: strawberry.ID) -> Invoice:
        return Invoice.of(await invoices.get_invoice(principal=info.context.principal, invoice_id=str(id)))

    @strawberry.field(description="Newest first.")
    async def invoices(self, info: Info[Context, None], first: int | None = None, after: str | None = None,
                       status: str | None = None, customer_id: strawberry.ID | None = None,
                       subscription_id: strawberry.ID | None = None) -> Connection[Invoice]:
        page = await invoices.list_invoices(
            principal=info.context.principal, limit=check_first(first), starting_after=after, status=status,
            customer_id=str(customer_id) if customer_id else None,
            subscription_id=str(subscription_id) if subscription_id else None)
        return connection(page, Invoice.of, after=after)

    @strawberry.field(description="The caller's merchant profile (what its invoices say about it).")
    async def merchant_profile(self, info: Info[Context, None]) -> MerchantProfile:
        return MerchantProfile.of(await profiles.get_profile(principal=info.context.principal))

    @strawberry.field(description="The test clock (test mode only).")
    async def test_clock(self, info: Info[Context, None]) -> TestClock:
        return _clock(await test_clock.get_clock(principal=info.context.principal))


@strawberry.type
class Mutation:
    @strawberry.mutation
    async def subscription_create(self, info: Info[Context, None],
                                  input: SubscriptionCreateInput) -> SubscriptionPayload:
        principal = info.context.principal
        s, errors = await user_errors(lambda: subscriptions.create_subscription(principal=principal,
                                                                               data=to_data(input)))
        return SubscriptionPayload(subscription=Subscription.of(s) if s else None, user_errors=errors)

    @strawberry.mutation
    async def subscription_pause(self, info: Info[Context, None], input: SubscriptionIdInput) -> SubscriptionPayload:
        return await _move(info, input, subscriptions.pause_subscription)

    @strawberry.mutation
    async def subscription_resume(self, info: Info[Context, None], input: SubscriptionIdInput) -> SubscriptionPayload:
        return await _move(info, input, subscriptions.resume_subscription)

    @strawberry.mutation
    async def subscription_cancel(self, info: Info[Context, None], input: SubscriptionIdInput) -> SubscriptionPayload:
        return await _move(info, input, subscriptions.cancel_subscription)

    @strawberry.mutation
    async def invoice_create(self, info: Info[Context, None], input: InvoiceCreateInput) -> InvoicePayload:
        principal = info.context.principal
        i, errors = await user_errors(lambda: invoices.create_invoice(principal=principal, data=to_data(input)))
        return InvoicePayload(invoice=Invoice.of(i) if i else None, user_errors=errors)

    @strawberry.mutation(description="Change a draft invoice (its exchange rate).")
    async def invoice_update(self, info: Info[Context, None], input: InvoiceUpdateInput) -> InvoicePayload:
        principal = info.context.principal
        i, errors = await user_errors(lambda: invoices.update_invoice(principal=principal, invoice_id=str(input.id),
                                                                      data=_with_nulls(input, "exchange_rate")))
        return InvoicePayload(invoice=Invoice.of(i) if i else None, user_errors=errors)

    @strawberry.mutation
    async def invoice_send(self, info: Info[Context, None], input: InvoiceSendInput) -> InvoicePayload:
        principal = info.context.principal
        i, errors = await user_errors(lambda: invoices.send_invoice(principal=principal, invoice_id=str(input.id),
                                                                    data=_without_id(to_data(input))))
        return InvoicePayload(invoice=Invoice.of(i) if i else None, user_errors=errors)

    @strawberry.mutation
    async def invoice_mark_paid(self, info: Info[Context, None], input: InvoiceIdInput) -> InvoicePayload:
        principal = info.context.principal
        i, errors = await user_errors(lambda: invoices.mark_paid(principal=principal, invoice_id=str(input.id)))
        return InvoicePayload(invoice=Invoice.of(i) if i else None, user_errors=errors)

    @strawberry.mutation
    async def merchant_profile_update(self, info: Info[Context, None],
                                      input: MerchantProfileUpdateInput) -> MerchantProfilePayload:
        principal = info.context.principal
        p, errors = await user_errors(lambda: profiles.update_profile(principal=principal,
                                                                      data=_with_nulls(input, "crm_access_token")))
        return MerchantProfilePayload(merchant=MerchantProfile.of(p) if p else None, user_errors=errors)

    @strawberry.mutation(description="Move the test clock forward and run what fell due (test mode only).")
    async def test_clock_advance(self, info: Info[Context, None], input: TestClockAdvanceInput) -> TestClockPayload:
        principal = info.context.principal
        c, errors = await user_errors(lambda: test_clock.advance_clock(principal=principal, data=to_data(input)))
        return TestClockPayload(test_clock=_clock(c) if c else None, user_errors=errors)
