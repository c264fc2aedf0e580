"""Buy now, pay later (`bnpl_split4`, `bnpl_split3`) on the `/v1` intents: the schedule, the
sandbox providers' eligibility (scoring before the redirect), the provider's page (approve,
decline, cancel), the authorization the merchant captures as it ships (in parts), its release
(cancel, or 7 days on the intent's clock) and the refunds' provider side.

The method registry (services.payments.methods) holds each method's currencies, limits, fee,
schedule rule and provider; this module runs the flow. The buyer's phone, e-mail and name are
kept on the intent (method_details) for the provider, never logged nor answered back (the
answer shows a hint of the phone only).
"""
from __future__ import annotations

import calendar
import hashlib
import hmac
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

import phonenumbers
from tortoise.transactions import in_transaction

from models.core import Merchant
from models.intents import PaymentIntent
from services import addresses, due_reads, events, idempotency, scheduler
from services.errors import Conflict, DomainError, InvalidState, NotFound, PaymentDeclined, ValidationError
from services.infra import db
from services.infra.runtime import runtime
from models import _lookup as lookup
from services.money import analytics, ledger, markets, settlement
from services.payments import customers, intents, methods, pricing, receipts
from services.principal import Principal
from services.timestamps import iso
from services.validation import Fields, check_email

TYPES = methods.BNPL_TYPES
AUTHORIZATION_DAYS = 7               # what is not captured by then is released
MAX_ITEMS = 100
FEE_KIND = "bnpl_fee"                # the method's fee, a ledger transaction of its own on each capture
REASONS = ("amount_too_low", "amount_too_high", "buyer_rejected")
ACTIONS = ("approve", "decline", "cancel")
# The sandbox providers' buyers (the registry's `sandbox.phones`): any other phone is approved.
SANDBOX_REJECTED = "+966500000002"
SANDBOX_DECLINED = "+966500000003"


class NotEligible(PaymentDeclined):
    """402 `bnpl_not_eligible`: the provider's scoring refused the buyer; `decline_code` says why."""
    code = "bnpl_not_eligible"
    type = "invalid_request_error"


class Gone(DomainError):
    status = 410
    code = "payment_finished"


def is_bnpl(method: str | None) -> bool:
    return method in TYPES


# ---------------------------------------------------------------- the schedule

def _add_months(d: date, n: int) -> date:
    """The same day n months later, or the month's last day (31 January + 1 month: 28/29 February)."""
    y, m = divmod(d.month - 1 + n, 12)
    year, month = d.year + y, m + 1
    return date(year, month, min(d.day, calendar.monthrange(year, month)[1]))


def schedule(method: str, amount: int, first_due: date) -> list[dict[str, Any]]:
    """Each part's due date and amount: equal parts in minor units, the remainder on the first
    (so they add up to `amount` exactly), the first due on `first_due`, then every
    `interval_count` days or months as the registry's rule says."""
    rule = methods.get(method).schedule
    n = rule["installments"]
    part, rest = divmod(amount, n)
    out = []
    for k in range(n):
        step = k * rule["interval_count"]
        due = first_due + timedelta(days=step) if rule["interval"] == "day" else _add_months(first_due, step)
        out.append({"due_date": due.isoformat(), "amount": part + (rest if k == 0 else 0)})
    return out


async def _today(principal: Principal) -> date:
    """Today in the merchant's time zone (its market's), on the intent's clock."""
    now = await intents.now_for(principal)
    market = await markets.cached_market_of(principal.merchant_id)
    return now.astimezone(markets.tz(market)).date()


# ---------------------------------------------------------------- buyer checks

def check_phone(value: Any, param: str = "buyer.phone") -> str:
    """A mobile number in international form (+ and the country code) -> its E.164 form."""
    if not isinstance(value, str) or len(value) > 32:
        raise ValidationError(f"{param} must be a phone number in international form, e.g. +966500000001",
                              param=param)
    try:
        parsed = phonenumbers.parse(value, None)
    except phonenumbers.NumberParseException:
        parsed = None
    if parsed is None or not phonenumbers.is_valid_number(parsed):
        raise ValidationError(f"{param} must be a phone number in international form, e.g. +966500000001",
                              param=param)
    return phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.E164)


def phone_hint(phone: str | None) -> str | None:
    return "****" + phone[-4:] if phone else None


def _limit_reason(method: str, amount: int, currency: str) -> str | None:
    lim = methods.get(method).limit(currency)
    if amount < lim.minimum:
        return "amount_too_low"
    if amount > lim.maximum:
        return "amount_too_high"
    return None


def _scoring(phone: str) -> str | None:
    """The sandbox provider's pre-scoring of a buyer: None (approved) or why not."""
    return "buyer_rejected" if phone == SANDBOX_REJECTED else None


# ---------------------------------------------------------------- eligibility

@dataclass
class Eligibility:
    status: str                          # eligible | not_eligible
    reason: str | None = None
    schedule: list[dict[str, Any]] | None = None

    def as_dict(self) -> dict[str, Any]:
        if self.status == "eligible":
            return {"object": "bnpl_eligibility", "status": "eligible", "schedule": self.schedule}
        return {"object": "bnpl_eligibility", "status": "not_eligible", "reason": self.reason}


async def check_eligibility(*, principal: Principal, query: Any) -> Eligibility:
    """`GET /v1/bnpl/eligibility?method=&amount=&currency=&phone=&email=` and GraphQL
    `bnplEligibility`: the provider's answer before the buyer is sent to it. A malformed field
    is a 400 naming it; an amount outside the method's limits or a buyer the provider refuses is
    an answer (`not_eligible` with its reason)."""
    if not isinstance(query, dict):
        raise ValidationError("query must be an object")
    for k in query:
        if k not in ("method", "amount", "currency", "phone", "email"):
            raise ValidationError(f"unknown query parameter {k}", param=k)
    method = intents.check_enum_value(query.get("method"), "method", TYPES)
    raw = query.get("currency")
    currency = pricing.check_currency(raw.upper() if isinstance(raw, str) else raw)
    methods.check_method_currency(method, currency, param="currency")
    amount = query.get("amount")
    if isinstance(amount, str) and amount.strip().lstrip("-").isdigit():
        amount = int(amount)
    if not isinstance(amount, int) or isinstance(amount, bool) or amount < 1:
        raise ValidationError("amount must be a positive integer in minor units", param="amount",
                              code="invalid_amount")
    if query.get("phone") in (None, ""):
        raise ValidationError("phone is required: the provider scores the buyer by it", param="phone")
    phone = check_phone(query.get("phone"), "phone")
    if query.get("email") not in (None, ""):
        check_email(query.get("email"), "email")
    reason = _limit_reason(method, amount, currency) or _scoring(phone)
    if reason is not None:
        return Eligibility("not_eligible", reason=reason)
    return Eligibility("eligible", schedule=schedule(method, amount, await _today(principal)))


# ---------------------------------------------------------------- create

def parse_create(f: Fields, *, method: str, currency: str, amount: int) -> dict[str, Any]:
    """The fields a BNPL provider asks for, read from the intent create: `buyer` {phone, email,
    name}, `items` [{name, quantity, unit_amount}] adding up to the amount, `shipping_address`
    {line1, city, country, postal_code} (None when not given: `with_shipping` takes the customer's
    address), and `capture_method` (manual only). The method's limits were checked (400 naming
    `amount`)."""
    if f.data.get("split"):           # the captures in parts pay no split (the ledger's splits follow one capture)
        raise ValidationError("split is not available with buy-now-pay-later payments", param="split",
                              code="payment_method_not_used")
    capture = f.str("capture_method", max_len=20)
    if capture is not None and capture != "manual":
        raise ValidationError("capture_method must be manual: a BNPL payment is authorized, then captured "
                              "as the order ships", param="capture_method")
    b = f.obj("buyer", required=True)
    buyer = {"phone": check_phone(b._get("phone", True), "buyer.phone"),
             "email": b.email("email", required=True),
             "name": b.str("name", required=True, min_len=1, max_len=200)}
    b.reject_unknown()
    raw_items = f.list("items", required=True, min_items=1, max_items=MAX_ITEMS)
    items, total = [], 0
    for k, raw in enumerate(raw_items):
        it = Fields(raw, f"items[{k}]")
        item = {"name": it.str("name", required=True, min_len=1, max_len=200),
                "quantity": it.int("quantity", required=True, min=1, max=10_000),
                "unit_amount": it.int("unit_amount", required=True, min=0)}
        it.reject_unknown()
        items.append(item)
        total += item["quantity"] * item["unit_amount"]
    if total != amount:
        raise ValidationError(f"items must add up to the amount: quantity x unit_amount comes to {total}, "
                              f"the amount is {amount}", param="items")
    s = f.obj("shipping_address")
    if s is None:
        return {"buyer": buyer, "items": items, "shipping_address": None}
    address = {"line1": s.str("line1", required=True, min_len=1, max_len=200),
               "city": s.str("city", required=True, min_len=1, max_len=100),
               "country": s.str("country", required=True, min_len=2, max_len=2),
               "postal_code": s.str("postal_code", required=True, min_len=1, max_len=20)}
    if not address["country"].isalpha() or not address["country"].isupper():
        raise ValidationError("shipping_address.country must be an ISO 3166 alpha-2 code, e.g. SA",
                              param="shipping_address.country")
    s.reject_unknown()
    return {"buyer": buyer, "items": items, "shipping_address": address}


SHIPPING_KEYS = ("line1", "city", "country", "postal_code")


async def with_shipping(principal: Principal, details: dict[str, Any], customer_id: str | None) -> dict[str, Any]:
    """`details` of a create without `shipping_address`: the address of the intent's customer
    (`customer_id`, one of the merchant's customers) as it; a 400 naming `shipping_address` (or
    the field the customer's address lacks) when there is none."""
    if details.get("shipping_address") is not None:
        return details
    try:
        customer = await customers.get_customer(principal=principal, customer_id=customer_id) if customer_id else None
    except NotFound:        # an intent's customer_id is the merchant's own reference: not always a customer
        customer = None
    a = addresses.of(customer) if customer is not None else None
    if a is None:
        raise ValidationError("shipping_address is required: give it, or a customer_id whose customer has an "
                              "address", param="shipping_address")
    for key in SHIPPING_KEYS:
        if not a.get(key):
            raise ValidationError(f"shipping_address.{key} is required: the customer's address has no {key}",
                                  param=f"shipping_address.{key}")
    return {**details, "shipping_address": {k: a[k] for k in SHIPPING_KEYS}}


def link_fields(form: dict[str, str], *, amount: int, description: str | None) -> dict[str, Any]:
    """A payment link paid with a BNPL method: the buyer and the shipping address its page
    collected (`bnpl_*` form fields; a missing one is the create's 400 naming it) and the link's
    one item, its description at its amount."""
    def v(name: str) -> str | None:
        return (form.get(f"bnpl_{name}") or "").strip() or None
    return {"buyer": {"phone": v("phone"), "email": v("email"), "name": v("name")},
            "items": [{"name": description or "Order", "quantity": 1, "unit_amount": amount}],
            "shipping_address": {"line1": v("line1"), "city": v("city"),
                                 "country": (v("country") or "").upper() or None, "postal_code": v("postal_code")}}


def preview(intent, country: str | None) -> list[dict[str, Any]]:
    """The schedule an intent will have: its own once confirmed, else from the day it was created
    (on its clock) in the merchant's time zone (the hosted checkout shows it before the redirect)."""
    own = (intent.method_details or {}).get("schedule")
    if own:
        return own
    tz = markets.tz(markets.market(country))
    return schedule(intent.payment_method, intent.amount, intent.created_at.astimezone(tz).date())


def link_preview(method: str, amount: int, country: str | None) -> list[dict[str, Any]]:
    """The schedule a link's buyer would get today (the merchant's time zone, the real clock)."""
    today = runtime().clock.now().astimezone(markets.tz(markets.market(country))).date()
    return schedule(method, amount, today)


def fee_of(intent, captured: int) -> int:
    """The method's fee on `captured` (bps of it plus the fixed part, which the first capture
    takes): the merchant's whole fee for a BNPL payment, no conversion part."""
    if captured <= 0:
        return 0
    return pricing.compute_fee(amount=captured, currency=intent.currency, method=intent.payment_method).amount


# ---------------------------------------------------------------- the object

def object_fields(intent) -> dict[str, Any]:
    """What a BNPL intent adds to the payment object: `capture_method` (manual), the provider's
    reference and result, and `bnpl` {method, schedule, provider_reference, ...}."""
    d = intent.method_details or {}
    captured = intent.amount_received
    capturable = intent.amount - captured if intent.status == "requires_capture" else 0
    return {
        "capture_method": "manual",
        "amount_capturable": capturable,
        "payment_method_details": {"type": intent.payment_method, intent.payment_method: {
            "provider": methods.get(intent.payment_method).provider, "provider_reference": d.get("provider_reference"),
            "result": d.get("result"), "phone_hint": phone_hint((d.get("buyer") or {}).get("phone"))}},
        "bnpl": {"method": intent.payment_method, "schedule": d.get("schedule"),
                 "provider_reference": d.get("provider_reference"),
                 "authorization_expires_at": d.get("authorization_expires_at"),
                 "amount_capturable": capturable, "fee_taken": d.get("fee_taken", 0)},
    }


# ---------------------------------------------------------------- confirm

def page_token(intent_id: str, method: str) -> str:
    return intents._sign(f"{method}-page", intent_id, 32)


def page_url(intent_id: str, method: str) -> str:
    """The provider's sandbox page, a checkout page under pay_url (app/checkout/bnpl_page.py)."""
    return (f"{runtime().config.pay_url.rstrip('/')}/{intent_id}/{method}?"
            f"{urlencode({'token': page_token(intent_id, method)})}")


def _digits(seed: str, n: int) -> str:
    return str(int(hashlib.sha256(seed.encode()).hexdigest(), 16))[:n]


async def confirm(principal: Principal, intent: PaymentIntent, *, return_url: str | None) -> PaymentIntent:
    """Confirm a BNPL intent: the provider scores the buyer (402 `bnpl_not_eligible` with the
    reason, nothing changes), then the buyer is sent to the provider's page (requires_action)."""
    if intent.status not in intents.CONFIRMABLE:
        raise InvalidState(f"A payment intent with status {intent.status} cannot be confirmed")
    return_url = return_url or intent.return_url
    if return_url is None:
        raise ValidationError(f"return_url is required: {intent.payment_method} sends the buyer back to it",
                              param="return_url", code="return_url_required")
    d = dict(intent.method_details or {})
    reason = _limit_reason(intent.payment_method, intent.amount, intent.currency) or _scoring(d["buyer"]["phone"])
    if reason is not None:
        raise NotEligible(f"The buyer is not eligible for {methods.get(intent.payment_method).names['en']}: "
                          f"{reason}", decline_code=reason, param="buyer")
    d["schedule"] = schedule(intent.payment_method, intent.amount, await _today(principal))
    d["checkout_id"] = "chk_" + _digits(f"chk:{intent.id}:{intent.version}", 16)
    return await intents._transition(intent, {
        "status": "requires_action", "return_url": return_url,
        "provider": methods.get(intent.payment_method).provider,
        "failure_code": None, "failure_message": None, "method_details": d,
        "next_action": {"type": "redirect", "url": page_url(intent.id, intent.payment_method),
                        "return_url": return_url}})


# ---------------------------------------------------------------- the provider's page

@dataclass
class PageView:
    intent: PaymentIntent
    merchant_name: str
    schedule: list[dict[str, Any]]


async def _page_intent(intent_id: Any, method: str, token: Any) -> PaymentIntent:
    intent = await PaymentIntent.get_or_none(id=intent_id) if isinstance(intent_id, str) else None
    if intent is None or intent.payment_method != method or not isinstance(token, str) or not token \
            or not hmac.compare_digest(token.encode(), page_token(intent.id, method).encode()):
        raise NotFound("No such payment page", param="id")
    if intent.status != "requires_action":
        raise Gone(f"This payment is over: it is {intent.status}")
    return intent


async def page_view(*, intent_id: str, method: str, token: str | None) -> PageView:
    """What the provider's page shows: 404 unknown (or a wrong token), 410 when finished."""
    intent = await _page_intent(intent_id, method, token)
    merchant = await Merchant.get_or_none(id=intent.merchant_id)
    return PageView(intent, (merchant.name or merchant.id) if merchant else "",
                    (intent.method_details or {}).get("schedule") or [])


@dataclass
class _Authorized:
    """An approved BNPL intent as the daily rollups see an authorized /api payment."""
    intent: PaymentIntent
    created_at: datetime
    status: str = "authorized"
    amount_captured: int = 0

    def __getattr__(self, name: str) -> Any:       # merchant_id, livemode, currency, provider, amount, id
        return getattr(self.intent, name)


@dataclass
class PageResult:
    intent: PaymentIntent
    redirect_url: str


def _principal_of(intent) -> Principal:
    return Principal(merchant_id=intent.merchant_id, livemode=intent.livemode, kind="secret")


async def complete_page(*, intent_id: str, method: str, token: str | None, action: Any) -> PageResult:
    """The buyer's answer on the provider's page. `approve`: the provider authorizes the whole
    amount (requires_capture, payment.authorized; the sandbox's declining buyer fails with
    `declined`), `decline`: failed (`declined`), `cancel`: canceled. The buyer goes back to
    return_url with `payment_intent` and `status`."""
    intent = await _page_intent(intent_id, method, token)
    action = intents.check_enum_value(action, "action", ACTIONS)
    now = await intents.now_for(_principal_of(intent))
    if await intents._expire_if_due(intent, now):
        raise Gone("This payment expired and was canceled")
    d = dict(intent.method_details or {})
    d["provider_reference"] = _digits(f"{method}:{intent.id}", 12)
    market = await markets.cached_market_of(intent.merchant_id)
    if action == "approve" and d["buyer"]["phone"] != SANDBOX_DECLINED:
        until = now + timedelta(days=AUTHORIZATION_DAYS)
        d.update(result="authorized", authorization_expires_at=iso(until), fee_taken=0)
        intent = await intents._transition(intent, {
            "status": "requires_capture", "next_action": None, "expires_at": until, "method_details": d,
            "provider_ref": d["provider_reference"]}, events_=("payment.authorized",),
            # an approved attempt, captured later (as an /api payment authorized now, captured on shipping)
            rollups=lambda i: analytics.payment_rows(_Authorized(i, now), (), market))
    elif action == "cancel":
        d["result"] = "canceled"
        intent = await intents._transition(intent, {
            "status": "canceled", "next_action": None, "canceled_at": now,
            "cancellation_reason": "requested_by_customer", "method_details": d})
    else:
        d["result"] = "declined"
        intent = await intents._transition(intent, {
            "status": "failed", "next_action": None, "failure_code": "declined",
            "failure_message": f"{methods.get(method).names['en']} declined the payment on its page",
            "method_details": d}, events_=("payment.failed",),
            rollups=lambda i: analytics.intent_rows(i, market, now, approved=False))
    sep = "&" if "?" in (intent.return_url or "") else "?"
    query = urlencode({"payment_intent": intent.id, "status": intent.status, "redirect_status": intent.status})
    return PageResult(intent=intent, redirect_url=f"{intent.return_url}{sep}{query}")


# ---------------------------------------------------------------- capture and release

async def capture_intent(*, principal: Principal, intent_id: str, data: Any,
                         idempotency_key: str | None = None) -> PaymentIntent:
    """`POST /v1/payments/{id}/capture` and GraphQL `paymentIntentCapture`: capture `amount` (all
    that is left by default) of an authorized BNPL payment."""
    key = intents._idem_key(idempotency_key, data)
    return await idempotency.run(
        principal=principal, operation=f"v1.intent.capture:{intent_id}", key=key, params=intents._params(data),
        execute=lambda: _capture(principal, intent_id, data), encode=lambda i: i.id,
        decode=lambda iid: intents._load(principal, iid))


async def _capture(principal: Principal, intent_id: str, data: Any) -> PaymentIntent:
    f = Fields(data if data is not None else {})
    f.seen.add("idempotency_key")
    try:
        amount = f.int("amount", min=1)
    except ValidationError as e:
        raise ValidationError(e.message, code="invalid_amount", param="amount") from None
    f.reject_unknown()
    now = await intents.now_for(principal)
    if await release_if_due(principal, intent_id, now):
        raise InvalidState("The authorization expired and what was not captured was released",
                           code="authorization_expired")

    async def attempt() -> PaymentIntent:
        async with in_transaction():
            intent = await intents._load(principal, intent_id, for_update=True)
            if intent.status != "requires_capture":
                raise InvalidState(f"A payment intent with status {intent.status} cannot be captured: only an "
                                   "authorized buy-now-pay-later payment (requires_capture) can")
            left = intent.amount - intent.amount_received
            moved = left if amount is None else amount
            if moved > left:
                raise ValidationError(f"amount must not exceed the capturable {left} "
                                      f"({intent.amount_received} of {intent.amount} captured)",
                                      param="amount", code="amount_too_large")
            received = intent.amount_received + moved
            d = dict(intent.method_details or {})
            fee = fee_of(intent, received) - d.get("fee_taken", 0)
            d["fee_taken"] = d.get("fee_taken", 0) + fee
            d.setdefault("captures", []).append({"amount": moved, "fee": fee, "at": iso(now)})
            changes: dict[str, Any] = {"amount_received": received, "method_details": d}
            done = received == intent.amount
            if done:
                market = await markets.cached_market_of(intent.merchant_id)
                changes.update(status="succeeded", succeeded_at=now, receipt_token=receipts.new_token(),
                               settlement_date=settlement.settlement_date(market, now),
                               fee_amount=d["fee_taken"], net_amount=received - d["fee_taken"])
            await _apply(intent, changes)
            await _post_capture(intent, moved, fee)
            await lookup.upsert(analytics.money_rows(intent, await markets.cached_market_of(intent.merchant_id), now,
                                                     captured=moved))
            await _emit(intent, "payment.captured", {"amount": moved, "fee": fee})
            if done:
                await receipts.enqueue_intent(intent)
                await _emit(intent, "payment.succeeded")
            return intent
    return await db.retrying(attempt, what=f"capture of intent {intent_id}")


async def _apply(intent: PaymentIntent, changes: dict) -> None:
    """The conditional update on the intent's version (the row is locked on PostgreSQL)."""
    updated = await PaymentIntent.filter(id=intent.id, version=intent.version).update(
        **changes, version=intent.version + 1)
    if not updated:
        raise Conflict("The payment intent changed meanwhile; retrieve it and retry", code="conflict")
    for k, v in changes.items():
        setattr(intent, k, v)
    intent.version += 1


async def _post_capture(intent: PaymentIntent, amount: int, fee: int) -> None:
    """The captured amount to the merchant's balance, and the method's fee on it as a ledger
    transaction of its own (`bnpl_fee`)."""
    await ledger.post(merchant_id=intent.merchant_id, livemode=intent.livemode, currency=intent.currency,
                      kind="intent_capture", legs=ledger.capture_legs(amount, 0), source_id=intent.id)
    if fee:
        await ledger.post(merchant_id=intent.merchant_id, livemode=intent.livemode, currency=intent.currency,
                          kind=FEE_KIND, source_id=intent.id,
                          legs=[ledger.Leg(ledger.MERCHANT_BALANCE, fee), ledger.Leg(ledger.FEE_REVENUE, -fee)])


async def _emit(intent: PaymentIntent, type_: str, extra: dict | None = None) -> None:
    obj = intents.intent_object(intent)
    if extra:
        obj[type_.split(".")[1]] = extra
    await events.emit(merchant_id=intent.merchant_id, livemode=intent.livemode, type=type_, obj=obj)


async def release(intent: PaymentIntent, now: datetime, *, reason: str) -> PaymentIntent:
    """What was not captured is released (payment.voided): canceled if nothing was captured,
    else succeeded with what was (its fee is the fee taken). Inside the caller's transaction."""
    d = dict(intent.method_details or {})
    released = intent.amount - intent.amount_received
    d["released"] = released
    if intent.amount_received == 0:
        changes = {"status": "canceled", "canceled_at": now, "cancellation_reason": reason, "method_details": d,
                   "fee_amount": 0, "fee_processing": 0, "fee_conversion": 0, "fee_network": 0, "net_amount": 0}
    else:
        market = await markets.cached_market_of(intent.merchant_id)
        taken = d.get("fee_taken", 0)
        changes = {"status": "succeeded", "succeeded_at": now, "receipt_token": receipts.new_token(),
                   "settlement_date": settlement.settlement_date(market, now), "method_details": d,
                   "fee_amount": taken, "fee_processing": taken, "fee_conversion": 0, "fee_network": 0,
                   "net_amount": intent.amount_received - taken}
    await _apply(intent, changes)
    await _emit(intent, "payment.voided", {"amount": released, "reason": reason})
    if intent.status == "succeeded":
        await receipts.enqueue_intent(intent)
        await _emit(intent, "payment.succeeded")
    return intent


async def cancel(principal: Principal, intent: PaymentIntent, reason: str) -> PaymentIntent:
    """`POST /v1/payments/{id}/cancel` of an authorized BNPL payment: the rest is released."""
    now = await intents.now_for(principal)

    async def attempt() -> PaymentIntent:
        async with in_transaction():
            fresh = await intents._load(principal, intent.id, for_update=True)
            if fresh.status != "requires_capture":
                raise InvalidState(f"A payment intent with status {fresh.status} cannot be canceled")
            return await release(fresh, now, reason=reason)
    return await db.retrying(attempt, what=f"release of intent {intent.id}")


async def release_if_due(principal: Principal, intent_id: str, now: datetime) -> bool:
    """An authorization past its 7 days is released on the spot (the scheduler may be behind)."""
    intent = await PaymentIntent.get_or_none(id=intent_id, **principal.scope)
    if intent is None or intent.status != "requires_capture" or now < intent.expires_at:
        return False
    return await expire_authorization(intent.id, now)


async def expire_authorization(intent_id: str, when: datetime) -> bool:
    async def attempt() -> bool:
        async with in_transaction():
            intent = await PaymentIntent.filter(id=intent_id).select_for_update().first()
            if intent is None or intent.status != "requires_capture" or when < intent.expires_at:
                return False
            await release(intent, when, reason="expired")
            return True
    return await db.retrying(attempt, what=f"expiry of authorization {intent_id}")


async def _due_authorizations(scope: scheduler.Scope, until: datetime, limit: int) -> list[tuple[datetime, str]]:
    """The authorizations past their validity, earliest first: through the partial index of the
    open authorizations (intents migration 0015), whose predicate is written here as a literal
    (a parameter would not match it under PostgreSQL's generic plan)."""
    return await due_reads.due(PaymentIntent, predicate="status = 'requires_capture'", column="expires_at",
                               until=until, limit=limit, livemode=scope.livemode, merchant_id=scope.merchant_id,
                               exclude_merchants=scope.exclude_merchants)


async def _run_expiry(intent_id: str, when: datetime) -> str | None:
    return "released" if await expire_authorization(intent_id, when) else None


def install() -> None:
    """Called when the app starts (with the local methods): the authorizations' expiry becomes a
    scheduler job kind."""
    scheduler.register(scheduler.JobKind("bnpl.authorization_expire", _due_authorizations, _run_expiry,
                                         schedules=False))


# ---------------------------------------------------------------- refunds

def check_refundable(intent) -> None:
    """A BNPL payment refunds what was captured, also while the rest is still authorized."""
    if intent.status == "requires_capture" and intent.amount_received == 0:
        raise InvalidState(f"Payment intent {intent.id} has nothing captured to refund yet")


def refund_reference(intent, amount: int, refunded_before: int) -> str:
    """The sandbox provider's refund reference (it takes any part of what it was paid)."""
    return "rf_" + _digits(f"{intent.id}:{refunded_before}:{amount}", 12)

