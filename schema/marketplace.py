"""GraphQL of the marketplace (issue 47): sub-merchants and their balances, split lines (also on
payments and intents, through one DataLoader per request), payouts, payout batches and the
settings; the same services as the REST routes of rest_compat/merchant_marketplace.py. Mutation
inputs are the REST fields in camelCase; expected failures come back as userErrors."""
from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.types import Info

from schema.context import Context
from schema.errors import UserError, user_errors
from schema.inputs import to_data
from schema.relay import Connection, Node, check_first, connection, node_resolver
from schema.scalars import MinorAmount
from schema.tax_ids import TaxId, TaxIdInput
from services.money.marketplace import payouts, sellers, settings, splits


# ---------------------------------------------------------------- types

@strawberry.type
class MarketplaceAmount:
    amount: MinorAmount
    currency: str


@strawberry.type(description="A seller's money in its currency (minor units)")
class SubMerchantBalance:
    held: list[MarketplaceAmount]
    pending: list[MarketplaceAmount]
    available: list[MarketplaceAmount]
    reserve: list[MarketplaceAmount]
    in_payout: list[MarketplaceAmount]
    paid_out: list[MarketplaceAmount]

    @classmethod
    def of(cls, b: dict) -> SubMerchantBalance:
        return cls(**{k: [MarketplaceAmount(**x) for x in b[k]]
                      for k in ("held", "pending", "available", "reserve", "in_payout", "paid_out")})


@strawberry.type
class SubMerchantAddress:
    line1: str
    line2: str | None
    city: str
    postal_code: str | None


@strawberry.type
class SubMerchantPayoutDetails:
    iban: str | None
    holder_name: str | None
    bic: str | None
    purpose: str
    hold_until: datetime | None


@strawberry.type
class SubMerchantFee:
    percent: str
    fixed: MinorAmount


@strawberry.type
class PayoutSchedule:
    interval: str
    weekly_anchor: str
    monthly_anchor: int
    minimum: MinorAmount
    reserve: MinorAmount


@strawberry.type
class SubMerchantRequirements:
    currently_due: list[str]
    past_due: list[str]
    disabled_reason: str | None


def _dt(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None


@strawberry.type
class SubMerchant(Node):
    id: strawberry.ID
    type: str
    legal_name: str
    email: str
    country: str
    currency: str
    address: SubMerchantAddress
    external_id: str | None
    tax_id: TaxId | None
    registration_number: str | None
    payout: SubMerchantPayoutDetails
    default_fee: SubMerchantFee
    auto_release_days: int | None
    payout_schedule: PayoutSchedule
    status: str
    payouts_enabled: bool
    requirements: SubMerchantRequirements
    livemode: bool
    created_at: datetime

    @strawberry.field(description="held, pending, available, reserve, in payout, paid out")
    async def balance(self, info: Info[Context, None]) -> SubMerchantBalance:
        principal = info.context.principal

        async def batch(keys: list[str]):
            found = await sellers.balances_of(principal=principal, ids=list(keys))
            return [found.get(k) for k in keys]
        return SubMerchantBalance.of(await info.context.loader("BalanceBySubMerchantLoader", batch).load(str(self.id)))

    @classmethod
    def of(cls, s, now: datetime) -> SubMerchant:
        o = sellers.sub_merchant_object(s, now)
        a, p, f, sc, r = o["address"], o["payout"], o["default_fee"], o["payout_schedule"], o["requirements"]
        return cls(id=strawberry.ID(s.id), type=o["type"], legal_name=o["legal_name"], email=o["email"],
                   country=o["country"], currency=o["currency"],
                   address=SubMerchantAddress(line1=a["line1"], line2=a.get("line2"), city=a["city"],
                                              postal_code=a.get("postal_code")),
                   external_id=o["external_id"], tax_id=TaxId.of(o["tax_id"]),
                   registration_number=o["registration_number"],
                   payout=SubMerchantPayoutDetails(iban=p["iban"], holder_name=p["holder_name"], bic=p["bic"],
                                                   purpose=p["purpose"], hold_until=_dt(p["hold_until"])),
                   default_fee=SubMerchantFee(percent=f["percent"], fixed=f["fixed"]),
                   auto_release_days=o["auto_release_days"],
                   payout_schedule=PayoutSchedule(interval=sc["interval"], weekly_anchor=sc["weekly_anchor"],
                                                  monthly_anchor=sc["monthly_anchor"], minimum=sc["minimum"],
                                                  reserve=sc["reserve"]),
                   status=o["status"], payouts_enabled=o["payouts_enabled"],
                   requirements=SubMerchantRequirements(currently_due=r["currently_due"], past_due=r["past_due"],
                                                        disabled_reason=r["disabled_reason"]),
                   livemode=s.livemode, created_at=s.created_at)


@strawberry.type
class Split(Node):
    id: strawberry.ID
    payment: str
    sub_merchant: str
    reference: str | None
    currency: str
    line_amount: MinorAmount
    fee: MinorAmount
    amount: MinorAmount = strawberry.field(description="The seller's: line_amount - fee")
    release: str
    status: str
    auto_release_at: datetime | None
    released_at: datetime | None
    amount_refunded: MinorAmount
    amount_reversed: MinorAmount
    fee_refunded: MinorAmount
    amount_disputed: MinorAmount
    livemode: bool
    created_at: datetime

    @classmethod
    def of(cls, s) -> Split:
        return cls(id=strawberry.ID(s.id), payment=s.payment_id, sub_merchant=s.sub_merchant_id, reference=s.reference,
                   currency=s.currency, line_amount=s.line_amount, fee=s.fee, amount=s.amount, release=s.release,
                   status=s.status, auto_release_at=s.auto_release_at, released_at=s.released_at,
                   amount_refunded=s.amount_refunded, amount_reversed=s.amount_reversed, fee_refunded=s.fee_refunded,
                   amount_disputed=s.amount_disputed, livemode=s.livemode, created_at=s.created_at)


@strawberry.type(description="A split line's part of a refund")
class SplitReversal:
    split: str
    amount: MinorAmount
    amount_reversed: MinorAmount
    fee_refunded: MinorAmount

    @classmethod
    def list_of(cls, rows: list[dict] | None) -> list[SplitReversal]:
        return [cls(**r) for r in rows or []]


async def splits_of(info: Info[Context, None], payment_id: str) -> list[Split]:
    """A payment's (or an intent's) split lines, batched per request (SplitsByPaymentLoader)."""
    principal = info.context.principal

    async def batch(keys: list[str]):
        found = await splits.splits_of_payments(principal=principal, ids=list(keys))
        return [found.get(k, []) for k in keys]
    loader = info.context.loader("SplitsByPaymentLoader", batch)
    return [Split.of(s) for s in await loader.load(payment_id)]


@strawberry.type
class Payout(Node):
    id: strawberry.ID
    batch: str
    sub_merchant: str
    amount: MinorAmount
    currency: str
    iban: str
    holder_name: str
    purpose: str
    reference: str
    status: str
    commission_invoice: str | None
    paid_at: datetime | None
    livemode: bool
    created_at: datetime

    @classmethod
    def of(cls, p) -> Payout:
        return cls(id=strawberry.ID(p.id), batch=p.batch_id, sub_merchant=p.sub_merchant_id, amount=p.amount,
                   currency=p.currency, iban=p.iban, holder_name=p.holder_name, purpose=p.purpose,
                   reference=p.reference, status=p.status, commission_invoice=p.commission_invoice,
                   paid_at=p.paid_at, livemode=p.livemode, created_at=p.created_at)


@strawberry.type
class PayoutBatch(Node):
    id: strawberry.ID
    currency: str
    count: int
    total: MinorAmount
    payouts: list[Payout]
    livemode: bool
    created_at: datetime

    @classmethod
    def of(cls, b, made) -> PayoutBatch:
        return cls(id=strawberry.ID(b.id), currency=b.currency, count=b.count, total=b.total,
                   payouts=[Payout.of(p) for p in made], livemode=b.livemode, created_at=b.created_at)


@strawberry.type
class MarketplacePayoutAccount:
    iban: str
    name: str
    bic: str | None


@strawberry.type
class Marketplace:
    dispute_policy: str = strawberry.field(description="platform, seller or ratio")
    payout_account: MarketplacePayoutAccount | None
    commission_invoices: bool

    @classmethod
    def of(cls, s, livemode: bool) -> Marketplace:
        o = settings.settings_object(s, livemode)
        a = o["payout_account"]
        return cls(dispute_policy=o["dispute_policy"], commission_invoices=o["commission_invoices"],
                   payout_account=MarketplacePayoutAccount(iban=a["iban"], name=a["name"], bic=a.get("bic"))
                   if a else None)


@node_resolver("smr")
async def _smr_node(info: Info[Context, None], node_id: str):
    p = info.context.principal
    return SubMerchant.of(await sellers.get_sub_merchant(principal=p, sub_merchant_id=node_id),
                          await sellers.now_for(p))


@node_resolver("spl")
async def _spl_node(info: Info[Context, None], node_id: str):
    return Split.of(await splits.get_split(principal=info.context.principal, split_id=node_id))


@node_resolver("po")
async def _po_node(info: Info[Context, None], node_id: str):
    return Payout.of(await payouts.get_payout(principal=info.context.principal, payout_id=node_id))


@node_resolver("pb")
async def _pb_node(info: Info[Context, None], node_id: str):
    return PayoutBatch.of(*await payouts.get_batch(principal=info.context.principal, batch_id=node_id))


# ---------------------------------------------------------------- inputs

@strawberry.input
class SubMerchantAddressInput:
    line1: str | None = strawberry.UNSET
    line2: str | None = strawberry.UNSET
    city: str | None = strawberry.UNSET
    postal_code: str | None = strawberry.UNSET


@strawberry.input
class SubMerchantPayoutInput:
    iban: str | None = strawberry.UNSET
    holder_name: str | None = strawberry.UNSET
    bic: str | None = strawberry.UNSET
    purpose: str | None = strawberry.UNSET


@strawberry.input
class SubMerchantFeeInput:
    percent: str | None = strawberry.UNSET
    fixed: MinorAmount | None = strawberry.UNSET


@strawberry.input
class PayoutScheduleInput:
    interval: str | None = strawberry.UNSET
    weekly_anchor: str | None = strawberry.UNSET
    monthly_anchor: int | None = strawberry.UNSET
    minimum: MinorAmount | None = strawberry.UNSET
    reserve: MinorAmount | None = strawberry.UNSET


@strawberry.input
class SubMerchantCreateInput:
    type: str
    legal_name: str
    email: str
    country: str
    address: SubMerchantAddressInput
    external_id: str | None = strawberry.UNSET
    tax_id: TaxIdInput | None = strawberry.UNSET
    registration_number: str | None = strawberry.UNSET
    payout: SubMerchantPayoutInput | None = strawberry.UNSET
    default_fee: SubMerchantFeeInput | None = strawberry.UNSET
    auto_release_days: int | None = strawberry.UNSET
    payout_schedule: PayoutScheduleInput | None = strawberry.UNSET


@strawberry.input
class SubMerchantUpdateInput:
    id: strawberry.ID
    type: str | None = strawberry.UNSET
    legal_name: str | None = strawberry.UNSET
    email: str | None = strawberry.UNSET
    country: str | None = strawberry.UNSET
    address: SubMerchantAddressInput | None = strawberry.UNSET
    external_id: str | None = strawberry.UNSET
    tax_id: TaxIdInput | None = strawberry.UNSET
    registration_number: str | None = strawberry.UNSET
    payout: SubMerchantPayoutInput | None = strawberry.UNSET
    default_fee: SubMerchantFeeInput | None = strawberry.UNSET
    auto_release_days: int | None = strawberry.UNSET
    payout_schedule: PayoutScheduleInput | None = strawberry.UNSET


@strawberry.input
class SplitIdInput:
    id: strawberry.ID


@strawberry.input
class PayoutBatchCreateInput:
    currency: str
    sub_merchants: list[strawberry.ID] | None = strawberry.UNSET


@strawberry.input
class MarketplacePayoutAccountInput:
    iban: str
    name: str
    bic: str | None = strawberry.UNSET


@strawberry.input
class MarketplaceUpdateInput:
    dispute_policy: str | None = strawberry.UNSET
    payout_account: MarketplacePayoutAccountInput | None = strawberry.UNSET
    commission_invoices: bool | None = strawberry.UNSET


# ---------------------------------------------------------------- payloads

@strawberry.type
class SubMerchantPayload:
    sub_merchant: SubMerchant | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class SplitPayload:
    split: Split | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class PayoutBatchPayload:
    payout_batch: PayoutBatch | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class MarketplacePayload:
    marketplace: Marketplace | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


# ---------------------------------------------------------------- roots

@strawberry.type
class Query:
    @strawberry.field
    async def sub_merchant(self, info: Info[Context, None], id: strawberry.ID) -> SubMerchant:
        p = info.context.principal
        return SubMerchant.of(await sellers.get_sub_merchant(principal=p, sub_merchant_id=str(id)),
                              await sellers.now_for(p))

    @strawberry.field(description="Newest first.")
    async def sub_merchants(self, info: Info[Context, None], first: int | None = None, after: str | None = None,
                            external_id: str | None = None) -> Connection[SubMerchant]:
        p = info.context.principal
        page = await sellers.list_sub_merchants(principal=p, limit=check_first(first), starting_after=after,
                                                external_id=external_id)
        now = await sellers.now_for(p)
        return connection(page, lambda s: SubMerchant.of(s, now), after=after)

    @strawberry.field
    async def split(self, info: Info[Context, None], id: strawberry.ID) -> Split:
        return Split.of(await splits.get_split(principal=info.context.principal, split_id=str(id)))

    @strawberry.field
    async def payout(self, info: Info[Context, None], id: strawberry.ID) -> Payout:
        return Payout.of(await payouts.get_payout(principal=info.context.principal, payout_id=str(id)))

    @strawberry.field
    async def payout_batch(self, info: Info[Context, None], id: strawberry.ID) -> PayoutBatch:
        return PayoutBatch.of(*await payouts.get_batch(principal=info.context.principal, batch_id=str(id)))

    @strawberry.field
    async def marketplace(self, info: Info[Context, None]) -> Marketplace:
        p = info.context.principal
        return Marketplace.of(await settings.get_settings(principal=p), p.livemode)


@strawberry.type
class Mutation:
    @strawberry.mutation
    async def sub_merchant_create(self, info: Info[Context, None], input: SubMerchantCreateInput) -> SubMerchantPayload:
        p = info.context.principal
        s, errors = await user_errors(lambda: sellers.create_sub_merchant(principal=p, data=to_data(input)))
        return SubMerchantPayload(sub_merchant=SubMerchant.of(s, await sellers.now_for(p)) if s else None,
                                  user_errors=errors)

    @strawberry.mutation
    async def sub_merchant_update(self, info: Info[Context, None], input: SubMerchantUpdateInput) -> SubMerchantPayload:
        p = info.context.principal
        data = to_data(input)
        sid = str(data.pop("id"))
        s, errors = await user_errors(lambda: sellers.update_sub_merchant(principal=p, sub_merchant_id=sid, data=data))
        return SubMerchantPayload(sub_merchant=SubMerchant.of(s, await sellers.now_for(p)) if s else None,
                                  user_errors=errors)

    @strawberry.mutation
    async def split_release(self, info: Info[Context, None], input: SplitIdInput) -> SplitPayload:
        p = info.context.principal
        s, errors = await user_errors(lambda: splits.release_split(principal=p, split_id=str(input.id)))
        return SplitPayload(split=Split.of(s) if s else None, user_errors=errors)

    @strawberry.mutation
    async def split_hold(self, info: Info[Context, None], input: SplitIdInput) -> SplitPayload:
        p = info.context.principal
        s, errors = await user_errors(lambda: splits.hold_split(principal=p, split_id=str(input.id)))
        return SplitPayload(split=Split.of(s) if s else None, user_errors=errors)

    @strawberry.mutation
    async def payout_batch_create(self, info: Info[Context, None], input: PayoutBatchCreateInput) -> PayoutBatchPayload:
        p = info.context.principal
        data = to_data(input)
        if "sub_merchants" in data:
            data["sub_merchants"] = [str(x) for x in data["sub_merchants"]]
        made, errors = await user_errors(lambda: payouts.create_batch(principal=p, data=data))
        return PayoutBatchPayload(payout_batch=PayoutBatch.of(*made) if made else None, user_errors=errors)

    @strawberry.mutation
    async def marketplace_update(self, info: Info[Context, None], input: MarketplaceUpdateInput) -> MarketplacePayload:
        p = info.context.principal
        s, errors = await user_errors(lambda: settings.update_settings(principal=p, data=to_data(input)))
        return MarketplacePayload(marketplace=None if errors else Marketplace.of(s, p.livemode), user_errors=errors)
