"""The hosted checkout's local methods: the choices a payment link offers for its currency (from
the method registry, card first), a link paid with a local method (it becomes a `/v1` intent of
that method, with the link in its metadata, and the buyer continues on the intent's checkout),
and the buyer's steps of a local-method intent: the redirect to the scheme's page (KNET,
BenefitPay), the Fawry or SADAD reference, the STC Pay one-time code, the CliQ or Aani request
to pay (a link chosen with CliQ or Aani may name the buyer's alias)."""
from __future__ import annotations

from dataclasses import dataclass

from services.errors import PaymentDeclined, ValidationError
from services.validation import one_of
from services.payments import bnpl, checkout, intents, methods

LOCAL_FLOWS = intents.LOCAL_FLOWS


def choices(c: checkout.Checkout) -> list[methods.Method]:
    """What the checkout offers: a link every checkout method of its currency and amount, from
    the registry (`checkout=True`): first the methods the registry puts first for the currency
    (`checkout_first`: KNET in KWD, BenefitPay in BHD, Fawry in EGP), then card first as
    `methods.available` orders them (a mada card pays through the card form); an intent its own
    method."""
    if c.kind != "link":
        return []
    offered = [m for m in methods.available(currency=c.currency, amount=c.amount) if m.checkout]
    return sorted(offered, key=lambda m: c.currency not in m.checkout_first)     # stable: the rest keep their order


async def choose(*, checkout_id: str, form: dict[str, str], idempotency_key: str | None = None) -> str:
    """A link paid with a local method: the intent the buyer continues on (its id)."""
    c = await checkout.load(checkout_id)
    offered = [m.type for m in choices(c) if m.type in LOCAL_FLOWS]
    method = form.get("method")
    if c.kind != "link" or method not in offered:
        raise one_of("method", offered or ["card"])
    data = {"amount": c.amount, "currency": c.currency, "payment_method": method,
            "metadata": {"payment_link": c.id}, "description": c.description}
    if method in ("stcpay", "eg_wallet"):         # the buyer's mobile (STC Pay, the wallet's number)
        data["phone"] = form.get("phone") or ""
    if methods.get(method).flow == "request_to_pay" and (form.get("alias") or "").strip():
        data["alias"] = form["alias"].strip()       # optional: the request goes to it (checked as /v1 checks it)
    if methods.get(method).flow == "bnpl":          # the buyer, the address and the link's one item
        data.update(bnpl.link_fields(form, amount=c.amount, description=c.description))
    i = await intents.create_intent(principal=c.principal, data={k: v for k, v in data.items() if v is not None},
                                    idempotency_key=idempotency_key)
    return i.id


@dataclass
class Step:
    kind: str                          # redirect | reference | otp | request_to_pay | succeeded | declined
    url: str | None = None
    decline_code: str | None = None
    message: str | None = None
    attempts_left: int | None = None


def step_of(i) -> Step:
    if i.status == "succeeded":
        return Step("succeeded")
    if i.status == "failed":
        return Step("declined", decline_code=i.failure_code)
    na = i.next_action or {}
    if na.get("type") == "redirect":
        return Step("redirect", url=na["url"])
    if na.get("type") == "request_to_pay":
        return Step("request_to_pay")
    return Step("reference" if na.get("type") == "display_reference" else "otp")


async def act(*, checkout_id: str, form: dict[str, str], idempotency_key: str | None = None) -> Step:
    """The buyer's step on a local-method intent: start it (a redirect, a reference, a code sent
    to the phone) or, for STC Pay, enter the code."""
    c = await checkout.load(checkout_id)
    if c.kind != "intent" or c.method not in LOCAL_FLOWS:
        raise ValidationError("This payment is not paid by a local method", param="method")
    data: dict = {"return_url": checkout.result_url(c.id)}
    if c.method == "stcpay":
        if c.state == "requires_action":
            data = {"otp": (form.get("otp") or "").strip()}
        elif form.get("phone"):
            data["phone"] = form["phone"]
    elif c.method == "eg_wallet" and form.get("phone"):
        data["phone"] = form["phone"]
    try:
        i = await intents.confirm_intent(principal=c.principal, intent_id=c.id, data=data,
                                         idempotency_key=idempotency_key)
    except PaymentDeclined as e:
        return Step("declined", decline_code=e.decline_code, message=e.message,
                    attempts_left=getattr(e, "attempts_left", None))
    return step_of(i)
