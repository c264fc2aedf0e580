"""GraphQL for customers, routing rules and payments: the same services as /api/payments,
/api/customers and /api/routing/rules. Payment.customer loads through a per-request DataLoader."""
from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import strawberry
from graphql import FieldNode
from strawberry.scalars import JSON
from strawberry.types import Info

from schema.context import Context
from schema.errors import UserError, user_errors
from schema.inputs import to_data
from schema.money import Dispute
from schema.einvoicing import InvoiceGib, InvoiceNote, gib_of
from schema.addresses import Address, AddressInput, address_data
from schema.tax_ids import TaxId, TaxIdInput
from schema.installments import Installments
from schema.relay import Connection, Node, check_first, connection, node_resolver
from services.money import dispute_view
from services.payments import (cards, customers, payment_export, payment_read_hot, payment_search, payments, receipts,
                               routing)

from schema.scalars import MinorAmount  # noqa: E402
from schema.marketplace import Split, SplitReversal, splits_of


# ---------------------------------------------------------------- types

@strawberry.type
class Customer(Node):
    id: strawberry.ID
    email: str | None
    name: str | None
    phone: str | None
    metadata: JSON
    tax_id: TaxId | None = strawberry.field(description="The customer's tax identity, read by every e-invoice")
    address: Address | None = strawberry.field(description="The customer's postal address, read by e-invoices "
                                                           "and a BNPL intent's shipping address")
    created_at: datetime

    @classmethod
    def of(cls, c) -> Customer:
        return cls(id=strawberry.ID(c.id), email=c.email, name=c.name, phone=c.phone, metadata=c.metadata or {},
                   tax_id=TaxId.of(c.tax_id), address=Address.of(c.address), created_at=c.created_at)


@strawberry.type
class RoutingCondition:
    field: str
    operator: str
    value: JSON


@strawberry.type
class RoutingRule(Node):
    id: strawberry.ID
    name: str
    strategy: str
    priority: int
    status: str
    provider: str | None
    conditions: list[RoutingCondition]
    created_at: datetime

    @classmethod
    def of(cls, r) -> RoutingRule:
        return cls(id=strawberry.ID(r.id), name=r.name, strategy=r.strategy, priority=r.priority, status=r.status,
                   provider=r.provider, created_at=r.created_at,
                   conditions=[RoutingCondition(field=c["field"], operator=c["operator"], value=c["value"])
                               for c in r.conditions])


@strawberry.type
class RoutingAttempt:
    provider: str
    outcome: str
    decline_code: str | None
    latency_ms: int


@strawberry.type
class RoutingDecision:
    strategy: str
    reason: str
    alternatives_considered: list[str]
    latency_ms: int
    rule_id: str | None
    attempts: list[RoutingAttempt]

    @classmethod
    def of(cls, d: dict) -> RoutingDecision:
        return cls(strategy=d.get("strategy", ""), reason=d.get("reason", ""),
                   alternatives_considered=d.get("alternatives_considered", []), latency_ms=d.get("latency_ms", 0),
                   rule_id=d.get("rule_id"),
                   attempts=[RoutingAttempt(provider=a["provider"], outcome=a["outcome"],
                                            decline_code=a.get("decline_code"), latency_ms=a.get("latency_ms", 0))
                             for a in d.get("attempts", [])])


@strawberry.type
class PaymentCard:
    brand: str | None
    last4: str | None
    exp_month: int | None
    exp_year: int | None
    fingerprint: str | None
    country: str | None
    networks: list[str] = strawberry.field(
        default_factory=list, description="The card's networks: [\"visa\"], [\"mastercard\"], a mada card's "
                                          "[\"mada\"] or [\"mada\", \"visa\"] when co-badged")


@strawberry.type(description="Apple Pay / Google Pay: how the wallet token paid")
class PaymentWallet:
    type: str = strawberry.field(description="apple_pay or google_pay")
    dynamic_last4: str = strawberry.field(description="The last four digits of the device number")
    auth_method: str = strawberry.field(description="CRYPTOGRAM_3DS, PAN_ONLY or EMV")

    @classmethod
    def of(cls, w: dict | None) -> PaymentWallet | None:
        return cls(type=w["type"], dynamic_last4=w["dynamic_last4"], auth_method=w["auth_method"]) if w else None


async def _customers_by_id(info: Info[Context, None]):
    principal = info.context.principal

    async def batch(keys: list[str]):
        found = await customers.customers_by_ids(principal=principal, ids=list(keys))
        return [found.get(k) for k in keys]
    return info.context.loader("CustomerByIdLoader", batch)


@strawberry.type
class PaymentReceipt:
    channel: str = strawberry.field(description="messaging or email")
    sent_to: str
    status: str = strawberry.field(description="pending, sent or failed")


async def load_receipt(info: Info[Context, None], payment_id: str) -> PaymentReceipt | None:
    """The receipt of a payment or an intent (one query per request: ReceiptByPaymentLoader)."""
    async def batch(keys: list[str]):
        found = await receipts.states_of(list(keys))
        return [found.get(k) for k in keys]
    r = await info.context.loader("ReceiptByPaymentLoader", batch).load(payment_id)
    return PaymentReceipt(channel=r.channel, sent_to=r.sent_to, status=r.status) if r else None


def _routing_decision(root) -> RoutingDecision:
    return RoutingDecision.of(root._row.routing_decision or {})


def _card(root) -> PaymentCard:
    p = root._row
    return PaymentCard(brand=p.card_brand, last4=p.card_last4, exp_month=p.card_exp_month,
                       exp_year=p.card_exp_year, fingerprint=p.card_fingerprint, country=p.card_country,
                       networks=cards.card_networks(p.card_brand, p.card_networks))


def _wallet(root) -> PaymentWallet | None:
    return PaymentWallet.of(root._row.wallet)


def _method_type(root) -> str:
    return root._row.payment_method_type


def _metadata(root) -> JSON:
    return root._row.metadata or {}


def _installments(root) -> Installments | None:
    return Installments.of(root._row.installments)


def _invoice_id(root) -> str | None:
    return getattr(root._row, "invoice_id", None)


def _gib(root) -> InvoiceGib | None:
    return gib_of(getattr(root._row, "gib", None))


@strawberry.type
class EtaReceiptRef:
    document_id: str
    uuid: str
    number: str
    status: str = strawberry.field(description="queued, valid or invalid")
    qr_url: str = strawberry.field(description="ETA's receipt URL for the QR code (uuid, issue time, total, RIN)")
    amount: MinorAmount


@strawberry.type
class PaymentEtaReceipt:
    uuid: str | None
    number: str | None
    status: str = strawberry.field(description="queued (not built yet), not_issued, valid or invalid")
    qr_url: str | None
    returns: list[EtaReceiptRef]


def _eta_receipt(root) -> PaymentEtaReceipt | None:
    return eta_receipt_of(getattr(root._row, "eta_receipt", None))


def eta_receipt_of(r: dict | None) -> PaymentEtaReceipt | None:
    if not r:
        return None
    return PaymentEtaReceipt(uuid=r.get("uuid"), number=r.get("number"), status=r["status"], qr_url=r.get("qr_url"),
                             returns=[EtaReceiptRef(**x) for x in r.get("returns") or []])


@strawberry.type
class PaymentRefund:
    id: strawberry.ID
    amount: MinorAmount
    currency: str
    reason: str | None
    status: str
    created_at: datetime

    @classmethod
    def of(cls, r) -> PaymentRefund:
        return cls(id=strawberry.ID(r.id), amount=r.amount, currency=r.currency, reason=r.reason, status=r.status,
                   created_at=r.created_at)


@strawberry.type
class Payment(Node):
    id: strawberry.ID
    status: str
    amount: MinorAmount
    currency: str
    provider: str | None
    # routing_decision, card and metadata are made from the payment row (`_row`: a model instance
    # or a lookup.RowView) only when selected: `payment(id) { id status }` decodes no JSON and
    # builds no object.
    routing_decision: RoutingDecision = strawberry.field(resolver=_routing_decision)
    risk_score: int
    created_at: datetime
    amount_captured: MinorAmount
    amount_refunded: MinorAmount
    capture_method: str
    decline_code: str | None
    card: PaymentCard = strawberry.field(resolver=_card)
    payment_method_type: str = strawberry.field(resolver=_method_type,
                                                description="card, mada, apple_pay or google_pay")
    wallet: PaymentWallet | None = strawberry.field(resolver=_wallet,
                                                    description="Apple Pay / Google Pay (null: not a wallet)")
    metadata: JSON = strawberry.field(resolver=_metadata)
    customer_id: str | None
    payment_link: str | None = strawberry.field(description="The lnk_ id when paid on a payment link")
    receipt_url: str | None = strawberry.field(description="The HTML receipt (no key needed), once paid")
    installments: Installments | None = strawberry.field(resolver=_installments,
                                                         description="The installment terms (null: paid in one go)")
    invoice_id: str | None = strawberry.field(resolver=_invoice_id, description="The invoice made for a payment that "
                                                                                "asked for one (invoice: true)")
    gib: InvoiceGib | None = strawberry.field(resolver=_gib, description="That invoice's GİB e-document")
    eta_receipt: PaymentEtaReceipt | None = strawberry.field(
        resolver=_eta_receipt, description="The Egyptian e-receipt (ETA) of an EGP payment, once asked or built")
    _row: strawberry.Private[Any] = None

    @strawberry.field
    async def customer(self, info: Info[Context, None]) -> Customer | None:
        if not self.customer_id:
            return None
        c = await (await _customers_by_id(info)).load(self.customer_id)
        return Customer.of(c) if c is not None else None

    @strawberry.field(description="When the payment was captured (null: not captured)")
    def captured_at(self) -> datetime | None:
        return getattr(self._row, "captured_at", None)

    @strawberry.field(description="When the authorization was voided (null: not voided)")
    def voided_at(self) -> datetime | None:
        return getattr(self._row, "voided_at", None)

    @strawberry.field(description="The payment's refunds, oldest first (the dashboard's timeline)")
    async def refunds(self, info: Info[Context, None]) -> list[PaymentRefund]:
        if not self.amount_refunded:                   # never refunded: no read
            return []
        principal = info.context.principal

        async def batch(keys: list[str]):
            rows = await payments.refunds_of(principal=principal, payment_ids=list(keys))
            return [[PaymentRefund.of(r) for r in rows.get(k, [])] for k in keys]
        return await info.context.loader("RefundsByPaymentLoader", batch).load(str(self.id))

    @strawberry.field(description="The automatic receipt sent to the customer, if any")
    async def receipt(self, info: Info[Context, None]) -> PaymentReceipt | None:
        return await load_receipt(info, str(self.id))

    @strawberry.field(description="The marketplace's split lines (spl_) of this payment")
    async def splits(self, info: Info[Context, None]) -> list[Split]:
        return await splits_of(info, str(self.id))

    @strawberry.field(description="The cardholder's dispute of this payment; null when it is not disputed")
    async def dispute(self, info: Info[Context, None]) -> Dispute | None:
        if self.status != dispute_view.DISPUTED:       # only a disputed payment has one: no read
            return None
        principal = info.context.principal

        async def batch(keys: list[str]):
            found = await dispute_view.by_payment_ids(principal=principal, payment_ids=list(keys))
            return [found.get(k) for k in keys]
        d = await info.context.loader("DisputeByPaymentLoader", batch).load(str(self.id))
        return Dispute.of(d) if d is not None else None

    @classmethod
    def of(cls, p) -> Payment:
        return cls(id=strawberry.ID(p.id), status=p.status, amount=p.amount, currency=p.currency,
                   provider=p.provider, risk_score=p.risk_score, created_at=p.created_at,
                   amount_captured=p.amount_captured, amount_refunded=p.amount_refunded,
                   capture_method=p.capture_method, decline_code=p.decline_code, customer_id=p.customer_id,
                   payment_link=p.payment_link,
                   receipt_url=receipts.url_of(p.id, p.receipt_token) if p.status in receipts.PAID else None, _row=p)

    @classmethod
    def of_plain(cls, r) -> Payment:
        """From payment_read_hot.read_plain's record (its PLAIN columns, by position): for a
        selection of `PLAIN_FIELDS` only (no field here reads `_row`)."""
        pid, status = r[0], r[1]
        return cls(id=strawberry.ID(pid), status=status, amount=r[2], currency=r[3], provider=r[4], risk_score=r[5],
                   created_at=r[6], amount_captured=r[7], amount_refunded=r[8], capture_method=r[9],
                   decline_code=r[10], customer_id=r[11], payment_link=r[12],
                   receipt_url=receipts.url_of(pid, r[13]) if status in receipts.PAID else None)


# Payment's fields that read no more than Payment.of_plain keeps (routingDecision, card, wallet,
# metadata, installments, invoiceId, gib, etaReceipt, capturedAt and voidedAt read `_row`)
PLAIN_FIELDS = frozenset({"__typename", "id", "status", "amount", "currency", "provider", "riskScore", "createdAt",
                          "amountCaptured", "amountRefunded", "captureMethod", "declineCode", "customerId",
                          "paymentLink", "receiptUrl", "customer", "refunds", "receipt", "splits", "dispute"})


def _plain_selection(info: Info) -> bool:
    """Does the query select only PLAIN_FIELDS of the payment (plain fields, no fragment)?"""
    for node in info._raw_info.field_nodes:
        selection = node.selection_set
        if selection is None:
            return False
        for s in selection.selections:
            if type(s) is not FieldNode or s.name.value not in PLAIN_FIELDS:
                return False
    return True


@node_resolver("pay")
async def _payment_node(info: Info[Context, None], node_id: str):
    return Payment.of(await payments.read_payment(principal=info.context.principal, payment_id=node_id))


@node_resolver("cus")
async def _customer_node(info: Info[Context, None], node_id: str):
    return Customer.of(await customers.get_customer(principal=info.context.principal, customer_id=node_id))


@node_resolver("rul")
async def _rule_node(info: Info[Context, None], node_id: str):
    return RoutingRule.of(await routing.get_rule(principal=info.context.principal, rule_id=node_id))


# ---------------------------------------------------------------- inputs and payloads

@strawberry.input
class CardInput:
    number: str
    exp_month: int
    exp_year: int
    cvc: str | None = strawberry.UNSET


@strawberry.input(description="A wallet token (services.payments.wallets): Apple Pay's whole PKPaymentToken "
                            "JSON, Google Pay's tokenizationData.token string")
class WalletTokenInput:
    token: JSON


@strawberry.input
class PaymentMethodInput:
    card: CardInput | None = strawberry.UNSET       # required unless type is apple_pay or google_pay
    type: str | None = strawberry.UNSET
    billing_country: str | None = strawberry.UNSET
    apple_pay: WalletTokenInput | None = strawberry.UNSET
    google_pay: WalletTokenInput | None = strawberry.UNSET


@strawberry.input
class RoutingInput:
    strategy: str | None = strawberry.UNSET
    provider: str | None = strawberry.UNSET


@strawberry.input
class PaymentCustomerInput:
    id: strawberry.ID | None = strawberry.UNSET
    email: str | None = strawberry.UNSET
    name: str | None = strawberry.UNSET
    phone: str | None = strawberry.UNSET


@strawberry.input
class PaymentCreateInput:
    amount: MinorAmount
    currency: str
    payment_method: PaymentMethodInput
    routing: RoutingInput | None = strawberry.UNSET
    customer: PaymentCustomerInput | None = strawberry.UNSET
    customer_id: strawberry.ID | None = strawberry.UNSET
    metadata: JSON | None = strawberry.UNSET
    description: str | None = strawberry.UNSET
    capture: bool | None = strawberry.UNSET
    capture_method: str | None = strawberry.UNSET
    idempotency_key: str | None = strawberry.UNSET
    installments: int | None = strawberry.UNSET
    invoice: bool | None = strawberry.field(default=strawberry.UNSET,
                                            description="A TRY payment asks for an invoice (a Turkish e-invoice)")
    eta_receipt: bool | None = strawberry.UNSET


@strawberry.type
class PaymentPayload:
    payment: Payment | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.input
class PaymentCaptureInput:
    id: strawberry.ID
    amount: MinorAmount | None = strawberry.UNSET


@strawberry.input
class PaymentVoidInput:
    id: strawberry.ID


@strawberry.input
class PaymentRefundInput:
    id: strawberry.ID
    amount: MinorAmount | None = strawberry.UNSET
    reason: str | None = strawberry.UNSET
    split: strawberry.ID | None = strawberry.field(default=strawberry.UNSET,
                                                  description="A split payment: refund this line only")
    reverse_split: bool | None = strawberry.field(default=strawberry.UNSET,
                                                  description="Debit the sellers their lines' refunded parts")
    refund_platform_fee: bool | None = strawberry.field(default=strawberry.UNSET,
                                                        description="With reverseSplit (default true): credit the "
                                                                    "sellers the fee's share")


@strawberry.type
class PaymentRefundPayload:
    payment: Payment | None = None
    refund_id: str | None = None
    amount: MinorAmount | None = None
    note: InvoiceNote | None = strawberry.field(default=None, description="The e-invoice note this refund caused "
                                                                          "(a credit note, a return); null if none")
    split_reversals: list[SplitReversal] = strawberry.field(default_factory=list,
                                                            description="A split payment's: each line's part")
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.input
class CustomerCreateInput:
    email: str | None = strawberry.UNSET
    name: str | None = strawberry.UNSET
    phone: str | None = strawberry.UNSET
    metadata: JSON | None = strawberry.UNSET
    tax_id: TaxIdInput | None = strawberry.UNSET
    address: AddressInput | None = strawberry.UNSET


@strawberry.input
class CustomerUpdateInput:
    id: strawberry.ID
    email: str | None = strawberry.UNSET
    name: str | None = strawberry.UNSET
    phone: str | None = strawberry.UNSET
    metadata: JSON | None = strawberry.UNSET
    tax_id: TaxIdInput | None = strawberry.UNSET
    address: AddressInput | None = strawberry.UNSET


@strawberry.type
class CustomerPayload:
    customer: Customer | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.input
class RoutingConditionInput:
    field: str
    operator: str
    value: JSON


@strawberry.input
class RoutingRuleCreateInput:
    name: str
    strategy: str | None = strawberry.UNSET
    provider: str | None = strawberry.UNSET
    priority: int | None = strawberry.UNSET
    status: str | None = strawberry.UNSET
    conditions: list[RoutingConditionInput] | None = strawberry.UNSET


@strawberry.input
class RoutingRuleUpdateInput:
    id: strawberry.ID
    name: str | None = strawberry.UNSET
    strategy: str | None = strawberry.UNSET
    provider: str | None = strawberry.UNSET
    priority: int | None = strawberry.UNSET
    status: str | None = strawberry.UNSET
    conditions: list[RoutingConditionInput] | None = strawberry.UNSET


@strawberry.type
class RoutingRulePayload:
    routing_rule: RoutingRule | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


def _without_id(data: dict) -> dict:
    return {k: v for k, v in data.items() if k != "id"}


# ---------------------------------------------------------------- root fields

SEARCH_DOC = "an exact pay_ id, the payer's e-mail (any case), the customer's phone or the card's last 4 digits"


def _search(query, method, amount_gte, amount_lte) -> payment_search.Search:
    return payment_search.build(query=query, payment_method=method, amount_gte=amount_gte, amount_lte=amount_lte,
                                query_param="query", method_param="method", gte_param="amountGte",
                                lte_param="amountLte")


@strawberry.type(description="A CSV export of payments: header id,created_at,status,amount,amount_refunded,"
                             "currency,payment_method,card_brand,card_last4,customer_email,customer_phone.")
class PaymentsExport:
    filename: str | None = None
    csv: str | None = None
    row_count: int | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class Query:
    @strawberry.field
    async def payment(self, info: Info[Context, None], id: strawberry.ID) -> Payment:
        principal = info.context.principal
        if _plain_selection(info):         # PostgreSQL: the plain columns alone (None: the generic read)
            found = await payment_read_hot.read_plain(principal, str(id))
            if found is not None:
                return Payment.of_plain(found)
        return Payment.of(await payments.read_payment(principal=principal, payment_id=str(id)))

    @strawberry.field
    async def payments(self, info: Info[Context, None], first: int | None = None, after: str | None = None,
                       status: str | None = None, currency: str | None = None, provider: str | None = None,
                       customer: strawberry.ID | None = None, created_gte: datetime | None = None,
                       created_lte: datetime | None = None,
                       query: Annotated[str | None, strawberry.argument(description=SEARCH_DOC)] = None,
                       method: Annotated[str | None, strawberry.argument(description="card, mada, apple_pay, knet, ...")] = None,
                       amount_gte: Annotated[int | None, strawberry.argument(description="minor units")] = None,
                       amount_lte: Annotated[int | None, strawberry.argument(description="minor units")] = None,
                       ) -> Connection[Payment]:
        page = await payments.list_payments(principal=info.context.principal, limit=check_first(first),
                                            starting_after=after, status=status, currency=currency,
                                            provider=provider, customer=str(customer) if customer else None,
                                            created_gte=created_gte, created_lte=created_lte,
                                            search=_search(query, method, amount_gte, amount_lte))
        return connection(page, Payment.of, after=after)

    @strawberry.field(description="The payments the filters find as one CSV file (RFC 4180, UTF-8, minor units): "
                                  "at most 10,000 rows, else the userError export_too_large.")
    async def payments_export(self, info: Info[Context, None], status: str | None = None,
                              currency: str | None = None, provider: str | None = None,
                              customer: strawberry.ID | None = None, created_gte: datetime | None = None,
                              created_lte: datetime | None = None,
                              query: Annotated[str | None, strawberry.argument(description=SEARCH_DOC)] = None,
                              method: str | None = None, amount_gte: int | None = None,
                              amount_lte: int | None = None) -> PaymentsExport:
        principal = info.context.principal
        done, errors = await user_errors(lambda: payment_export.export(
            principal=principal, status=status, currency=currency, provider=provider,
            customer=str(customer) if customer else None, created_gte=created_gte, created_lte=created_lte,
            search=_search(query, method, amount_gte, amount_lte)))
        if done is None:
            return PaymentsExport(user_errors=errors)
        return PaymentsExport(filename=done.filename, csv=done.csv, row_count=done.row_count)

    @strawberry.field
    async def customer(self, info: Info[Context, None], id: strawberry.ID) -> Customer:
        return Customer.of(await customers.get_customer(principal=info.context.principal, customer_id=str(id)))

    @strawberry.field
    async def customers(self, info: Info[Context, None], first: int | None = None, after: str | None = None,
                        email: str | None = None) -> Connection[Customer]:
        page = await customers.list_customers(principal=info.context.principal, limit=check_first(first),
                                              starting_after=after, email=email)
        return connection(page, Customer.of, after=after)

    @strawberry.field(description="Every routing rule, in evaluation order (ascending priority).")
    async def routing_rules(self, info: Info[Context, None]) -> Connection[RoutingRule]:
        page = await routing.list_rules(principal=info.context.principal)
        return connection(page, RoutingRule.of)


@strawberry.type
class Mutation:
    @strawberry.mutation
    async def payment_create(self, info: Info[Context, None], input: PaymentCreateInput) -> PaymentPayload:
        ctx = info.context
        principal = ctx.principal
        headers = ctx.request.headers if ctx.request is not None else {}
        key = headers.get("Idempotency-Key") or headers.get("X-Idempotency-Key")
        p, errors = await user_errors(lambda: payments.create_payment(
            principal=principal, data=to_data(input), idempotency_key=key, client_address=ctx.client_address))
        return PaymentPayload(payment=Payment.of(p) if p else None, user_errors=errors)

    @strawberry.mutation
    async def payment_capture(self, info: Info[Context, None], input: PaymentCaptureInput) -> PaymentPayload:
        principal = info.context.principal
        p, errors = await user_errors(lambda: payments.capture_payment(
            principal=principal, payment_id=str(input.id), data=_without_id(to_data(input))))
        return PaymentPayload(payment=Payment.of(p) if p else None, user_errors=errors)

    @strawberry.mutation
    async def payment_void(self, info: Info[Context, None], input: PaymentVoidInput) -> PaymentPayload:
        principal = info.context.principal
        p, errors = await user_errors(lambda: payments.void_payment(principal=principal, payment_id=str(input.id)))
        return PaymentPayload(payment=Payment.of(p) if p else None, user_errors=errors)

    @strawberry.mutation
    async def payment_refund(self, info: Info[Context, None], input: PaymentRefundInput) -> PaymentRefundPayload:
        principal = info.context.principal
        r, errors = await user_errors(lambda: payments.refund_payment(
            principal=principal, payment_id=str(input.id), data=_without_id(to_data(input))))
        if errors:
            return PaymentRefundPayload(user_errors=errors)
        return PaymentRefundPayload(payment=Payment.of(r.payment), refund_id=r.refund.id, amount=r.refund.amount,
                                    note=InvoiceNote.of(r.notes[0]) if r.notes else None,
                                    split_reversals=SplitReversal.list_of(r.split_reversals))

    @strawberry.mutation
    async def customer_create(self, info: Info[Context, None], input: CustomerCreateInput) -> CustomerPayload:
        principal = info.context.principal
        c, errors = await user_errors(lambda: customers.create_customer(principal=principal,
                                                                        data=address_data(to_data(input), input)))
        return CustomerPayload(customer=Customer.of(c) if c else None, user_errors=errors)

    @strawberry.mutation
    async def customer_update(self, info: Info[Context, None], input: CustomerUpdateInput) -> CustomerPayload:
        principal = info.context.principal
        c, errors = await user_errors(lambda: customers.update_customer(
            principal=principal, customer_id=str(input.id), data=address_data(_without_id(to_data(input)), input)))
        return CustomerPayload(customer=Customer.of(c) if c else None, user_errors=errors)

    @strawberry.mutation
    async def routing_rule_create(self, info: Info[Context, None],
                                  input: RoutingRuleCreateInput) -> RoutingRulePayload:
        principal = info.context.principal
        r, errors = await user_errors(lambda: routing.create_rule(principal=principal, data=to_data(input)))
        return RoutingRulePayload(routing_rule=RoutingRule.of(r) if r else None, user_errors=errors)

    @strawberry.mutation
    async def routing_rule_update(self, info: Info[Context, None],
                                  input: RoutingRuleUpdateInput) -> RoutingRulePayload:
        principal = info.context.principal
        r, errors = await user_errors(lambda: routing.update_rule(
            principal=principal, rule_id=str(input.id), data=_without_id(to_data(input))))
        return RoutingRulePayload(routing_rule=RoutingRule.of(r) if r else None, user_errors=errors)
