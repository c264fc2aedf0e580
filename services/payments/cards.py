"""Card data: parse and check a card (Luhn, brand, expiry), fingerprint it, and know the
sandbox test cards. Reused by the `/v1` intents.

API (all pure except `parse_card`, which reads the clock and the secret key from `runtime()`):

- `parse_card(data, param="payment_method.card") -> Card`: validates `number`, `exp_month`,
  `exp_year`, `cvc` of a JSON object; an invalid number or a past expiry is a
  ValidationError (400) naming the field. The returned `Card` holds the number only in
  memory (`repr` hides it) so a provider can be called; store `card.public()` instead.
- `card_from_number(number, exp_month, exp_year)` : the same for a number you already hold
  (e.g. a `/v1` test token mapped through `TEST_CARDS`).
- `fingerprint(number)`: HMAC-SHA256 of the digits with `runtime().config.secret_key`: the
  same card gives the same fingerprint for the whole platform, and the fingerprint reveals nothing.
- `identify(digits) -> (brand, networks, country)`: what a number or BIN is, the scheme tables
  first (mada, Meeza, the Turkish BIN table's Troy rows), then the prefix.
- `luhn_valid(number)`, `brand_of(number)`, `TEST_CARDS` (name -> number), `SANDBOX` (number
  -> behaviour the sandbox providers act on).
- `card_networks(brand, stored=None) -> list[str]`: the networks a card carries, as every answer
  shows them (`card.networks`): the stored list, else the brand's own network.

Never store, log or put into an error the number or the CVC.
"""
from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from services.errors import ValidationError
from services.payments import card_bins, mada
from services.infra.runtime import runtime
from services.validation import Fields

# Behaviours the sandbox providers implement (services/providers/sandbox.py).
APPROVE = "approve"
DECLINE = "decline"                        # hard issuer decline: card_declined
INSUFFICIENT_FUNDS = "insufficient_funds"  # hard issuer decline: insufficient_funds
PROCESSING_ERROR_ONCE = "processing_error_once"   # error at the first provider, fine at the next
REQUIRES_3DS = "requires_3ds"              # needs 3-D Secure before authorization
# Dunning test card: approved when paid with, but every later charge of the saved card
# (renewals, retries) is declined with card_declined.
SAVED_THEN_DECLINE = "saved_then_decline"
# Expired at the issuer (the expiry given is in the future): a hard decline, expired_card.
EXPIRED_CARD = "expired_card"
# Dispute test card: approved, then disputed by the cardholder one day later (services.disputes).
DISPUTED = "disputed"

SANDBOX: dict[str, str] = {
    "4242424242424242": APPROVE,
    "4000000000000002": DECLINE,
    "4000000000009995": INSUFFICIENT_FUNDS,
    "4000000000000119": PROCESSING_ERROR_ONCE,
    "4000002500003155": REQUIRES_3DS,
    "4000000000000341": SAVED_THEN_DECLINE,
    "4000000000000259": DISPUTED,
    "9682010000000005": INSUFFICIENT_FUNDS,      # mada, declined: insufficient funds
    "5078036231985581": INSUFFICIENT_FUNDS,      # Meeza, declined: insufficient funds
    "5078036242783546": EXPIRED_CARD,            # Meeza, declined: expired card
}

TEST_CARDS: dict[str, str] = {
    "visa": "4242424242424242",
    "mastercard": "5555555555554444",
    "troy": "9792000000000003",
    "declined": "4000000000000002",
    "insufficient_funds": "4000000000009995",
    "processing_error": "4000000000000119",
    "threeDSecureRequired": "4000002500003155",
    "saved_then_declined": "4000000000000341",
    "disputed": "4000000000000259",
    "visa_tr": "4000007920000004",
    "visa_sa": "4000006820000007",
    "visa_ae": "4000007840000001",
    "mada": "5888450000000003",
    "mada_visa": "4464040000000007",
    "mada_insufficient_funds": "9682010000000005",
    # Troy (the Turkish BIN table): Yerel 9792... (troy only, TRY only), Global 65... (troy and discover).
    "troy_axess": "9792072000017956",
    "troy_cardfinans": "9792030000000000",
    "troy_debit": "9792020000000001",
    "troy_prepaid": "9792395412651264",
    "troy_global_world": "6501700194147183",
    "troy_global_maximum": "6501738564461396",
    "troy_global_debit": "6500528865390837",
    "troy_global_prepaid": "6504576578126549",
    "discover": "6011003179988686",
    # Meeza (Egypt, EGP only)
    "meeza": "5078036246600381",
    "meeza_2": "5078086700053445",
    "meeza_insufficient_funds": "5078036231985581",
    "meeza_expired_card": "5078036242783546",
}

# The national schemes whose own BIN table decides the brand: the country each card is issued in.
SCHEME_COUNTRY: dict[str, str] = {"mada": "SA", "troy": "TR", "meeza": "EG"}
TROY_LENGTH = 16

# Issuing country by BIN prefix (sandbox cards; a real BIN table is configuration).
ISSUER_COUNTRY: dict[str, str] = {
    "400000792": "TR", "400000682": "SA", "400000784": "AE", "400000414": "KW",
    "400000634": "QA", "400000818": "EG", "400000368": "IQ",
}

_DIGITS = re.compile(r"\d{12,19}")
_CVC = re.compile(r"\d{3,4}")


def luhn_valid(number: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(number)):
        d = ord(ch) - 48
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def brand_of(number: str) -> str:
    if number.startswith("4"):
        return "visa"
    if number[:2] in ("34", "37"):
        return "amex"
    if number.startswith("9792"):
        return "troy"
    p2, p4 = int(number[:2]), int(number[:4])
    if 51 <= p2 <= 55 or 2221 <= p4 <= 2720:
        return "mastercard"
    if number.startswith("6011") or number.startswith("65"):
        return "discover"
    if number.startswith("62"):
        return "unionpay"
    return "unknown"


def card_networks(brand: str | None, stored: Iterable[str] | None = None) -> list[str]:
    """The networks a card carries: the stored list when there is one (a mada card's, e.g.
    ["mada", "visa"] when co-badged), else the brand's own network (["visa"]); a row stored before
    every card kept its networks had none for a non-mada card. A mada card whose list was lost is
    ["mada"]; a card of no known brand carries none we can name."""
    if stored:
        return list(stored)
    return [brand] if brand and brand != "unknown" else []


def identify(digits: str) -> tuple[str, tuple[str, ...], str | None]:
    """(brand, networks, issuing country) of a card number or BIN: a BIN in the mada table is
    mada, in the Meeza table meeza, a troy row of the Turkish table troy (a 65... BIN: Troy Global,
    troy and discover); 9792... troy (Yerel); anything else its brand by prefix."""
    found = mada.networks_of(digits)
    if found:
        return "mada", found, SCHEME_COUNTRY["mada"]
    if card_bins.is_meeza(digits):
        return "meeza", ("meeza",), SCHEME_COUNTRY["meeza"]
    row = card_bins.tr_row(digits)
    if row is not None and row.brand == "troy":
        return "troy", row.networks, SCHEME_COUNTRY["troy"]
    brand = brand_of(digits)
    if brand == "troy":
        return "troy", ("troy",), SCHEME_COUNTRY["troy"]
    return brand, tuple(card_networks(brand)), issuer_country(digits)


def issuer_country(number: str) -> str | None:
    return ISSUER_COUNTRY.get(number[:9])


def fingerprint(number: str) -> str:
    key = runtime().config.secret_key.encode()
    return hmac.new(key, b"card:" + number.encode(), hashlib.sha256).hexdigest()[:32]


@dataclass(frozen=True)
class Card:
    """A checked card. `number` and `cvc` live only in memory for the provider call."""

    brand: str
    last4: str
    exp_month: int
    exp_year: int
    fingerprint: str
    country: str | None
    behaviour: str
    number: str = field(repr=False)
    cvc: str | None = field(default=None, repr=False)
    # The networks the card carries: ("visa",), ("mastercard",), a mada card's ("mada",) or ("mada", "visa")
    # when co-badged. Empty only for a card built from a row that did not keep them (card_networks fills them).
    networks: tuple[str, ...] = ()

    @property
    def is_mada(self) -> bool:
        return self.brand == "mada"

    def public(self) -> dict[str, Any]:
        """What may be stored and shown."""
        return {"brand": self.brand, "last4": self.last4, "exp_month": self.exp_month,
                "exp_year": self.exp_year, "fingerprint": self.fingerprint, "country": self.country}


def saved_behaviour(card: "Card") -> str:
    """How a later charge of this card, saved from a successful payment, behaves in the sandbox."""
    return DECLINE if card.behaviour == SAVED_THEN_DECLINE else card.behaviour


def _check_expiry(exp_month: int, exp_year: int, param: str) -> None:
    now = runtime().clock.now()
    if (exp_year, exp_month) < (now.year, now.month):
        raise ValidationError("The card has expired", param=f"{param}.exp_year")


def card_from_number(number: str, exp_month: int, exp_year: int, cvc: str | None = None,
                     param: str = "payment_method.card") -> Card:
    number = re.sub(r"[ -]", "", number) if isinstance(number, str) else number
    if not isinstance(number, str) or not _DIGITS.fullmatch(number) or not luhn_valid(number):
        raise ValidationError("The card number is invalid", param=f"{param}.number")
    # A BIN in a scheme's table makes a card of that scheme (mada, Meeza, Troy), whatever the request said.
    brand, networks, country = identify(number)
    if brand == "troy" and len(number) != TROY_LENGTH:
        raise ValidationError(f"The card number is invalid: a Troy card number has {TROY_LENGTH} digits",
                              param=f"{param}.number")
    _check_expiry(exp_month, exp_year, param)
    return Card(brand=brand, last4=number[-4:], exp_month=exp_month, exp_year=exp_year,
                fingerprint=fingerprint(number), country=country,
                behaviour=SANDBOX.get(number, APPROVE), number=number, cvc=cvc,
                networks=tuple(card_networks(brand, networks)))


def parse_card(data: Mapping[str, Any] | None, param: str = "payment_method.card") -> Card:
    if data is None:
        raise ValidationError(f"{param} is required", param=param)
    f = data if isinstance(data, Fields) else Fields(data, param)
    number = f.str("number", required=True, max_len=40)
    exp_month = f.int("exp_month", required=True, min=1, max=12)
    exp_year = f.int("exp_year", required=True, min=0, max=9999)
    if exp_year < 100:
        exp_year += 2000
    cvc = f.str("cvc", max_len=4)
    if cvc is not None and not _CVC.fullmatch(cvc):
        raise ValidationError("The CVC must be 3 or 4 digits", param=f"{param}.cvc")
    f.reject_unknown()
    return card_from_number(number, exp_month, exp_year, cvc, param=param)
