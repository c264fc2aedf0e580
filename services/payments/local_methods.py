"""Local payment methods on the `/v1` intents: mada (routing to mada acquirers, mada's fee,
3-D Secure), KNET and BenefitPay (a redirect to the scheme's page and back to `return_url`),
Fawry (a reference paid in cash at an outlet, expired by the scheduler) and STC Pay (a one-time
code with limited attempts). The method registry (services.payments.methods) says which
method serves which currency, its flow and its fee; this module runs the flows.

Nothing here stores, logs or returns a card number, a PIN or a one-time code: a redirect page
keeps the scheme's references and result, STC Pay the phone and the attempts left.
"""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlencode

import phonenumbers

from models.core import Merchant
from models.intents import PaymentIntent
from services import scheduler
from services.errors import DomainError, InvalidState, NotFound, PaymentDeclined, PermissionDenied, ValidationError
from services.infra.clock import now_for, offset_of
from services.infra.runtime import runtime
from services.money import analytics
from services.payments import bnpl, cards, expiry_due, intents, methods, pricing, routing
from services.payments import regional_redirects as regional
from services.principal import Principal
from services.timestamps import iso
from services.validation import Fields

REDIRECT = ("knet", "benefit")
FAWRY_HOURS = 48                     # a reference's life by default; 1-168 on create
OTP_ATTEMPTS = 3
SANDBOX_OTP = "123456"
# STC Pay's sandbox codes that fail the payment as the wallet would (the code is the buyer's answer).
STCPAY_SANDBOX_FAILURES: dict[str, tuple[str, str]] = {
    "111111": ("insufficient_funds", "The STC Pay wallet has insufficient funds"),
    "222222": ("daily_limit_exceeded", "The STC Pay wallet's daily limit is reached"),
    "333333": ("transaction_limit_exceeded", "The amount is above the STC Pay wallet's limit per payment"),
    "444444": ("timeout", "STC Pay did not answer in time"),
}
SANDBOX_PIN = "1234"
SANDBOX_APPROVED = "8888880000000001"
SANDBOX_DECLINED = "8888880000000002"
# The banks of each redirect scheme's page (sandbox: any bank takes the sandbox cards).
BANKS: dict[str, tuple[tuple[str, str], ...]] = {
    "knet": (("NBK", "National Bank of Kuwait"), ("KFH", "Kuwait Finance House"), ("GBK", "Gulf Bank"),
             ("CBK", "Commercial Bank of Kuwait"), ("ABK", "Al Ahli Bank of Kuwait"), ("BURGAN", "Burgan Bank"),
             ("BOUBYAN", "Boubyan Bank"), ("KIB", "Kuwait International Bank")),
    "benefit": (("NBB", "National Bank of Bahrain"), ("BBK", "Bank of Bahrain and Kuwait"),
                ("AUB", "Ahli United Bank"), ("BISB", "Bahrain Islamic Bank"), ("KFHB", "Kuwait Finance House Bahrain")),
}
_SA_MOBILE = re.compile(r"\+9665\d{8}")
_CARD = re.compile(r"\d{16}")
_PIN = re.compile(r"\d{4}")
_OTP = re.compile(r"\d{4,8}")


# Rails whose flows live in a module of their own (services.payments.bills_rtp: sadad, cliq,
# aani), registered at start (`use_rail`) so that this module imports nothing of theirs.
_RAILS: dict[str, Any] = {}


def use_rail(types: tuple[str, ...], module: Any) -> None:
    for t in types:
        _RAILS[t] = module


class Gone(DomainError):
    status = 410
    code = "payment_finished"


# ---------------------------------------------------------------- create

def check_phone(value: Any, param: str = "phone") -> str:
    """A Saudi mobile number (+9665 and 8 digits; spaces and a national 05... form are fine) ->
    its E.164 form. Anything else is a 400 naming `param`."""
    if not isinstance(value, str) or len(value) > 32:
        raise ValidationError(f"{param} must be a Saudi mobile number: +9665 and 8 digits", param=param)
    try:
        parsed = phonenumbers.parse(value, "SA")
    except phonenumbers.NumberParseException:
        parsed = None
    e164 = (phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.E164)
            if parsed is not None else "")
    if not _SA_MOBILE.fullmatch(e164) or not phonenumbers.is_valid_number(parsed) \
            or phonenumbers.number_type(parsed) != phonenumbers.PhoneNumberType.MOBILE:
        raise ValidationError(f"{param} must be a Saudi mobile number: +9665 and 8 digits", param=param)
    return e164


@dataclass
class CreateExtras:
    details: dict | None
    return_url: str | None


def parse_create(f: Fields, *, method: str, currency: str, amount: int) -> CreateExtras:
    """The method-specific fields of an intent create: the method must serve the currency
    (400 naming `payment_method`) and the amount its limits; `phone` (stcpay),
    `expires_in_hours` (fawry), `return_url` (any; a redirect method sends the buyer back to it)."""
    m = methods.check_method_currency(method, currency)
    methods.check_method_amount(m, amount, currency)
    phone = f._get("phone", False) if f.has("phone") else None
    hours = f.int("expires_in_hours", min=1, max=696 if method == "sadad" else 168)   # sadad: up to 29 days
    return_url = f.str("return_url", max_len=2000)
    if return_url is not None:
        intents._check_url(return_url, "return_url")
    if phone is not None and method not in ("stcpay", "eg_wallet"):
        raise ValidationError("phone is for stcpay payments only", param="phone", code="payment_method_not_used")
    if method in regional.TYPES:          # purchase only (capture_method manual: capture_not_supported)
        regional.check_capture_method(f.str("capture_method", max_len=20), method)
    if hours is not None and method not in ("fawry", "sadad"):
        raise ValidationError("expires_in_hours is for fawry and sadad payments only", param="expires_in_hours",
                              code="payment_method_not_used")
    details = None
    rail = _RAILS.get(method)
    if rail is not None:
        details = rail.parse_create(f, method=method, hours=hours)
    elif f.has("alias"):
        raise ValidationError("alias is for cliq and aani payments only", param="alias",
                              code="payment_method_not_used")
    elif m.flow == "bnpl":
        details = bnpl.parse_create(f, method=method, currency=currency, amount=amount)
    elif method == "stcpay":
        if phone is None:
            raise ValidationError("phone is required for stcpay payments: the buyer's mobile number", param="phone")
        details = {"phone": check_phone(phone)}
    elif method == "fawry":
        details = {"expires_in_hours": hours or FAWRY_HOURS}
    elif method == "eg_wallet" and phone is not None:
        details = {"phone": regional.check_eg_phone(phone)}
    return CreateExtras(details=details, return_url=return_url)


async def complete_create(principal: Principal, extras: CreateExtras, *, method: str,
                          customer_id: str | None) -> CreateExtras:
    """What the create's fields alone do not give: a BNPL intent's shipping address, from its
    customer when it has none (400 naming `shipping_address` when neither)."""
    if not bnpl.is_bnpl(method) or extras.details is None:
        return extras
    return CreateExtras(details=await bnpl.with_shipping(principal, extras.details, customer_id),
                        return_url=extras.return_url)


# ---------------------------------------------------------------- the object

def phone_hint(phone: str) -> str:
    return "****" + phone[-4:]


def object_fields(intent) -> dict[str, Any]:
    """`payment_method_details` of the intent object: the card's brand and networks, or the
    scheme's own references and result; never a number, PIN or code."""
    d = intent.method_details or {}
    if bnpl.is_bnpl(intent.payment_method):
        return bnpl.object_fields(intent)
    if "card" in d:      # networks: a card confirmed before every card kept them shows its brand's
        card = d["card"]
        return {"payment_method_details": {"type": "card", "card": {
            **card, "networks": cards.card_networks(card.get("brand"), card.get("networks"))}}}
    method = intent.payment_method
    out: dict[str, Any] = {"type": method}
    if method in REDIRECT:
        out[method] = {k: d.get(k) for k in ("bank", "payment_id", "transaction_id", "reference_number", "result")}
    elif method in regional.TYPES:
        out[method] = regional.object_fields(method, d)
    elif method == "fawry":
        out["fawry"] = {"reference": d.get("reference"), "expires_at": d.get("expires_at"),
                        "paid_at": d.get("paid_at")}
    elif method in _RAILS:
        out[method] = _RAILS[method].object_fields(intent)
    elif method == "stcpay":
        out["stcpay"] = {"phone_hint": phone_hint(d["phone"]) if d.get("phone") else None,
                         "attempts_left": d.get("attempts_left")}
    return {"payment_method_details": out}


# ---------------------------------------------------------------- mada, Troy, Meeza on the card path

def card_routing(pm, currency: str, market: str) -> tuple[str, str]:
    """(payment method, country) the router sees for a card: a mada card paying SAR is a mada
    payment in Saudi Arabia (mada acquirers only), a Troy card paying TRY a troy payment in Turkey,
    a Meeza card paying EGP a meeza payment in Egypt; any other card is a card of the merchant's market."""
    method = methods.card_method(pm, currency)
    if method != "card":
        return method, cards.SCHEME_COUNTRY[method]
    return "card", market


def needs_3ds(pm, currency: str) -> bool:
    """mada, Troy and Meeza payments always go through 3-D Secure on /v1 and the hosted checkout."""
    return methods.card_method(pm, currency) != "card"


def check_card(intent, pm) -> None:
    """A `mada` (`troy`, `meeza`) intent takes a card of that scheme; a domestic-only scheme card
    (mada-only, Troy Yerel, Meeza) pays its scheme's currency only."""
    methods.check_scheme_card(intent.payment_method, pm.brand, pm.networks, intent.currency, "payment_method_id",
                              scheme_code=False)


def card_changes(intent, pm, market: str) -> dict[str, Any]:
    """What a confirmed card adds to the intent: its brand, last4 and networks, and for a mada
    (troy, meeza) payment the scheme's fee (shown upfront as a card's; a scheme card is charged its own)."""
    changes: dict[str, Any] = {"method_details": {"card": {"brand": pm.brand, "last4": pm.last4,
                                                           "networks": cards.card_networks(pm.brand,
                                                                                           pm.networks)}}}
    scheme = card_routing(pm, intent.currency, market)[0]
    if scheme != "card":       # mada, troy, meeza: the scheme's own fee
        fee = pricing.compute_fee(amount=intent.amount, currency=intent.currency, method=scheme,
                                  home_currency=pricing.MARKET_CURRENCY[market])
        changes.update(fee_amount=fee.amount, fee_rate=f"{fee.rate:f}", fee_processing=fee.processing,
                       fee_conversion=fee.currency_conversion, fee_network=fee.network,
                       net_amount=intent.amount - fee.amount)
    return changes


# ---------------------------------------------------------------- confirm

def _route(intent) -> tuple[str, str]:
    """The provider of a local-method payment and why (the scheme's member acquirers only)."""
    m = methods.get(intent.payment_method)
    facts = routing.Facts(amount=intent.amount, currency=intent.currency, country=m.country,
                          payment_method=m.type)
    decision = routing.decide(facts=facts)
    return decision.candidates[0].name, decision.reason


async def confirm(principal: Principal, intent: PaymentIntent, *, return_url: str | None, phone: Any,
                  otp: str | None, now: datetime) -> PaymentIntent:
    """Confirm a knet, benefit, fawry or stcpay intent (the caller checked the client secret)."""
    method = intent.payment_method
    if bnpl.is_bnpl(method):
        if phone is not None or otp is not None:
            raise ValidationError(f"{'phone' if phone is not None else 'otp'} is for stcpay payments only",
                                  param="phone" if phone is not None else "otp", code="payment_method_not_used")
        return await bnpl.confirm(principal, intent, return_url=return_url)
    if method == "stcpay" and intent.status == "requires_action":
        if phone is not None:
            raise ValidationError("phone cannot change while a one-time code is pending", param="phone")
        return await _verify_otp(intent, otp, now)
    if otp is not None:
        raise ValidationError("otp is for an stcpay payment waiting for its one-time code", param="otp")
    if phone is not None and method not in ("stcpay", "eg_wallet"):
        raise ValidationError("phone is for stcpay payments only", param="phone", code="payment_method_not_used")
    if intent.status not in intents.CONFIRMABLE:
        raise InvalidState(f"A payment intent with status {intent.status} cannot be confirmed")
    if method in _RAILS:
        return await _RAILS[method].confirm(principal, intent, return_url)
    if method in REDIRECT:
        return await _start_redirect(intent, return_url)
    if method in regional.TYPES:
        return await _start_regional(principal, intent, return_url, phone)
    if method == "fawry":
        return await _issue_reference(principal, intent, return_url)
    return await _send_otp(intent, phone, return_url)


# ---------------------------------------------------------------- outcomes

async def _succeed(intent: PaymentIntent, now: datetime, details: dict, provider_ref: str) -> PaymentIntent:
    """Paid: the ledger, the receipt, payment.succeeded and the day's rollups, with the intent."""
    market = await intents._market(intent.merchant_id)
    return await intents._transition(
        intent, {**intents._success_changes(intent, now, market), "method_details": details,
                 "provider_ref": provider_ref},
        events_=("payment.succeeded",), ledger_success=True,
        rollups=lambda i: analytics.intent_rows(i, market, now, approved=True))


async def _fail(intent: PaymentIntent, now: datetime, code: str, message: str, details: dict | None = None
                ) -> PaymentIntent:
    market = await intents._market(intent.merchant_id)
    changes = {"status": "failed", "next_action": None, "failure_code": code, "failure_message": message}
    if details is not None:
        changes["method_details"] = details
    return await intents._transition(intent, changes, events_=("payment.failed",),
                                     rollups=lambda i: analytics.intent_rows(i, market, now, approved=False))


# ---------------------------------------------------------------- KNET and BenefitPay

def page_token(intent_id: str, method: str) -> str:
    return intents._sign(f"{method}-page", intent_id, 32)


def page_url(intent_id: str, method: str) -> str:
    """The scheme's sandbox page, served by the hosted checkout under pay_url."""
    token = page_token(intent_id, method)
    return f"{runtime().config.pay_url.rstrip('/')}/{intent_id}/{method}?{urlencode({'token': token})}"


async def _start_redirect(intent: PaymentIntent, return_url: str | None, details: dict | None = None,
                          expires_at: datetime | None = None) -> PaymentIntent:
    return_url = return_url or intent.return_url
    if return_url is None:
        raise ValidationError(f"return_url is required: {intent.payment_method} sends the buyer back to it",
                              param="return_url", code="return_url_required")   # the intent's method decides
    provider, reason = _route(intent)
    url = page_url(intent.id, intent.payment_method)
    return await intents._transition(intent, {
        "status": "requires_action", "return_url": return_url, "provider": provider,
        "failure_code": None, "failure_message": None,
        "method_details": {**(details or {}), "routing_reason": reason},
        "next_action": {"type": "redirect", "url": url, "return_url": return_url},
        **({"expires_at": expires_at} if expires_at is not None else {})})


async def _start_regional(principal: Principal, intent: PaymentIntent, return_url: str | None,
                          phone: Any) -> PaymentIntent:
    """NAPS, OmanNet, an Egyptian wallet (services.payments.regional_redirects): the redirect as
    KNET's; a wallet request needs the phone (on create or here) and lives 3 hours from now."""
    method = intent.payment_method
    details = regional.start_details(method)
    if method != "eg_wallet":
        return await _start_redirect(intent, return_url, details)
    wallet = regional.check_eg_phone(phone) if phone is not None else (intent.method_details or {}).get("phone")
    if not wallet:
        raise ValidationError("phone is required for eg_wallet payments: the buyer's wallet mobile number",
                              param="phone")
    if not (return_url or intent.return_url):       # return_url_required before anything is kept
        return await _start_redirect(intent, return_url)
    expires = await now_for(principal) + timedelta(hours=regional.EG_WALLET_HOURS)
    return await _start_redirect(intent, return_url, {**details, "phone": wallet}, expires)


async def redirect_page(*, intent_id: str, method: str, token: str | None) -> PaymentIntent:
    """The intent behind a scheme page: 404 unknown (or a wrong token), 410 when finished."""
    intent = await PaymentIntent.get_or_none(id=intent_id) if isinstance(intent_id, str) else None
    if intent is None or intent.payment_method != method or not token \
            or not hmac.compare_digest(str(token), page_token(intent.id, method)):
        raise NotFound("No such payment page", param="id")
    if intent.status != "requires_action":
        raise Gone(f"This payment is over: it is {intent.status}")
    return intent


@dataclass
class PageView:
    intent: PaymentIntent
    merchant_name: str


async def redirect_view(*, intent_id: str, method: str, token: str | None) -> PageView:
    """What the scheme page shows: the intent and the merchant's name."""
    intent = await redirect_page(intent_id=intent_id, method=method, token=token)
    merchant = await Merchant.get_or_none(id=intent.merchant_id)
    return PageView(intent, (merchant.name or merchant.id) if merchant else "")


@dataclass
class RedirectResult:
    intent: PaymentIntent
    redirect_url: str


def _digits(seed: str, n: int) -> str:
    return str(int(hashlib.sha256(seed.encode()).hexdigest(), 16))[:n]


def _return_to(intent: PaymentIntent) -> str:
    """The merchant's return_url with the intent's id and status (where a scheme page sends the buyer)."""
    sep = "&" if "?" in (intent.return_url or "") else "?"
    return f"{intent.return_url}{sep}{urlencode({'payment_intent': intent.id, 'redirect_status': intent.status})}"


async def complete_redirect(*, intent_id: str, method: str, token: str | None, action: str | None,
                            bank: str | None = None, card_number: str | None = None,
                            pin: str | None = None) -> RedirectResult:
    """The buyer's answer on the scheme page: `pay` (bank, card number, PIN) or `cancel`. The
    intent becomes succeeded or failed (`NOT CAPTURED`, `CANCELED`) with the scheme's
    references; the buyer goes back to return_url with the intent id and status."""
    intent = await redirect_page(intent_id=intent_id, method=method, token=token)
    action = intents.check_enum_value(action, "action", ("pay", "cancel"))
    now = runtime().clock.now()
    if await intents._expire_if_due(intent, now):
        raise Gone("This payment expired and was canceled")
    if action == "pay":
        codes = [c for c, _ in BANKS[method]]
        intents.check_enum_value(bank, "bank", codes)
        if not isinstance(card_number, str) or not _CARD.fullmatch(card_number.replace(" ", "")):
            raise ValidationError("card_number must be 16 digits", param="card_number")
        if not isinstance(pin, str) or not _PIN.fullmatch(pin):
            raise ValidationError("pin must be 4 digits", param="pin")
        approved = card_number.replace(" ", "") == SANDBOX_APPROVED and hmac.compare_digest(pin, SANDBOX_PIN)
        result = "CAPTURED" if approved else "NOT CAPTURED"
    else:
        approved, result = False, "CANCELED"
    seed = f"{intent.id}:{intent.version}"
    refs = {"bank": bank if action == "pay" else None, "payment_id": _digits("pid" + seed, 18),
            "transaction_id": _digits("tid" + seed, 15), "reference_number": _digits("ref" + seed, 12),
            "result": result}
    details = {**(intent.method_details or {}), **refs}
    if approved:
        intent = await _succeed(intent, now, details, refs["transaction_id"])
    else:
        message = "The payment was canceled on the payment page" if result == "CANCELED" else \
            f"{methods.get(method).names['en']} did not capture the payment"
        intent = await _fail(intent, now, result, message, details)
    return RedirectResult(intent=intent, redirect_url=_return_to(intent))


async def complete_regional(*, intent_id: str, method: str, token: str | None,
                            form: dict[str, str]) -> RedirectResult:
    """The buyer's answer on a NAPS, OmanNet or wallet page (services.payments.regional_redirects
    reads it): succeeded or failed with the scheme's references and back to return_url; OmanNet's
    card step leads to its code step (the page again); a wrong wallet PIN or code is a 400 naming
    it, with the attempts left kept."""
    intent = await redirect_page(intent_id=intent_id, method=method, token=token)
    now = runtime().clock.now()
    if not intent.livemode:               # the merchant's test clock (the wallet request's 3 hours)
        now += await offset_of(intent.merchant_id)
    if await intents._expire_if_due(intent, now):
        raise Gone("This payment expired")
    details = dict(intent.method_details or {})
    ans = regional.answer(method, details, form, now)
    details = {k: v for k, v in {**details, **ans.details}.items() if v is not None}
    if ans.outcome == "again":
        await intents._transition(intent, {"method_details": details})
        raise ValidationError(ans.message, param=ans.param, code="invalid_otp")
    if ans.outcome == "next":
        await intents._transition(intent, {"method_details": details})
        return RedirectResult(intent=intent, redirect_url=page_url(intent.id, method))
    seed = f"{intent.id}:{intent.version}"
    details.update(payment_id=_digits("pid" + seed, 18), transaction_id=_digits("tid" + seed, 15),
                   reference_number=_digits("ref" + seed, 12), result=ans.result)
    if ans.outcome == "approved":
        intent = await _succeed(intent, now, details, details["transaction_id"])
    elif ans.result == "otp_attempts_exceeded":
        details["result"] = "NOT CAPTURED"
        intent = await _fail(intent, now, "otp_attempts_exceeded", "Three wrong wallet PINs or SMS codes", details)
    else:
        message = "The payment was canceled on the payment page" if ans.result == "CANCELED" else \
            f"{methods.get(method).names['en']} did not capture the payment"
        intent = await _fail(intent, now, ans.result, message, details)
    return RedirectResult(intent=intent, redirect_url=_return_to(intent))


# ---------------------------------------------------------------- Fawry

async def _new_reference() -> str:
    for _ in range(10):
        ref = str(secrets.randbelow(9 * 10**9) + 10**9)          # 10 digits, no leading zero
        if not await PaymentIntent.filter(method_reference=ref).exists():
            return ref
    raise InvalidState("Could not allocate a Fawry reference; retry")      # pragma: no cover


async def _issue_reference(principal: Principal, intent: PaymentIntent, return_url: str | None) -> PaymentIntent:
    hours = (intent.method_details or {}).get("expires_in_hours", FAWRY_HOURS)
    # On the merchant's test clock in test mode: the scheduler expires it on the same clock.
    expires = await now_for(principal) + timedelta(hours=hours)
    provider, reason = _route(intent)
    ref = await _new_reference()
    details = {**(intent.method_details or {}), "reference": ref, "expires_at": iso(expires),
               "routing_reason": reason}
    return await intents._transition(intent, {
        "status": "requires_action", "return_url": return_url or intent.return_url, "provider": provider,
        "method_reference": ref, "expires_at": expires, "failure_code": None, "failure_message": None,
        "method_details": details,
        "next_action": {"type": "display_reference", "reference": ref, "expires_at": iso(expires)}})


async def fawry_pay(*, principal: Principal, data: Any) -> PaymentIntent:
    """Test helper: the buyer pays the reference at a Fawry outlet. Test keys only (403)."""
    if principal.livemode:
        raise PermissionDenied("Test helpers work with test keys only: use sk_test_...", code="test_mode_only")
    f = Fields(data)
    reference = f.str("reference", required=True, max_len=40)
    f.reject_unknown()
    intent = await PaymentIntent.get_or_none(method_reference=reference, **principal.scope)
    if intent is None:
        raise NotFound("No such Fawry reference", param="reference")
    if intent.status == "succeeded":
        raise InvalidState(f"Fawry reference {reference} was already paid", code="reference_already_paid",
                           param="reference")
    now = await now_for(principal)
    if intent.status == "requires_action" and now >= intent.expires_at:
        await expire_reference(intent.id, now)
        intent = await PaymentIntent.get(id=intent.id)
    if intent.status != "requires_action":
        raise InvalidState(f"Fawry reference {reference} expired at {iso(intent.expires_at)} and can no longer "
                           "be paid", code="reference_expired", param="reference")
    return await _succeed(intent, now, {**(intent.method_details or {}), "paid_at": iso(now), "channel": "outlet"},
                          "fawry_" + reference)


async def expire_reference(intent_id: str, when: datetime) -> bool:
    """A Fawry reference not paid by its expires_at: the intent fails with `expired`."""
    intent = await PaymentIntent.get_or_none(id=intent_id)
    if intent is not None and intent.payment_method in _RAILS:      # a SADAD bill, a request to pay
        return await _RAILS[intent.payment_method].expire(intent_id, when)
    if intent is None or intent.payment_method not in ("fawry", "eg_wallet") \
            or intent.status != "requires_action" or when < intent.expires_at:
        return False
    message = "The Fawry reference was not paid before it expired" if intent.payment_method == "fawry" else \
        "The wallet payment request was not paid within 3 hours"
    try:
        await _fail(intent, when, "expired", message)
    except DomainError:
        return False
    return True


async def _due_references(scope: scheduler.Scope, until: datetime, limit: int) -> list[tuple[datetime, str]]:
    """The Fawry references still waiting past their expires_at: through the open intents'
    partial index (services/payments/expiry_due.py)."""
    return await expiry_due.due(until, limit, livemode=scope.livemode, merchant_id=scope.merchant_id,
                                exclude_merchants=scope.exclude_merchants, references_only=True)


async def _run_expiry(intent_id: str, when: datetime) -> str | None:
    return "expired" if await expire_reference(intent_id, when) else None


def install() -> None:
    """Called when the app starts (app/jobs.py): this module's flows become the intents' local
    flows, and the Fawry expiry becomes a scheduler job kind."""
    import sys
    intents.use_local_flows(sys.modules[__name__])
    scheduler.register(scheduler.JobKind("fawry.expire", _due_references, _run_expiry, schedules=False))
    bnpl.install()           # BNPL authorizations released after their validity


async def expire_authorization(intent_id: str, when: datetime) -> bool:
    """A BNPL authorization past its validity: what was not captured is released."""
    return await bnpl.expire_authorization(intent_id, when)


async def cancel_authorized(principal: Principal, intent: PaymentIntent, reason: str) -> PaymentIntent:
    """Cancel of an authorized (requires_capture) BNPL payment: what was not captured is released."""
    return await bnpl.cancel(principal, intent, reason)


def check_refundable(intent, amount: int | None = None) -> None:
    """A Fawry payment was cash at an outlet: Fawry cannot pay it back (the merchant refunds
    the buyer directly); OmanNet refunds the whole payment only (`amount`: the refund's, None
    for the rest). Every other method refunds as cards do."""
    regional.check_refund(intent, amount)
    if intent.payment_method in _RAILS:
        _RAILS[intent.payment_method].check_refundable(intent)
    if intent.payment_method == "fawry":
        raise ValidationError("A Fawry reference payment cannot be refunded through Fawry: refund the buyer "
                              "directly", code="refund_not_supported", param="id")


# ---------------------------------------------------------------- STC Pay

async def _send_otp(intent: PaymentIntent, phone: Any, return_url: str | None) -> PaymentIntent:
    details = dict(intent.method_details or {})
    if phone is not None:
        details["phone"] = check_phone(phone)
    if not details.get("phone"):
        raise ValidationError("phone is required for stcpay payments: the buyer's mobile number", param="phone")
    provider, reason = _route(intent)
    details.update(attempts_left=OTP_ATTEMPTS, routing_reason=reason)
    return await intents._transition(intent, {
        "status": "requires_action", "return_url": return_url or intent.return_url, "provider": provider,
        "failure_code": None, "failure_message": None, "method_details": details,
        "next_action": {"type": "otp", "phone_hint": phone_hint(details["phone"])}})


class OtpRejected(PaymentDeclined):
    def __init__(self, message: str, *, attempts_left: int):
        super().__init__(message, decline_code="invalid_otp", param="otp")
        self.attempts_left = attempts_left


async def _verify_otp(intent: PaymentIntent, otp: str | None, now: datetime) -> PaymentIntent:
    if otp is None:
        raise ValidationError("otp is required: the one-time code STC Pay sent to the buyer", param="otp")
    if not _OTP.fullmatch(otp):
        raise ValidationError("otp must be the 4 to 8 digits of the one-time code", param="otp")
    details = dict(intent.method_details or {})
    if hmac.compare_digest(otp, SANDBOX_OTP):
        details.pop("attempts_left", None)
        return await _succeed(intent, now, details, "stcpay_" + _digits("stc" + intent.id, 12))
    failure = STCPAY_SANDBOX_FAILURES.get(otp)
    if failure is not None:          # the wallet refuses the payment: failed, answered 402 with the code
        details.pop("attempts_left", None)
        code, message = failure
        intent = await _fail(intent, now, code, message, details)
        raise PaymentDeclined(f"Payment declined: {code} ({message}; payment intent {intent.id} is failed: "
                              "confirm it again for a new code)", decline_code=code, param="otp")
    left = int(details.get("attempts_left", OTP_ATTEMPTS)) - 1
    details["attempts_left"] = left
    if left > 0:
        await intents._transition(intent, {"method_details": details})
        raise OtpRejected(f"The one-time code is wrong: {left} attempt{'s' if left > 1 else ''} left",
                          attempts_left=left)
    await _fail(intent, now, "otp_attempts_exceeded", "Three wrong one-time codes", details)
    raise OtpRejected("The one-time code is wrong and no attempt is left: the payment intent failed "
                      "(confirm it again for a new code)", attempts_left=0)
