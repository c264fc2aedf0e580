"""The regional redirect rails: NAPS/QPay (`naps`, QAR), OmanNet (`omannet`, OMR) and Egypt's
mobile wallets (`eg_wallet`, EGP). Each is paid as KNET is: confirm answers a redirect to the
scheme's sandbox page under pay_url, the buyer answers there and goes back to `return_url`.
services.payments.local_methods runs the intent's transitions (it imports this module, never the
other way); this module says what each page asks and what an answer means:

- NAPS: bank, card number, 4-digit PIN (as KNET's page).
- OmanNet: card number and expiry, then the issuer's one-time code (no PIN). Only the sandbox
  approved card gets a code; any other card is NOT CAPTURED at once (the issuer declines
  before sending one); a wrong code is NOT CAPTURED.
- eg_wallet: the wallet PIN (6 digits) and the SMS code (6 digits) for the intent's phone;
  a wrong PIN or code asks again, the third wrong answer fails the intent
  (`otp_attempts_exceeded`). The request lives 3 hours from confirm.

Purchase only; OmanNet refunds in full only. Nothing here keeps a card number, expiry, PIN or
code: the intent's method_details hold the step, the attempts left and the scheme's references.
"""
from __future__ import annotations

import hmac
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import phonenumbers

from services.errors import ValidationError

TYPES = ("naps", "omannet", "eg_wallet")
EG_WALLET_HOURS = 3
ATTEMPTS = 3
SANDBOX_APPROVED = "8888880000000001"
SANDBOX_NAPS_PIN = "1234"
SANDBOX_CODE = "123456"                   # OmanNet's one-time code; the wallet's SMS code
SANDBOX_WALLET_PHONE = "+201010101010"    # 01010101010
SANDBOX_WALLET_PIN = "123456"
BANKS: dict[str, tuple[tuple[str, str], ...]] = {
    "naps": (("QNB", "Qatar National Bank"), ("CBQ", "Commercial Bank of Qatar"), ("DOHA", "Doha Bank"),
             ("QIB", "Qatar Islamic Bank"), ("MAR", "Masraf Al Rayan"), ("AHLI", "Ahli Bank"),
             ("DUKHAN", "Dukhan Bank"), ("QIIB", "Qatar International Islamic Bank")),
}
_EG_MOBILE = re.compile(r"01[0125]\d{8}")
_CARD = re.compile(r"\d{16}")
_PIN4 = re.compile(r"\d{4}")
_SIX = re.compile(r"\d{6}")
_EXPIRY = re.compile(r"(\d{2})\s*/\s*(\d{2}|\d{4})")


def check_eg_phone(value: Any, param: str = "phone") -> str:
    """An Egyptian mobile number (01 0/1/2/5 and 8 digits; spaces and +20 are fine) -> E.164."""
    message = f"{param} must be an Egyptian mobile number: 010, 011, 012 or 015 and 8 digits"
    if not isinstance(value, str) or len(value) > 32:
        raise ValidationError(message, param=param)
    try:
        parsed = phonenumbers.parse(value, "EG")
    except phonenumbers.NumberParseException:
        raise ValidationError(message, param=param) from None
    national = "0" + phonenumbers.national_significant_number(parsed)
    if parsed.country_code != 20 or not _EG_MOBILE.fullmatch(national) \
            or not phonenumbers.is_valid_number(parsed):
        raise ValidationError(message, param=param)
    return phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.E164)


def check_capture_method(value: Any, method: str) -> None:
    """`capture_method` on create: these rails are purchase only (automatic)."""
    if value is None or value == "automatic":
        return
    if value == "manual":
        raise ValidationError(f"{method} is purchase only: the payment is captured when the buyer pays, "
                              "capture_method manual is not available", param="capture_method",
                              code="capture_not_supported")
    raise ValidationError("capture_method must be automatic or manual", param="capture_method")


def check_refund(intent, amount: int | None) -> None:
    """OmanNet refunds the whole payment only."""
    if intent.payment_method == "omannet" and amount is not None and amount != intent.amount_received:
        raise ValidationError("OmanNet refunds the whole payment only: leave amount out or send "
                              f"{intent.amount_received}", param="amount", code="partial_refund_not_supported")


def start_details(method: str) -> dict[str, Any]:
    """What a fresh redirect keeps on the intent for the page."""
    if method == "omannet":
        return {"step": "card"}
    if method == "eg_wallet":
        return {"attempts_left": ATTEMPTS}
    return {}


@dataclass
class Answer:
    """What the buyer's answer on the page means: `approved` / `declined` (result: CAPTURED,
    NOT CAPTURED, CANCELED, or the failure code), `next` (the page asks its next step), `again`
    (a wrong PIN or code: the page asks again with `message` naming `param`)."""
    outcome: str
    result: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    message: str = ""
    param: str | None = None


def _check(value: Any, pattern: re.Pattern, param: str, what: str) -> str:
    text = value.replace(" ", "") if isinstance(value, str) else ""
    if not pattern.fullmatch(text):
        raise ValidationError(f"{param} must be {what}", param=param)
    return text


def _check_expiry(value: Any, now: datetime) -> None:
    m = _EXPIRY.fullmatch(value.strip()) if isinstance(value, str) else None
    month, year = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
    year = year + 2000 if year < 100 else year
    if not 1 <= month <= 12:
        raise ValidationError("expiry must be the card's expiry date as MM/YY", param="expiry")
    if (year, month) < (now.year, now.month):
        raise ValidationError("expiry is in the past: this card has expired", param="expiry",
                              code="expired_card")


def answer(method: str, details: dict[str, Any], form: dict[str, Any], now: datetime) -> Answer:
    """Read the buyer's answer (a malformed field: 400 naming it; the page asks again)."""
    action = form.get("action") or "pay"
    if action not in ("pay", "cancel"):
        raise ValidationError("action must be one of pay, cancel", param="action")
    if action == "cancel":
        return Answer("declined", "CANCELED")
    if method == "naps":
        bank = form.get("bank")
        if bank not in [c for c, _ in BANKS["naps"]]:
            raise ValidationError(f"bank must be one of {', '.join(c for c, _ in BANKS['naps'])}", param="bank")
        card = _check(form.get("card_number"), _CARD, "card_number", "16 digits")
        pin = _check(form.get("pin"), _PIN4, "pin", "4 digits")
        ok = hmac.compare_digest(card, SANDBOX_APPROVED) and hmac.compare_digest(pin, SANDBOX_NAPS_PIN)
        return Answer("approved" if ok else "declined", "CAPTURED" if ok else "NOT CAPTURED", {"bank": bank})
    if method == "omannet":
        if details.get("step") == "code":
            code = _check(form.get("code"), _SIX, "code", "the 6 digits of the one-time code")
            ok = hmac.compare_digest(code, SANDBOX_CODE)
            return Answer("approved" if ok else "declined", "CAPTURED" if ok else "NOT CAPTURED", {"step": None})
        card = _check(form.get("card_number"), _CARD, "card_number", "16 digits")
        _check_expiry(form.get("expiry"), now)
        if not hmac.compare_digest(card, SANDBOX_APPROVED):
            return Answer("declined", "NOT CAPTURED", {"step": None})
        return Answer("next", details={"step": "code"})
    # eg_wallet: the PIN and the SMS code together
    pin = _check(form.get("pin"), _SIX, "pin", "the 6 digits of the wallet PIN")
    code = _check(form.get("code"), _SIX, "code", "the 6 digits of the SMS code")
    pin_ok = details.get("phone") == SANDBOX_WALLET_PHONE and hmac.compare_digest(pin, SANDBOX_WALLET_PIN)
    code_ok = hmac.compare_digest(code, SANDBOX_CODE)
    if pin_ok and code_ok:
        return Answer("approved", "CAPTURED", {"attempts_left": None})
    left = int(details.get("attempts_left", ATTEMPTS)) - 1
    if left <= 0:
        return Answer("declined", "otp_attempts_exceeded", {"attempts_left": 0})
    wrong = "pin" if not pin_ok else "code"
    return Answer("again", details={"attempts_left": left}, param=wrong,
                  message=f"The wallet {'PIN' if wrong == 'pin' else 'SMS code'} is wrong: "
                          f"{left} attempt{'s' if left > 1 else ''} left")


def object_fields(method: str, d: dict[str, Any]) -> dict[str, Any]:
    """The scheme's part of `payment_method_details` (no number, PIN or code)."""
    out = {k: d.get(k) for k in ("payment_id", "transaction_id", "reference_number", "result")}
    if method == "naps":
        out["bank"] = d.get("bank")
    if method == "eg_wallet":
        phone = d.get("phone")
        out.update(phone_hint="****" + phone[-4:] if phone else None, attempts_left=d.get("attempts_left"))
    return out
