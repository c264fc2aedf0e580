"""The hosted checkout (`{pay_url}/{id}`): what a buyer pays on a payment link (`lnk_`), a payment
intent (`pay_`) or an invoice (`inv_`), and paying it by card -- through the same services as
the API (services.payments for links and invoices, services.intents for intents).

The id in the URL is the capability (unguessable). No card number or CVC is kept: a card lives
in memory for the provider call; a 3-D Secure challenge of a link or invoice keeps only the
card's brand, last4, expiry, fingerprint and sandbox behaviour in the key-value store for 15
minutes. The pages themselves (templates, CSRF, headers) live in app/checkout.
"""
from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import orjson

from models.billing import Invoice
from models.core import Merchant
from models.intents import PaymentIntent
from models.links import PaymentLink
from services.identity import ratelimit
from services.payments import cards, installments, intents, links, methods, payments, receipts
from services.billing import invoices
from services.errors import DomainError, InvalidState, NotFound, PaymentDeclined, ValidationError
from services.infra.runtime import runtime
from services.payments.payment_methods import create_payment_method
from services.principal import Principal
from services.validation import Fields, check_email, one_of

CHALLENGE_TTL = 15 * 60
# Card testing: a public page must not let one address try cards at machine speed.
PAY_ATTEMPTS = ratelimit.Rule("checkout-ip", 30, 60, "Too many payment attempts from this address")
_ID = re.compile(r"(lnk|pay|inv)_[0-9A-Za-z]{1,40}")
_EXPIRY = re.compile(r"\s*(\d{1,2})\s*/\s*(\d{2}|\d{4})\s*")
_PHONE = re.compile(r"\+?[0-9][0-9 ()-]{5,30}")
GONE_STATES = {"succeeded": "paid", "refunded": "paid", "canceled": "cancelled"}
LOCAL_FLOWS = intents.LOCAL_FLOWS          # their buyer steps: services.payments.checkout_local


class Gone(DomainError):
    """The checkout exists but can no longer be paid: paid, cancelled or expired (HTTP 410)."""
    status = 410
    code = "checkout_unavailable"

    def __init__(self, reason: str):
        super().__init__(f"This payment is no longer available ({reason})", param=None)
        self.reason = reason


@dataclass
class Checkout:
    id: str
    kind: str                    # link | intent | invoice
    merchant_id: str
    merchant_name: str
    livemode: bool
    amount: int
    currency: str
    description: str | None
    method: str = "card"         # card | crypto | cod | qr | tap_to_pay
    state: str = "open"          # open | requires_action | processing
    locale: str | None = None    # the merchant's choice: the intent's, link's or invoice's locale
    merchant_country: str | None = None     # its market: the default language when nobody names one
    ask_contact: bool = False    # a link asks for an e-mail / phone for the receipt
    intent: PaymentIntent | None = None
    invoice: Invoice | None = None
    link: PaymentLink | None = None
    items: list[dict] = field(default_factory=list)

    @property
    def principal(self) -> Principal:
        return Principal(merchant_id=self.merchant_id, livemode=self.livemode, kind="secret",
                         credential=f"checkout:{self.id}")

    @property
    def challenge_token(self) -> str | None:
        """The 3-D Secure token of an intent waiting for its challenge."""
        if self.intent is None or self.intent.status != "requires_action":
            return None
        url = ((self.intent.next_action or {}).get("redirect_to_url") or {}).get("url") or ""
        return (parse_qs(urlsplit(url).query).get("token") or [None])[0]


def check_checkout_id(value: Any) -> str:
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise NotFound("No such checkout")
    return value


async def _merchant(merchant_id: str) -> dict:
    m = await Merchant.get(id=merchant_id)
    return {"merchant_name": m.name or m.email, "merchant_country": m.country}


async def load(checkout_id: str) -> Checkout:
    """The checkout behind an id; NotFound (404) or Gone (410)."""
    cid = check_checkout_id(checkout_id)
    now = runtime().clock.now()
    if cid.startswith("lnk_"):
        link = await links.public_link(cid)
        status = links.status_of(link, now)
        if status != "active":
            raise Gone(status)
        return Checkout(id=cid, kind="link", merchant_id=link.merchant_id,
                        **await _merchant(link.merchant_id), livemode=link.livemode,
                        amount=link.amount, currency=link.currency, description=link.description,
                        locale=link.locale, ask_contact=True, link=link)
    if cid.startswith("inv_"):
        inv = await Invoice.get_or_none(id=cid)
        if inv is None:
            raise NotFound("No such invoice")
        if inv.status == "paid":
            raise Gone("paid")
        return Checkout(id=cid, kind="invoice", merchant_id=inv.merchant_id,
                        **await _merchant(inv.merchant_id), livemode=inv.livemode,
                        amount=inv.total, currency=inv.currency, description=f"{inv.number}", locale=inv.locale,
                        invoice=inv, items=list(inv.items or []))
    intent = await PaymentIntent.get_or_none(id=cid)
    if intent is None:
        raise NotFound("No such payment")
    if intent.status in GONE_STATES:
        raise Gone(GONE_STATES[intent.status])
    if intent.status in intents.UNPAID + ("failed",) and now >= intent.expires_at:
        raise Gone("expired")
    # BNPL approved at the provider (requires_capture): in progress for the buyer until the merchant ships.
    state = {"requires_action": "requires_action", "processing": "processing",
             "requires_capture": "processing"}.get(intent.status, "open")
    return Checkout(id=cid, kind="intent", merchant_id=intent.merchant_id,
                    **await _merchant(intent.merchant_id), livemode=intent.livemode,
                    amount=intent.amount, currency=intent.currency, description=intent.description,
                    method=intent.payment_method, state=state, locale=intent.locale, intent=intent)


# ---------------------------------------------------------------- outcomes

@dataclass
class Outcome:
    kind: str                           # succeeded | declined | challenge | processing
    payment_id: str | None = None
    receipt_url: str | None = None
    decline_code: str | None = None
    challenge_token: str | None = None
    installments: dict | None = None    # the terms paid (succeeded), or the step's options (kind "installments")
    hold_token: str | None = None       # kind "installments": the held card, until the buyer picks a count


def _succeeded(payment_id: str, receipt_token: str | None, terms: dict | None = None) -> Outcome:
    return Outcome("succeeded", payment_id=payment_id, receipt_url=receipts.url_of(payment_id, receipt_token),
                   installments=terms)


# ---------------------------------------------------------------- input

def parse_card_form(form: dict[str, str]) -> cards.Card:
    """The card form: `number`, `expiry` (MM/YY or MM/YYYY), `cvc`, `name` (name on card)."""
    name = (form.get("name") or "").strip()
    if not name:
        raise ValidationError("The name on the card is required", param="name")
    if len(name) > 100:
        raise ValidationError("The name on the card must be at most 100 characters", param="name")
    m = _EXPIRY.fullmatch(form.get("expiry") or "")
    if not m or not 1 <= int(m.group(1)) <= 12:
        raise ValidationError("The expiry date must be MM/YY", param="expiry")
    cvc = (form.get("cvc") or "").strip()
    if not re.fullmatch(r"\d{3,4}", cvc):
        raise ValidationError("The CVC must be 3 or 4 digits", param="cvc")
    number = re.sub(r"[ -]", "", form.get("number") or "")
    try:
        return cards.parse_card({"number": number, "exp_month": int(m.group(1)), "exp_year": int(m.group(2)),
                                 "cvc": cvc}, param="card")
    except ValidationError as e:
        field_ = {"card.number": "number", "card.exp_year": "expiry", "card.exp_month": "expiry",
                  "card.cvc": "cvc"}.get(e.param or "", "number")
        raise ValidationError(e.message, param=field_) from None


def parse_contact(form: dict[str, str]) -> dict | None:
    """The buyer's e-mail and phone (both optional) for the receipt of a link payment."""
    out: dict[str, str] = {}
    email = (form.get("email") or "").strip()
    if email:
        out["email"] = check_email(email, "email")
    phone = (form.get("phone") or "").strip()
    if phone:
        if not _PHONE.fullmatch(phone):
            raise ValidationError("The phone number must be digits, with the country code (+90 ...)", param="phone")
        out["phone"] = phone
    name = (form.get("name") or "").strip()
    if out and name:
        out["name"] = name[:200]
    return out or None


# ---------------------------------------------------------------- paying

async def pay_card(*, checkout_id: str, form: dict[str, str], locale: str | None = None,
                   idempotency_key: str | None = None, client_address: str | None = None) -> Outcome:
    c = await load(checkout_id)
    await _count_attempt(client_address)
    if c.kind == "intent" and c.method not in intents.CARD_LIKE:
        raise ValidationError(f"This payment is paid by {c.method}, not by card", param="number")
    if c.state != "open":
        raise ValidationError("This payment is already being processed", param=None, code="invalid_state")
    card = parse_card_form(form)
    count = form_installments(form)
    contact = parse_contact(form) if c.ask_contact and c.kind != "intent" else None
    issuer = installments.issuer_of(card.number)
    if count is None:          # not chosen (no script): a TRY card with installments gets the step first
        step = await _installment_step(c, card, issuer, contact=contact, locale=locale,
                                       idempotency_key=idempotency_key)
        if step is not None:
            return step
    else:
        await _check_pick(c, issuer, count)
    if c.kind == "intent":
        return await _pay_intent(c, card, form, count)
    return await _card_step(c, card, issuer, contact=contact, locale=locale, idempotency_key=idempotency_key,
                            client_address=client_address, count=count)


async def _card_step(c: Checkout, card: cards.Card, issuer: installments.Issuer | None, *, contact: dict | None,
                     locale: str | None, idempotency_key: str | None, client_address: str | None,
                     count: int | None) -> Outcome:
    """A link's or invoice's card: to its 3-D Secure challenge, or charged."""
    if card.behaviour == cards.REQUIRES_3DS or methods.card_method(card, c.currency) != "card":   # mada, troy, meeza: always 3DS
        token = secrets.token_urlsafe(24)
        pending = {"checkout_id": c.id, "card": {**card.public(), "behaviour": card.behaviour,
                                                 "networks": list(card.networks)}, "contact": contact,
                   "locale": locale, "idempotency_key": idempotency_key, "installments": count,
                   "issuer": issuer.as_dict() if issuer else None}
        await runtime().kv.set(f"checkout:3ds:{token}", orjson.dumps(pending).decode(), ttl=CHALLENGE_TTL)
        return Outcome("challenge", challenge_token=token)
    return await _charge(c, card, contact=contact, locale=locale, idempotency_key=idempotency_key,
                         client_address=client_address, installment_count=count, issuer=issuer)


async def _charge(c: Checkout, card: cards.Card, *, contact: dict | None, locale: str | None,
                  idempotency_key: str | None, client_address: str | None, three_ds: bool = False,
                  installment_count: int | None = None, issuer: installments.Issuer | None = None) -> Outcome:
    try:
        p = await payments.create_checkout_payment(
            principal=c.principal, card=card, amount=c.amount, currency=c.currency, customer=contact,
            customer_id=c.invoice.customer_id if c.invoice else None,
            description=c.description if c.kind == "link" else f"Invoice {c.description}",
            metadata={"invoice_id": c.id} if c.invoice else {}, payment_link=c.id if c.kind == "link" else None,
            three_d_secure_passed=three_ds, locale=locale, idempotency_key=idempotency_key,
            client_address=client_address, installment_count=installment_count, issuer=issuer,
            invoice=bool(c.link is not None and c.link.invoice))
    except PaymentDeclined as e:
        return Outcome("declined", decline_code=e.decline_code or "card_declined")
    if c.invoice is not None:
        try:
            await invoices.mark_paid(principal=c.principal, invoice_id=c.invoice.id, payment_id=p.id)
        except InvalidState:
            # Paid meanwhile from another page load: this second charge is given back at once.
            await payments.refund_payment(principal=c.principal, payment_id=p.id,
                                          data={"reason": f"duplicate: invoice {c.invoice.id} was already paid"})
            raise Gone("paid") from None
    return _succeeded(p.id, p.receipt_token, p.installments)


async def _pay_intent(c: Checkout, card: cards.Card, form: dict[str, str], count: int | None = None,
                      pm_id: str | None = None) -> Outcome:
    if pm_id is None:
        data = {"type": "card", "card": {"number": card.number, "exp_month": card.exp_month,
                                         "exp_year": card.exp_year, "cvc": card.cvc}}
        pm_id = (await create_payment_method(principal=c.principal, data=data)).id
    confirm = {"payment_method_id": pm_id, "return_url": result_url(c.id)}
    if count is not None:
        confirm["installments"] = count
    try:
        i = await intents.confirm_intent(principal=c.principal, intent_id=c.id, data=confirm)
    except PaymentDeclined as e:
        return Outcome("declined", decline_code=e.decline_code or "card_declined")
    return _intent_outcome(i)


def _intent_outcome(i: PaymentIntent) -> Outcome:
    if i.status == "succeeded":
        return _succeeded(i.id, i.receipt_token, i.installments)
    if i.status == "requires_action":
        c = Checkout(id=i.id, kind="intent", merchant_id=i.merchant_id, merchant_name="", livemode=i.livemode,
                     amount=i.amount, currency=i.currency, description=None, intent=i)
        return Outcome("challenge", challenge_token=c.challenge_token)
    if i.status == "failed":
        return Outcome("declined", decline_code=i.failure_code or "card_declined")
    return Outcome("processing", payment_id=i.id)


async def _count_attempt(client_address: str | None) -> None:
    if client_address:
        await ratelimit.enforce(PAY_ATTEMPTS, client_address)


async def confirm_offline(*, checkout_id: str, client_address: str | None = None) -> Outcome:
    """Crypto ("I have sent it": processing until the deposit confirms) and cash on delivery
    (the order is confirmed; the courier collects): confirm the intent without a card."""
    c = await load(checkout_id)
    await _count_attempt(client_address)
    if c.kind != "intent" or c.method not in ("crypto", "cod"):
        raise ValidationError("Only crypto and cash-on-delivery payments are confirmed this way", param="method")
    if c.state == "processing":
        return Outcome("processing", payment_id=c.id)
    i = await intents.confirm_intent(principal=c.principal, intent_id=c.id, data={"return_url": result_url(c.id)})
    return _intent_outcome(i)


def result_url(checkout_id: str) -> str:
    return f"{runtime().config.pay_url.rstrip('/')}/{checkout_id}/result"


# ---------------------------------------------------------------- 3-D Secure on the hosted page

@dataclass
class Challenge:
    checkout: Checkout
    brand: str | None
    last4: str | None


async def _pending(token: str | None) -> dict | None:
    if not isinstance(token, str) or not 20 <= len(token) <= 64:
        return None
    raw = await runtime().kv.get(f"checkout:3ds:{token}")
    return orjson.loads(raw) if raw else None


async def get_challenge(*, checkout_id: str, token: str | None) -> Challenge:
    c = await load(checkout_id)
    if c.kind == "intent":
        i = await intents.get_challenge(intent_id=c.id, token=token)
        pm = await _method_of(i)
        return Challenge(c, pm[0], pm[1])
    pending = await _pending(token)
    if pending is None or pending["checkout_id"] != c.id:
        raise NotFound("No such 3-D Secure challenge", param="token")
    return Challenge(c, pending["card"]["brand"], pending["card"]["last4"])


async def _method_of(i: PaymentIntent) -> tuple[str | None, str | None]:
    if not i.payment_method_ref:
        return None, None
    from services.payments.payment_methods import resolve_payment_method
    try:
        pm = await resolve_payment_method(principal=Principal(i.merchant_id, i.livemode, "secret"),
                                          payment_method_id=i.payment_method_ref)
    except DomainError:
        return None, None
    return pm.brand, pm.last4


async def complete_challenge(*, checkout_id: str, token: str | None, outcome: str,
                             client_address: str | None = None) -> Outcome:
    """`succeed` authorizes with 3-D Secure passed; `fail` answers a decline the buyer can retry."""
    if outcome not in ("succeed", "fail"):
        raise one_of("outcome", ("succeed", "fail"))
    c = await load(checkout_id)
    await _count_attempt(client_address)
    if c.kind == "intent":
        r = await intents.complete_challenge(intent_id=c.id, token=token, outcome=outcome)
        return _intent_outcome(r.intent)
    pending = await _pending(token)
    if pending is None or pending["checkout_id"] != c.id:
        raise NotFound("No such 3-D Secure challenge", param="token")
    if not await runtime().kv.delete(f"checkout:3ds:{token}"):      # single use
        raise NotFound("No such 3-D Secure challenge", param="token")
    if outcome == "fail":
        return Outcome("declined", decline_code="authentication_failed")
    k = pending["card"]
    card = cards.Card(brand=k["brand"], last4=k["last4"], exp_month=k["exp_month"], exp_year=k["exp_year"],
                      fingerprint=k["fingerprint"], country=k.get("country"), behaviour=k["behaviour"], number="",
                      networks=tuple(k.get("networks") or ()))
    return await _charge(c, card, contact=pending.get("contact"), locale=pending.get("locale"),
                         idempotency_key=pending.get("idempotency_key"), client_address=client_address,
                         three_ds=True, installment_count=pending.get("installments"),
                         issuer=installments.issuer_from(pending.get("issuer")))


# ---------------------------------------------------------------- the QR image of an intent

async def qr_png(*, checkout_id: str) -> bytes:
    return await intents.qr_image(intent_id=check_checkout_id(checkout_id))


# ---------------------------------------------------------------- installments (taksit) on the hosted page

INSTALLMENT_HOLD_TTL = 15 * 60


def form_installments(form: dict[str, str]) -> int | None:
    """The count the buyer picked (`installments`), or None when the form has none; whether the
    card gets it is `_check_pick`'s question (a 400 listing the counts it gets)."""
    raw = (form.get("installments") or "").strip()
    if not raw:
        return None
    if not raw.isdigit():
        raise ValidationError("Choose a number of installments", param="installments")
    return installments.check_count(int(raw))


def _takes_installments(c: Checkout) -> bool:
    return c.currency == installments.INSTALLMENT_CURRENCY and (c.kind != "intent" or c.method == "card")


async def options_for(*, checkout_id: str, bin: Any) -> installments.Options | None:
    """What the page shows as the buyer types (the checkout id is the capability, as for its
    QR image): the options of a card for this checkout, or None when it takes no installments."""
    c = await load(checkout_id)
    digits = installments.check_bin(bin)
    if not _takes_installments(c):
        return None
    return installments.options_for(installments.issuer_of(digits), c.amount, c.currency,
                                    await installments.get_plans(principal=c.principal))


async def _installment_step(c: Checkout, card: cards.Card, issuer: installments.Issuer | None, *,
                            contact: dict | None, locale: str | None,
                            idempotency_key: str | None) -> Outcome | None:
    """Without the page's script the buyer has not picked a count yet: a card that gets more
    than one is held (brand, last4, expiry, fingerprint, behaviour: never the number; an intent's
    is tokenized) for the step that shows the table; None when there is nothing to pick."""
    if not _takes_installments(c) or issuer is None or not issuer.program:
        return None
    opts = installments.options_for(issuer, c.amount, c.currency, await installments.get_plans(principal=c.principal))
    if len(opts.options) < 2:
        return None
    held: dict[str, Any] = {"checkout_id": c.id, "contact": contact, "locale": locale,
                            "idempotency_key": idempotency_key, "issuer": issuer.as_dict()}
    if c.kind == "intent":
        data = {"type": "card", "card": {"number": card.number, "exp_month": card.exp_month,
                                         "exp_year": card.exp_year, "cvc": card.cvc}}
        held["payment_method_id"] = (await create_payment_method(principal=c.principal, data=data)).id
    else:
        held["card"] = {**card.public(), "behaviour": card.behaviour, "networks": list(card.networks)}
    token = secrets.token_urlsafe(24)
    await runtime().kv.set(f"checkout:taksit:{token}", orjson.dumps(held).decode(), ttl=INSTALLMENT_HOLD_TTL)
    return Outcome("installments", hold_token=token, installments=opts.as_dict())


async def _check_pick(c: Checkout, issuer: installments.Issuer | None, count: int) -> None:
    """A count the card does not get is a 400 before anything is charged: the page's idempotency
    key stays free for the buyer's next pick."""
    if installments.asks(count):
        installments.terms(count, installments.options_for(issuer, c.amount, c.currency,
                                                           await installments.get_plans(principal=c.principal)))


async def _held(c: Checkout, token: Any) -> dict:
    raw = await runtime().kv.get(f"checkout:taksit:{token}") \
        if isinstance(token, str) and 20 <= len(token) <= 64 else None
    held = orjson.loads(raw) if raw else None
    if held is None or held["checkout_id"] != c.id:
        raise ValidationError("The card form has expired: enter the card again", param="number")
    return held


async def held_options(*, checkout_id: str, token: Any) -> installments.Options:
    """The step's table again (after a wrong pick)."""
    c = await load(checkout_id)
    held = await _held(c, token)
    return installments.options_for(installments.issuer_from(held["issuer"]), c.amount, c.currency,
                                    await installments.get_plans(principal=c.principal))


async def pay_held(*, checkout_id: str, token: Any, form: dict[str, str],
                   client_address: str | None = None) -> Outcome:
    """The step's form: the held card paid in the count picked (400 `installments` if not offered)."""
    c = await load(checkout_id)
    await _count_attempt(client_address)
    if c.state != "open":
        raise ValidationError("This payment is already being processed", param=None, code="invalid_state")
    held = await _held(c, token)
    count = form_installments(form)
    if count is None:
        raise ValidationError("Choose a number of installments", param="installments")
    await _check_pick(c, installments.issuer_from(held["issuer"]), count)
    if c.kind == "intent":
        return await _pay_intent(c, None, form, count, pm_id=held["payment_method_id"])   # type: ignore[arg-type]
    k = held["card"]
    card = cards.Card(brand=k["brand"], last4=k["last4"], exp_month=k["exp_month"], exp_year=k["exp_year"],
                      fingerprint=k["fingerprint"], country=k.get("country"), behaviour=k["behaviour"], number="",
                      networks=tuple(k.get("networks") or ()))
    return await _card_step(c, card, installments.issuer_from(held["issuer"]), contact=held.get("contact"),
                            locale=held.get("locale"), idempotency_key=held.get("idempotency_key"),
                            client_address=client_address, count=count)
