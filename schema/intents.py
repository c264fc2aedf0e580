"""GraphQL for payment intents (the `/v1` domain): paymentIntent, paymentIntents,
paymentIntentCreate, paymentIntentConfirm, paymentIntentCancel, paymentIntentRefund. Resolvers call services.intents,
and every field is read from `intent_object`, the same dict the REST shaper returns."""
from __future__ import annotations

from datetime import date, datetime

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from schema.bnpl_types import BnplBuyerInput, BnplDetails, BnplItemInput, ShippingAddressInput
from schema.scalars import MinorAmount
from schema.context import Context
from schema.errors import UserError, user_errors
from schema.inputs import to_data
from schema.einvoicing import InvoiceGib, gib_of
from schema.payments import PaymentEtaReceipt, PaymentReceipt, WalletTokenInput, eta_receipt_of, load_receipt
from schema.installments import Installments
from schema.relay import NODE_RESOLVERS, Connection, Node, check_first, connection
from schema.marketplace import Split, SplitReversal, splits_of
from services.payments import intent_create_hot, intent_refunds, intents
from services.errors import NotFound


@strawberry.type
class FeeBreakdown:
    processing: MinorAmount
    currency_conversion: MinorAmount
    network: MinorAmount


@strawberry.type
class PaymentIntentFee:
    amount: MinorAmount
    currency: str
    rate: str = strawberry.field(description="A fraction as a decimal string, e.g. \"0.029\".")
    breakdown: FeeBreakdown


@strawberry.type
class CryptoDetails:
    asset: str
    network: str
    address: str
    amount_crypto: str
    rate: str
    rate_locked_until: datetime
    qr_code_url: str
    detected_at: datetime | None
    confirmed_at: datetime | None
    transaction_hash: str | None


@strawberry.type
class CodAddress:
    line1: str
    city: str
    country: str
    postal_code: str | None = None


@strawberry.type
class SplitEntry:
    merchant_id: str
    amount: MinorAmount
    currency: str


@strawberry.type
class RedirectToUrl:
    url: str
    return_url: str


@strawberry.type(description="The QR code of a request to pay: what the buyer's bank app scans, and its PNG.")
class RequestToPayQr:
    payload: str
    image_url: str


@strawberry.type(description="What the buyer does next: redirect_to_url (3-D Secure), redirect (KNET, "
                               "BenefitPay: url, returnUrl), display_reference (Fawry: reference, expiresAt), "
                               "otp (STC Pay: phoneHint, then confirm again with otp), request_to_pay (CliQ, "
                               "Aani: aliasHint, expiresAt, qr); SADAD's display_reference adds billerCode.")
class NextAction:
    type: str
    redirect_to_url: RedirectToUrl | None
    url: str | None = None
    return_url: str | None = None
    reference: str | None = None
    expires_at: datetime | None = None
    phone_hint: str | None = None
    biller_code: str | None = None
    alias_hint: str | None = None
    qr: RequestToPayQr | None = None


def _dt(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None


@strawberry.type
class PaymentIntent(Node):
    id: strawberry.ID
    status: str
    amount: MinorAmount
    currency: str
    amount_received: MinorAmount
    amount_refunded: MinorAmount
    payment_method: str
    payment_method_id: str | None
    checkout_url: str
    client_secret: str
    fee: PaymentIntentFee
    net_amount: MinorAmount
    settlement_date: date
    merchant_id: str
    customer_id: str | None
    order_id: str | None
    description: str | None
    statement_descriptor: str | None
    metadata: JSON
    locale: str | None = strawberry.field(description="ar, tr or en when the merchant set one; null: pages and "
                                                      "receipts follow the buyer's language")
    created_at: datetime
    expires_at: datetime
    succeeded_at: datetime | None
    canceled_at: datetime | None
    cancellation_reason: str | None
    livemode: bool
    next_action: NextAction | None
    receipt_url: str | None
    failure_code: str | None
    failure_message: str | None
    split: list[SplitEntry]
    crypto: CryptoDetails | None
    cod_address: CodAddress | None
    cod_status: str | None
    qr_code_url: str | None
    payment_method_details: JSON | None = strawberry.field(
        default=None, description="The card's brand and networks, or the local method's own references "
                                  "and result (knet, benefit, naps, omannet, eg_wallet, fawry, stcpay); as in REST.")
    installments: Installments | None = strawberry.field(description="The installment terms (null: in one go)")
    capture_method: str | None = strawberry.field(default=None, description="manual for BNPL (captured as it ships)")
    amount_capturable: MinorAmount | None = strawberry.field(default=None, description="BNPL: still authorized")
    bnpl: BnplDetails | None = strawberry.field(default=None, description="BNPL: method, schedule, provider reference")
    eta_receipt: PaymentEtaReceipt | None = strawberry.field(
        default=None, description="The Egyptian e-receipt (ETA) of an EGP payment, once asked or built")
    invoice_id: str | None = strawberry.field(
        default=None, description="The invoice made for a TRY intent that asked for one (invoice: true), once it "
                                  "succeeded and the scheduler made it")
    gib: InvoiceGib | None = strawberry.field(default=None, description="That invoice's GİB e-document")

    @strawberry.field(description="The marketplace's split lines (spl_) of this payment")
    async def splits(self, info: Info[Context, None]) -> list[Split]:
        return await splits_of(info, str(self.id))

    @strawberry.field(description="The automatic receipt sent to the customer, if any")
    async def receipt(self, info: Info[Context, None]) -> PaymentReceipt | None:
        return await load_receipt(info, str(self.id))

    @classmethod
    def of(cls, intent, o: dict | None = None) -> PaymentIntent:
        """`o`: the intent's object when the caller has it (a create's, intents.created_object)."""
        if o is None:
            o = intents.intent_object(intent)
        fee = o["fee"]
        c = o.get("crypto")
        na = o["next_action"]
        return cls(
            id=strawberry.ID(o["id"]), status=o["status"], amount=o["amount"], currency=o["currency"],
            amount_received=o["amount_received"], amount_refunded=o["amount_refunded"],
            payment_method=o["payment_method"],
            payment_method_id=o["payment_method_id"], checkout_url=o["checkout_url"], client_secret=o["client_secret"],
            fee=PaymentIntentFee(amount=fee["amount"], currency=fee["currency"], rate=fee["rate"],
                                 breakdown=FeeBreakdown(**fee["breakdown"])),
            net_amount=o["net_amount"], settlement_date=intent.settlement_date, merchant_id=o["merchant_id"],
            customer_id=o["customer_id"], order_id=o["order_id"], description=o["description"],
            statement_descriptor=o["statement_descriptor"], metadata=o["metadata"], locale=o["locale"],
            created_at=intent.created_at, expires_at=intent.expires_at, succeeded_at=intent.succeeded_at,
            canceled_at=intent.canceled_at, cancellation_reason=o["cancellation_reason"], livemode=o["livemode"],
            next_action=NextAction(type=na["type"], redirect_to_url=RedirectToUrl(**na["redirect_to_url"])
                                   if na.get("redirect_to_url") else None, url=na.get("url"),
                                   return_url=na.get("return_url"), reference=na.get("reference"),
                                   expires_at=_dt(na.get("expires_at")), phone_hint=na.get("phone_hint"),
                                   biller_code=na.get("biller_code"), alias_hint=na.get("alias_hint"),
                                   qr=RequestToPayQr(**na["qr"]) if na.get("qr") else None)
            if na else None,
            receipt_url=o["receipt_url"], failure_code=o["failure_code"], failure_message=o["failure_message"],
            split=[SplitEntry(**s) for s in o["split"]],
            crypto=CryptoDetails(asset=c["asset"], network=c["network"], address=c["address"],
                                 amount_crypto=c["amount_crypto"], rate=c["rate"],
                                 rate_locked_until=_dt(c["rate_locked_until"]), qr_code_url=c["qr_code_url"],
                                 detected_at=_dt(c["detected_at"]), confirmed_at=_dt(c["confirmed_at"]),
                                 transaction_hash=c["transaction_hash"]) if c else None,
            cod_address=CodAddress(**o["cod_address"]) if o.get("cod_address") else None,
            cod_status=o.get("cod_status"), qr_code_url=o.get("qr_code_url"),
            payment_method_details=o.get("payment_method_details"),
            installments=Installments.of(o["installments"]), capture_method=o.get("capture_method"),
            amount_capturable=o.get("amount_capturable"), bnpl=BnplDetails.of(o.get("bnpl")),
            eta_receipt=eta_receipt_of(o.get("eta_receipt")),
            invoice_id=o.get("invoice_id"), gib=gib_of(o.get("gib")))


# node(id:) for "pay_": issue 3's payments may own the prefix; intents are tried after them.
_previous_pay = NODE_RESOLVERS.get("pay")


async def _pay_node(info: Info[Context, None], node_id: str):
    if _previous_pay is not None:
        try:
            found = await _previous_pay(info, node_id)
            if found is not None:
                return found
        except NotFound:
            pass
    return PaymentIntent.of(await intents.get_intent(principal=info.context.principal, intent_id=node_id))


NODE_RESOLVERS["pay"] = _pay_node


@strawberry.input
class CodAddressInput:
    line1: str | None = strawberry.UNSET
    city: str | None = strawberry.UNSET
    country: str | None = strawberry.UNSET
    postal_code: str | None = strawberry.UNSET


@strawberry.input
class SplitInput:
    merchant_id: str | None = strawberry.UNSET
    amount: MinorAmount | None = strawberry.UNSET
    currency: str | None = strawberry.UNSET


@strawberry.input
class PaymentIntentCreateInput:
    # Strings, not enums: the service checks them, so both protocols answer the same codes.
    amount: MinorAmount | None = strawberry.UNSET
    currency: str | None = strawberry.UNSET
    payment_method: str | None = strawberry.UNSET
    crypto_asset: str | None = strawberry.UNSET
    crypto_network: str | None = strawberry.UNSET
    merchant_id: str | None = strawberry.UNSET
    customer_id: str | None = strawberry.UNSET
    order_id: str | None = strawberry.UNSET
    description: str | None = strawberry.UNSET
    statement_descriptor: str | None = strawberry.UNSET
    metadata: JSON | None = strawberry.UNSET
    cod_address: CodAddressInput | None = strawberry.UNSET
    split: list[SplitInput] | None = strawberry.UNSET
    locale: str | None = strawberry.UNSET
    phone: str | None = strawberry.UNSET                 # stcpay, eg_wallet: the buyer's mobile number
    expires_in_hours: int | None = strawberry.UNSET      # fawry: 1-168, default 48; sadad: 1-696, default 72
    alias: str | None = strawberry.UNSET                 # cliq, aani: where the request to pay goes
    return_url: str | None = strawberry.UNSET            # where a redirect method (knet, benefit, naps, ...) sends the buyer
    idempotency_key: str | None = strawberry.UNSET
    installments: int | None = strawberry.UNSET
    apple_pay: WalletTokenInput | None = strawberry.UNSET     # apple_pay: the token pays at once
    google_pay: WalletTokenInput | None = strawberry.UNSET    # google_pay: the token pays at once
    buyer: BnplBuyerInput | None = strawberry.UNSET              # BNPL: the buyer the provider scores
    items: list[BnplItemInput] | None = strawberry.UNSET         # BNPL: adding up to the amount
    shipping_address: ShippingAddressInput | None = strawberry.UNSET    # BNPL
    capture_method: str | None = strawberry.UNSET                # BNPL: manual (the only choice)
    eta_receipt: bool | None = strawberry.UNSET
    invoice: bool | None = strawberry.UNSET                      # a TRY intent asks for a Turkish e-invoice


@strawberry.input
class PaymentIntentConfirmInput:
    id: strawberry.ID
    payment_method_id: str | None = strawberry.UNSET
    return_url: str | None = strawberry.UNSET
    client_secret: str | None = strawberry.UNSET
    phone: str | None = strawberry.UNSET                 # stcpay, eg_wallet
    otp: str | None = strawberry.UNSET                   # stcpay: the one-time code (second confirm)
    idempotency_key: str | None = strawberry.UNSET
    installments: int | None = strawberry.UNSET
    apple_pay: WalletTokenInput | None = strawberry.UNSET
    google_pay: WalletTokenInput | None = strawberry.UNSET


@strawberry.input
class PaymentIntentCancelInput:
    id: strawberry.ID
    cancellation_reason: str | None = strawberry.UNSET
    idempotency_key: str | None = strawberry.UNSET


@strawberry.input
class PaymentIntentRefundInput:
    id: strawberry.ID
    amount: MinorAmount | None = strawberry.field(default=strawberry.UNSET,
                                                  description="Default: all that is left to refund.")
    reason: str | None = strawberry.UNSET
    idempotency_key: str | None = strawberry.UNSET
    split: strawberry.ID | None = strawberry.field(default=strawberry.UNSET,
                                                  description="A split payment: refund this line only")
    reverse_split: bool | None = strawberry.field(default=strawberry.UNSET,
                                                  description="Debit the sellers their lines' refunded parts")
    refund_platform_fee: bool | None = strawberry.field(default=strawberry.UNSET,
                                                        description="With reverseSplit (default true): credit the "
                                                                    "sellers the fee's share")


@strawberry.type
class PaymentIntentRefund:
    """One refund of a payment intent (`ref_`)."""
    id: strawberry.ID
    amount: MinorAmount
    currency: str
    reason: str | None
    status: str
    created_at: datetime

    @classmethod
    def of(cls, r) -> PaymentIntentRefund:
        o = intent_refunds.refund_object(r)
        return cls(id=strawberry.ID(o["id"]), amount=o["amount"], currency=o["currency"], reason=o["reason"],
                   status=o["status"], created_at=r.created_at)


@strawberry.type
class PaymentIntentRefundPayload:
    payment_intent: PaymentIntent | None = None
    refund: PaymentIntentRefund | None = None
    split_reversals: list[SplitReversal] = strawberry.field(default_factory=list,
                                                            description="A split payment's: each line's part")
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class PaymentIntentPayload:
    payment_intent: PaymentIntent | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


def _payload(intent, errors, o: dict | None = None) -> PaymentIntentPayload:
    return PaymentIntentPayload(payment_intent=PaymentIntent.of(intent, o) if intent else None, user_errors=errors)


@strawberry.type
class Query:
    @strawberry.field(description="One payment intent (pay_...) of the caller.")
    async def payment_intent(self, info: Info[Context, None], id: strawberry.ID,
                             client_secret: str | None = None) -> PaymentIntent:
        return PaymentIntent.of(await intents.get_intent(principal=info.context.principal, intent_id=str(id),
                                                         client_secret=client_secret))

    @strawberry.field(description="Payment intents, newest first, with the filters of GET /v1/payments.")
    async def payment_intents(self, info: Info[Context, None], first: int | None = None, after: str | None = None,
                              status: str | None = None, currency: str | None = None,
                              payment_method: str | None = None, created_gte: int | None = None,
                              created_lte: int | None = None) -> Connection[PaymentIntent]:
        query = {"limit": check_first(first), "starting_after": after, "status": status, "currency": currency,
                 "payment_method": payment_method, "created[gte]": created_gte, "created[lte]": created_lte}
        page = await intents.list_intents(principal=info.context.principal,
                                          query={k: v for k, v in query.items() if v is not None})
        return connection(page, PaymentIntent.of, after=after)


@strawberry.type
class Mutation:
    @strawberry.mutation
    async def payment_intent_create(self, info: Info[Context, None],
                                    input: PaymentIntentCreateInput) -> PaymentIntentPayload:
        principal = info.context.principal
        data = to_data(input)
        made = await intent_create_hot.create_from_input(principal, data)     # the common input on PostgreSQL
        if made is not None:
            return _payload(made[1], [], made[0])
        intent, errors = await user_errors(lambda: intents.create_intent(principal=principal, data=data))
        return _payload(intent, errors, intents.created_object(intent) if intent else None)

    @strawberry.mutation
    async def payment_intent_confirm(self, info: Info[Context, None],
                                     input: PaymentIntentConfirmInput) -> PaymentIntentPayload:
        principal = info.context.principal
        data = to_data(input)
        intent_id = str(data.pop("id"))
        intent, errors = await user_errors(lambda: intents.confirm_intent(principal=principal, intent_id=intent_id,
                                                                          data=data))
        if errors and errors[0].code == "payment_declined":     # a card decline, a wrong one-time code
            # The decline is a userError (with declineCode) and the intent, now failed, is returned too.
            intent = await intents.get_intent(principal=principal, intent_id=intent_id,
                                              client_secret=data.get("client_secret"))
        return _payload(intent, errors)

    @strawberry.mutation
    async def payment_intent_cancel(self, info: Info[Context, None],
                                    input: PaymentIntentCancelInput) -> PaymentIntentPayload:
        principal = info.context.principal
        data = to_data(input)
        intent_id = str(data.pop("id"))
        return _payload(*await user_errors(lambda: intents.cancel_intent(principal=principal, intent_id=intent_id,
                                                                         data=data)))

    @strawberry.mutation(description="Refund a succeeded payment intent, fully or partly "
                                     "(POST /v1/payments/{id}/refund).")
    async def payment_intent_refund(self, info: Info[Context, None],
                                    input: PaymentIntentRefundInput) -> PaymentIntentRefundPayload:
        principal = info.context.principal
        data = to_data(input)
        intent_id = str(data.pop("id"))
        result, errors = await user_errors(lambda: intent_refunds.refund_intent(
            principal=principal, intent_id=intent_id, data=data))
        if result is None:
            return PaymentIntentRefundPayload(user_errors=errors)
        return PaymentIntentRefundPayload(payment_intent=PaymentIntent.of(result.intent),
                                          refund=PaymentIntentRefund.of(result.refund),
                                          split_reversals=SplitReversal.list_of(result.split_reversals))
