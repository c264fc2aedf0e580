"""`POST /v1/payments/intent` on PostgreSQL for the common body, beside the generic create
(services.payments.intents.create_intent).

The common body: a card-like method (`card`, `mada`, `troy`, `meeza`, `tap_to_pay`) with any of
`customer_id`, `order_id`, `description`, `statement_descriptor`, `metadata`, `locale` and one's
own `merchant_id`, sent with a secret key or a member's session and no idempotency key. Anything
else (another method, splits, installments, an e-receipt or invoice, a wallet token, an
idempotency key, a field of the wrong type) is the generic create's, and so is every refusal:
the body is decoded and typed by a msgspec Struct made once at import, then held to the
generic create's own checks (the same functions, in the same order); when the Struct or a check
refuses, the generic create runs and answers the documented 400 naming the field.

What the hot create does not do that the generic one does: a Fields reader per body, model
instances for the intent, its event, the event's waiting row and the list's counter slot (and
their per-field conversion), the answer built from the model by attribute, and the answer encoded
twice. Here the four rows are written by one hand-written statement (WRITE_SQL: 25 parameters,
the twin's 19, where insert_all passes a JSON document per table), and the answer's JSON is encoded
once: it is the response body and the `payment.created` event's payload.

tests/test_hot_intent_create.py holds the two creates to the same rows and the same answer.
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import msgspec
import orjson

from models import _lookup as lookup
from models._rows import counter_slot
from models.intents import PaymentIntent
from services.errors import DomainError
from services.ids import new_id
from services.infra import telemetry
from services.infra.runtime import runtime
from services.money import markets, settlement
from services.payments import intents, intents_hot, pricing
from services.payments import methods as methods_registry
from services.principal import Principal
from services.timestamps import iso
from services.validation import MAX_INT, check_int, check_str

HOT_METHODS = frozenset({"card", "mada", "troy", "meeza", "tap_to_pay"})
_LOCALES = frozenset(pricing.LOCALES)


class Body(msgspec.Struct, forbid_unknown_fields=True):
    """The common create body, typed; a body this refuses goes to the generic create."""
    amount: int
    currency: str
    payment_method: str
    customer_id: str | None = None
    order_id: str | None = None
    description: str | None = None
    statement_descriptor: str | None = None
    metadata: dict[str, str] | None = None
    locale: str | None = None
    merchant_id: str | None = None


_DECODE = msgspec.json.Decoder(Body).decode
# The intent, its `payment.created` event (the answer as its payload) and the event's waiting row,
# and the list's counter slot: one statement, 25 parameters, every other column its default
# (written here: the model's defaults are Python's, not the table's). lookup.insert_all writes the
# same rows for the generic create (tests/test_hot_intent_create.py compares them column by column).
WRITE_SQL = """WITH i AS (
    INSERT INTO "payment_intents" ("id", "merchant_id", "livemode", "status", "amount", "currency", "amount_received",
        "amount_refunded", "payment_method", "customer_id", "order_id", "description", "statement_descriptor",
        "metadata", "locale", "fee_amount", "fee_rate", "fee_processing", "fee_conversion", "fee_network",
        "net_amount", "settlement_date", "created_at", "expires_at", "version", "installment_count",
        "invoice_requested")
    VALUES ($1, $2, $3, 'requires_payment_method', $4, $5, 0, 0, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
        $17, $18, $19, $20, $21, 0, 1, false)),
  e AS (INSERT INTO "events" ("id", "merchant_id", "livemode", "type", "object_id", "data", "created_at")
        VALUES ($22, $2, $3, 'payment.created', $1, $23, $24)),
  w AS (INSERT INTO "events_waiting" ("event_id", "merchant_id", "livemode", "type", "created_at")
        VALUES ($22, $2, $3, 'payment.created', $24)),
  c AS (INSERT INTO "list_counts" ("merchant_id", "livemode", "kind", "slot", "n") VALUES ($2, $3, 'intents', $25, 1)
        ON CONFLICT ("merchant_id", "livemode", "kind", "slot") DO UPDATE SET "n" = "list_counts"."n" + 1)
SELECT 1"""
_STRINGS = (("merchant_id", 44), ("customer_id", 64), ("order_id", 200), ("description", 1000),
            ("statement_descriptor", 22))

def _checked(principal: Principal, b: Body) -> dict[str, Any] | None:
    """The generic create's checks of these fields, in its order; None: one refuses (the generic
    create answers it) or the body is not the common one."""
    try:
        currency = pricing.check_currency(b.currency)
        amount = pricing.check_intent_amount(check_int(b.amount, "amount", min=-MAX_INT), currency)
        method = b.payment_method
        if method not in HOT_METHODS:
            return None
        m = methods_registry.check_method_currency(method, currency)
        methods_registry.check_method_amount(m, amount, currency)
        out = {"currency": currency, "amount": amount, "payment_method": method}
        for name, max_len in _STRINGS:
            value = getattr(b, name)
            out[name] = None if value is None else check_str(value, name, max_len=max_len)
        if out["merchant_id"] is not None and out["merchant_id"] != principal.merchant_id:
            return None
        out["metadata"] = intents._check_metadata(b.metadata)
    except DomainError:
        return None
    if b.locale is not None and b.locale not in _LOCALES:
        return None
    out["locale"] = b.locale
    return out


async def create(principal: Principal, raw: bytes, idempotency_key: str | None) -> bytes | None:
    """The created intent's JSON (the 201 body), or None: the generic create must answer."""
    if idempotency_key is not None or b"\\u0000" in raw:
        return None
    try:
        body = _DECODE(raw)
    except msgspec.MsgspecError:
        return None
    made = await _create(principal, body)
    return None if made is None else made[1]


async def create_from_input(principal: Principal, data: dict[str, Any]) -> tuple[dict, Any] | None:
    """GraphQL `paymentIntentCreate`'s input (as a dict of snake_case fields): the intent's object
    and its dates (for schema.intents.PaymentIntent.of), or None: the generic create must answer."""
    if b"\\u0000" in orjson.dumps(data):       # a NUL anywhere (JSON escapes it): the generic create's 400
        return None
    try:
        body = msgspec.convert(data, Body)
    except msgspec.MsgspecError:
        return None
    made = await _create(principal, body)
    return None if made is None else (made[0], made[2])


async def _create(principal: Principal, body: Body) -> tuple[dict, bytes, SimpleNamespace] | None:
    if principal.kind == "publishable" or not intents_hot.available():
        return None
    v = _checked(principal, body)
    if v is None:
        return None
    merchant_id, livemode = principal.merchant_id, principal.livemode
    currency, amount, method = v["currency"], v["amount"], v["payment_method"]
    market = await markets.cached_market_of(merchant_id)
    now = await intents.now_for(principal)
    fee = pricing.compute_fee(amount=amount, currency=currency, method=method,
                              home_currency=pricing.MARKET_CURRENCY[market], network_fee_usd=0)
    iid = new_id("pay")
    net = amount - fee.amount
    settles = settlement.settlement_date(market, now)
    expires = now + intents.EXPIRY
    fee_rate = f"{fee.rate:f}"
    metadata = v["metadata"]
    config = runtime().config
    answer = {
        "id": iid, "object": "payment_intent", "status": "requires_payment_method", "amount": amount,
        "currency": currency, "amount_received": 0, "amount_refunded": 0, "payment_method": method,
        "payment_method_id": None, "checkout_url": f"{config.pay_url.rstrip('/')}/{iid}",
        "client_secret": f"{iid}_secret_{intents._sign('client_secret', iid)}",
        "fee": {"amount": fee.amount, "currency": currency, "rate": fee_rate,
                "breakdown": {"processing": fee.processing, "currency_conversion": fee.currency_conversion,
                              "network": fee.network}},
        "net_amount": net, "settlement_date": settles.isoformat(), "merchant_id": merchant_id,
        "customer_id": v["customer_id"], "order_id": v["order_id"], "description": v["description"],
        "statement_descriptor": v["statement_descriptor"], "metadata": metadata or {}, "locale": v["locale"],
        "created_at": iso(now), "expires_at": iso(expires), "succeeded_at": None, "canceled_at": None,
        "cancellation_reason": None, "livemode": livemode, "next_action": None, "receipt_url": None,
        "failure_code": None, "failure_message": None, "split": [], "installments": None, "eta_receipt": None,
        "invoice_id": None, "gib": None,
    }
    encoded = orjson.dumps(answer)
    telemetry.event("payment.created", answer)
    await lookup.fetch_hot(PaymentIntent._meta.db, WRITE_SQL, (
        iid, merchant_id, livemode, amount, currency, method, v["customer_id"], v["order_id"], v["description"],
        v["statement_descriptor"], None if metadata is None else orjson.dumps(metadata).decode(), v["locale"],
        fee.amount, fee_rate, fee.processing, fee.currency_conversion, fee.network, net, settles, now, expires,
        new_id("evt"), encoded.decode(), runtime().clock.now(), counter_slot(iid)))
    return answer, encoded, SimpleNamespace(settlement_date=settles, created_at=now, expires_at=expires,
                                            succeeded_at=None, canceled_at=None)

