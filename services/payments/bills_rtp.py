"""SADAD bills (Saudi Arabia) and request to pay (CliQ in Jordan, Aani in the Emirates) on the
`/v1` intents. Both wait for the buyer after confirm (`requires_action`) until the intent's
`expires_at`, then fail with `expired`:

- SADAD: confirm issues a 13-digit bill number under the biller code (sandbox `001`), payable
  in the buyer's bank for `expires_in_hours` (1-696, 72 by default). A bill is paid by the
  buyer's bank (sandbox: `POST /api/test-helpers/sadad/pay`); SADAD pays nothing back
  (`refund_not_supported`: the merchant refunds the buyer directly).
- CliQ and Aani: confirm sends a request to pay to the buyer's alias (when given) and shows a
  QR code the buyer's bank app scans; the buyer approves or rejects it in the app (sandbox:
  `POST /api/test-helpers/request-to-pay/approve|reject`). Aani's request lives 5 minutes,
  CliQ's 60. A refund is a return payment to the payer (the generic refunds: partial or full,
  in all at most the amount).

The flows plug into services.payments.local_methods (`use_rail`) when the app starts; that
module imports nothing of this one. Nothing here stores a PIN or a code; an alias is kept to
send the request (the object shows it masked).
"""
from __future__ import annotations

import re
import secrets
import sys
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import phonenumbers

from models.intents import PaymentIntent
from services.errors import DomainError, InvalidState, NotFound, PaymentDeclined, PermissionDenied, ValidationError
from services.ids import check_id
from services.infra.clock import now_for
from services.money import currencies as money
from services.payments import intents, local_methods
from services.principal import Principal
from services.timestamps import iso
from services.validation import Fields

SADAD = "sadad"
RTP = ("cliq", "aani")
METHODS = (SADAD,) + RTP
SADAD_HOURS = 72                     # a bill's life by default
SADAD_MAX_HOURS = 696                # 29 days
SADAD_BILLER_CODE = "001"            # the sandbox biller
SADAD_NEVER_PAYS = 50_000            # a 500.00 SAR bill: the sandbox bank declines it
RTP_MINUTES = {"cliq": 60, "aani": 5}
_NICKNAME = re.compile(r"[A-Za-z][A-Za-z0-9]{2,9}")
_MOBILE = {"cliq": ("JO", "+962", re.compile(r"\+9627[789]\d{7}"), "a Jordanian mobile (07[789] and 7 digits)"),
           "aani": ("AE", "+971", re.compile(r"\+9715\d{8}"), "a UAE mobile (05 and 8 digits)")}


# ---------------------------------------------------------------- create

def check_alias(method: str, value: Any, param: str = "alias") -> str:
    """CliQ: a nickname (3-10 English letters or digits, first a letter) or a Jordanian mobile;
    Aani: a UAE mobile. A mobile -> its E.164 form; anything else is a 400 naming `param`."""
    region, cc, pattern, what = _MOBILE[method]
    expected = (f"{param} must be a CliQ alias: a nickname (3-10 English letters or digits, first a letter) "
                f"or {what}, +962 allowed" if method == "cliq" else f"{param} must be {what}, +971 allowed")
    if not isinstance(value, str) or len(value) > 32:
        raise ValidationError(expected, param=param)
    if method == "cliq" and _NICKNAME.fullmatch(value):
        return value.upper()                   # CliQ aliases are case-insensitive
    try:
        parsed = phonenumbers.parse(value, region)
    except phonenumbers.NumberParseException:
        raise ValidationError(expected, param=param) from None
    e164 = phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.E164)
    if not pattern.fullmatch(e164) or not phonenumbers.is_valid_number(parsed):
        raise ValidationError(expected, param=param)
    return e164


def parse_create(f: Fields, *, method: str, hours: int | None) -> dict:
    """The create's own fields: `expires_in_hours` (sadad, 1-696), `alias` (cliq, aani)."""
    alias = f._get("alias", False) if f.has("alias") else None
    if alias is not None and method not in RTP:
        raise ValidationError("alias is for cliq and aani payments only", param="alias",
                              code="payment_method_not_used")
    if method == SADAD:
        if hours is not None and hours > SADAD_MAX_HOURS:
            raise ValidationError(f"expires_in_hours must be between 1 and {SADAD_MAX_HOURS} for sadad",
                                  param="expires_in_hours")
        return {"expires_in_hours": hours or SADAD_HOURS}
    return {"alias": check_alias(method, alias)} if alias is not None else {}


def alias_hint(alias: str | None) -> str | None:
    if not alias:
        return None
    if alias.startswith("+"):
        return alias[:4] + "*" * (len(alias) - 7) + alias[-3:]
    return alias[0] + "*" * (len(alias) - 2) + alias[-1]


# ---------------------------------------------------------------- the object

def object_fields(intent) -> dict[str, Any]:
    d = intent.method_details or {}
    if intent.payment_method == SADAD:
        return {"reference": d.get("reference"), "biller_code": d.get("biller_code"),
                "expires_at": d.get("expires_at"), "paid_at": d.get("paid_at")}
    return {"alias_hint": alias_hint(d.get("alias")), "expires_at": d.get("expires_at"),
            "result": d.get("result"), "return_payments": d.get("return_payments")}


# ---------------------------------------------------------------- confirm

async def confirm(principal: Principal, intent: PaymentIntent, return_url: str | None) -> PaymentIntent:
    """Issue the bill (sadad) or send the request to pay (cliq, aani); the caller checked the
    intent may be confirmed."""
    now = await now_for(principal)         # the merchant's test clock in test mode
    provider, reason = local_methods._route(intent)
    details = {**(intent.method_details or {}), "routing_reason": reason}
    details.pop("result", None)
    if intent.payment_method == SADAD:
        expires = now + timedelta(hours=details.get("expires_in_hours", SADAD_HOURS))
        ref = await _new_bill_number()
        details.update(reference=ref, biller_code=SADAD_BILLER_CODE, expires_at=iso(expires))
        next_action = {"type": "display_reference", "reference": ref, "biller_code": SADAD_BILLER_CODE,
                       "expires_at": iso(expires)}
        extra = {"method_reference": ref}
    else:
        expires = now + timedelta(minutes=RTP_MINUTES[intent.payment_method])
        details.update(expires_at=iso(expires), request_id=f"rtp_{secrets.token_hex(8)}")
        next_action = {"type": "request_to_pay", "alias_hint": alias_hint(details.get("alias")),
                       "expires_at": iso(expires),
                       "qr": {"payload": _qr_payload(intent, details["request_id"], expires),
                              "image_url": intents.qr_code_url_of(intent)}}
        extra = {}
    return await intents._transition(intent, {
        "status": "requires_action", "return_url": return_url or intent.return_url, "provider": provider,
        "expires_at": expires, "failure_code": None, "failure_message": None, "method_details": details,
        "next_action": next_action, **extra})


def _qr_payload(intent, request_id: str, expires: datetime) -> str:
    """What the buyer's bank app scans: the scheme, the request, the amount and its expiry."""
    exp = money.exponent(intent.currency)
    amount = f"{Decimal(intent.amount).scaleb(-exp):.{exp}f}"
    return (f"{intent.payment_method}://pay?request={request_id}&amount={amount}&currency={intent.currency}"
            f"&expires={iso(expires)}")


def qr_payload_of(intent) -> str | None:
    """The QR payload of a request to pay (the public PNG at the intent's qr.png shows it)."""
    if intent.payment_method not in RTP:
        return None
    return ((intent.next_action or {}).get("qr") or {}).get("payload")


async def _new_bill_number() -> str:
    for _ in range(10):
        ref = str(secrets.randbelow(9 * 10**12) + 10**12)          # 13 digits, no leading zero
        if not await PaymentIntent.filter(method_reference=ref).exists():
            return ref
    raise InvalidState("Could not allocate a SADAD bill number; retry")      # pragma: no cover


# ---------------------------------------------------------------- test helpers

def _test_only(principal: Principal) -> None:
    if principal.livemode:
        raise PermissionDenied("Test helpers work with test keys only: use sk_test_...", code="test_mode_only")


async def _expired_now(intent: PaymentIntent, now: datetime) -> PaymentIntent:
    """Past its expires_at: failed with `expired` now (the scheduler may be behind)."""
    if intent.status == "requires_action" and intent.expires_at is not None and now >= intent.expires_at:
        await expire(intent.id, now)
        intent = await PaymentIntent.get(id=intent.id)
    return intent


async def sadad_pay(*, principal: Principal, data: Any) -> PaymentIntent:
    """Test helper: the buyer's bank pays the SADAD bill. Test keys only (403)."""
    _test_only(principal)
    f = Fields(data)
    reference = f.str("reference", required=True, max_len=40)
    f.reject_unknown()
    intent = await PaymentIntent.get_or_none(method_reference=reference, payment_method=SADAD, **principal.scope)
    if intent is None:
        raise NotFound("No such SADAD bill", param="reference")
    if intent.status == "succeeded":
        raise InvalidState(f"SADAD bill {reference} was already paid", code="reference_already_paid",
                           param="reference")
    now = await now_for(principal)
    intent = await _expired_now(intent, now)
    if intent.status != "requires_action":
        raise InvalidState(f"SADAD bill {reference} expired at {iso(intent.expires_at)} and can no longer be paid",
                           code="reference_expired", param="reference")
    if intent.amount == SADAD_NEVER_PAYS:
        raise PaymentDeclined("The bank declined to pay this SADAD bill (sandbox: a 500.00 SAR bill never pays); "
                              "it stays unpaid until it expires", decline_code="sadad_declined", param="reference")
    return await local_methods._succeed(
        intent, now, {**(intent.method_details or {}), "paid_at": iso(now), "channel": "bank"}, "sadad_" + reference)


async def request_to_pay_answer(*, principal: Principal, data: Any, approve: bool) -> PaymentIntent:
    """Test helper: the buyer approves or rejects the request to pay in their bank app."""
    _test_only(principal)
    f = Fields(data)
    intent_id = check_id(f.str("payment_intent", required=True, max_len=64), "payment_intent")
    f.reject_unknown()
    intent = await PaymentIntent.get_or_none(id=intent_id, **principal.scope)
    if intent is None or intent.payment_method not in RTP:
        raise NotFound("No such CliQ or Aani payment intent", param="payment_intent")
    now = await now_for(principal)
    intent = await _expired_now(intent, now)
    if intent.status != "requires_action":
        expired = intent.failure_code == "expired"
        raise InvalidState(f"The request to pay is {'expired' if expired else 'over: the intent is ' + intent.status}"
                           " and can no longer be answered",
                           code="request_expired" if expired else "request_finished", param="payment_intent")
    details = dict(intent.method_details or {})
    name = "CliQ" if intent.payment_method == "cliq" else "Aani"
    if approve:
        details.update(result="approved", paid_at=iso(now))
        return await local_methods._succeed(intent, now, details, f"{intent.payment_method}_{details['request_id']}")
    details["result"] = "rejected"
    return await local_methods._fail(intent, now, "rtp_rejected", f"The buyer rejected the {name} request to pay",
                                     details)


# ---------------------------------------------------------------- expiry and refunds

async def expire(intent_id: str, when: datetime) -> bool:
    """A bill or a request to pay not paid by its expires_at: the intent fails with `expired`."""
    intent = await PaymentIntent.get_or_none(id=intent_id)
    if intent is None or intent.payment_method not in METHODS or intent.status != "requires_action" \
            or when < intent.expires_at:
        return False
    what = "SADAD bill" if intent.payment_method == SADAD else "request to pay"
    try:
        await local_methods._fail(intent, when, "expired", f"The {what} was not paid before it expired")
    except DomainError:
        return False
    return True


def check_refundable(intent) -> None:
    """SADAD pays nothing back: the merchant refunds the buyer directly. A CliQ or Aani refund is
    a return payment, as a card's refund (partial or full, in all at most the amount)."""
    if intent.payment_method == SADAD:
        raise ValidationError("A SADAD bill payment cannot be refunded through SADAD: refund the buyer directly",
                              code="refund_not_supported", param="id")


def install() -> None:
    """Called when the app starts (app/jobs.py): these flows become local methods."""
    local_methods.use_rail(METHODS, sys.modules[__name__])
