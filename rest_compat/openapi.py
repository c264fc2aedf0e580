"""The OpenAPI 3.1 document of the REST interfaces, generated from the route tables.

Each route of a table (rest_compat/merchant_api.py, merchant_payments.py, merchant_webhooks.py,
intents_v1.py, crm_api.py) has one entry here, keyed by (interface name, method, path): its
request body, success body, query parameters and the error statuses it adds to the ones every
route has. The tables give method, path, auth, status and summary; this module gives the
schemas; `document()` joins them, so a route without an entry is an error (tested), and the
enumerations come from the services that validate them. A response schema lists exactly what
the shaper returns (the pytest contract test and schemathesis hold them to it).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rest_compat.routing import Interface, Route
from services.identity import api_keys
from services.money import currencies as money
from services.payments import crypto, intents, links, payments, pricing, routing
from services.crm import accounts as crm_accounts
from services.crm import currency as crm_currency
from services.crm import deals as crm_deals
from services.events import EVENT_TYPES
from services.pagination import DEFAULT_PAGE, MAX_PAGE
from services.validation import MAX_INT

# ---------------------------------------------------------------- schema helpers

STR: dict = {"type": "string"}
INT: dict = {"type": "integer"}
BOOL: dict = {"type": "boolean"}
TS: dict = {"type": "string", "format": "date-time"}
DATE: dict = {"type": "string", "format": "date"}
DECIMAL: dict = {"type": "string", "pattern": r"^-?[0-9]+(\.[0-9]+)?$", "description": "a decimal as text"}


def null(schema: dict) -> dict:
    """The same schema, or null."""
    out = dict(schema)
    t = out.get("type")
    if isinstance(t, str):
        out["type"] = [t, "null"]
    elif "$ref" in out:
        return {"anyOf": [out, {"type": "null"}]}
    if "enum" in out:
        out["enum"] = [*out["enum"], None]
    return out


def enum(values, *, type_: str = "string") -> dict:
    return {"type": type_, "enum": list(values)}


def const(value: str) -> dict:
    return {"type": "string", "const": value}


def arr(items: dict, **kw) -> dict:
    return {"type": "array", "items": items, **kw}


def ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def shape(props: dict[str, dict], *, optional: tuple[str, ...] = (), description: str | None = None) -> dict:
    """A response object: every property is always present unless named in `optional`; more
    properties may be added later (clients must ignore unknown ones)."""
    out: dict[str, Any] = {"type": "object", "properties": props,
                           "required": [k for k in props if k not in optional]}
    if description:
        out["description"] = description
    return out


def body(props: dict[str, dict], *, required: tuple[str, ...] = (), description: str | None = None) -> dict:
    """A request body: an object with these fields only (unknown fields are refused with 400)."""
    out: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        out["required"] = list(required)
    if description:
        out["description"] = description
    return out


def amount(minimum: int = 1) -> dict:
    return {"type": "integer", "minimum": minimum, "maximum": MAX_INT,
            "description": "minor units (kuruş, halala, fils; KWD and IQD have 3 decimals)"}


def text(max_len: int, min_len: int = 0, **kw) -> dict:
    out = {"type": "string", "maxLength": max_len, **kw}
    if min_len:
        out["minLength"] = min_len
    return out


CURRENCY = {"type": "string", "enum": list(money.CURRENCIES), "description": "ISO 4217 code"}
CRM_CURRENCY = {"type": "string", "enum": sorted(crm_currency.EXPONENTS),
                "description": "ISO 4217 code (the payment currencies and those deals are often quoted in)"}
METADATA = {"type": "object", "maxProperties": 50, "additionalProperties": {"type": "string", "maxLength": 500},
            "propertyNames": {"minLength": 1, "maxLength": 40}, "description": "string keys to string values"}
METADATA_OUT = {"type": "object", "description": "string keys to values, as sent"}


CAPPED = {"type": "boolean", "enum": [True],
          "description": "present when a filtered list matches more rows than its total counts (1,000): "
                         "the total is then that bound"}


def list_of(item: dict, *, total: str | None = "total", crm: bool = False) -> dict:
    props: dict[str, dict] = {}
    if crm:
        props["object"] = const("list")
    props["data"] = arr(item)
    props["has_more"] = BOOL
    if total:
        props[total] = INT
    if total == "total":
        props["total_capped"] = CAPPED
    if crm:
        props["next_cursor"] = null(STR)
    return shape(props, optional=("total_capped",))


# ---------------------------------------------------------------- parameters

@dataclass(frozen=True)
class Param:
    name: str
    schema: dict
    description: str = ""
    location: str = "query"
    required: bool = False

    def openapi(self) -> dict:
        out = {"name": self.name, "in": self.location, "required": self.required, "schema": self.schema}
        if self.description:
            out["description"] = self.description
        return out


LIMIT = Param("limit", {"type": "integer", "minimum": 1, "maximum": MAX_PAGE, "default": DEFAULT_PAGE},
              f"page size, 1 to {MAX_PAGE}")
STARTING_AFTER = Param("starting_after", text(64), "cursor: the id of the last object of the previous page")
PAGE = (LIMIT, STARTING_AFTER)


def q(name: str, schema: dict, description: str = "") -> Param:
    return Param(name, schema, description)


# ---------------------------------------------------------------- operations

@dataclass(frozen=True)
class Op:
    """What a route's row does not say: the schemas. `response` is the JSON success body (None
    with `media` for a non-JSON answer); `errors` are the statuses this operation adds to the
    ones every operation has (see `error_statuses`)."""

    response: dict | None
    request: dict | None = None
    query: tuple[Param, ...] = ()
    errors: tuple[int, ...] = ()
    media: str = "application/json"
    request_media: str = "application/json"
    description: str = ""
    headers: tuple[Param, ...] = ()


# ---- merchant /api

API_KEY = shape({"id": STR, "object": const("api_key"), "name": STR, "type": enum(api_keys.KINDS),
                 "prefix": STR, "mode": enum(api_keys.MODES), "status": enum(("active", "revoked")),
                 "created_at": TS, "last_used": null(TS)})
CUSTOMER = shape({"id": STR, "object": const("customer"), "email": null(STR), "name": null(STR),
                  "phone": null(STR), "metadata": METADATA_OUT, "created_at": TS})
CONDITION = {"type": "object", "required": ["field", "operator", "value"],
             "properties": {"field": enum(routing.CONDITION_FIELDS), "operator": enum(routing.OPERATORS),
                            "value": {"description": "a string, number, or a list of them for in / not_in"}}}
CONDITION_IN = {**CONDITION, "additionalProperties": False}
RULE = shape({"id": STR, "object": const("routing_rule"), "name": STR, "strategy": enum(routing.STRATEGIES),
              "priority": INT, "status": enum(("active", "inactive")), "conditions": arr(CONDITION),
              "provider": null(STR), "created_at": TS})
ROUTING_DECISION = {"type": "object", "description": "how the provider was chosen (empty when no attempt was made)",
                    "properties": {"strategy": STR, "reason": STR, "alternatives_considered": arr(STR),
                                   "latency_ms": INT}}
PAYMENT_STATUS = enum(payments.STATUSES)
RECEIPT = null(shape({"channel": enum(("messaging", "email")), "sent_to": STR,
                      "status": enum(("pending", "sent", "failed"))},
                     description="the automatic receipt to the customer (retrieve only)"))
PAYMENT = shape({
    "id": STR, "object": const("payment"), "status": PAYMENT_STATUS, "amount": INT, "currency": CURRENCY,
    "provider": null(STR), "routing_decision": ROUTING_DECISION, "risk_score": INT, "created_at": TS,
    "amount_captured": INT, "amount_refunded": INT, "capture_method": enum(("automatic", "manual")),
    "customer_id": null(STR), "decline_code": null(STR),
    "payment_method": shape({"type": STR, "card": shape({
        "brand": null(STR), "last4": null(STR), "exp_month": null(INT), "exp_year": null(INT),
        "fingerprint": null(STR), "country": null(STR)})}),
    "metadata": METADATA_OUT, "livemode": BOOL,
    "payment_link": null({"type": "string", "description": "the lnk_ id when paid on a payment link"}),
    "receipt_url": null({"type": "string", "description": "the HTML receipt (no key needed), once paid"}),
    "receipt": RECEIPT},
    optional=("receipt",))
PAYMENT_ITEM = shape({"id": STR, "status": PAYMENT_STATUS, "amount": INT, "currency": CURRENCY,
                      "provider": null(STR), "customer_id": null(STR), "created_at": TS})
CARD_IN = body({"number": text(40, description="card number (digits, spaces or dashes; Luhn-checked)"),
                "exp_month": {"type": "integer", "minimum": 1, "maximum": 12},
                "exp_year": {"type": "integer", "minimum": 0, "maximum": 9999, "description": "YYYY or YY"},
                "cvc": {"type": "string", "pattern": "^[0-9]{3,4}$"}},
               required=("number", "exp_month", "exp_year"))
ROUTING_IN = {"description": "a strategy name, a provider name, or {strategy, provider}",
              "oneOf": [text(40), body({"strategy": enum(routing.STRATEGIES), "provider": text(40)})]}
PAYMENT_CREATE = body({
    "amount": amount(), "currency": CURRENCY, "routing": ROUTING_IN,
    "payment_method": body({"type": enum(("card",)), "card": CARD_IN,
                            "billing_country": {"type": "string", "pattern": "^[A-Za-z]{2}$"}}, required=("card",)),
    "customer": body({"email": text(254, format="email"), "name": text(200), "phone": text(32)}),
    "customer_id": text(40), "metadata": METADATA, "description": text(500), "capture": BOOL,
    "capture_method": enum(("automatic", "manual")), "idempotency_key": text(255)},
    required=("amount", "currency", "payment_method"))
ENDPOINT = shape({"id": STR, "object": const("webhook_endpoint"), "url": STR, "status": enum(("active", "disabled")),
                  "events": arr(STR), "livemode": BOOL, "created_at": TS})
EVENT_NAME = enum(EVENT_TYPES)
ATTEMPT = shape({"number": INT, "created_at": TS, "status_code": null(INT), "latency_ms": INT,
                 "error": null(STR), "manual": BOOL})
DELIVERY = shape({"id": STR, "endpoint_id": STR, "state": enum(("pending", "delivered", "failed")),
                  "delivered": BOOL, "attempts": INT, "next_attempt_at": null(TS), "last_status_code": null(INT),
                  "last_error": null(STR), "attempt_log": arr(ATTEMPT)}, optional=("attempt_log",))
EVENT_SUMMARY_PROPS = {"id": STR, "event": EVENT_NAME, "delivered": BOOL, "created_at": TS,
                       "status": enum(("pending", "delivered", "failed", "no_endpoints")), "attempts": INT,
                       "object_id": null(STR)}
EVENT_SUMMARY = shape(EVENT_SUMMARY_PROPS)
EVENT_DETAIL = shape({**EVENT_SUMMARY_PROPS, "data": shape({"object": {"type": "object"}}),
                      "deliveries": arr(DELIVERY)})
REPLAY_NOTE = ("`{}` is in the first answer only: a replay of the same Idempotency-Key answers without it "
               "(secrets are never stored with the key).")

MERCHANT: dict[tuple[str, str], Op] = {
    ("POST", "/auth/request-otp"): Op(
        shape({"request_id": STR, "expires_in": {"type": "integer", "description": "seconds"}}),
        body({"email": text(254, format="email")}, required=("email",)),
        description="E-mails a six-digit code to the merchant's address."),
    ("POST", "/auth/verify-otp"): Op(
        shape({"token": STR, "merchant_id": STR, "expires_in": {"type": "integer", "description": "seconds"}}),
        body({"request_id": text(64), "otp": {"type": "string", "minLength": 6, "maxLength": 6}},
             required=("request_id", "otp")), errors=(401,),
        description="The token is a session credential: use it as `Authorization: Bearer <token>`."),
    ("GET", "/api-keys"): Op(list_of(API_KEY), query=PAGE),
    ("POST", "/api-keys"): Op(
        shape({**API_KEY["properties"], "key": {"type": "string", "description": "the full key, shown once"}},
              optional=("key",), description=REPLAY_NOTE.format("key")),
        body({"name": text(100), "mode": enum(api_keys.MODES), "type": enum(api_keys.KINDS)})),
    ("PUT", "/api-keys/{id}/revoke"): Op(shape({"id": STR, "status": enum(("active", "revoked")),
                                                "revoked_at": null(TS)})),
    ("POST", "/customers"): Op(
        CUSTOMER, body({"email": text(254, format="email"), "name": text(200), "phone": text(32),
                        "metadata": METADATA}, description="at least one of email, name, phone")),
    ("GET", "/customers"): Op(list_of(CUSTOMER), query=(*PAGE, q("email", text(254), "exact e-mail address"))),
    ("GET", "/customers/{id}"): Op(CUSTOMER),
    ("PUT", "/customers/{id}"): Op(
        CUSTOMER, body({"email": text(254, format="email"), "name": text(200), "phone": text(32),
                        "metadata": METADATA}, description="at least one field")),
    ("GET", "/routing/rules"): Op(list_of(RULE)),
    ("POST", "/routing/rules"): Op(
        RULE, body({"name": text(100, 1), "strategy": enum(routing.STRATEGIES), "provider": text(40),
                    "priority": {"type": "integer", "minimum": 0, "maximum": 1_000_000},
                    "status": enum(("active", "inactive")), "conditions": arr(CONDITION_IN, maxItems=20)},
                   required=("name",))),
    ("PUT", "/routing/rules/{id}"): Op(
        RULE, body({"name": text(100, 1), "strategy": enum(routing.STRATEGIES), "provider": text(40),
                    "priority": {"type": "integer", "minimum": 0, "maximum": 1_000_000},
                    "status": enum(("active", "inactive")), "conditions": arr(CONDITION_IN, maxItems=20)})),
    ("POST", "/payments/create"): Op(
        PAYMENT, PAYMENT_CREATE, errors=(402, 409),
        description="402 when the card is declined (`code`: card_declined, insufficient_funds, "
                    "authentication_required, ...)."),
    ("GET", "/payments/list"): Op(
        list_of(PAYMENT_ITEM),
        query=(*PAGE, q("status", PAYMENT_STATUS), q("currency", CURRENCY), q("provider", text(40)),
               q("customer", text(40), "a cus_ id"),
               q("created_gte", STR, "ISO 8601 date-time or Unix seconds: created at or after"),
               q("created_lte", STR, "ISO 8601 date-time or Unix seconds: created at or before"))),
    ("GET", "/payments/{id}"): Op(PAYMENT),
    ("POST", "/payments/{id}/capture"): Op(
        shape({"id": STR, "status": PAYMENT_STATUS, "amount": {"type": "integer", "description": "captured"},
               "amount_authorized": INT, "currency": CURRENCY}),
        body({"amount": amount()}, description="amount: at most the authorized amount (all of it by default)"),
        errors=(409,)),
    ("POST", "/payments/{id}/void"): Op(shape({"id": STR, "status": PAYMENT_STATUS}), body({}), errors=(409,)),
    ("POST", "/payments/{id}/refund"): Op(
        shape({"id": STR, "status": PAYMENT_STATUS, "refund_id": STR, "amount": INT, "currency": CURRENCY,
               "amount_refunded": INT, "reason": null(STR)}),
        body({"amount": amount(), "reason": text(200)}), errors=(409,)),
    ("POST", "/webhooks/configure"): Op(
        shape({**ENDPOINT["properties"], "secret": {"type": "string", "description": "signing secret, whsec_..."}},
              optional=("secret",), description=REPLAY_NOTE.format("secret")),
        body({"url": text(2048, 1, format="uri"),
              "events": arr({"anyOf": [EVENT_NAME, const("*")]}, minItems=1, maxItems=len(EVENT_TYPES) + 1)},
             required=("url", "events"))),
    ("GET", "/webhooks/endpoints"): Op(list_of(ENDPOINT, total=None), query=PAGE),
    ("POST", "/webhooks/endpoints/{id}/disable"): Op(ENDPOINT),
    ("GET", "/webhooks/events"): Op(list_of(EVENT_SUMMARY, total=None),
                                    query=(*PAGE, q("type", text(64), "an event type"))),
    ("GET", "/webhooks/events/{id}"): Op(EVENT_DETAIL),
    ("POST", "/webhooks/events/{id}/retry"): Op(EVENT_DETAIL),
    ("POST", "/webhooks/test"): Op(
        shape({"delivered": BOOL, "status_code": null(INT), "latency_ms": INT, "event_id": STR,
               "results": arr(shape({"endpoint_id": STR, "url": STR, "delivered": BOOL, "status_code": null(INT),
                                     "latency_ms": INT, "error": null(STR)}))}),
        body({"event": EVENT_NAME, "endpoint": text(40, description="a whk_ id: only this endpoint")},
             required=("event",)), errors=(404,)),
}

# ---- merchant /api: billing (rest_compat/merchant_billing.py). The enumerations are those of
# services/billing (subscriptions.STATUSES, dates.INTERVALS, invoices.STATUSES/CHANNELS/LOCALES).
SUBSCRIPTION_STATUS = enum(("active", "past_due", "unpaid", "paused", "cancelled"))
INTERVAL = enum(("day", "week", "month", "year"))
INVOICE_STATUS = enum(("draft", "sent", "paid"))
INVOICE_LOCALE = enum(("en", "tr", "ar"))
SUBSCRIPTION = shape({
    "id": STR, "object": const("subscription"), "status": SUBSCRIPTION_STATUS, "customer_id": STR, "plan": STR,
    "amount": INT, "currency": CURRENCY, "interval": INTERVAL, "interval_count": INT, "next_billing": null(DATE),
    "current_period_start": null(TS), "current_period_end": null(TS), "latest_invoice": null(STR),
    "metadata": METADATA_OUT, "livemode": BOOL, "created_at": TS, "paused_at": null(TS), "cancelled_at": null(TS)})
INVOICE_ITEM = shape({"name": STR, "amount": INT, "quantity": INT})
INVOICE = shape({
    "id": STR, "object": const("invoice"), "number": STR, "status": INVOICE_STATUS, "customer_id": STR,
    "subscription_id": null(STR), "currency": CURRENCY, "items": arr(INVOICE_ITEM), "subtotal": INT,
    "tax_rate": {"type": "number", "description": "a percentage"}, "tax": INT, "total": INT, "due_date": DATE,
    "pdf_url": STR, "hosted_invoice_url": STR, "sent_to": null(STR), "sent_via": null(enum(("email", "messaging"))),
    "sent_at": null(TS), "paid_at": null(TS), "payment_id": null(STR), "locale": INVOICE_LOCALE,
    "zatca": null({"type": "object", "description": "The ZATCA e-invoice (see ZATCA_BLOCK)"}),
    "livemode": BOOL, "created_at": TS})
PROFILE = shape({"id": STR, "object": const("merchant"), "email": STR, "name": STR, "country": STR,
                 "legal_name": null(STR), "address": null(STR), "tax_number": null(STR)})
CLOCK = shape({"object": const("test_clock"), "now": TS, "livemode": BOOL, "offset_seconds": INT,
               "previous": TS, "ran": arr(shape({"kind": STR, "id": STR, "at": TS, "outcome": STR})),
               "summary": {"type": "object"}},
              optional=("offset_seconds", "previous", "ran", "summary"))

MERCHANT.update({
    ("POST", "/subscriptions"): Op(
        SUBSCRIPTION, body({"customer_id": text(64), "plan": text(200, 1), "amount": amount(), "currency": CURRENCY,
                            "interval": INTERVAL, "interval_count": {"type": "integer", "minimum": 1},
                            "metadata": METADATA}, required=("customer_id", "plan", "amount", "currency", "interval")),
        errors=(402,), description="Bills the first period at once."),
    ("GET", "/subscriptions"): Op(list_of(SUBSCRIPTION, total=None),
                                  query=(*PAGE, q("status", SUBSCRIPTION_STATUS), q("customer_id", text(64)))),
    ("GET", "/subscriptions/{id}"): Op(SUBSCRIPTION),
    ("PUT", "/subscriptions/{id}/pause"): Op(SUBSCRIPTION),
    ("PUT", "/subscriptions/{id}/resume"): Op(SUBSCRIPTION),
    ("PUT", "/subscriptions/{id}/cancel"): Op(SUBSCRIPTION),
    ("POST", "/invoices"): Op(
        INVOICE, body({"customer_id": text(64), "currency": CURRENCY,
                       "items": arr(body({"name": text(200, 1), "amount": amount(0),
                                          "quantity": {"type": "integer", "minimum": 1, "maximum": 1_000_000}},
                                         required=("name", "amount")), minItems=1, maxItems=100),
                       "due_date": DATE, "tax_rate": {"type": ["number", "string"], "description": "a percentage"},
                       "locale": INVOICE_LOCALE, "metadata": METADATA},
                      required=("customer_id", "currency", "items"))),
    ("GET", "/invoices"): Op(list_of(INVOICE, total=None),
                             query=(*PAGE, q("status", INVOICE_STATUS), q("customer_id", text(64)),
                                    q("subscription_id", text(64)))),
    ("GET", "/invoices/{id}"): Op(INVOICE),
    ("PUT", "/invoices/{id}/send"): Op(INVOICE, body({"channel": enum(("email", "messaging"))}, required=("channel",))),
    ("PUT", "/invoices/{id}/mark-paid"): Op(INVOICE, body({})),
    ("GET", "/merchant"): Op(PROFILE),
    ("PUT", "/merchant"): Op(PROFILE, body({"name": text(200, 1), "country": {"type": "string", "pattern": "^[A-Z]{2}$"},
                                            "legal_name": text(200), "address": text(500), "tax_number": text(32)})),
    ("GET", "/test-helpers/clock"): Op(CLOCK, description="Test mode only."),
    ("POST", "/test-helpers/advance-clock"): Op(
        CLOCK, body({"days": {"type": "integer", "minimum": 1}, "to": TS}, description="exactly one of days, to"),
        description="Test mode only: moves the merchant's test clock and runs renewals and dunning that fell due."),
})

# ---- merchant /api: ZATCA e-invoicing (rest_compat/merchant_einvoicing.py; services/billing/zatca).
ZATCA_MESSAGE = shape({"type": STR, "code": STR, "category": STR, "message": STR})
ZATCA_BLOCK = shape({"type": enum(("simplified", "standard")), "uuid": STR, "icv": INT, "hash": STR,
                     "status": enum(("pending", "reported", "cleared", "rejected")), "messages": arr(ZATCA_MESSAGE)})
INVOICE["properties"]["zatca"] = null(ZATCA_BLOCK)
ZATCA_UNIT = shape({
    "object": const("zatca_unit"), "id": null(STR), "status": enum(("not_onboarded", "onboarded")), "livemode": BOOL,
    "vat_number": null(STR), "organization_name": null(STR), "organization_unit": null(STR),
    "common_name": null(STR), "invoice_types": null(STR), "locale": null(STR), "certificate_serial": null(STR),
    "certificate_expires_at": null(TS), "icv": INT, "created_at": null(TS), "updated_at": null(TS)})
ZATCA_NOTE = shape({"id": STR, "object": const("zatca_document"), "kind": enum(("credit_note", "debit_note")),
                    "invoice_id": STR, "number": STR, "amount": INT, "tax": INT, "reason": null(STR),
                    **ZATCA_BLOCK["properties"], "livemode": BOOL, "created_at": TS})
ZATCA_NOTE_BODY = body({"amount": amount(), "reason": text(200, 1)}, required=("reason",))
MERCHANT.update({
    ("POST", "/einvoicing/zatca/onboard"): Op(
        ZATCA_UNIT, body({"otp": {"type": "string", "pattern": "^[0-9]{6}$"},
                          "vat_number": {"type": "string", "pattern": "^3[0-9]{13}3$"},
                          "organization_name": text(200, 1), "organization_unit": text(200, 1),
                          "common_name": text(200, 1), "invoice_types": enum(("1100", "1000", "0100")),
                          "industry": text(100, 1), "locale": text(35, 2, description="BCP 47, e.g. ar-SA-u-nu-arab"),
                          "address": body({"street": text(127), "building_number": {"type": "string", "pattern": "^[0-9]{4}$"},
                                           "district": text(127), "city": text(127),
                                           "postal_code": {"type": "string", "pattern": "^[0-9]{5}$"}})},
                         required=("otp", "vat_number", "organization_name", "organization_unit", "common_name")),
        errors=(503,), description="Makes a secp256k1 key and CSR, gets a compliance then a production CSID from "
                                   "ZATCA (the simulator in test mode: OTP 123345). Again: renews the certificate, "
                                   "the chain goes on."),
    ("GET", "/einvoicing/zatca"): Op(ZATCA_UNIT),
    ("GET", "/invoices/{id}/xml"): Op(None, media="application/xml",
                                      description="The signed UBL 2.1 XML (the cleared one for standard invoices)."),
    ("POST", "/invoices/{id}/credit-notes"): Op(ZATCA_NOTE, ZATCA_NOTE_BODY, errors=(409, 503),
                                                description="amount: VAT included, at most what is left to credit."),
    ("POST", "/invoices/{id}/debit-notes"): Op(ZATCA_NOTE, ZATCA_NOTE_BODY, errors=(409, 503)),
})

# ---- merchant /api: money views (rest_compat/merchant_money.py): balance, settlements,
# analytics, disputes. Enumerations from services.balance / analytics / disputes.
from services.money import analytics as _analytics, balance as _balance, disputes as _disputes  # noqa: E402

NUMBER: dict = {"type": "number"}
AMOUNT_CUR = shape({"amount": INT, "currency": CURRENCY})
BALANCE = shape({"object": const("balance"), "livemode": BOOL, "available": arr(AMOUNT_CUR),
                 "pending": arr(AMOUNT_CUR)},
                description="per currency with unsettled lines; amounts in minor units, may be negative")
SETTLEMENT = shape({"id": STR, "object": const("settlement"), "amount": INT, "currency": CURRENCY,
                    "status": enum(_balance.STATUSES), "arrival_date": DATE, "settled_on": DATE, "transactions": INT,
                    "gross": INT, "fee": INT, "livemode": BOOL, "created_at": TS, "paid_at": null(TS)})
SETTLEMENT_LINE = shape({"id": STR, "object": const("settlement_line"), "type": STR, "payment_id": null(STR),
                         "refund_id": null(STR), "source_id": null(STR), "gross": INT, "fee": INT, "net": INT,
                         "currency": CURRENCY, "created_at": TS})
WINDOW = (q("period", enum(tuple(_analytics.PERIODS)), "7d, 30d or 90d (default 30d): the last N local days"),
          q("from", DATE, "first local date (instead of period)"), q("to", DATE, "last local date, inclusive"),
          q("currency", CURRENCY, "default: the merchant's most used currency in the window"))
OVERVIEW = shape({"object": const("analytics"), "volume": INT, "transactions": INT, "approved": INT,
                  "approval_rate": NUMBER, "period": STR, "currency": CURRENCY, "from": DATE, "to": DATE})
REVENUE = shape({"object": const("revenue"), "total": INT, "currency": CURRENCY, "period": STR,
                 "by_day": arr(shape({"date": DATE, "amount": INT}))})
PROVIDER_STATS = shape({"object": const("list"), "currency": CURRENCY, "period": STR,
                        "data": arr(shape({"provider": STR, "volume": INT, "authorizations": INT,
                                           "approval_rate": NUMBER, "latency": INT}))})
DISPUTE = shape({"id": STR, "object": const("dispute"), "payment_id": STR, "amount": INT, "fee": INT,
                 "currency": CURRENCY, "reason": STR, "status": enum(_disputes.STATUSES),
                 "evidence": {"type": "object"}, "evidence_due_by": TS, "livemode": BOOL, "created_at": TS,
                 "closed_at": null(TS)})

MERCHANT.update({
    ("GET", "/balance"): Op(BALANCE),
    ("GET", "/settlements"): Op(list_of(SETTLEMENT, total=None),
                                query=(*PAGE, q("status", enum(_balance.STATUSES)), q("currency", CURRENCY),
                                       q("arrival_date_gte", DATE), q("arrival_date_lte", DATE))),
    ("GET", "/settlements/{id}"): Op(SETTLEMENT),
    ("GET", "/settlements/{id}/transactions"): Op(
        list_of(SETTLEMENT_LINE, total=None), query=(*PAGE, q("format", enum(("json", "csv")))),
        description="format=csv answers text/csv: " + ", ".join(_balance.CSV_COLUMNS) + " (every line, oldest first)."),
    ("GET", "/analytics"): Op(OVERVIEW, query=WINDOW),
    ("GET", "/analytics/revenue"): Op(REVENUE, query=WINDOW),
    ("GET", "/analytics/providers"): Op(PROVIDER_STATS, query=WINDOW),
    ("GET", "/disputes"): Op(list_of(DISPUTE, total=None),
                             query=(*PAGE, q("status", enum(_disputes.STATUSES)), q("payment_id", text(64)))),
    ("GET", "/disputes/{id}"): Op(DISPUTE),
    ("POST", "/disputes/{id}/evidence"): Op(
        DISPUTE, body({k: text(20_000) for k in _disputes.EVIDENCE_FIELDS}, description="at least one text field"),
        description="needs_response -> under_review; decided a week later."),
})

# ---- merchant /api: payment links (rest_compat/merchant_links.py)

LINK_STATUS = enum(links.STATUSES)
PAYMENT_LINK = shape({
    "id": STR, "object": const("payment_link"), "url": {"type": "string", "description": "{pay_url}/{id}"},
    "status": LINK_STATUS, "amount": INT, "currency": CURRENCY, "description": null(STR), "expires_at": null(TS),
    "metadata": METADATA_OUT, "payments_count": INT,
    "amount_collected": {"type": "integer", "description": "captured minus refunded, minor units"},
    "livemode": BOOL, "created_at": TS, "cancelled_at": null(TS)})
MERCHANT.update({
    ("POST", "/payment-links"): Op(
        PAYMENT_LINK, body({"amount": amount(), "currency": CURRENCY, "description": text(500),
                            "expires_at": {"type": ["string", "integer"],
                                           "description": "ISO 8601 or Unix seconds, in the future"},
                            "metadata": METADATA}, required=("amount", "currency"))),
    ("GET", "/payment-links"): Op(list_of(PAYMENT_LINK, total=None), query=(*PAGE, q("status", LINK_STATUS))),
    ("GET", "/payment-links/{id}"): Op(PAYMENT_LINK),
    ("PUT", "/payment-links/{id}/cancel"): Op(PAYMENT_LINK, description="400 when the link is already "
                                                                        "cancelled or expired."),
})

# ---- payment intents /v1

INTENT_STATUS = enum(intents.STATUSES)
FEE = shape({"amount": INT, "currency": CURRENCY, "rate": DECIMAL,
             "breakdown": shape({"processing": INT, "currency_conversion": INT, "network": INT})})
NEXT_ACTION = null(shape({"type": const("redirect_to_url"),
                          "redirect_to_url": shape({"url": null(STR), "return_url": null(STR)})}))
CRYPTO = shape({"asset": enum(crypto.ASSETS), "network": enum(crypto.NETWORKS), "address": STR,
                "amount_crypto": DECIMAL, "rate": DECIMAL, "rate_locked_until": TS, "qr_code_url": STR,
                "detected_at": null(TS), "confirmed_at": null(TS), "transaction_hash": null(STR)})
SPLIT = body({"merchant_id": {"type": "string", "pattern": "^mer_[0-9A-Za-z]{1,40}$"}, "amount": amount(),
              "currency": CURRENCY}, required=("merchant_id", "amount", "currency"))
COD_ADDRESS = body({"line1": text(200, 1), "city": text(100, 1), "country": {"type": "string", "pattern": "^[A-Z]{2}$"},
                    "postal_code": text(20)}, required=("line1", "city", "country"))
INTENT = shape({
    "id": STR, "object": const("payment_intent"), "status": INTENT_STATUS, "amount": INT, "currency": CURRENCY,
    "amount_received": INT, "payment_method": enum(intents.OBJECT_METHODS), "payment_method_id": null(STR),
    "checkout_url": STR, "client_secret": STR, "fee": FEE, "net_amount": INT, "settlement_date": DATE,
    "merchant_id": STR, "customer_id": null(STR), "order_id": null(STR), "description": null(STR),
    "statement_descriptor": null(STR), "metadata": METADATA_OUT, "locale": enum(pricing.LOCALES),
    "created_at": TS, "expires_at": TS, "succeeded_at": null(TS), "canceled_at": null(TS),
    "cancellation_reason": null(STR), "livemode": BOOL, "next_action": NEXT_ACTION, "receipt_url": null(STR),
    "receipt": RECEIPT,
    "failure_code": null(STR), "failure_message": null(STR), "split": arr({"type": "object"}),
    "crypto": CRYPTO, "qr_code_url": STR, "cod_address": {"type": "object"}, "cod_status": null(STR)},
    optional=("crypto", "qr_code_url", "cod_address", "cod_status", "receipt"))
IDEMPOTENCY_KEY_BODY = text(255, description="may also be sent as the X-Idempotency-Key header")
INTENT_CREATE = body({
    "amount": amount(), "currency": CURRENCY, "payment_method": enum(intents.METHODS),
    "crypto_asset": enum(crypto.ASSETS), "crypto_network": enum(crypto.NETWORKS),
    "merchant_id": text(44, description="your own mer_ id"), "customer_id": text(64), "order_id": text(200),
    "description": text(1000), "statement_descriptor": text(22), "metadata": METADATA, "cod_address": COD_ADDRESS,
    "split": arr(SPLIT, maxItems=intents.MAX_SPLITS), "locale": enum(pricing.LOCALES),
    "idempotency_key": IDEMPOTENCY_KEY_BODY},
    required=("amount", "currency", "payment_method"),
    description="crypto_asset and crypto_network are required for crypto; cod_address for cod")
PAYMENT_METHOD = shape({"id": STR, "object": const("payment_method"), "type": STR, "livemode": BOOL,
                        "card": shape({"brand": null(STR), "last4": null(STR), "exp_month": null(INT),
                                       "exp_year": null(INT), "fingerprint": null(STR)}),
                        "created_at": TS})
UNIX_OR_ISO = {"type": "string", "description": "Unix seconds (or an ISO 8601 date-time)"}

V1: dict[tuple[str, str], Op] = {
    ("POST", "/payments/intent"): Op(INTENT, INTENT_CREATE, errors=(402, 409)),
    ("POST", "/payments/{id}/confirm"): Op(
        INTENT, body({"payment_method_id": text(64, description="pm_... (e.g. pm_card_visa in test mode)"),
                      "return_url": text(2000, format="uri"), "client_secret": text(200),
                      "idempotency_key": IDEMPOTENCY_KEY_BODY}),
        errors=(402, 409),
        description="With a publishable key, client_secret is required. The documented confirm fields "
                    "(id, status, next_action, succeeded_at, receipt_url) come first; the whole object follows."),
    ("GET", "/payments/{id}"): Op(INTENT, query=(q("client_secret", text(200), "required with a publishable key"),)),
    ("GET", "/payments"): Op(
        shape({"object": const("list"), "data": arr(INTENT), "has_more": BOOL, "next_cursor": null(STR),
               "total_count": INT, "total_capped": CAPPED}, optional=("total_capped",)),
        query=(*PAGE, q("status", INTENT_STATUS), q("currency", CURRENCY),
               q("payment_method", enum(intents.OBJECT_METHODS)),
               q("created[gte]", UNIX_OR_ISO, "created at or after"),
               q("created[lte]", UNIX_OR_ISO, "created at or before"))),
    ("POST", "/payments/{id}/cancel"): Op(
        INTENT, body({"cancellation_reason": enum(intents.CANCELLATION_REASONS),
                      "idempotency_key": IDEMPOTENCY_KEY_BODY}), errors=(409,)),
    ("POST", "/payment_methods"): Op(
        PAYMENT_METHOD, body({"type": enum(("card", "card_present")), "card": CARD_IN}, required=("card",))),
    ("GET", "/payments/{id}/qr.png"): Op(None, media="image/png", description="The QR code of a qr intent."),
    ("GET", "/payments/{id}/receipt"): Op(None, media="text/plain", description="The receipt of a paid intent."),
    ("GET", "/payments/{id}/3ds"): Op(None, media="text/html", query=(q("token", text(200), "challenge token"),),
                                     description="The sandbox 3-D Secure challenge page (a browser page)."),
    ("POST", "/payments/{id}/3ds"): Op(
        None, {"type": "object", "properties": {"token": text(200), "outcome": enum(("succeed", "fail"))},
               "required": ["token", "outcome"]},
        media="redirect", request_media="application/x-www-form-urlencoded",
        description="The challenge page's form: 303 See Other to the intent's return_url."),
    ("POST", "/test_helpers/payments/{id}/crypto_deposit"): Op(
        INTENT, body({"stage": enum(("detected", "confirmed"))}), errors=(409,)),
    ("POST", "/test_helpers/payments/{id}/cod_delivered"): Op(INTENT, body({}), errors=(409,)),
    ("POST", "/test_helpers/payments/{id}/cod_returned"): Op(INTENT, body({}), errors=(409,)),
}

# ---- CRM /api

CRM_USER = shape({"id": STR, "object": const("user"), "email": STR, "name": STR,
                  "role": enum(crm_accounts.ROLES), "company_id": STR, "created_at": TS})
COMPANY = shape({"id": STR, "object": const("company"), "name": STR, "plan": enum(crm_accounts.PLANS),
                 "commission_rate": DECIMAL, "currency": CRM_CURRENCY, "phone_number_id": null(STR),
                 "created_at": TS})
TOKENS = shape({"access_token": {"type": "string", "description": "a JWT"},
                "refresh_token": {"type": "string", "description": "rt_..., single use"},
                "token_type": const("Bearer"), "expires_in": {"type": "integer", "description": "seconds"},
                "refresh_expires_in": {"type": "integer", "description": "seconds"},
                "user": CRM_USER, "company": COMPANY})
CRM_CUSTOMER = shape({"id": STR, "object": const("customer"), "name": STR, "email": null(STR),
                      "phone": null(STR), "tags": arr(STR), "created_at": TS, "updated_at": TS})
COMMISSION = shape({"id": STR, "object": const("commission"), "deal_id": STR, "user_id": STR, "cycle": INT,
                    "amount": INT, "currency": CRM_CURRENCY, "rate": DECIMAL,
                    "status": enum(("active", "reversed")), "created_at": TS, "reversed_at": null(TS)})
DEAL_PROPS = {"id": STR, "object": const("deal"), "title": STR, "customer_id": STR, "owner_id": STR,
              "stage": enum(crm_deals.STAGES), "value": INT, "currency": CRM_CURRENCY,
              "probability": {"type": "integer", "minimum": 0, "maximum": 100},
              "won_at": null(TS), "created_at": TS, "updated_at": TS}
DEAL = shape(DEAL_PROPS)
DEAL_WITH_COMMISSIONS = shape({**DEAL_PROPS, "commissions": arr(COMMISSION)})
MESSAGE = shape({"id": STR, "object": const("message"), "direction": enum(("inbound", "outbound")),
                 "customer_id": null(STR), "phone": STR, "type": STR, "text": STR,
                 "status": enum(("received", "sent", "delivered", "read", "failed")), "error": null(STR),
                 "platform_message_id": null(STR), "read": BOOL, "created_at": TS})
CONVERSATION = shape({"object": const("conversation"), "customer": null(ref("CrmCustomer")),
                      "customer_id": null(STR), "phone": STR, "last_message": MESSAGE, "unread_count": INT,
                      "message_count": INT})
RATE = shape({"id": STR, "object": const("exchange_rate"), "base": CRM_CURRENCY, "quote": CRM_CURRENCY,
              "rate": DECIMAL, "rate_date": DATE, "updated_at": TS})
RATE_USED = {"base": CRM_CURRENCY, "quote": CRM_CURRENCY, "rate": DECIMAL, "rate_date": null(DATE), "inverse": BOOL}
REVENUE = shape({"object": const("revenue_report"), "currency": CRM_CURRENCY, "total": INT,
                 "total_decimal": DECIMAL, "deal_count": INT,
                 "by_currency": arr(shape({"currency": CRM_CURRENCY, "amount": INT, "deal_count": INT,
                                           "rate": DECIMAL, "rate_date": null(DATE), "inverse": BOOL,
                                           "converted_decimal": DECIMAL}))})
PIPELINE = shape({"object": const("pipeline_report"), "currency": CRM_CURRENCY,
                  "stages": arr(shape({"stage": enum(crm_deals.STAGES), "count": INT, "value": INT,
                                       "weighted_value": INT})),
                  "total": shape({"count": INT, "value": INT, "weighted_value": INT}),
                  "rates_used": arr(shape(RATE_USED))})
PASSWORD = {"type": "string", "minLength": 1, "maxLength": 200}
EMAIL = text(254, format="email")
CRM_CUSTOMER_IN = {"name": text(200, 1), "email": EMAIL, "phone": text(32, description="E.164, e.g. +905551112233"),
                   "tags": arr(text(40, 1), maxItems=20)}
DEAL_IN = {"title": text(200, 1), "customer_id": text(40), "owner_id": text(40), "stage": enum(crm_deals.STAGES),
           "value": amount(0), "currency": CRM_CURRENCY, "probability": {"type": "integer", "minimum": 0, "maximum": 100}}
WHEN = {"type": "string", "description": "Unix seconds or an ISO 8601 date-time"}
CRM_PAGE = (LIMIT, STARTING_AFTER)

CRM: dict[tuple[str, str], Op] = {
    ("POST", "/auth/signup"): Op(
        TOKENS, body({"email": EMAIL, "password": PASSWORD, "name": text(200), "company_name": text(200),
                      "currency": CRM_CURRENCY}, required=("email", "password")), errors=(409,),
        description="Creates the user (admin) and its company; the password needs 10+ characters."),
    ("POST", "/auth/login"): Op(TOKENS, body({"email": EMAIL, "password": PASSWORD}, required=("email", "password")),
                                errors=(401,)),
    ("POST", "/auth/refresh"): Op(TOKENS, body({"refresh_token": text(200)}, required=("refresh_token",)), errors=(401,),
                                  description="Rotates the refresh token; presenting a used one ends the session."),
    ("POST", "/auth/logout"): Op(
        shape({"object": const("session"), "id": STR, "revoked": {"type": "boolean", "const": True}}),
        body({"refresh_token": text(200)}), errors=(401,),
        description="Ends the session of the refresh token, or without one that of the bearer access token."),
    ("GET", "/me"): Op(shape({"user": CRM_USER, "company": COMPANY})),
    ("PUT", "/company"): Op(
        COMPANY, body({"name": text(200, 1), "commission_rate": {"type": ["string", "number"],
                                                                  "description": "a decimal from 0 to 1"},
                       "currency": CRM_CURRENCY, "phone_number_id": text(64, 1)}), errors=(403, 409)),
    ("GET", "/users"): Op(shape({"object": const("list"), "data": arr(CRM_USER), "has_more": BOOL})),
    ("POST", "/users"): Op(
        CRM_USER, body({"email": EMAIL, "password": PASSWORD, "name": text(200), "role": enum(crm_accounts.ROLES)},
                       required=("email", "password")), errors=(403, 409)),
    ("GET", "/customers"): Op(
        list_of(ref("CrmCustomer"), total="total_count", crm=True),
        query=(*CRM_PAGE, q("q", text(200), "search name, e-mail and phone"), q("search", text(200), "same as q"),
               q("name", text(200)), q("email", text(254)), q("phone", text(32)), q("tag", text(40)),
               q("created_gte", WHEN), q("created_lte", WHEN))),
    ("POST", "/customers"): Op(CRM_CUSTOMER, body(CRM_CUSTOMER_IN, required=("name",))),
    ("GET", "/customers/{id}"): Op(CRM_CUSTOMER),
    ("PUT", "/customers/{id}"): Op(CRM_CUSTOMER, body(CRM_CUSTOMER_IN)),
    ("DELETE", "/customers/{id}"): Op(shape({"id": STR, "object": const("customer"),
                                             "deleted": {"type": "boolean", "const": True}})),
    ("GET", "/deals"): Op(
        list_of(DEAL, total="total_count", crm=True),
        query=(*CRM_PAGE, q("stage", STR, "a stage, or several separated by commas"),
               q("owner_id", text(40)), q("owner", text(40), "same as owner_id"), q("customer_id", text(40)),
               q("currency", CRM_CURRENCY), q("value_gte", {"type": "integer", "minimum": 0}),
               q("value_lte", {"type": "integer", "minimum": 0}), q("min_value", {"type": "integer", "minimum": 0}),
               q("max_value", {"type": "integer", "minimum": 0}))),
    ("POST", "/deals"): Op(DEAL_WITH_COMMISSIONS, body(DEAL_IN, required=("title", "customer_id", "value", "currency")),
                           errors=(404,), description="404 (param customer_id or owner_id) for an unknown reference."),
    ("GET", "/deals/{id}"): Op(DEAL_WITH_COMMISSIONS),
    ("PUT", "/deals/{id}"): Op(DEAL_WITH_COMMISSIONS, body(DEAL_IN)),
    ("GET", "/commissions"): Op(
        list_of(COMMISSION, total="total_count", crm=True),
        query=(*CRM_PAGE, q("deal_id", text(40)), q("user_id", text(40)), q("status", enum(("active", "reversed"))))),
    ("GET", "/messaging/webhook"): Op(
        None, media="text/plain", errors=(403,),
        query=(q("hub.mode", text(64)), q("hub.verify_token", text(200)), q("hub.challenge", text(200))),
        description="The platform's subscription check: answers hub.challenge when the token matches."),
    ("POST", "/messaging/webhook"): Op(
        shape({"received": BOOL, "messages": INT, "duplicates": INT, "statuses": INT, "ignored": INT}),
        {"type": "object", "description": "the platform's notification, signed over its raw bytes"},
        errors=(401,), headers=(Param("X-Hub-Signature-256", STR, "sha256=<hex HMAC of the raw body>", "header"),)),
    ("GET", "/messaging/inbox"): Op(
        shape({"object": const("list"), "data": arr(CONVERSATION), "has_more": BOOL, "total_count": INT,
               "next_cursor": null(STR)}),
        query=(*CRM_PAGE, q("unread", enum(("1", "true", "0", "false")), "only conversations with unread messages"))),
    ("GET", "/messaging/messages"): Op(
        list_of(MESSAGE, total="total_count", crm=True),
        query=(*CRM_PAGE, q("customer_id", text(40)), q("phone", text(32))), errors=(404,)),
    ("POST", "/messaging/send"): Op(
        MESSAGE, body({"customer_id": text(40), "to": text(32, description="a phone number, without customer_id"),
                       "text": {"type": "string", "minLength": 1, "maxLength": 4096}}, required=("text",)),
        errors=(404, 502)),
    ("POST", "/messaging/read"): Op(shape({"object": const("read_receipt"), "marked": INT}),
                                   body({"customer_id": text(40), "phone": text(32)}), errors=(404,)),
    ("GET", "/reports/revenue"): Op(
        REVENUE, query=(q("currency", CRM_CURRENCY, "target currency (the company's by default)"),
                        q("from", WHEN, "won at or after"), q("to", WHEN, "won at or before"))),
    ("GET", "/reports/pipeline"): Op(PIPELINE, query=(q("currency", CRM_CURRENCY, "target currency"),)),
    ("GET", "/reports/rates"): Op(shape({"object": const("list"), "data": arr(RATE), "has_more": BOOL})),
    ("PUT", "/reports/rates"): Op(
        RATE, body({"base": CRM_CURRENCY, "quote": CRM_CURRENCY,
                    "rate": {"type": ["string", "number"], "description": "1 base = rate quote (a positive decimal)"},
                    "rate_date": DATE}, required=("base", "quote", "rate")), errors=(403,)),
}

OPERATIONS: dict[str, dict[tuple[str, str], Op]] = {"merchant": MERCHANT, "v1": V1, "crm": CRM}

# ---------------------------------------------------------------- errors

ERROR = {"type": "object", "required": ["error"], "properties": {"error": {
    "type": "object", "required": ["type", "code", "message", "param", "request_id"],
    "properties": {
        "type": {"type": "string", "description": "invalid_request_error, authentication_error, permission_error, "
                                                  "card_error, idempotency_error, rate_limit_error, api_error"},
        "code": {"type": "string", "description": "machine-readable, e.g. invalid_request, invalid_api_key, "
                                                  "resource_not_found, rate_limit_exceeded, idempotency_conflict"},
        "message": {"type": "string", "description": "on the merchant /api, the documented text for the status"},
        "param": {"type": ["string", "null"], "description": "the field or parameter at fault"},
        "request_id": {"type": "string", "description": "also in the X-Request-Id header"},
        "detail": {"type": "string", "description": "merchant /api only: exactly what is wrong"},
        "decline_code": {"type": "string", "description": "on a card decline (402 payment_declined): "
                                                          "card_declined, insufficient_funds, risk_declined, "
                                                          "authentication_required, processing_error"}}}}}

ERROR_TEXT = {
    400: "Invalid request: a field, parameter or path id is missing or malformed, or the operation is not "
         "allowed in the object's state",
    401: "Missing or invalid credential",
    402: "Payment declined, or insufficient funds",
    403: "Not allowed for this user, or a bad webhook signature or token",
    404: "Resource not found",
    409: "Conflict: the idempotency key was used with other parameters, or is in use, or the value is taken",
    413: "Request body too large (1 MiB)",
    415: "Unsupported Content-Type",
    429: "Rate limit exceeded (see Retry-After)",
    500: "Internal server error",
    502: "The downstream platform refused or failed",
    503: "A backing service (database or key-value store) is unavailable; retry after Retry-After",
}


def error_statuses(iface_name: str, route: Route, op: Op) -> list[int]:
    """Every operation may answer 400, 429, 500 and 503; an authenticated one 401; one with a
    path id 404; one taking a body 413 and 415; a keyed POST 409; plus the operation's own."""
    out = {400, 429, 500, 503, *op.errors}
    if route.auth != "public":
        out.add(401)
    if "{" in route.path:
        out.add(404)
    if route.method in ("POST", "PUT", "PATCH", "DELETE"):
        out.add(413)
        if getattr(route, "content_type", "application/json") is not None:
            out.add(415)
    if takes_idempotency_key(iface_name, route):
        out.add(409)
    return sorted(out)


# ---------------------------------------------------------------- the document

SECURITY = {
    "merchant": "secretKey", "v1": "secretKey", "crm": "crmAccessToken",
}
SECURITY_SCHEMES = {
    "secretKey": {"type": "http", "scheme": "bearer", "description":
                  "A secret API key (sk_test_... or sk_live_...), or on /api the token of verify-otp. "
                  "Operations marked so also take a publishable key (pk_...)."},
    "crmAccessToken": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT",
                       "description": "The CRM access token of signup, login or refresh (15 minutes)."},
}
IDEMPOTENCY_HEADERS = (
    Param("X-Idempotency-Key", text(255), "replays the first answer for the same key and parameters; "
          "other parameters: 409 idempotency_conflict", "header"),
    Param("Idempotency-Key", text(255), "same as X-Idempotency-Key (both given must agree)", "header"),
)


def takes_idempotency_key(iface_name: str, route: Route) -> bool:
    """POSTs and PUTs of /api and /v1 made with a key honour Idempotency-Key (rest_compat.routing._wrap)."""
    return route.method in ("POST", "PUT") and iface_name in ("merchant", "v1") and route.auth != "public" \
        and getattr(route, "idempotency", "route") != "none" \
        and getattr(route, "content_type", "application/json") == "application/json"


TAGS = {"merchant": "Merchant API (/api)", "v1": "Payment intents (/v1)", "crm": "CRM API"}


def _response(status: int, op: Op) -> dict:
    if op.media == "redirect":
        return {"description": "See Other", "headers": {"Location": {"schema": STR, "required": True}}}
    if op.response is None:
        schema = {"type": "string", "format": "binary"} if op.media == "image/png" else STR
        return {"description": "OK", "content": {op.media: {"schema": schema}}}
    return {"description": "OK" if status == 200 else "Created", "content": {"application/json": {"schema": op.response}}}


def operation(iface: Interface, route: Route, op: Op) -> dict:
    out: dict[str, Any] = {"operationId": f"{iface.name}.{route.handler.__name__}",
                           "summary": route.summary, "tags": [TAGS.get(iface.name, iface.name)]}
    if op.description:
        out["description"] = op.description
    status = 303 if op.media == "redirect" else route.status
    responses: dict[str, Any] = {str(status): _response(status, op)}
    for code in error_statuses(iface.name, route, op):
        responses[str(code)] = {"$ref": f"#/components/responses/E{code}"}
    out["responses"] = responses
    if route.auth == "public":
        out["security"] = []
    else:
        out["security"] = [{SECURITY[iface.name]: []}]
        if route.auth == "key_or_publishable":
            out["description"] = (out.get("description", "") + " Takes a publishable key too.").strip()
    params = [Param(p, {"type": "string", "minLength": 1, "maxLength": 64, "pattern": "^[A-Za-z0-9_]+$"},
                    "the object's id", "path", True).openapi()
              for p in re.findall(r"\{(\w+)", route.path)]
    params += [p.openapi() for p in op.query]
    params += [p.openapi() for p in op.headers]
    if takes_idempotency_key(iface.name, route):
        params += [p.openapi() for p in IDEMPOTENCY_HEADERS]
    if params:
        out["parameters"] = params
    if op.request is not None:
        out["requestBody"] = {"required": bool(op.request.get("required")),
                              "content": {op.request_media: {"schema": op.request}}}
    return out


def openapi_path(iface: Interface, route: Route) -> str:
    return iface.prefix + re.sub(r"\{(\w+)(:[^}]*)?\}", r"{\1}", route.path)


UNDESCRIBED = "x-qafila-undescribed"


def _fallback(route: Route) -> Op:
    """A route added to a table without an entry here: documented loosely (and flagged, which
    fails tests/test_openapi.py) rather than breaking the application."""
    req = {"type": "object", "properties": {f: {} for f in route.request_fields}} if route.request_fields else None
    return Op({"type": "object", "properties": {f: {} for f in route.response_fields}}, req)


def paths(iface: Interface) -> dict:
    table = OPERATIONS.get(iface.name, {})
    out: dict[str, dict] = {}
    for route in iface.routes:
        op = table.get((route.method, route.path))
        doc = operation(iface, route, op or _fallback(route))
        if op is None:
            doc[UNDESCRIBED] = True
        out.setdefault(openapi_path(iface, route), {})[route.method.lower()] = doc
    return out


# Routes of the application itself (not of a REST table), documented when the app has them.
_STATE = enum(("ok", "busy", "down"))     # busy: every pooled connection in use, the server answers
HEALTH = shape({"status": enum(("ok", "degraded")), "database": _STATE, "kv": _STATE})
LIVE = shape({"status": enum(("ok",))})
READY = shape({"status": enum(("ready", "not_ready")), "database": _STATE, "kv": _STATE,
               "migrations": enum(("applied", "pending", "unknown")),
               "not_ready": arr(enum(("database", "kv", "migrations")))})
APP_OPERATIONS: dict[tuple[str, str], tuple[str, Op]] = {
    ("GET", "/health"): ("The state of the database and key-value store: busy (every pooled connection in use, "
                         "the server answering) is not down; 503 when one is down", Op(HEALTH)),
    ("GET", "/health/live"): ("Liveness for orchestrators: the process answers (no dependency is checked)",
                              Op(LIVE)),
    ("GET", "/health/ready"): ("Readiness for load balancers: the database and the store answer and every "
                               "migration is applied (503 naming what is not ready)", Op(READY)),
    ("GET", "/metrics"): ("Prometheus metrics (text format 0.0.4): requests by route template and status, "
                          "payments, webhooks, scheduler lag, pool use. Present when QAFILA_METRICS is on",
                          Op(None, media="text/plain")),
    ("GET", "/openapi.json"): ("This document", Op({"type": "object"})),
    ("GET", "/invoices/{token}.pdf"): ("An invoice's PDF (the pdf_url of the invoice, no key needed)",
                                       Op(None, media="application/pdf")),
    ("POST", "/sandbox/zatca/{path}"): ("The ZATCA e-invoicing API simulator (not in production): compliance, "
                                        "production/csids, compliance/invoices, invoices/reporting/single, "
                                        "invoices/clearance/single",
                                        Op(shape({"validationResults": {"type": "object"}, "reportingStatus": null(STR),
                                                  "clearanceStatus": null(STR), "clearedInvoice": null(STR),
                                                  "requestID": INT, "binarySecurityToken": STR, "secret": STR,
                                                  "dispositionMessage": STR},
                                                 optional=("validationResults", "reportingStatus", "clearanceStatus",
                                                           "clearedInvoice", "requestID", "binarySecurityToken",
                                                           "secret", "dispositionMessage")))),
}
APP_ERRORS = {"/health": (503,), "/health/live": (), "/health/ready": (503,), "/metrics": (), "/openapi.json": (), "/invoices/{token}.pdf": (400, 404, 429, 500, 503),
              "/sandbox/zatca/{path}": (400, 401, 404, 429, 500, 503)}
NOT_DOCUMENTED = ("/graphql", "/docs", "/static")


def app_operation(method: str, path: str) -> dict:
    summary, op = APP_OPERATIONS.get((method, path)) or ("", _fallback(Route(method, path, _no_handler)))
    status = 200
    out: dict[str, Any] = {"operationId": "app." + re.sub(r"[^A-Za-z0-9]+", "_", f"{method} {path}").strip("_").lower(),
                           "summary": summary, "tags": ["Service"], "security": [],
                           "responses": {str(status): _response(status, op)}}
    if path == "/health":
        out["responses"]["503"] = {"description": "Degraded: a backing service is down",
                                   "content": {"application/json": {"schema": HEALTH}}}
    if path == "/health/ready":
        out["responses"]["503"] = {"description": "Not ready: `not_ready` names the database, the store or the "
                                                  "migrations", "content": {"application/json": {"schema": READY}}}
    for code in APP_ERRORS.get(path, (404, 500)):
        out["responses"].setdefault(str(code), {"$ref": f"#/components/responses/E{code}"})
    params = [Param(p, {"type": "string", "minLength": 1, "maxLength": 200}, "", "path", True).openapi()
              for p in re.findall(r"\{(\w+)", path)]
    if params:
        out["parameters"] = params
    if (method, path) not in APP_OPERATIONS:
        out[UNDESCRIBED] = True
    return out


async def _no_handler(call):     # pragma: no cover - a placeholder for app_operation's fallback
    return None


def document(interfaces: list[Interface], *, title: str, servers: list[str], description: str = "",
             app_routes: list[tuple[str, str]] = ()) -> dict:
    """The document of these interfaces plus the application's own routes `app_routes`
    ((method, path) pairs; /graphql, /docs and /static are left out)."""
    all_paths: dict[str, dict] = {}
    for method, path in app_routes:
        if method in ("GET", "POST", "PUT", "DELETE", "PATCH") and not path.startswith(NOT_DOCUMENTED):
            all_paths.setdefault(path, {})[method.lower()] = app_operation(method, path)
    for iface in interfaces:
        for path, ops in paths(iface).items():
            all_paths.setdefault(path, {}).update(ops)
    schemes = sorted({SECURITY[i.name] for i in interfaces if i.name in SECURITY})
    return {
        "openapi": "3.1.0",
        "info": {"title": title, "version": "1.0", "description": description},
        "servers": [{"url": url} for url in servers],
        "tags": [{"name": TAGS.get(i.name, i.name)} for i in interfaces] + ([{"name": "Service"}] if app_routes else []),
        "paths": all_paths,
        "components": {
            "securitySchemes": {k: SECURITY_SCHEMES[k] for k in schemes},
            "schemas": {"Error": ERROR, "CrmCustomer": CRM_CUSTOMER},
            "responses": {f"E{code}": {
                "description": text_,
                "content": {"application/json": {"schema": ref("Error")}}} for code, text_ in ERROR_TEXT.items()},
        },
    }
