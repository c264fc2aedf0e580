"""`POST /api/payments/create` for the common body, beside the generic create
(services.payments.payments.create_payment).

The common body: a card (`payment_method.type` card or left out, with `number`, `exp_month`,
`exp_year`, `cvc`, and perhaps `billing_country`), the customer by e-mail, name or phone or by
`customer_id`, `metadata`, `description`, `capture` / `capture_method`, sent with a secret key (or
a member's session) and no idempotency key. Anything else -- a wallet token, mada/troy/meeza as the
type, installments, a routing choice, marketplace splits, an invoice or e-receipt, a customer by id
in `customer`, a field of the wrong type, an idempotency key -- is the generic create's, and so is
every refusal.

The request: decoded and typed in one pass by msgspec Structs made once at import, then held to the
generic create's own value checks (the same functions); whatever refuses, the generic create runs
and answers the documented 400 naming the field. What it makes is the generic create's
`CreateRequest`, equal field by field (tests/test_hot_payment_create.py), handed to the same
decision and write: the risk score, the routing decision and its cascade, the ledger, the rollups,
the receipt and the event are one code, not two. The write is lookup.insert_all's one statement
(one JSON parameter per table, each model's row encoder written once).
"""
from __future__ import annotations

from typing import Any

import msgspec

from services.errors import DomainError
from services.money.currencies import check_amount, check_currency
from services.payments import cards, customers, methods, payments, routing
from services.payments.payments import CreateRequest
from services.principal import Principal
from services.validation import Fields, check_metadata, check_str


class _Card(msgspec.Struct, forbid_unknown_fields=True):
    number: Any = None
    exp_month: Any = None
    exp_year: Any = None
    cvc: Any = None


class _Method(msgspec.Struct, forbid_unknown_fields=True):
    card: dict[str, Any]
    type: str | None = None
    billing_country: str | None = None


class _Customer(msgspec.Struct, forbid_unknown_fields=True):
    email: str | None = None
    name: str | None = None
    phone: str | None = None


class Body(msgspec.Struct, forbid_unknown_fields=True):
    """The common create body, typed; a body this refuses goes to the generic create."""
    amount: int
    currency: str
    payment_method: _Method
    customer: _Customer | None = None
    customer_id: str | None = None
    metadata: dict[str, Any] | None = None
    description: str | None = None
    capture: bool | None = None
    capture_method: str | None = None


_DECODE = msgspec.json.Decoder(Body).decode
_NO_CHOICE = routing.parse_choice(None)      # a frozen Choice: the router's own default


def request_of(raw: bytes) -> CreateRequest | None:
    """The generic create's CreateRequest for a common body, or None (the generic create reads it)."""
    if b"\\u0000" in raw:
        return None
    try:
        b = _DECODE(raw)
    except msgspec.MsgspecError:
        return None
    pm = b.payment_method
    if pm.type not in (None, "card") or b.capture_method not in (None, "automatic", "manual"):
        return None
    try:
        currency = check_currency(b.currency)
        amount = check_amount(b.amount, currency)
        card = cards.parse_card(pm.card)
        methods.check_mada_card("card", card, currency, "payment_method.card")
        billing = None
        if pm.billing_country is not None:
            billing = check_str(pm.billing_country, "payment_method.billing_country",
                                pattern=payments._COUNTRY).upper()
        customer = None
        if b.customer is not None:
            given = {k: v for k, v in (("email", b.customer.email), ("name", b.customer.name),
                                       ("phone", b.customer.phone)) if v is not None}
            customer = customers.parse_payment_customer(Fields(given, "customer"))
        customer_id = None if b.customer_id is None else check_str(b.customer_id, "customer_id", max_len=40)
        metadata = (check_metadata(b.metadata, "metadata") if b.metadata is not None else None) or {}
        description = None if b.description is None else check_str(b.description, "description", max_len=500)
    except DomainError:
        return None
    capture = b.capture
    if capture is not None and b.capture_method is not None and capture != (b.capture_method == "automatic"):
        return None
    do_capture = capture if capture is not None else b.capture_method != "manual"
    if card.brand in methods.PURCHASE_ONLY and not do_capture:
        return None
    return CreateRequest(installments=None, amount=amount, currency=currency, card=card, choice=_NO_CHOICE,
                         capture=do_capture, customer=customer, customer_id=customer_id, billing_country=billing,
                         metadata=metadata, description=description, invoice=False, wallet_value=None,
                         eta_receipt=False, splits_raw=None)


async def create(principal: Principal, raw: bytes, idempotency_key: str | None, client_address: str | None):
    """The new payment (as the generic create makes it; a decline raises PaymentDeclined), or None:
    the generic create must answer."""
    if idempotency_key is not None or principal.kind == "publishable":
        return None
    req = request_of(raw)
    if req is None:
        return None
    return await payments.create_from_request(principal, req, client_address)
