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
from dataclasses import dataclass, replace
from typing import Any

from rest_compat.routing import Interface, Route
from services import addresses
from services.identity import api_keys
from services.money import currencies as money
from services.money import disputes as money_disputes
from services.payments import crypto, intents, links, methods, payment_methods, payment_search, payments, pricing, routing
from services.payments.providers import registry
from services.money.settlement import MARKETS
from services.crm import accounts as crm_accounts
from services.crm import currency as crm_currency
from services.crm import deals as crm_deals
from services.events import EVENT_TYPES
from services.ids import ID_LENGTH, MAX_ID_LEN, WELL_FORMED
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
    elif isinstance(t, list) and "null" not in t:
        out["type"] = [*t, "null"]
    elif "$ref" in out:
        return {"anyOf": [out, {"type": "null"}]}
    if "enum" in out:
        out["enum"] = [*out["enum"], None]
    return out


def enum(values, *, type_: str = "string") -> dict:
    return {"type": type_, "enum": list(values)}


def const(value: str) -> dict:
    return {"type": "string", "const": value}


def const_bool(value: bool) -> dict:
    return {"type": "boolean", "const": value}


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


def at_least_one(*fields: str, blank_counts: bool = False) -> dict:
    """A body that needs one of these fields given: not null, and unless `blank_counts` (an
    update that stores "" as given), not a blank string."""
    given = {"not": {"type": "null"}} if blank_counts else \
        {"not": {"anyOf": [{"type": "null"}, {"type": "string", "pattern": r"^\s*$"}]}}
    return {"anyOf": [{"required": [k], "properties": {k: given}} for k in fields]}


def amount(minimum: int = 1) -> dict:
    return {"type": "integer", "minimum": minimum, "maximum": MAX_INT,
            "description": "minor units (kuruş, halala, fils; KWD and IQD have 3 decimals)"}


def text(max_len: int, min_len: int = 0, **kw) -> dict:
    """A string field; with min_len, also not blank (the services strip a string before checking it)."""
    out = {"type": "string", "maxLength": max_len, **kw}
    if min_len:
        out["minLength"] = min_len
        out.setdefault("pattern", NOT_BLANK)
    return out


NOT_BLANK = r"\S"
KEY_TEXT = text(255, pattern="^[ -~]*$", description="printable ASCII")      # an idempotency key (services.idempotency)
CLEARED = {"type": "string", "maxLength": 0, "description": "\"\" clears it"}
# Unix seconds (services.validation.check_datetime's range), or an ISO 8601 date or date-time.
UNIX_SECONDS = {"type": "string", "pattern": r"^[0-9]{1,11}$", "description": "Unix seconds"}
WHEN = {"anyOf": [UNIX_SECONDS, {"type": "string", "format": "date-time"}, {"type": "string", "format": "date"}],
        "description": "Unix seconds or an ISO 8601 date-time"}
MERCHANT_PHONE = STR | dict(pattern=r"^\s*\+?[0-9][0-9 ()\-]{5,24}\s*$")      # services.payments.customers.PHONE
TAX_NUMBER = STR | dict(pattern=r"^\s*[A-Za-z0-9][A-Za-z0-9 .\-/]{2,31}\s*$")     # services.billing.profiles
E164 = {"type": "string", "pattern": r"^\+?[1-9][0-9]{5,14}$", "description": "E.164, e.g. +905551112233"}


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


# ---------------------------------------------------------------- precision, derived
# What every entry gets without saying it (operation() applies it), so a route added to a table
# is as exact as the others: ids carry their pattern, an optional body field may be null (the
# services read null as "not given"), a query parameter is never empty, and an amount paired
# with a currency is held to that currency's limits.

# The prefix of the ids of a collection, by the path segment naming it (`/customers/{id}`), and of
# a reference, by its name without `_id` (`customer_id`, `?customer=`); per interface where a word
# names another object there. A path id, a list's `starting_after`, and a query parameter or body
# field given as a plain string whose name is here or ends in `_id` get `^{prefix}_[A-Za-z0-9]{24}$`;
# a name not here gets the shape every id has (services.ids.WELL_FORMED), so a new route is exact
# about the shape with no entry, and about the prefix with one line here.
ID_PREFIXES: dict[str, dict[str, str]] = {
    "*": {"api-keys": "key", "customers": "cus", "customer": "cus", "rules": "rul", "payments": "pay",
          "payment": "pay", "list": "pay", "endpoints": "whk", "endpoint": "whk", "events": "evt", "event": "evt",
          "subscriptions": "sub", "subscription": "sub", "invoices": "inv", "invoice": "inv",
          "settlements": "set", "settlement": "set", "disputes": "dp", "dispute": "dp", "payment-links": "lnk",
          "payment_link": "lnk", "payment_methods": "pm", "refunds": "ref", "refund": "ref", "request": "req",
          "members": "mbr", "invites": "ivt", "sessions": "sess", "audit-events": "aud", "challenge": "tfc"},
    "crm": {"customers": "ccu", "customer": "ccu", "deals": "deal", "deal": "deal", "users": "usr", "user": "usr",
            "owner": "usr", "commissions": "com", "messages": "msg"},
}


def id_schema(prefix: str | None) -> dict:
    if prefix is None:
        return {"type": "string", "maxLength": MAX_ID_LEN, "pattern": f"^{WELL_FORMED}$",
                "description": "an id (prefix_ then letters, digits, _)"}
    return {"type": "string", "pattern": f"^{prefix}_[A-Za-z0-9]{{{ID_LENGTH}}}$", "description": f"a {prefix}_ id"}


def _prefix(iface_name: str, word: str) -> str | None:
    return ID_PREFIXES.get(iface_name, {}).get(word) or ID_PREFIXES["*"].get(word)


def _plain_string(schema: dict) -> bool:
    return schema.get("type") == "string" and not {"enum", "const", "pattern", "format", FOREIGN} & schema.keys()


# `*_id` names that hold someone else's id, not one of ours; or `foreign(schema)` for one field.
FOREIGN_IDS = frozenset({"order_id", "phone_number_id", "platform_message_id"})
FOREIGN = "x-qafila-foreign-id"


def foreign(schema: dict) -> dict:
    """A `*_id` field that holds the caller's own reference, any text (not one of our ids)."""
    return {**schema, FOREIGN: True}


def _reference(iface_name: str, name: str, schema: dict) -> dict | None:
    """The id schema of a field or parameter that names an object, else None."""
    if not _plain_string(schema) or name in FOREIGN_IDS:
        return None
    word = name[:-3] if name.endswith("_id") else name
    if name.endswith("_id") or _prefix(iface_name, word):
        out = id_schema(_prefix(iface_name, word))
        if schema.get("description"):
            out["description"] = schema["description"]
        return out
    return None


def collection_prefix(iface_name: str, path: str, before: str | None = None) -> str | None:
    """The id prefix of the objects of `path`'s collection: the nearest segment (before the
    path parameter `before`, or from the end) that names one."""
    segments = re.sub(r"\{(\w+)(:[^}]*)?\}", r"{\1}", path).split("/")
    if before is not None:
        segments = segments[:segments.index("{" + before + "}")]
    for seg in reversed(segments):
        if not seg.startswith("{") and _prefix(iface_name, seg):
            return _prefix(iface_name, seg)
    return None


def path_param(iface_name: str, path: str, name: str) -> Param:
    if name == "id":
        schema = id_schema(collection_prefix(iface_name, path, before=name))
    else:
        schema = _reference(iface_name, name, {"type": "string"}) or \
            {"type": "string", "minLength": 1, "maxLength": 200}
    return Param(name, schema, schema.pop("description", "the object's id"), "path", True)


def query_param(iface_name: str, path: str, p: Param) -> Param:
    schema = p.schema
    if p.name == "starting_after" and _plain_string(schema):
        schema = id_schema(collection_prefix(iface_name, path))
    else:
        schema = _reference(iface_name, p.name, schema) or schema
    if schema.get("type") == "string" and not {"enum", "const", "minLength"} & schema.keys():
        schema = {**schema, "minLength": 1}        # an empty value is refused (rest_compat.routing)
    schema = {k: v for k, v in schema.items() if k != "description"}
    return Param(p.name, schema, p.description or p.schema.get("description", ""), p.location, p.required)


def _nullable(schema: dict) -> dict:
    if "type" in schema:
        return null(schema)
    return {"anyOf": [schema, {"type": "null"}]}


def amount_limits(props: dict, required: set[str] = frozenset()) -> list[dict]:
    """Per-currency minimum and maximum of `amount` (services.money.currencies.LIMITS).

    When both are required, one `anyOf` with a branch per currency; otherwise an if/then per
    currency (a body without currency keeps the amount's own bounds). The two say the same of a
    body with both, but each if/then is two cases to a generator, so ten of them beside a body's
    own anyOf (an intent's ways to pay) multiply to more cases than schemathesis models."""
    limits = [(cur, lim) for cur, lim in money.LIMITS.items() if cur in props["currency"].get("enum", ())]
    if {"amount", "currency"} <= required:
        return [{"anyOf": [{"properties": {"currency": {"const": cur},
                                           "amount": {"minimum": lim.minimum, "maximum": lim.maximum}}}
                           for cur, lim in limits]}]
    return [{"if": {"properties": {"currency": {"const": cur}}, "required": ["currency"]},
             "then": {"properties": {"amount": {"minimum": lim.minimum, "maximum": lim.maximum}}}}
            for cur, lim in limits]


def request_schema(iface_name: str, schema: Any) -> Any:
    """A request body as the services read it (see the section's comment)."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    for key in ("oneOf", "anyOf", "allOf"):
        if key in out:
            out[key] = [request_schema(iface_name, s) for s in out[key]]
    if isinstance(out.get("items"), dict):
        out["items"] = request_schema(iface_name, out["items"])
    props = out.get("properties")
    if isinstance(props, dict):
        required = set(out.get("required", ()))
        fields = out.get("additionalProperties") is False         # a body(), not a constraint on one
        new = {}
        for name, sub in props.items():
            sub = _reference(iface_name, name, sub) or request_schema(iface_name, sub)
            new[name] = sub if name in required or not sub or not fields else _nullable(sub)
        out["properties"] = new
        if fields and "amount" in props and "currency" in props:      # a body's own fields, not a branch's
            out["allOf"] = [*out.get("allOf", ()), *amount_limits(props, required)]
    return out


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
    also_media: tuple[str, ...] = ()          # other answers of the success status (format=csv: text/csv)
    description: str = ""
    headers: tuple[Param, ...] = ()
    # Groups of query parameters of which one at most may be given (400 naming the first
    # otherwise): said in the description and as `x-qafila-exclusive`, since parameters cannot.
    exclusive: tuple[tuple[str, ...], ...] = ()
    # Pairs of body fields that must differ (`x-qafila-distinct`), and the (from, to, days) of a
    # date window: from <= to, at most `days` apart (`x-qafila-span`).
    distinct: tuple[tuple[str, str], ...] = ()
    span: tuple[str, str, int] | None = None
    # (list, field): each item's `field` equals the body's (`x-qafila-same`: a split's currency).
    same: tuple[tuple[str, str], ...] = ()
    # Body fields holding a date or time that must be in the future (`x-qafila-future`).
    future: tuple[str, ...] = ()
    # (list, amount, quantity): the list's amount x quantity is at most the currency's maximum
    # (`x-qafila-total`: the maxima by currency).
    total: tuple[str, str, str] | None = None
    # (amount, currency) query parameters: the amount within the currency's limits
    # (`x-qafila-amount`: [minimum, maximum] by currency), as a body's if/then says it.
    amount_query: tuple[str, str] | None = None
    # (list, ..., field): no two items of the list (nested lists by path) have the same field
    # (`x-qafila-unique`; JSON Schema's uniqueItems compares whole items).
    unique: tuple[tuple[str, ...], ...] = ()
    # (field, maximum, other, values): the body's field above maximum only when other is one of
    # values (`x-qafila-only`: installments above 1 for card payments only).
    only: tuple[tuple[str, int, str, tuple[str, ...]], ...] = ()
    # (field, other, {value: the other's values}): with field one of the keys, other one of its values
    # (`x-qafila-pairs`: a crypto asset and its networks, one body branch instead of one per asset).
    pairs: tuple[tuple[str, str, dict[str, tuple[str, ...]]], ...] = ()
    # BNPL (`x-qafila-bnpl`): each method's amount limits by currency, the fields whose amounts add
    # up to the amount, and the sandbox buyer the provider approves (rest_compat/openapi.py's BNPL part).
    bnpl: dict | None = None
    # The local methods (`x-qafila-local`): each one's amount limits by currency, its own create fields
    # with their sandbox values, and the ones it requires (one body branch for the methods without a
    # field of their own and one for those with one, instead of a branch per method).
    local: dict | None = None


# ---- merchant /api

API_KEY = shape({"id": STR, "object": const("api_key"), "name": STR, "type": enum(api_keys.KINDS),
                 "prefix": STR, "mode": enum(api_keys.MODES), "status": enum(("active", "revoked")),
                 "created_at": TS, "last_used": null(TS)})
TAX_ID_TYPES = ("sa_vat", "tr_vkn", "tr_tckn", "eg_rin")
TAX_ID = shape({"type": enum(TAX_ID_TYPES), "value": STR, "country": enum(("SA", "TR", "EG")),
                "tax_office": null(STR)}, optional=("tax_office",),
               description="The customer's tax identity, read by every e-invoice (tax_office: Turkish ids only)")
TAX_ID_IN = {"anyOf": [{"type": "object", "additionalProperties": False, "required": ["type", "value"],
                        "properties": {"type": enum(TAX_ID_TYPES), "value": text(32, 1),
                                       "country": enum(("SA", "TR", "EG")), "tax_office": text(100)}},
                       {"type": "null"}],
             "description": "sa_vat: 15 digits, first and last 3; tr_vkn: 10 digits with its check digit; "
                            "tr_tckn: 11 digits with its check digits; eg_rin: 9 digits. null clears it."}
# services.addresses: strings; on an update the keys given are merged in, null or "" removes one
_COUNTRY_ANY_CASE = "|".join(f"[{c[0]}{c[0].lower()}][{c[1]}{c[1].lower()}]" for c in sorted(addresses.countries()))
ADDRESS = shape({k: null(STR) for k in addresses.KEYS},
                description="The customer's postal address, read by ETA's receiver, GİB's and ZATCA's buyer and "
                            "a BNPL intent's shipping address (state: state, province or governorate; country: "
                            "ISO 3166-1 alpha-2)")
ADDRESS_IN = {"anyOf": [{"type": "object", "additionalProperties": False, "properties": {
    **{k: {"type": ["string", "null"], "maxLength": addresses.MAX_LEN[k]} for k in addresses.KEYS if k != "country"},
    "country": {"anyOf": [{"type": "string", "pattern": rf"^\s*(?:{_COUNTRY_ANY_CASE})\s*$"},
                          {"type": "string", "pattern": r"^\s*$"}, {"type": "null"}],
                "description": "ISO 3166-1 alpha-2, any case (stored upper-cased)"}}}, {"type": "null"}],
              "description": "line1, line2, building_number, district, city, state, postal_code, country. On an "
                             "update the keys given replace the stored ones (null or \"\" removes one), the others "
                             "stay; null clears the whole address."}
CUSTOMER = shape({"id": STR, "object": const("customer"), "email": null(STR), "name": null(STR),
                  "phone": null(STR), "metadata": METADATA_OUT, "tax_id": null(TAX_ID), "address": null(ADDRESS),
                  "created_at": TS})
CONDITION = {"type": "object", "required": ["field", "operator", "value"],
             "properties": {"field": enum(routing.CONDITION_FIELDS), "operator": enum(routing.OPERATORS),
                            "value": {"description": "a string, number, or a list of them for in / not_in"}}}
_INT_TEXT = {"type": "string", "pattern": r"^\s*-?[0-9]+\s*$"}
_ANY_CASE = "|".join("".join(f"[{c.upper()}{c.lower()}]" for c in cur) for cur in money.CURRENCIES)
CONDITION_IN = {   # services.payments.routing._check_conditions
    **CONDITION, "additionalProperties": False,
    "properties": {**CONDITION["properties"], "value": {
        "anyOf": [{"type": "integer"}, text(200, 1),
                  arr({"anyOf": [{"type": "integer"}, text(500, 1)]})],
        "description": "a string, number, or a list of them for in / not_in"}},
    "allOf": [
        {"if": {"properties": {"operator": enum(("gt", "lt"))}}, "then": {"properties": {"field": const("amount")}}},
        {"if": {"properties": {"field": const("amount")}},
         "then": {"properties": {"value": {"anyOf": [{"type": "integer"}, _INT_TEXT,
                                                     arr({"anyOf": [{"type": "integer"}, _INT_TEXT]})]}}}},
        {"if": {"properties": {"field": const("currency"), "operator": enum(("equals", "not_equals"))}},
         "then": {"properties": {"value": {"type": "string", "pattern": rf"^\s*(?:{_ANY_CASE})\s*$"}}}}]}
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
DISPUTE_OF_PAYMENT = null(shape(
    {"id": STR, "object": const("dispute"), "amount": INT, "fee": INT, "currency": CURRENCY, "reason": STR,
     "status": enum(money_disputes.STATUSES), "evidence_due_by": TS, "created_at": TS, "closed_at": null(TS)},
    description="the payment's dispute (GET /api/disputes/{id} has its evidence); null when not disputed"))
CARD_NETWORKS = arr(STR, description="the networks the card carries: [\"visa\"], [\"mastercard\"], a mada "
                                      "card's [\"mada\"] or [\"mada\", \"visa\"] when co-badged, a Troy "
                                      "card's [\"troy\"] (Yerel, 9792...) or [\"troy\", \"discover\"] (Global), "
                                      "a Meeza card's [\"meeza\"] (of a wallet payment: the device card's)")
PAYMENT_METHOD_OUT = shape({"type": STR, "card": shape({
    "brand": null(STR), "last4": null(STR), "exp_month": null(INT), "exp_year": null(INT),
    "fingerprint": null(STR), "country": null(STR), "networks": CARD_NETWORKS}),
    "wallet": shape({"type": enum(methods.WALLET_TYPES), "dynamic_last4": STR,
                     "auth_method": enum(("CRYPTOGRAM_3DS", "PAN_ONLY", "EMV"))},
                    description="Apple Pay / Google Pay: the device number's last four and how it was "
                                "authenticated")}, optional=("wallet",))
PAYMENT = shape({
    "id": STR, "object": const("payment"), "status": PAYMENT_STATUS, "amount": INT, "currency": CURRENCY,
    "provider": null(STR), "routing_decision": ROUTING_DECISION, "risk_score": INT, "created_at": TS,
    "amount_captured": INT, "amount_refunded": INT, "capture_method": enum(("automatic", "manual")),
    "customer_id": null(STR), "decline_code": null(STR),
    "payment_method": PAYMENT_METHOD_OUT,
    "metadata": METADATA_OUT, "livemode": BOOL,
    "payment_link": null({"type": "string", "description": "the lnk_ id when paid on a payment link"}),
    "receipt_url": null({"type": "string", "description": "the HTML receipt (no key needed), once paid"}),
    "dispute": DISPUTE_OF_PAYMENT, "receipt": RECEIPT},
    optional=("receipt",))
PAYMENT_ITEM = shape({"id": STR, "status": PAYMENT_STATUS, "amount": INT, "currency": CURRENCY,
                      "provider": null(STR), "customer_id": null(STR), "created_at": TS,
                      "payment_method": PAYMENT_METHOD_OUT, "dispute": DISPUTE_OF_PAYMENT})
CARD_IN = body({"number": {"type": "string", "pattern": r"^\s*(?:[0-9][ -]?){11,18}[0-9]\s*$",
                           "description": "card number: 12 to 19 digits, spaces or dashes between; its last digit "
                                          "must pass the Luhn check, and the card must not have expired (400 "
                                          "otherwise: JSON Schema cannot state either)"},
                "exp_month": {"type": "integer", "minimum": 1, "maximum": 12},
                "exp_year": {"type": "integer", "minimum": 0, "maximum": 9999, "description": "YYYY or YY"},
                "cvc": {"type": "string", "pattern": "^[0-9]{3,4}$"}},
               required=("number", "exp_month", "exp_year"))
PROVIDER = enum(registry.names())
ROUTING_IN = {"description": "a strategy name, a provider name, or {strategy, provider}",
              "oneOf": [enum([*(s for s in routing.STRATEGIES if s != "fixed"), *registry.names()]),
                        body({"strategy": enum(routing.STRATEGIES), "provider": PROVIDER})
                        | {"if": {"properties": {"strategy": const("fixed")}, "required": ["strategy"]},
                           "then": {"required": ["provider"], "properties": {"provider": PROVIDER}}}]}
WALLET_TOKEN_IN = {
    "apple_pay": body({"token": {"type": ["object", "string"],
                                 "description": "the whole PKPaymentToken JSON (paymentData, paymentMethod, "
                                                "transactionIdentifier)"}}, required=("token",)),
    "google_pay": body({"token": {"type": ["string", "object"],
                                  "description": "paymentMethodData.tokenizationData.token (ECv2, gateway "
                                                 "qafila, gatewayMerchantId your merchant id)"}},
                       required=("token",))}
_BILLING_COUNTRY = {"type": "string", "pattern": "^[A-Za-z]{2}$"}
NOT_GIVEN_ = {"type": "null"}
PAYMENT_CREATE = body({
    "amount": amount(), "currency": CURRENCY, "routing": ROUTING_IN,
    "payment_method": {**body({"type": enum(methods.API_TYPES), "card": CARD_IN, "billing_country": _BILLING_COUNTRY,
                               **WALLET_TOKEN_IN}),
        "anyOf": [{"required": ["card"], "properties": {
                       "type": enum([t for t in methods.API_TYPES if t not in methods.WALLET_TYPES]),
                       **{w: NOT_GIVEN_ for w in methods.WALLET_TYPES}}},
                  *({"required": ["type", w], "properties": {
                      "type": const(w), "card": NOT_GIVEN_, **{o: NOT_GIVEN_ for o in methods.WALLET_TYPES if o != w}}}
                    for w in methods.WALLET_TYPES)],
        "description": "a card, or a wallet token (apple_pay, google_pay: verified and decrypted by Qafila; "
                       "400 wallet_token_invalid, wallet_token_expired, wallet_token_mismatch, "
                       "wallet_token_reused, wallet_not_configured, authentication_required for a PAN_ONLY "
                       "token that needs 3-D Secure: pay it on /v1)"},
    "customer": body({"email": text(254, format="email"), "name": text(200), "phone": MERCHANT_PHONE}),
    "customer_id": text(40), "metadata": METADATA, "description": text(500), "capture": BOOL,
    "capture_method": enum(("automatic", "manual")), "idempotency_key": KEY_TEXT},
    required=("amount", "currency", "payment_method"))
PAYMENT_CREATE["allOf"] = [      # capture and capture_method, both given, agree
    {"if": {"properties": {"capture": {"const": flag}}, "required": ["capture"]},
     "then": {"properties": {"capture_method": {"enum": [method, None]}}}}
    for flag, method in ((True, "automatic"), (False, "manual"))]
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
    # verify-otp and verify-two-factor answer SIGN_IN (the team section below).
    ("GET", "/api-keys"): Op(list_of(API_KEY), query=PAGE),
    ("POST", "/api-keys"): Op(
        shape({**API_KEY["properties"], "key": {"type": "string", "description": "the full key, shown once"}},
              optional=("key",), description=REPLAY_NOTE.format("key")),
        body({"name": text(100, 1), "mode": enum(api_keys.MODES), "type": enum(api_keys.KINDS)})),
    ("PUT", "/api-keys/{id}/revoke"): Op(shape({"id": STR, "status": enum(("active", "revoked")),
                                                "revoked_at": null(TS)})),
    ("POST", "/customers"): Op(
        CUSTOMER, {**body({"email": text(254, format="email"), "name": text(200), "phone": MERCHANT_PHONE,
                           "metadata": METADATA, "tax_id": TAX_ID_IN, "address": ADDRESS_IN},
                          description="at least one of email, name, phone"),
                   **at_least_one("email", "name", "phone")}),
    ("GET", "/customers"): Op(list_of(CUSTOMER), query=(*PAGE, q("email", text(254, format="email"),
                                                                 "exact e-mail address"))),
    ("GET", "/customers/{id}"): Op(CUSTOMER),
    ("PUT", "/customers/{id}"): Op(
        CUSTOMER, {**body({"email": text(254, format="email"), "name": text(200), "phone": MERCHANT_PHONE,
                           "metadata": METADATA, "tax_id": TAX_ID_IN, "address": ADDRESS_IN},
                          description="at least one field"),
                   # tax_id or address: null is an update too (it clears the tax identity, the address)
                   "anyOf": [*at_least_one("email", "name", "phone", "metadata", blank_counts=True)["anyOf"],
                             {"required": ["tax_id"]}, {"required": ["address"]}]}),
    ("GET", "/routing/rules"): Op(list_of(RULE)),
    ("POST", "/routing/rules"): Op(
        RULE, body({"name": text(100, 1), "strategy": enum(routing.STRATEGIES), "provider": PROVIDER,
                    "priority": {"type": "integer", "minimum": 0, "maximum": 1_000_000},
                    "status": enum(("active", "inactive")), "conditions": arr(CONDITION_IN, maxItems=20)},
                   required=("name",))
        | {"if": {"properties": {"strategy": const("fixed")}, "required": ["strategy"]},
           "then": {"required": ["provider"], "properties": {"provider": PROVIDER}}}),
    ("PUT", "/routing/rules/{id}"): Op(
        RULE, {**body({"name": text(100, 1), "strategy": enum(routing.STRATEGIES), "provider": PROVIDER,
                       "priority": {"type": "integer", "minimum": 0, "maximum": 1_000_000},
                       "status": enum(("active", "inactive")), "conditions": arr(CONDITION_IN, maxItems=20)}),
               **at_least_one("name", "strategy", "provider", "priority", "status", "conditions")},
        description="The fixed strategy needs a provider (400 otherwise)."),
    ("POST", "/payments/create"): Op(
        PAYMENT, PAYMENT_CREATE, errors=(402, 409),
        description="402 when the card is declined (`code`: card_declined, insufficient_funds, "
                    "authentication_required, expired_card, ...). payment_method.type mada (troy, meeza) takes "
                    "a card of that scheme (400 not_a_mada_card, ...); a mada-only, Troy Yerel or Meeza card "
                    "pays its scheme's currency only (400 card_currency_not_supported); a Meeza card is "
                    "purchase only (capture: false or capture_method manual: 400 capture_not_supported); "
                    "the methods with a buyer step (knet, benefit, fawry, stcpay) are a 400 pointing to /v1 payment intents."),
    ("GET", "/payments/list"): Op(
        list_of(PAYMENT_ITEM),
        query=(*PAGE, q("status", PAYMENT_STATUS), q("currency", CURRENCY), q("provider", PROVIDER),
               q("customer", text(40), "a cus_ id"),
               q("created_gte", WHEN, "ISO 8601 date-time or Unix seconds: created at or after"),
               q("created_lte", WHEN, "ISO 8601 date-time or Unix seconds: created at or before"),
               q("q", text(254), "search: an exact pay_ id, the payer's e-mail (any case), the customer's phone "
                                 "or the card's last 4 digits"),
               q("payment_method", {"type": "string", "enum": list(payment_search.METHOD_FILTER)},
                 "the payment's method (card, mada, apple_pay, knet, ...)"),
               q("amount_gte", {"type": "integer", "minimum": 0}, "amount at least (minor units)"),
               q("amount_lte", {"type": "integer", "minimum": 0}, "amount at most (minor units)"))),
    ("GET", "/payments/{id}"): Op(PAYMENT),
    ("POST", "/payments/{id}/capture"): Op(
        shape({"id": STR, "status": PAYMENT_STATUS, "amount": {"type": "integer", "description": "captured"},
               "amount_authorized": INT, "currency": CURRENCY}),
        body({"amount": amount()}, description="amount: at most the authorized amount (all of it by default)"),
        errors=(409,)),
    ("POST", "/payments/{id}/void"): Op(shape({"id": STR, "status": PAYMENT_STATUS}), body({}), errors=(409,)),
    ("POST", "/payments/{id}/refund"): Op(
        shape({"id": STR, "status": PAYMENT_STATUS, "refund_id": STR, "amount": INT, "currency": CURRENCY,
               "amount_refunded": INT, "reason": null(STR),
               "note": {"description": "the e-invoice note (credit note, return) this refund caused, as the "
                                       "invoice's notes list it; null when the payment paid no e-invoice"}}),
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
                                    query=(*PAGE, q("type", EVENT_NAME, "an event type"))),
    ("GET", "/webhooks/events/{id}"): Op(EVENT_DETAIL),
    ("POST", "/webhooks/events/{id}/retry"): Op(EVENT_DETAIL),
    ("POST", "/webhooks/test"): Op(
        shape({"delivered": BOOL, "status_code": null(INT), "latency_ms": INT, "event_id": STR,
               "results": arr(shape({"endpoint_id": STR, "url": STR, "delivered": BOOL, "status_code": null(INT),
                                     "latency_ms": INT, "error": null(STR)}))}),
        body({"event": EVENT_NAME, "endpoint": {"anyOf": [id_schema("whk"), CLEARED],
                                                "description": "a whk_ id: only this endpoint (\"\": every one)"}},
             required=("event",)), errors=(404,)),
}

from services.billing import invoices as _invoices, subscriptions as _subscriptions  # noqa: E402
from services.einvoicing.eta import taxes as _eta_taxes  # noqa: E402

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
ITEM_TAX_OUT = shape({"type": STR, "subtype": STR, "rate": STR, "amount": INT}, optional=("rate", "amount"))
INVOICE_ITEM = shape({"name": STR, "amount": INT, "quantity": INT, "item_code": STR,
                      "item_type": enum(("EGS", "GS1")), "unit_type": STR, "taxes": arr(ITEM_TAX_OUT)},
                     optional=("item_code", "item_type", "unit_type", "taxes"))
INVOICE = shape({
    "id": STR, "object": const("invoice"), "number": STR, "status": INVOICE_STATUS, "customer_id": STR,
    "subscription_id": null(STR), "currency": CURRENCY, "items": arr(INVOICE_ITEM), "subtotal": INT,
    "tax_rate": {"type": "number", "description": "a percentage"}, "tax": INT, "total": INT,
    "exchange_rate": null({"type": "string", "description": "EGP per one unit of currency (decimal text) of a "
                                                            "foreign-currency ETA e-invoice: given, or the merchant's "
                                                            "rate taken as it left draft"}),
    "due_date": DATE,
    "pdf_url": STR, "hosted_invoice_url": STR, "sent_to": null(STR), "sent_via": null(enum(("email", "messaging"))),
    "sent_at": null(TS), "paid_at": null(TS), "payment_id": null(STR), "locale": INVOICE_LOCALE,
    "zatca": null({"type": "object", "description": "The ZATCA e-invoice (see ZATCA_BLOCK)"}),
    "livemode": BOOL, "created_at": TS})
PROFILE = shape({"id": STR, "object": const("merchant"), "email": STR, "name": STR, "country": STR,
                 "legal_name": null(STR), "address": null(STR), "tax_number": null(STR),
                 "crm_company_id": null({"type": "string", "description": "the CRM company whose exchange rates "
                                                                        "price foreign-currency ETA invoices"}),
                 "require_two_factor": {"type": "boolean", "description": "every member signs in with an "
                                                                          "authenticator code (members without "
                                                                          "one enrol at their next sign-in)"}})
CLOCK = shape({"object": const("test_clock"), "now": TS, "livemode": BOOL, "offset_seconds": INT,
               "previous": TS, "ran": arr(shape({"kind": STR, "id": STR, "at": TS, "outcome": STR})),
               "summary": {"type": "object"}},
              optional=("offset_seconds", "previous", "ran", "summary"))

TAX_RATE = {"anyOf": [{"type": "number", "minimum": 0, "maximum": 100, "multipleOf": 0.01},
                      {"type": "string", "pattern": r"^\s*(100(\.0{1,2})?|[0-9]{1,2}(\.[0-9]{1,2})?)\s*$"}],
            "description": "a percentage, at most 2 decimals (services.billing.invoices.parse_tax_rate)"}
# an item's ETA taxes (services.einvoicing.eta.taxes.parse): EGP invoices only (else a 400 on items[n].taxes)
ITEM_TAXES = arr(body({"type": enum(_eta_taxes.TYPES),
                       "subtype": enum(sorted({s for subs in _eta_taxes.SUBTYPES.values() for s in subs})),
                       "rate": {"anyOf": [{"type": "number", "minimum": 0, "maximum": 100, "multipleOf": 0.01},
                                          {"type": "string", "pattern": r"^\s*(100(\.0{1,2})?|[0-9]{1,2}(\.[0-9]{1,2})?)\s*$"}]},
                       "amount": {"type": "integer", "minimum": 0}}, required=("type", "subtype")),
                 maxItems=_eta_taxes.MAX_TAXES,
                 description="ETA's taxes beside VAT (T2 table tax, T3 fixed table tax, T4 withholding, T5-T20 fees): "
                             "each with its subtype and a rate or a fixed amount (minor units); EGP invoices only")
EXCHANGE_RATE = {"anyOf": [{"type": "string", "pattern": _invoices.EXCHANGE_RATE_PATTERN},
                          {"type": "number", "exclusiveMinimum": 0, "maximum": 1_000_000, "multipleOf": 0.00001}],
                 "description": "EGP per one unit of the invoice's currency, for its ETA e-invoice: a decimal string, "
                                "above 0, at most 5 decimals (services.billing.invoices.parse_exchange_rate); "
                                "a 400 naming exchange_rate on an EGP invoice"}
# An item name is XML text on every e-invoice: no C0 control but tab, line feed, carriage return; not blank.
_XML_NO = "\\x01-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f\\ufffe\\uffff"
ITEM_NAME = f"^[^{_XML_NO}]*[^\\s{_XML_NO}][^{_XML_NO}]*$"
ITEM_LIMITS = [{"if": {"properties": {"currency": const(cur)}, "required": ["currency"]},    # a line's amount
                "then": {"properties": {"items": {"items": {"properties": {"amount": {"maximum": lim.maximum}}}}}}}
               for cur, lim in money.LIMITS.items()]

MERCHANT.update({
    ("POST", "/subscriptions"): Op(
        SUBSCRIPTION, body({"customer_id": text(64), "plan": text(200, 1), "amount": amount(), "currency": CURRENCY,
                            "interval": INTERVAL, "interval_count": {"type": "integer", "minimum": 1},
                            "metadata": METADATA}, required=("customer_id", "plan", "amount", "currency", "interval"))
        | {"allOf": [{"if": {"properties": {"interval": const(unit)}},
                      "then": {"properties": {"interval_count": {"maximum": _subscriptions.MAX_SPAN_DAYS // days}}}}
                     for unit, days in _subscriptions.INTERVAL_DAYS.items()]},
        errors=(402,), description="Bills the first period at once."),
    ("GET", "/subscriptions"): Op(list_of(SUBSCRIPTION, total=None),
                                  query=(*PAGE, q("status", SUBSCRIPTION_STATUS), q("customer_id", text(64)))),
    ("GET", "/subscriptions/{id}"): Op(SUBSCRIPTION),
    ("PUT", "/subscriptions/{id}/pause"): Op(SUBSCRIPTION),
    ("PUT", "/subscriptions/{id}/resume"): Op(SUBSCRIPTION),
    ("PUT", "/subscriptions/{id}/cancel"): Op(SUBSCRIPTION),
    ("POST", "/invoices"): Op(
        INVOICE, body({"customer_id": text(64), "currency": CURRENCY,
                       "items": arr(body({"name": text(200, 1, pattern=ITEM_NAME), "amount": amount(0),
                                          "quantity": {"type": "integer", "minimum": 1, "maximum": 1_000_000},
                                          "item_code": text(100, 1, pattern=r"^\s*[A-Za-z0-9][A-Za-z0-9._/-]*\s*$"),
                                          "item_type": enum(("EGS", "GS1")),
                                          "unit_type": text(10, 1, pattern=r"^\s*[A-Za-z0-9]+\s*$"),
                                          "taxes": ITEM_TAXES},
                                         required=("name", "amount")), minItems=1, maxItems=100),
                       "due_date": DATE, "tax_rate": TAX_RATE, "locale": INVOICE_LOCALE, "metadata": METADATA,
                       "exchange_rate": EXCHANGE_RATE},
                      required=("customer_id", "currency", "items")) | {"allOf": ITEM_LIMITS},
        future=("due_date",), total=("items", "amount", "quantity"),
        description="The total (items' amount x quantity, plus tax) is at most the currency's maximum payment."),
    ("GET", "/invoices"): Op(list_of(INVOICE, total=None),
                             query=(*PAGE, q("status", INVOICE_STATUS), q("customer_id", text(64)),
                                    q("subscription_id", text(64)))),
    ("GET", "/invoices/{id}"): Op(INVOICE),
    ("PUT", "/invoices/{id}"): Op(
        INVOICE, body({"exchange_rate": {"anyOf": [EXCHANGE_RATE, {"type": "null"}]}}, required=("exchange_rate",)),
        description="A draft's exchange_rate (null clears it); 400 invalid_state once the invoice left draft or its "
                    "ETA e-invoice was made."),
    ("PUT", "/invoices/{id}/send"): Op(INVOICE, body({"channel": enum(("email", "messaging"))}, required=("channel",))),
    ("PUT", "/invoices/{id}/mark-paid"): Op(INVOICE, body({})),
    ("GET", "/merchant"): Op(PROFILE),
    ("PUT", "/merchant"): Op(PROFILE, {**body({"name": text(200, 1), "country": enum(MARKETS), "legal_name": text(200),
                                               "address": text(500), "tax_number": TAX_NUMBER,
                                               "crm_access_token": null(text(2000, 1, description=(
                                                   "an access token of an admin of the merchant's CRM company "
                                                   "(POST /api/auth/login on the CRM port): links the company, "
                                                   "whose exchange rates (PUT /api/reports/rates) price "
                                                   "foreign-currency ETA invoices; null unlinks it"))),
                                               "require_two_factor": BOOL}),
                                       "anyOf": [*at_least_one("name", "country", "legal_name", "address", "tax_number",
                                                               "require_two_factor", blank_counts=True)["anyOf"],
                                                 {"required": ["crm_access_token"]}],
                                       "if": {"properties": {"country": const("SA")}, "required": ["country"]},
                                       "then": {"properties": {"tax_number": {"anyOf": [
                                           {"type": "string", "pattern": r"^\s*3[0-9]{13}3\s*$"}, {"type": "null"}]}}}},
                             description="A Saudi merchant's (country SA, given or stored) tax_number is its VAT "
                                         "number: 15 digits, first and last 3 (400 invalid_tax_number otherwise). "
                                         "require_two_factor true: members without two-factor sign-in enrol at "
                                         "their next sign-in (until then their session answers 403 "
                                         "two_factor_enrollment_required outside /api/me*)."),
    ("GET", "/test-helpers/clock"): Op(CLOCK, description="Test mode only."),
    ("POST", "/test-helpers/advance-clock"): Op(
        CLOCK, body({"days": {"type": "integer", "minimum": 1}, "to": TS}, description="exactly one of days, to"),
        description="Test mode only: moves the merchant's test clock and runs renewals and dunning that fell due."),
})

# ---- merchant /api: ZATCA e-invoicing (rest_compat/merchant_einvoicing.py; services/einvoicing/zatca).
ZATCA_MESSAGE = shape({"type": STR, "code": STR, "category": STR, "message": STR})
ZATCA_BLOCK = shape({"type": enum(("simplified", "standard")), "uuid": STR, "icv": INT, "hash": STR,
                     "status": enum(("pending", "reported", "cleared", "rejected")), "messages": arr(ZATCA_MESSAGE)})
INVOICE["properties"]["zatca"] = null(ZATCA_BLOCK)
INVOICE_NOTE = shape({"id": STR, "kind": enum(("credit_note", "debit_note", "return")), "number": STR, "amount": INT,
                      "tax": INT, "reason": null(STR), "created_at": null(TS), "zatca": ZATCA_BLOCK,
                      "gib": {"type": "object"}, "eta": {"type": "object"}},
                     optional=("zatca", "gib", "eta"),
                     description="A note that refers to the invoice; the block of its authority (zatca, gib or eta)")
INVOICE["properties"]["notes"] = arr(INVOICE_NOTE)
INVOICE["required"].append("notes")
OUTAGE = shape({"object": const("einvoicing_outage"), "authority": enum(("gib", "eta")), "minutes": INT,
                "until": null(TS), "livemode": BOOL})
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
                          "industry": text(100, 1), "locale": {"type": "string", "maxLength": 35, "pattern": "^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$",
                                     "description": "BCP 47, e.g. ar-SA-u-nu-arab"},
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
    ("GET", "/invoices/{id}/notes"): Op(shape({"object": const("list"), "data": arr(INVOICE_NOTE)}),
                                        description="The invoice's notes (credit, debit, returns), oldest first."),
    ("GET", "/invoices/{id}/notes/{note_id}/xml"): Op(None, media="application/xml",
                                                      description="The note's own e-document XML."),
    ("POST", "/test-helpers/einvoicing/outage"): Op(
        OUTAGE, body({"authority": enum(("gib", "eta")), "minutes": {"type": "integer", "minimum": 0, "maximum": 10080}},
                     required=("authority", "minutes")),
        errors=(403,), description="Test mode only: the authority's simulator is unreachable for this merchant for "
                                   "`minutes` of its test clock (0 ends it)."),
})

# ---- merchant /api: GİB e-invoicing (rest_compat/merchant_einvoicing.py; services/einvoicing/gib).
GIB_MESSAGE = shape({"code": STR, "message": STR})
GIB_BLOCK = shape({"type": enum(("efatura", "earsiv")), "profile": enum(("TICARIFATURA", "TEMELFATURA", "EARSIVFATURA")),
                   "number": {"type": "string", "pattern": "^[A-Z0-9]{3}20[0-9]{2}[0-9]{9}$"}, "uuid": STR,
                   "status": enum(("pending", "sent", "accepted", "rejected", "reported", "canceled")),
                   "messages": arr(GIB_MESSAGE)},
                  description="The invoice's GİB document (e-Fatura or e-Arşiv Fatura) and its status")
INVOICE["properties"]["gib"] = null(GIB_BLOCK)
INVOICE_NOTE["properties"]["gib"] = GIB_BLOCK
GIB_ADDRESS_OUT = shape({"street": STR, "building_number": STR, "district": STR, "city": STR, "postal_code": STR,
                         "country": STR}, optional=("street", "building_number", "district", "city", "postal_code",
                                                    "country"))
GIB_UNIT = shape({
    "object": const("gib_unit"), "id": null(STR), "status": enum(("not_set_up", "active")), "livemode": BOOL,
    "vkn": null(STR), "tckn": null(STR), "title": null(STR), "tax_office": null(STR), "address": null(GIB_ADDRESS_OUT),
    "prefix": null(STR), "website": null(STR), "kdv_rate": null(INT), "efatura_profile": null(STR),
    "integrator": {"anyOf": [const("sandbox"), shape({"url": STR, "username": STR}), {"type": "null"}],
                   "description": "sandbox, or the integrator's url and username (the password is never shown)"},
    "next_number": null(STR), "created_at": null(TS), "updated_at": null(TS)})
GIB_TAXPAYER = shape({"object": const("gib_taxpayer"), "vkn": STR, "registered": BOOL, "title": null(STR),
                      "alias": null(STR),
                      "type": {"type": ["string", "null"], "enum": ["efatura", None]}})
GIB_SETUP = body({
    "vkn": {"type": "string", "pattern": "^[0-9]{10}$"}, "tckn": {"type": "string", "pattern": "^[1-9][0-9]{10}$"},
    "title": text(200, 1), "tax_office": text(100, 1),
    "address": body({"street": text(127, 1), "building_number": text(16), "district": text(127, 1),
                     "city": text(127, 1), "postal_code": {"type": "string", "pattern": "^[0-9]{5}$"},
                     "country": const("TR")}, required=("street", "district", "city", "postal_code")),
    "prefix": {"type": "string", "pattern": "^[A-Z0-9]{3}$"},
    "website": {"type": "string", "maxLength": 200, "pattern": "^(https?://)?[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+(/[A-Za-z0-9._~/-]*)?$",
                "description": "the shop's web address, e.g. https://shop.example.com.tr"},
    "kdv_rate": enum((20, 10, 1, 0), type_="integer"), "efatura_profile": enum(("TICARIFATURA", "TEMELFATURA")),
    "integrator": {"anyOf": [const("sandbox"),
                             body({"url": {"type": "string", "pattern": "^https://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[A-Za-z0-9._~/-]*)?$", "maxLength": 500},
                                   "username": text(200, 1), "password": {"type": "string", "minLength": 1,
                                                                          "maxLength": 500}},
                                  required=("url", "username", "password"))]}},
    required=("title", "tax_office", "address", "prefix"),
    description="vkn (10 digits, check digit) or tckn (11 digits, a sole trader): exactly one.")
PAYMENT["properties"]["invoice_id"] = null({"type": "string", "description": "the invoice made for a payment that "
                                                                          "asked for one (invoice: true), once made"})
PAYMENT["properties"]["gib"] = null(GIB_BLOCK)
PAYMENT["required"] += ["invoice_id", "gib"]
PAYMENT_CREATE["properties"]["invoice"] = {"type": "boolean", "description": "a TRY payment asks for an invoice: the "
                                                                            "scheduler makes it and its GİB e-document"}
MERCHANT.update({
    ("POST", "/einvoicing/gib/setup"): Op(
        GIB_UNIT, GIB_SETUP, description="Sets the GİB unit up (again: new settings, the same numbering). Test mode: "
                                         "integrator sandbox (the default); live: your integrator's credentials, "
                                         "kept encrypted and never shown."),
    ("GET", "/einvoicing/gib"): Op(GIB_UNIT),
    ("GET", "/einvoicing/gib/taxpayers/{vkn}"): Op(GIB_TAXPAYER, description="The integrator's e-Fatura taxpayer "
                                                                             "list (sandbox: 1234567808, 9876543209)."),
    ("POST", "/invoices/{id}/returns"): Op(
        INVOICE_NOTE, body({"amount": amount(), "reason": text(200, 1)}, required=("reason",)), errors=(503,),
        description="An IADE invoice for `amount` (KDV included; default: what is left to return), listed in the "
                    "invoice's notes."),
    ("POST", "/test-helpers/gib/respond"): Op(
        INVOICE, body({"invoice_id": id_schema("inv"), "response": enum(("accept", "reject"))},
                      required=("invoice_id", "response")),
        errors=(403, 404), description="Test mode only: the buyer of a TICARIFATURA e-Fatura accepts or rejects it "
                                   "(within 8 days)."),
})
# ---- merchant /api: ETA e-invoicing, Egypt (rest_compat/merchant_einvoicing.py; services/einvoicing/eta).
ETA_ERROR = shape({"path": STR, "code": STR, "message": STR})
ETA_BLOCK = shape({"document_id": STR, "type": enum(("I", "C", "D")), "uuid": null(STR), "long_id": null(STR),
                   "submission_id": null(STR), "internal_id": STR,
                   "status": enum(("pending", "submitted", "valid", "invalid", "rejected", "cancelled")),
                   "errors": arr(ETA_ERROR)})
INVOICE["properties"]["eta"] = null(ETA_BLOCK)
INVOICE["required"].append("eta")
INVOICE_NOTE["properties"]["eta"] = ETA_BLOCK
ETA_ADDRESS = shape({"country": STR, "governate": STR, "region_city": STR, "street": STR, "building_number": STR})
ETA_UNIT = shape({
    "object": const("eta_unit"), "id": null(STR), "status": enum(("not_set_up", "active")), "livemode": BOOL,
    "rin": null(STR), "name": null(STR), "branch": null(shape({"id": STR, "address": ETA_ADDRESS})),
    "activity_code": null(STR), "pos": null(shape({"serial": STR, "os_version": STR})),
    "receipts": null(enum(("all", "on_request"))), "default_item_code": null(STR), "base_url": null(STR),
    "certificate_serial": null(STR),
    "certificate_expires_at": null(TS), "certificate_self_signed": null(BOOL), "documents_issued": INT,
    "receipts_issued": INT, "created_at": null(TS), "updated_at": null(TS)})
ETA_NOTE = shape({"id": STR, "object": const("eta_document"), "kind": enum(("credit_note", "debit_note")),
                  "invoice_id": STR, "number": STR, "amount": INT, "tax": INT, "reason": null(STR), "eta": ETA_BLOCK,
                  "livemode": BOOL, "created_at": TS})
ETA_DOCUMENT = shape({"object": const("eta_document"), "invoice_id": STR, **ETA_BLOCK["properties"],
                      "issued_at": TS, "document": {"type": "object", "description": (
                          "ETA's JSON exactly as submitted: its stored text spliced in, every number as written "
                          "(301.50000 stays 301.50000), so its canonical serialization hashes like the /xml body's")},
                      "notes": arr({"type": "object"})})
ETA_RECEIPT_REF = shape({"document_id": STR, "uuid": STR, "number": STR, "status": enum(("queued", "valid", "invalid")),
                         "qr_url": STR, "amount": INT})
ETA_RECEIPT_BLOCK = shape({"uuid": null(STR), "number": null(STR),
                           "status": enum(("queued", "not_issued", "valid", "invalid")), "qr_url": STR,
                           "document_id": STR, "amount": INT, "reason": STR, "returns": arr(ETA_RECEIPT_REF)},
                          optional=("qr_url", "document_id", "amount", "reason", "returns"),
                          description="the Egyptian e-receipt (ETA): queued with the payment, built and submitted "
                                      "by the scheduler")
PAYMENT["properties"]["eta_receipt"] = null(ETA_RECEIPT_BLOCK)
PAYMENT["required"].append("eta_receipt")
MERCHANT[("POST", "/payments/create")].request["properties"]["eta_receipt"] = {
    "type": "boolean", "description": "ask for an ETA e-receipt (EGP only: true with another currency is a 400 "
                                      "naming eta_receipt; a merchant set up with receipts: all gets one for every "
                                      "EGP payment)"}
ETA_RECEIPT_DOC = {**ETA_RECEIPT_REF["properties"], "previous_uuid": STR, "errors": arr(ETA_ERROR),
                   "receipt": {"type": "object", "description": (
                       "ETA's receipt JSON exactly as submitted: its stored text spliced in, every number as written "
                       "(100.00000 stays 100.00000), so with header.uuid \"\" it hashes to its uuid")}}
ETA_RECEIPT_ANSWER = shape({"object": const("eta_receipt"), "payment_id": STR, **ETA_RECEIPT_DOC,
                            "returns": arr(shape(ETA_RECEIPT_DOC))})
# a note answer is ZATCA's (its block's fields inline) or ETA's (an `eta` block), by the invoice's authority
NOTE_ANSWER = shape({**{k: v for k, v in ZATCA_NOTE["properties"].items() if k not in ("object", "type", "uuid", "status")},
                     "object": enum(("zatca_document", "eta_document")), "type": STR, "uuid": null(STR),
                     "status": enum(("pending", "reported", "cleared", "rejected")), "eta": ETA_BLOCK},
                    optional=("type", "uuid", "icv", "hash", "status", "messages", "eta"))
for _note_route in (("POST", "/invoices/{id}/credit-notes"), ("POST", "/invoices/{id}/debit-notes")):
    MERCHANT[_note_route] = replace(MERCHANT[_note_route], response=NOTE_ANSWER,
                                    description=MERCHANT[_note_route].description
                                    + " An ETA e-invoice's note is ETA's (C or D, on a valid invoice).")
MERCHANT.update({
    ("POST", "/einvoicing/eta/setup"): Op(
        ETA_UNIT, body({"rin": {"type": "string", "pattern": "^\\s*[0-9]{9}\\s*$"}, "name": text(200, 1),
                        "branch": body({"id": {"type": "string", "pattern": "^\\s*[0-9]{1,20}\\s*$"},
                                        "address": body({"country": const("EG"), "governate": text(100, 1),
                                                         "region_city": text(100, 1), "street": text(200, 1),
                                                         "building_number": text(100, 1)},
                                                        required=("country", "governate", "region_city", "street",
                                                                  "building_number"))},
                                       required=("address",)),
                        "activity_code": {"type": "string", "pattern": "^\\s*[0-9]{4}\\s*$"},
                        "client_id": text(200, 1), "client_secret": text(500, 1),
                        "certificate": {"type": "string", "maxLength": 20000},
                        "private_key": {"type": "string", "maxLength": 20000},
                        "pos": body({"serial": text(100, 1), "os_version": text(100, 1)},
                                    required=("serial", "os_version")),
                        "receipts": enum(("all", "on_request")),
                        "default_item_code": text(100, 1, pattern=r"^\s*[A-Za-z0-9][A-Za-z0-9._/-]*\s*$"),
                        "base_url": text(500, 1, description="ETA's API at another base (preprod, a sandbox): "
                                                             "https:// (http:// too in test mode)")},
                       required=("rin", "name", "branch", "activity_code", "client_id", "client_secret"))
        | {"if": {"properties": {"receipts": const("all")}, "required": ["receipts"]},   # e-receipts need the POS
           "then": {"required": ["pos"], "properties": {"pos": {"type": "object"}}}},
        description="client_secret and private_key are kept encrypted and never shown. Test mode: without "
                    "certificate and private_key, a self-signed certificate is made. Again: new credentials or "
                    "certificate, the same numbering and receipt chain."),
    ("GET", "/einvoicing/eta"): Op(ETA_UNIT),
    ("GET", "/payments/{id}/eta-receipt"): Op(ETA_RECEIPT_ANSWER, description="404 until the scheduler built the "
                                                                          "receipt."),
    ("GET", "/invoices/{id}/eta"): Op(ETA_DOCUMENT, description="The ETA document as submitted (signed), its "
                                                                "state, and its notes'."),
    ("POST", "/invoices/{id}/cancel-einvoice"): Op(
        INVOICE, body({"reason": text(200, 1)}), errors=(503,),
        description="Cancels the invoice's e-document, by its authority's rules: a GİB e-Arşiv until 7 days after its "
                    "issue (an e-Fatura cannot be canceled: 400; `reason` optional, kept); a valid ETA e-invoice "
                    "within ETA's window of 7 days (`reason` required); a ZATCA e-invoice never (issue a credit "
                    "note: 400)."),
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
WINDOW_EXCLUSIVE = (("period", "from"), ("period", "to"))
WINDOW_SPAN = ("from", "to", _analytics.MAX_DAYS)
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
        description="format=csv answers text/csv: " + ", ".join(_balance.CSV_COLUMNS) + " (every line, oldest first).",
        also_media=("text/csv",)),
    ("GET", "/analytics"): Op(OVERVIEW, query=WINDOW, exclusive=WINDOW_EXCLUSIVE, span=WINDOW_SPAN),
    ("GET", "/analytics/revenue"): Op(REVENUE, query=WINDOW, exclusive=WINDOW_EXCLUSIVE, span=WINDOW_SPAN),
    ("GET", "/analytics/providers"): Op(PROVIDER_STATS, query=WINDOW, exclusive=WINDOW_EXCLUSIVE, span=WINDOW_SPAN),
    ("GET", "/disputes"): Op(list_of(DISPUTE, total=None),
                             query=(*PAGE, q("status", enum(_disputes.STATUSES)), q("payment_id", text(64)))),
    ("GET", "/disputes/{id}"): Op(DISPUTE),
    ("POST", "/disputes/{id}/evidence"): Op(
        DISPUTE, {**body({k: text(20_000) for k in _disputes.EVIDENCE_FIELDS}, description="at least one text field"),
                  **at_least_one(*_disputes.EVIDENCE_FIELDS)},
        description="needs_response -> under_review; decided a week later."),
    ("POST", "/disputes/{id}/evidence/files"): Op(
        DISPUTE, body({"filename": text(255, 1), "content_type": enum(("application/pdf", "image/png", "image/jpeg")),
                       "content_base64": {"type": "string", "minLength": 4, "maxLength": 2 * 700 * 1024,
                                          "description": "the file's bytes, base64 (RFC 4648)"}},
                      required=("filename", "content_type", "content_base64")),
        errors=(409,),
        description="A PDF, PNG or JPEG, recognised by its content (400 naming content_type when it is another), "
                    "at most 700 KiB (400 file_too_large) and 5 per dispute (400 too_many_files), while the "
                    "dispute needs a response (409 dispute_not_open). The dispute's evidence.files lists "
                    "{id, filename, content_type, size, sha256}."),
})

# ---- merchant /api: payment links (rest_compat/merchant_links.py)

LINK_STATUS = enum(links.STATUSES)
PAYMENT_LINK = shape({
    "id": STR, "object": const("payment_link"), "url": {"type": "string", "description": "{pay_url}/{id}"},
    "status": LINK_STATUS, "amount": INT, "currency": CURRENCY, "description": null(STR),
    "locale": null({**enum(pricing.LOCALES), "description": "the pages' language if the merchant set one"}),
    "expires_at": null(TS),
    "metadata": METADATA_OUT, "payments_count": INT,
    "amount_collected": {"type": "integer", "description": "captured minus refunded, minor units"},
    "livemode": BOOL, "created_at": TS, "cancelled_at": null(TS)})
MERCHANT.update({
    ("POST", "/payment-links"): Op(
        PAYMENT_LINK, body({"amount": amount(), "currency": CURRENCY, "description": text(500),
                            "locale": {**enum(pricing.LOCALES), "description": "the pages' language; "
                                       "without it they follow the buyer's (?locale=, Accept-Language)"},
                            "expires_at": {"type": ["string", "integer"],
                                           "description": "ISO 8601 or Unix seconds, in the future"},
                            "metadata": METADATA}, required=("amount", "currency")), future=("expires_at",)),
    ("GET", "/payment-links"): Op(list_of(PAYMENT_LINK, total=None), query=(*PAGE, q("status", LINK_STATUS))),
    ("GET", "/payment-links/{id}"): Op(PAYMENT_LINK),
    ("PUT", "/payment-links/{id}/cancel"): Op(PAYMENT_LINK, description="400 when the link is already "
                                                                        "cancelled or expired."),
})
PAYMENT_LINK["properties"]["invoice"] = {"type": "boolean", "description": "its payments ask for an invoice "
                                                                          "(a Turkish e-invoice, TRY)"}
PAYMENT_LINK["required"].append("invoice")
MERCHANT[("POST", "/payment-links")].request["properties"]["invoice"] = {"type": "boolean"}

# ---- payment intents /v1

INTENT_STATUS = enum(intents.STATUSES)
FEE = shape({"amount": INT, "currency": CURRENCY, "rate": DECIMAL,
             "breakdown": shape({"processing": INT, "currency_conversion": INT, "network": INT})})
NEXT_ACTION = null(shape({
    "type": enum(("redirect_to_url", "redirect", "display_reference", "otp", "request_to_pay")),
    "redirect_to_url": shape({"url": null(STR), "return_url": null(STR)}, description="redirect_to_url (3-D Secure)"),
    "url": {"type": "string", "description": "redirect (KNET, BenefitPay, NAPS, OmanNet, an Egyptian wallet): "
                                             "the scheme's page"},
    "return_url": {"type": "string", "description": "redirect: where the buyer comes back"},
    "reference": {"type": "string", "pattern": "^[0-9]+$",
                  "description": "display_reference (Fawry): paid at an outlet before expires_at"},
    "expires_at": TS,
    "phone_hint": {"type": "string", "description": "otp (STC Pay): the phone's last 4 digits; confirm again "
                                                    "with otp"},
    "biller_code": {"type": "string", "pattern": "^[0-9]{3}$",
                    "description": "display_reference (SADAD): the biller the bill number is paid under"},
    "alias_hint": null({"type": "string", "description": "request_to_pay (CliQ, Aani): the buyer's alias, "
                                                         "masked; null when none was given"}),
    "qr": shape({"payload": STR, "image_url": {"type": "string", "description": "a PNG, served without a key"}},
                description="request_to_pay: the QR code the buyer's bank app scans")},
    optional=("redirect_to_url", "url", "return_url", "reference", "expires_at", "phone_hint", "biller_code",
              "alias_hint", "qr"),
    description="By type: redirect_to_url {redirect_to_url}; redirect {url, return_url}; display_reference "
                "{reference, expires_at} (SADAD: and biller_code); otp {phone_hint}; request_to_pay {alias_hint, "
                "expires_at, qr}"))
PAYMENT_METHOD_DETAILS = {"type": "object", "description": "card: card {brand, last4, networks}; apple_pay, google_pay: "
                          "card {brand, last4, exp_month, exp_year, networks} and wallet {type, dynamic_last4, "
                          "auth_method}; knet, benefit, naps: "
                          "bank, payment_id, transaction_id, reference_number, result (omannet, eg_wallet: the "
                          "same without bank; eg_wallet also phone_hint, attempts_left); fawry: reference, "
                          "expires_at, paid_at; stcpay: phone_hint, attempts_left",
                          "properties": {"type": STR, "card": shape(
                              {"brand": null(STR), "last4": null(STR), "exp_month": INT, "exp_year": INT,
                               "networks": CARD_NETWORKS}, optional=("exp_month", "exp_year"),
                              description="the card paid with (a wallet's: the device card); absent for a "
                                          "method without a card")}}
CRYPTO = shape({"asset": enum(crypto.ASSETS), "network": enum(crypto.NETWORKS), "address": STR,
                "amount_crypto": DECIMAL, "rate": DECIMAL, "rate_locked_until": TS, "qr_code_url": STR,
                "detected_at": null(TS), "confirmed_at": null(TS), "transaction_hash": null(STR)})
SPLIT = body({"merchant_id": {"type": "string", "pattern": "^mer_[0-9A-Za-z]{1,40}$"}, "amount": amount(),
              "currency": CURRENCY}, required=("merchant_id", "amount", "currency"))
COD_ADDRESS = body({"line1": text(200, 1), "city": text(100, 1), "country": enum(MARKETS),
                    "postal_code": text(20)}, required=("line1", "city", "country"))
INTENT = shape({
    "id": STR, "object": const("payment_intent"), "status": INTENT_STATUS, "amount": INT, "currency": CURRENCY,
    "amount_received": INT, "amount_refunded": INT,
    "payment_method": enum(intents.OBJECT_METHODS), "payment_method_id": null(STR),
    "checkout_url": STR, "client_secret": STR, "fee": FEE, "net_amount": INT, "settlement_date": DATE,
    "merchant_id": STR, "customer_id": null(STR), "order_id": null(STR), "description": null(STR),
    "statement_descriptor": null(STR), "metadata": METADATA_OUT,
    "locale": null({**enum(pricing.LOCALES), "description": "the merchant's choice; null: the buyer's language"}),
    "created_at": TS, "expires_at": TS, "succeeded_at": null(TS), "canceled_at": null(TS),
    "cancellation_reason": null(STR), "livemode": BOOL, "next_action": NEXT_ACTION, "receipt_url": null(STR),
    "receipt": RECEIPT,
    "failure_code": null(STR), "failure_message": null(STR), "split": arr({"type": "object"}),
    "crypto": CRYPTO, "qr_code_url": STR, "cod_address": {"type": "object"}, "cod_status": null(STR),
    "payment_method_details": PAYMENT_METHOD_DETAILS},
    optional=("crypto", "qr_code_url", "cod_address", "cod_status", "receipt", "payment_method_details"))
INTENT_REFUNDED = shape({**INTENT["properties"], "refund": shape({
    "id": STR, "object": const("refund"), "amount": INT, "currency": CURRENCY, "reason": null(STR),
    "status": STR, "payment_intent": STR, "created_at": TS})},
    optional=("crypto", "qr_code_url", "cod_address", "cod_status", "receipt", "payment_method_details"))
IDEMPOTENCY_KEY_BODY = {**KEY_TEXT, "description": "may also be sent as the X-Idempotency-Key header (both "
                                                    "given must agree)"}
INTENT_CREATE = body({
    "amount": amount(), "currency": CURRENCY, "payment_method": enum(intents.METHODS),
    "crypto_asset": enum(crypto.ASSETS), "crypto_network": enum(crypto.NETWORKS),
    "merchant_id": {"type": "string", "pattern": "^mer_[A-Za-z0-9]{24}$",
                    "description": "your own mer_ id (400 merchant_id_mismatch otherwise: to pay others, use split)"}, 
    "customer_id": foreign(text(64, description="your reference of the buyer")), "order_id": text(200),
    "description": text(1000), "statement_descriptor": text(22), "metadata": METADATA, "cod_address": COD_ADDRESS,
    "split": arr(SPLIT, maxItems=intents.MAX_SPLITS), "locale": enum(pricing.LOCALES),
    "phone": text(32, description="stcpay: the buyer's mobile number, +9665 and 8 digits; eg_wallet: the "
                                  "wallet's Egyptian mobile, 010, 011, 012 or 015 and 8 digits (+20 allowed; "
                                  "else on confirm)"),
    "expires_in_hours": {"type": "integer", "minimum": 1, "maximum": 696,
                         "description": "fawry: the reference's life (1-168, 48 by default); sadad: the bill's "
                                        "(1-696, 72 by default)"},
    "alias": text(32, description="cliq: a CliQ alias (a nickname of 3-10 English letters or digits, first a "
                                  "letter, or a Jordanian mobile); aani: a UAE mobile. The request to pay goes "
                                  "to it"),
    "return_url": text(2000, format="uri", description="where a redirect method (knet, benefit, naps, omannet, "
                                                       "eg_wallet) sends the buyer"),
    "idempotency_key": IDEMPOTENCY_KEY_BODY},
    required=("amount", "currency", "payment_method"),
    description="crypto_asset and crypto_network are required for crypto (a pair the asset is on) and "
                "given for crypto only; cod_address for cod only, in the currency of its country; phone for "
                "stcpay (and eg_wallet, here or on confirm). naps, omannet and eg_wallet are purchase only "
                "(capture_method manual: 400 capture_not_supported). A method used with a currency it does not serve is a 400 naming payment_method "
                "(GET /v1/payment_method_types lists them). apple_pay and google_pay also take their token "
                "here, as {\"apple_pay\": {\"token\": ...}} with payment_method apple_pay (google_pay alike): "
                "the intent is then confirmed at once (the field is described on confirm; said here only, since "
                "one more field per method branch outgrows the canonical form schemathesis generates from)")
METHOD_TYPE = shape({"object": const("payment_method_type"), "type": enum(methods.TYPES),
                     "flow": enum(sorted({m.flow for m in methods.METHODS.values()})),
                     "display_name": shape({"ar": STR, "en": STR, "tr": STR}), "currency": CURRENCY,
                     "fee": shape({"bps": INT, "fixed": INT, "cap": null(INT)}),
                     "limits": shape({"minimum": INT, "maximum": INT}), "providers": arr(STR),
                     "sandbox": {"type": "object"}})
NOT_GIVEN = {"type": "null"}
# What a local method takes on create besides amount and currency, and the sandbox value of each.
LOCAL_OWN = {"stcpay": ("phone",), "eg_wallet": ("phone",), "fawry": ("expires_in_hours",),
             "sadad": ("expires_in_hours",), "cliq": ("alias",), "aani": ("alias",)}


def _sandbox_value(method: str, field: str):
    sandbox = methods.get(method).sandbox
    return sandbox["aliases"]["mobile"] if field == "alias" else sandbox[field]


LOCAL_RULES = {"limits": {t: {cur: [methods.get(t).limit(cur).minimum, methods.get(t).limit(cur).maximum]
                              for cur in methods.get(t).currencies} for t in methods.LOCAL_TYPES},
               "fields": {t: {f: _sandbox_value(t, f) for f in fs} for t, fs in LOCAL_OWN.items()},
               "required": {"stcpay": ["phone"]}}


def _method_branches() -> list[dict]:
    """INTENT_CREATE's anyOf, from the method registry: one branch per card-like way to pay with
    the currencies it serves; crypto; the cash-on-delivery markets; two for the local methods.
    `expires_in_hours`, `phone`, `alias`, and the crypto and cash fields are their methods' (not
    given in the other branches). (More than one installment is a card's too, but one more
    constraint per branch outgrows what schemathesis' canonical form models: `x-qafila-only`
    says it. Crypto is one branch, not one per asset: with each currency's amount limits, three
    outgrew it when USD joined; `x-qafila-pairs` gives each asset's networks. The local methods
    are two branches, not one per method: with their own fields and limits, thirteen outgrew it
    when the regional rails joined: one for those without a field of their own (mada, troy,
    meeza, knet, benefit, naps, omannet), one for those with one; `x-qafila-local` gives each
    method's currency, limits, own fields and the required ones.)"""
    own = {**LOCAL_OWN, "crypto": ("crypto_asset", "crypto_network"), "cod": ("cod_address",)}
    fields = sorted({f for fs in own.values() for f in fs})

    def branch(method, props: dict, required: tuple[str, ...] = (), mine: tuple[str, ...] = ()) -> dict:
        props = {"payment_method": const(method) if isinstance(method, str) else enum(method), **props,
                 **{f: NOT_GIVEN for f in fields if f not in (own.get(method, ()) if isinstance(method, str)
                                                               else mine)}}
        return {"required": list(required), "properties": props} if required else {"properties": props}

    def local(types: list[str]) -> dict:
        currencies = dict.fromkeys(c for t in types for c in methods.get(t).currencies)
        return branch(types, {"currency": enum(currencies)}, mine=tuple(f for t in types for f in own.get(t, ())))

    out, plain, with_own = [], [], []
    for t in intents.METHODS:
        m = methods.METHODS[t]
        if t in methods.LOCAL_TYPES:
            (with_own if t in own else plain).append(t)
            if len(plain) + len(with_own) == len(methods.LOCAL_TYPES):
                out += [local(plain), local(with_own)]
        elif t == "crypto":
            networks = dict.fromkeys(n for nets in crypto.PAIRS.values() for n in nets)
            out.append(branch(t, {"crypto_asset": enum(crypto.PAIRS), "crypto_network": enum(networks)},
                              ("crypto_asset", "crypto_network")))
        elif t == "cod":
            out += [branch(t, {"currency": const(cur), "cod_address": {"type": "object",
                                                                       "properties": {"country": const(country)}}},
                           ("cod_address",)) for country, cur in pricing.MARKET_CURRENCY.items()]
        elif m.limits:
            out += [branch(t, {"currency": const(cur), "amount": {"minimum": m.limit(cur).minimum,
                                                                  "maximum": m.limit(cur).maximum}})
                    for cur in m.currencies]
        else:
            out.append(branch(t, {"currency": enum(m.currencies)}))
    return out


INTENT_CREATE["anyOf"] = _method_branches()
PAYMENT_METHOD = shape({"id": STR, "object": const("payment_method"), "type": STR, "livemode": BOOL,
                        "card": shape({"brand": null(STR), "last4": null(STR), "exp_month": null(INT),
                                       "exp_year": null(INT), "fingerprint": null(STR), "networks": CARD_NETWORKS}),
                        "created_at": TS})
UNIX_OR_ISO = UNIX_SECONDS

V1: dict[tuple[str, str], Op] = {
    ("POST", "/payments/intent"): Op(INTENT, INTENT_CREATE, errors=(402, 409), same=(("split", "currency"),),
                                     unique=(("split", "merchant_id"),),
                                     only=(("installments", 1, "payment_method", ("card", "troy")),),
                                     pairs=(("crypto_asset", "crypto_network", crypto.PAIRS),),
                                     local=LOCAL_RULES),
    ("POST", "/payments/{id}/confirm"): Op(
        INTENT, body({"payment_method_id": text(64, description="pm_... (e.g. pm_card_visa in test mode)"),
                      "return_url": text(2000, format="uri"), "client_secret": text(200),
                      "phone": text(32, description="stcpay, eg_wallet: the buyer's mobile number (if not given "
                                                    "on create)"),
                      "otp": text(12, description="stcpay: the one-time code, on the second confirm"),
                      **WALLET_TOKEN_IN,
                      "idempotency_key": IDEMPOTENCY_KEY_BODY}),
        errors=(402, 409),
        description="With a publishable key, client_secret is required. The documented confirm fields "
                    "(id, status, next_action, succeeded_at, receipt_url) come first; the whole object follows."),
    ("GET", "/payments/{id}"): Op(INTENT, query=(q("client_secret", STR, "required with a publishable key"),)),
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
    ("POST", "/payments/{id}/refund"): Op(
        INTENT_REFUNDED, body({"amount": amount(), "reason": text(200), "idempotency_key": IDEMPOTENCY_KEY_BODY}),
        errors=(409,),
        description="Without amount, all that is left is refunded. A partial refund keeps status succeeded "
                    "(amount_refunded grows); the intent is refunded once amount_refunded reaches "
                    "amount_received. 400 invalid_state for an intent that is not succeeded or is fully "
                    "refunded, 400 amount_too_large above what is left; an OmanNet payment refunds in full "
                    "only (another amount: 400 partial_refund_not_supported naming amount)."),
    ("POST", "/payment_methods"): Op(
        PAYMENT_METHOD, body({"type": enum(payment_methods.TYPES), "card": CARD_IN}, required=("card",))),
    ("GET", "/payment_method_types"): Op(
        shape({"object": const("list"), "data": arr(METHOD_TYPE)}),
        query=(Param("currency", CURRENCY, "required", required=True), q("amount", INT, "minor units"),
               q("country", {"type": "string", "pattern": "^[A-Za-z]{2}$"}, "the buyer's country")),
        description="Secret or publishable key. Card first; mada and stcpay for SAR, troy for TRY, knet for "
                    "KWD, benefit for BHD, fawry, eg_wallet and meeza for EGP, naps for QAR, omannet for OMR.", amount_query=("amount", "currency")),
    ("GET", "/payments/{id}/qr.png"): Op(None, media="image/png", description="The QR code of a qr intent."),
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

# ---- Apple Pay and Google Pay (rest_compat/wallets.py; services/payments/wallets)
APPLE_PAY_CERTIFICATE = shape({
    "id": STR, "object": const("apple_pay_certificate"), "status": enum(("pending", "active", "expired")),
    "merchant_identifier": null(STR), "merchant_identifier_hash": null({"type": "string", "pattern": "^[0-9a-f]{64}$"}),
    "public_key_hash": {"type": "string", "description": "base64 SHA-256 of the key (a token's publicKeyHash)"},
    "expires_at": null(TS), "created_at": TS, "livemode": BOOL, "csr": {"type": "string", "description": "PEM"}},
    optional=("csr",))
MERCHANT.update({
    ("POST", "/wallets/apple-pay/csr"): Op(
        APPLE_PAY_CERTIFICATE, body({}),
        description="A new P-256 payment processing key (kept encrypted, never shown) and its CSR (PEM) to upload "
                    "to Apple; the key is pending until its certificate is uploaded."),
    ("PUT", "/wallets/apple-pay/certificate"): Op(
        APPLE_PAY_CERTIFICATE, body({"certificate": text(20_000, 1, description="PEM, as Apple issued it")},
                                    required=("certificate",)),
        description="The certificate must be for a key Qafila made (400 param certificate, "
                    "certificate_key_mismatch); it activates that key. Two may be active while one is rotated."),
    ("GET", "/wallets/apple-pay"): Op(shape({"object": const("list"), "data": arr(APPLE_PAY_CERTIFICATE)}),
                                     description="Newest first, this mode's keys."),
})
V1[("GET", "/wallets/google-pay/public-key")] = Op(
    shape({"protocol_version": const("ECv2"), "public_key": {"type": "string", "description":
                                                             "base64 of the uncompressed P-256 point"},
           "gateway": const("qafila"), "gateway_merchant_id": STR}),
    description="Secret or publishable key: Qafila's current Google Pay key of the key's mode; ask Google Pay for "
                "PAYMENT_GATEWAY tokens with gateway qafila and gatewayMerchantId your merchant id.")

MERCHANT[("POST", "/test-helpers/fawry/pay")] = Op(
    INTENT, body({"reference": text(40)}, required=("reference",)), errors=(403, 404),
    description="Test keys only (403 with a live key): the buyer pays the Fawry reference at an outlet; the "
                "intent succeeds. A paid or expired reference is a 400 (reference_already_paid, reference_expired).")

MERCHANT[("POST", "/test-helpers/sadad/pay")] = Op(
    INTENT, body({"reference": text(40)}, required=("reference",)), errors=(402, 403, 404),
    description="Test keys only (403 with a live key): the buyer's bank pays the SADAD bill; the intent succeeds. "
                "A paid or expired bill is a 400 (reference_already_paid, reference_expired); a 500.00 SAR bill "
                "never pays (402 sadad_declined; it expires).")
MERCHANT[("POST", "/test-helpers/request-to-pay/approve")] = Op(
    INTENT, body({"payment_intent": id_schema("pay")}, required=("payment_intent",)), errors=(403, 404),
    description="Test keys only (403 with a live key): the buyer approves the CliQ or Aani request to pay; the "
                "intent succeeds. A finished or expired request is a 400 (request_finished, request_expired).")
MERCHANT[("POST", "/test-helpers/request-to-pay/reject")] = Op(
    INTENT, body({"payment_intent": id_schema("pay")}, required=("payment_intent",)), errors=(403, 404),
    description="Test keys only (403 with a live key): the buyer rejects the CliQ or Aani request to pay; the "
                "intent fails with rtp_rejected. A finished or expired request is a 400.")

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
                      "phone": null(STR), "tags": arr(STR), "tax_id": null(TAX_ID), "address": null(ADDRESS),
                      "created_at": TS, "updated_at": TS})
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
RATE_SOURCE = {"type": "string", "enum": ["company", "reference"],
               "description": "company: set with PUT /api/reports/rates; reference: shipped with the service "
                              "(the US dollar pegs), used for a pair the company did not set"}
RATE = shape({"id": STR, "object": const("exchange_rate"), "base": CRM_CURRENCY, "quote": CRM_CURRENCY,
              "rate": DECIMAL, "rate_date": DATE, "updated_at": TS, "source": RATE_SOURCE})
LISTED_RATE = shape({"id": null(STR), "object": const("exchange_rate"), "base": CRM_CURRENCY, "quote": CRM_CURRENCY,
                     "rate": DECIMAL, "rate_date": null(DATE), "updated_at": null(TS), "source": RATE_SOURCE},
                    description="A reference rate has no id, rate_date or updated_at")
USED_SOURCE = {"type": "string", "enum": ["company", "reference", "same"]}
RATE_USED = {"base": CRM_CURRENCY, "quote": CRM_CURRENCY, "rate": DECIMAL, "rate_date": null(DATE), "inverse": BOOL,
             "source": USED_SOURCE}
UNCONVERTED = shape({"currency": CRM_CURRENCY, "deal_count": INT,
                     "amount": {"type": "integer", "description": "minor units of `currency`"},
                     "weighted_amount": {"type": "integer", "description": "pipeline only: amount x probability"}},
                    optional=("weighted_amount",))
MISSING = {"unconverted": arr(UNCONVERTED,
                              description="amounts in currencies with no rate to the target, in their own "
                                          "currency; not in the totals"),
           "missing_rates": arr(shape({"base": CRM_CURRENCY, "quote": CRM_CURRENCY}),
                                description="the pairs with no rate: set one with PUT /api/reports/rates")}
REVENUE = shape({"object": const("revenue_report"), "currency": CRM_CURRENCY, "total": INT,
                 "total_decimal": DECIMAL, "deal_count": INT,
                 "by_currency": arr(shape({"currency": CRM_CURRENCY, "amount": INT, "deal_count": INT,
                                           "rate": DECIMAL, "rate_date": null(DATE), "inverse": BOOL,
                                           "source": USED_SOURCE, "converted_decimal": DECIMAL})),
                 **MISSING})
PIPELINE = shape({"object": const("pipeline_report"), "currency": CRM_CURRENCY,
                  "stages": arr(shape({"stage": enum(crm_deals.STAGES),
                                       "count": {"type": "integer", "description": "every open deal of the stage"},
                                       "value": INT, "weighted_value": INT,
                                       "unconverted": arr(UNCONVERTED, description=(
                                           "the stage's deals in currencies with no rate to the target, per "
                                           "currency in its own minor units; counted in `count`, not in the "
                                           "values"))})),
                  "total": shape({"count": {"type": "integer", "description": "every open deal"},
                                  "value": INT, "weighted_value": INT}),
                  "rates_used": arr(shape(RATE_USED)), **MISSING})
PASSWORD = {"type": "string", "minLength": 1, "maxLength": 200}
NEW_PASSWORD = {"type": "string", "minLength": crm_accounts.MIN_PASSWORD, "maxLength": 200}
EMAIL = text(254, format="email")
CRM_TAG = {"type": "string", "pattern": r"^\s*[a-zA-Z0-9][a-zA-Z0-9 _.-]{0,39}\s*$"}       # services.crm.customers._TAG
CRM_CUSTOMER_IN = {"name": text(200, 1), "email": EMAIL, "phone": {"anyOf": [E164, CLEARED]},
                   "tags": arr(CRM_TAG, maxItems=20), "tax_id": TAX_ID_IN, "address": ADDRESS_IN}
CRM_CUSTOMER_UPDATE = {**CRM_CUSTOMER_IN, "email": {"anyOf": [EMAIL, CLEARED]}}
DEAL_IN = {"title": text(200, 1), "customer_id": text(40), "owner_id": text(40), "stage": enum(crm_deals.STAGES),
           "value": amount(0), "currency": CRM_CURRENCY, "probability": {"type": "integer", "minimum": 0, "maximum": 100}}
CRM_PAGE = (LIMIT, STARTING_AFTER)

CRM: dict[tuple[str, str], Op] = {
    ("POST", "/auth/signup"): Op(
        TOKENS, body({"email": EMAIL, "password": NEW_PASSWORD, "name": text(200), "company_name": text(200),
                      "currency": CRM_CURRENCY}, required=("email", "password")), errors=(409,),
        description="Creates the user (admin) and its company."),
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
        COMPANY, body({"name": text(200, 1), "commission_rate": {
            "anyOf": [{"type": "number", "minimum": 0, "maximum": 1, "multipleOf": 0.000001},
                      {"type": "string", "pattern": r"^(1(\.0{1,6})?|0?(\.[0-9]{1,6})?|0)$", "minLength": 1}],
            "description": "a decimal from 0 to 1, at most 6 decimals"},
                       "currency": CRM_CURRENCY,
                       "phone_number_id": text(64, 1, description="the messaging platform's id of the number")}),
        errors=(403, 409)),
    ("GET", "/users"): Op(shape({"object": const("list"), "data": arr(CRM_USER), "has_more": BOOL})),
    ("POST", "/users"): Op(
        CRM_USER, body({"email": EMAIL, "password": NEW_PASSWORD, "name": text(200), "role": enum(crm_accounts.ROLES)},
                       required=("email", "password")), errors=(403, 409)),
    ("GET", "/customers"): Op(
        list_of(ref("CrmCustomer"), total="total_count", crm=True),
        query=(*CRM_PAGE, q("q", text(200), "search name, e-mail and phone"), q("search", text(200), "same as q"),
               q("name", text(200)), q("email", text(254)), q("phone", E164), q("tag", CRM_TAG),
               q("created_gte", WHEN), q("created_lte", WHEN))),
    ("POST", "/customers"): Op(CRM_CUSTOMER, body(CRM_CUSTOMER_IN, required=("name",))),
    ("GET", "/customers/{id}"): Op(CRM_CUSTOMER),
    ("PUT", "/customers/{id}"): Op(CRM_CUSTOMER, body(CRM_CUSTOMER_UPDATE)),
    ("DELETE", "/customers/{id}"): Op(shape({"id": STR, "object": const("customer"),
                                             "deleted": {"type": "boolean", "const": True}})),
    ("GET", "/deals"): Op(
        list_of(DEAL, total="total_count", crm=True),
        query=(*CRM_PAGE, q("stage", {"type": "string", "pattern": "^({0})(,({0}))*$".format("|".join(crm_deals.STAGES))},
                            "a stage, or several separated by commas"),
               q("owner_id", text(40)), q("owner", text(40), "same as owner_id"), q("customer_id", text(40)),
               q("currency", CRM_CURRENCY), *(q(k, {"type": "integer", "minimum": 0, "maximum": MAX_INT})
                                              for k in ("value_gte", "value_lte", "min_value", "max_value")))),
    ("POST", "/deals"): Op(DEAL_WITH_COMMISSIONS, body(DEAL_IN, required=("title", "customer_id", "value", "currency")),
                           errors=(404,), description="404 (param customer_id or owner_id) for an unknown reference."),
    ("GET", "/deals/{id}"): Op(DEAL_WITH_COMMISSIONS),
    ("PUT", "/deals/{id}"): Op(DEAL_WITH_COMMISSIONS, body(DEAL_IN)),
    ("GET", "/commissions"): Op(
        list_of(COMMISSION, total="total_count", crm=True),
        query=(*CRM_PAGE, q("deal_id", text(40)), q("owner_id", text(40), "the deal owner who earned it"),
               q("user_id", text(40), "same as owner_id"), q("status", enum(("active", "reversed")))),
        description="Commissions of won deals, newest first: one per deal and won-cycle, earned by the deal's "
                    "owner at the time (user_id); reversed when the deal leaves won."),
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
        query=(LIMIT, q("starting_after", {"type": "string", "pattern": "^[0-9]{1,6}$"},
                        "the next_cursor of the previous page (an offset)"),
               q("unread", enum(("1", "true", "0", "false")), "only conversations with unread messages"))),
    ("GET", "/messaging/messages"): Op(
        list_of(MESSAGE, total="total_count", crm=True),
        query=(*CRM_PAGE, q("customer_id", text(40)), q("phone", E164)), errors=(404,)),
    ("POST", "/messaging/send"): Op(
        MESSAGE, {**body({"customer_id": text(40), "to": {**E164, "description": "a phone number, without customer_id"},
                 "text": text(4096, 1)}, required=("text",)), **at_least_one("customer_id", "to")},
        errors=(404, 502)),
    ("POST", "/messaging/read"): Op(shape({"object": const("read_receipt"), "marked": INT}),
                                   {**body({"customer_id": {"anyOf": [id_schema("ccu"), CLEARED]},
                                            "phone": {"anyOf": [E164, CLEARED]}}),
                                    **at_least_one("customer_id", "phone")}, errors=(404,)),
    ("GET", "/reports/revenue"): Op(
        REVENUE, query=(q("currency", CRM_CURRENCY, "the target currency the total is converted to (the "
                                                    "company's report currency by default)"),
                        q("from", WHEN, "won at or after"), q("to", WHEN, "won at or before")),
        description="Won deals converted to `currency`; amounts in a currency with no rate to it are listed in "
                    "`unconverted` (their pairs in `missing_rates`), never a 400."),
    ("GET", "/reports/pipeline"): Op(
        PIPELINE, query=(q("currency", CRM_CURRENCY, "the target currency (the company's by default)"),),
        description="The open stages in `currency`; deals in a currency with no rate to it are listed in "
                    "`unconverted` (not in the stages), their pairs in `missing_rates`."),
    ("GET", "/reports/rates"): Op(
        shape({"object": const("list"), "data": arr(LISTED_RATE), "has_more": BOOL}),
        description="The company's rates (newest date first per pair), then the reference rates shipped "
                    "with the service: 1 USD in SAR, AED, QAR, BHD, OMR and JOD (their fixed pegs)."),
    ("PUT", "/reports/rates"): Op(
        RATE, body({"base": CRM_CURRENCY, "quote": CRM_CURRENCY,
                    "rate": {"anyOf": [{"type": "string", "pattern": r"^\s*(?=[0-9.]*[1-9])[0-9]{1,9}(\.[0-9]{1,12})?\s*$"},
                                       {"type": "number", "minimum": 1e-12, "maximum": 999_999_999}],
                             "description": "1 base = rate quote: a positive decimal up to 10^9, at most 12 decimals "
                                            "(a JSON number is rounded to 12)"},
                    "rate_date": DATE}, required=("base", "quote", "rate")), errors=(403,), distinct=(("base", "quote"),)),
}

# ---- installments (rest_compat/installments.py; services/payments/installments.py)
from services.payments import installments as _inst  # noqa: E402

INSTALLMENT_PLAN = shape({"program": enum(_inst.programs()), "paid_by": enum(_inst.PAID_BY),
                          "options": arr(shape({"count": INT, "commission_bps": INT}))})
INSTALLMENT_PLANS = shape({"object": const("installment_plans"), "livemode": BOOL, "data": arr(INSTALLMENT_PLAN)})
INSTALLMENT_OPTION = shape({
    "count": INT, "installment_amount": {"type": "integer", "description": "each installment (minor units)"},
    "first_installment_amount": {"type": "integer", "description": "the first: it carries the remainder"},
    "total_amount": {"type": "integer", "description": "what the card is charged"}, "commission": INT,
    "paid_by": null(enum(_inst.PAID_BY))})
INSTALLMENT_OPTIONS = shape({"object": const("installment_options"),
                             "brand": null({**STR, "description": "the card's brand by its BIN (a 65... BIN of "
                                                                    "the Turkish BIN table is troy, else discover)"}),
                             "networks": arr(STR, description="[\"troy\"] (Troy Yerel), [\"troy\", "
                                                              "\"discover\"] (Troy Global), [\"visa\"], ..."),
                             "bank": null(STR),
                             "program": null(enum(_inst.programs())), "card_type": null(enum(_inst.CARD_TYPES)),
                             "amount": INT, "currency": CURRENCY, "options": arr(INSTALLMENT_OPTION)})
INSTALLMENTS_OBJECT = null(shape({**INSTALLMENT_OPTION["properties"],
                                  # an intent that asked for a count before its card: the count, the rest null
                                  **{k: null(INSTALLMENT_OPTION["properties"][k]) for k in (
                                      "installment_amount", "first_installment_amount", "total_amount", "commission")},
                                  "program": null(STR), "bank": null(STR)},
                                 description="the installment terms (null: paid in one go); an intent that asked "
                                             "for a count before its card shows the count, the amounts null "
                                             "until the card's program sets them"))
INSTALLMENTS_IN = {"type": "integer", "minimum": 1, "maximum": _inst.MAX_COUNT,
                   "description": "pay in this many installments (TRY credit cards of a program; see "
                                  "GET /v1/installments); 400 param installments lists the valid counts"}
MERCHANT.update({
    ("GET", "/installments/plans"): Op(INSTALLMENT_PLANS, description="The shipped defaults until replaced."),
    ("PUT", "/installments/plans"): Op(
        INSTALLMENT_PLANS,
        body({"plans": arr(body({"program": enum(_inst.programs()), "paid_by": enum(_inst.PAID_BY),
                                 "options": arr(body({"count": {"type": "integer", "minimum": _inst.MIN_COUNT,
                                                                "maximum": _inst.MAX_COUNT},
                                                      "commission_bps": {"type": "integer", "minimum": 0,
                                                                         "maximum": _inst.MAX_BPS}},
                                                     required=("count", "commission_bps")), minItems=1)},
                                required=("program", "options")), maxItems=len(_inst.programs()))}, required=("plans",)),
        description="Replaces every plan of this mode; a program left out gets no installments.",
        unique=(("plans", "program"), ("plans", "options", "count"))),
    ("GET", "/analytics/installments"): Op(
        shape({"object": const("installment_analytics"), "currency": CURRENCY, "period": STR, "from": DATE, "to": DATE,
               "data": arr(shape({"count": INT, "payments": INT, "volume": INT,
                                  "charged": {"type": "integer", "description": "volume plus customer-paid commissions"}}))}),
        query=WINDOW, exclusive=WINDOW_EXCLUSIVE, span=WINDOW_SPAN,
        description="Approved /api payments and /v1 intents of the window, by installment count."),
    ("GET", "/analytics/methods"): Op(
        shape({"object": const("method_analytics"), "currency": CURRENCY, "period": STR, "from": DATE, "to": DATE,
               "data": arr(shape({"method": enum(methods.TYPES), "payments": INT, "volume": INT}))}),
        query=WINDOW, exclusive=WINDOW_EXCLUSIVE, span=WINDOW_SPAN,
        description="Approved /api payments and /v1 intents of the window, by payment method (a mada card "
                    "paying SAR is mada, a Troy card paying TRY troy, a Meeza card paying EGP meeza)."),
})
V1.update({
    ("GET", "/installments"): Op(
        INSTALLMENT_OPTIONS,
        query=(Param("bin", {"type": "string", "pattern": "^[0-9]{6}([0-9]{2})?$"}, "the card's first 6 or 8 digits",
                     required=True),
               Param("amount", amount(), "minor units", required=True), Param("currency", CURRENCY, required=True)),
        description="Secret or publishable key. Count 1 is always offered; more only for TRY credit cards.",
        amount_query=("amount", "currency")),
})
for _ops, _key, _prop in ((MERCHANT, ("POST", "/payments/create"), "installments"),
                          (V1, ("POST", "/payments/intent"), "installments"),
                          (V1, ("POST", "/payments/{id}/confirm"), "installments")):
    _ops[_key].request["properties"][_prop] = INSTALLMENTS_IN
PAYMENT["properties"]["installments"] = INSTALLMENTS_OBJECT
PAYMENT["required"].append("installments")
INTENT["properties"]["installments"] = INSTALLMENTS_OBJECT
INTENT["required"].append("installments")

# ---- /v1 buy now, pay later (rest_compat/bnpl.py; services/payments/bnpl.py)
from services.payments import bnpl as _bnpl  # noqa: E402

BNPL_SCHEDULE = arr(shape({"due_date": DATE, "amount": INT}),
                    description="each part's due date and amount; they add up to the amount, the remainder on the "
                                "first, due today in the merchant's time zone")
BNPL_OBJECT = shape({"method": enum(_bnpl.TYPES), "schedule": null(BNPL_SCHEDULE), "provider_reference": null(STR),
                     "authorization_expires_at": null(STR), "amount_capturable": INT, "fee_taken": INT})
for _shape in (INTENT, INTENT_REFUNDED):
    _shape["properties"].update({
        "capture_method": {**const("manual"), "description": "BNPL: authorized, then captured as the order ships"},
        "amount_capturable": {"type": "integer", "description": "BNPL: still authorized, not captured"},
        "bnpl": BNPL_OBJECT})
BNPL_IN = {
    "buyer": body({"phone": text(32, 1, description="international form, e.g. +966500000001"), "email": EMAIL,
                   "name": text(200, 1)}, required=("phone", "email", "name")),
    "items": arr(body({"name": text(200, 1), "quantity": {"type": "integer", "minimum": 1, "maximum": 10_000},
                       "unit_amount": amount(0)}, required=("name", "quantity", "unit_amount")),
                 minItems=1, maxItems=_bnpl.MAX_ITEMS),
    "shipping_address": body({"line1": text(200, 1), "city": text(100, 1),
                              "country": {"type": "string", "pattern": "^[A-Z]{2}$"}, "postal_code": text(20, 1)},
                             required=("line1", "city", "country", "postal_code")),
    "capture_method": const("manual"),
}
INTENT_CREATE["properties"].update(BNPL_IN)
# One branch for the BNPL methods, not one per method and currency: a branch more, or a `required`
# in it, makes the body one jsonschema_rs' canonical form cannot model (schemathesis then generates
# nothing; tests/test_openapi_precision.py). What the branch cannot say is in x-qafila-bnpl and the
# description: each method's currencies and limits, buyer, items and shipping_address required by
# it (and unknown to the other methods), the items adding up to the amount.
_own = ("alias", "cod_address", "crypto_asset", "crypto_network", "expires_in_hours", "phone")
INTENT_CREATE["anyOf"] = [b for b in INTENT_CREATE["anyOf"]
                          if b["properties"]["payment_method"].get("const") not in _bnpl.TYPES]
# Its currencies are in x-qafila-bnpl, not in the branch: with the wallets' branches and the currencies'
# amount bounds beside it, a currency enum here too made the body one the canonical form cannot model.
INTENT_CREATE["anyOf"].append({"properties": {
    "payment_method": enum(_bnpl.TYPES),
    **{f: NOT_GIVEN for f in _own}}})
INTENT_CREATE["description"] += ("; buyer, items (quantity x unit_amount adding up to amount) and shipping_address "
                                 "for bnpl_split4 and bnpl_split3 only, and required by them (shipping_address: "
                                 "else the address of the customer_id's customer), within each method's currencies "
                                 "and limits (x-qafila-bnpl)")
BNPL_RULES = {"limits": {t: {cur: [methods.get(t).limit(cur).minimum, methods.get(t).limit(cur).maximum]
                             for cur in methods.get(t).currencies} for t in _bnpl.TYPES},
              "fields": ["buyer", "items", "shipping_address", "capture_method"],
              "phone": "+966500000001"}
METHOD_TYPE["properties"]["schedule"] = shape(
    {"installments": INT, "interval": enum(("day", "month")), "interval_count": INT},
    description="BNPL methods only: how the order is split")
V1.update({
    ("POST", "/payments/intent"): replace(V1[("POST", "/payments/intent")], bnpl=BNPL_RULES),
    ("GET", "/bnpl/eligibility"): Op(
        shape({"object": const("bnpl_eligibility"), "status": enum(("eligible", "not_eligible")),
               "schedule": BNPL_SCHEDULE, "reason": enum(_bnpl.REASONS)}, optional=("schedule", "reason")),
        query=(Param("method", enum(_bnpl.TYPES), required=True), Param("amount", amount(), "minor units",
                                                                        required=True),
               Param("currency", CURRENCY, required=True),
               Param("phone", text(32, 1), "the buyer's phone, international form", required=True),
               q("email", EMAIL, "the buyer's e-mail")),
        description="Secret or publishable key. eligible with the schedule, or not_eligible with the reason "
                    "(amount_too_low, amount_too_high, buyer_rejected). A currency the method does not serve "
                    "is a 400 naming currency.", bnpl=BNPL_RULES),
    ("POST", "/payments/{id}/capture"): Op(
        INTENT, body({"amount": amount(), "idempotency_key": IDEMPOTENCY_KEY_BODY}), errors=(409,),
        description="An authorized BNPL payment (requires_capture): amount (all that is still authorized by "
                    "default) is captured; the intent stays requires_capture until all is captured (succeeded). "
                    "400 amount_too_large above what is capturable, 400 invalid_state in any other status."),
})

# ---- merchant /api: the team, sign-in's second step, step-up, sessions, two-factor, the audit log and
# the payout bank account (rest_compat/merchant_team.py; services/identity, services/money/payout_settings.py).
from services.identity import audit as _audit, permissions as _permissions, two_factor as _two_factor  # noqa: E402

ROLE = enum(_permissions.ROLE_NAMES)
ROLES_IN = arr(ROLE, minItems=1, description="one or more roles (a repeated one counts once); 400 naming roles when "
                                             "empty or unknown")
TOTP_CODE = {"type": "string", "pattern": r"^\s*[0-9]{6}\s*$",
             "description": "the 6-digit code of the authenticator app (RFC 6238: 30 s steps, one step either side; "
                            "a step once used is refused). Wrong: 400 invalid_two_factor_code naming code; after 5 "
                            "wrong codes of the member in 5 minutes, 429 with Retry-After"}
MEMBER = shape({"id": STR, "object": const("member"), "email": STR, "roles": arr(ROLE), "two_factor_enabled": BOOL,
                "created_at": TS})
INVITE = shape({"id": STR, "object": const("invite"), "email": STR, "roles": arr(ROLE),
                "status": enum(("pending", "accepted", "revoked")),
                "expires_at": {**TS, "description": "10 days after created_at; an expired invitation stays pending "
                                                    "in the list but cannot be accepted (410)"},
                "created_at": TS})
SESSION = shape({"id": STR, "object": const("session"),
                 "current": {"type": "boolean", "description": "the session of this request"},
                 "kind": enum(("token", "cookie")),
                 "device": {"type": "string", "description": "browser and system read from the user agent "
                                                             "(\"Chrome on Mac OS X\"), \"\" when unknown"},
                 "user_agent": null(STR), "ip": null(STR), "created_at": TS, "last_seen_at": TS})
AUDIT_EVENT = shape({
    "id": STR, "created_at": TS,
    "actor": shape({"type": enum(("member", "api_key", "system")), "id": null(STR), "email": null(STR)}),
    "action": enum(_audit.ACTIONS),
    "object": null(shape({"type": STR, "id": null(STR)})),
    "ip": null(STR), "user_agent": null(STR),
    "before": null({"type": "object", "description": "the changed fields before (never a secret)"}),
    "after": null({"type": "object", "description": "the changed fields after (never a secret)"})})
PAYOUT_SETTINGS = shape({"object": const("payout_settings"),
                         "iban_last4": null({"type": "string", "description": "the IBAN's last four characters (the "
                                                                             "IBAN itself is never shown)"}),
                         "account_holder_name": null(STR), "updated_at": null(TS)},
                        description="null fields until the bank account is set")
# verify-otp and verify-two-factor: a session (its token, or with session: cookie the qafila_session cookie in
# Set-Cookie and the csrf_token), or verify-otp's two-factor challenge to answer first.
_SESSION_FIELDS = ("session_id", "expires_in", "token", "csrf_token")


def _sign_in(two_factor: tuple[str, ...], *, challenge: bool) -> dict:
    props = {"merchant_id": STR, "member_id": STR,
             "two_factor": {**enum(two_factor), "description": (
                 "not_enrolled: a session, the member has no two-factor sign-in; challenge: answer challenge_id at "
                 "POST /api/auth/verify-two-factor (no session yet); enrollment_required: a session that answers 403 "
                 "two_factor_enrollment_required outside /api/me* until two-factor sign-in is confirmed; "
                 "verified: a session after the authenticator or recovery code")},
             "merchant_created": {"type": "boolean", "description": "this verification signed the merchant up"},
             "session_id": STR, "expires_in": {"type": "integer", "description": "seconds: the session's longest life "
                                                                               "(it also ends when idle)"},
             "token": {"type": "string", "description": "session: token (the default): the credential, "
                                                       "Authorization: Bearer sess_..."},
             "csrf_token": {"type": "string", "description": "session: cookie: send it as X-CSRF-Token on every "
                                                            "write made with the cookie"}}
    optional = _SESSION_FIELDS
    if challenge:
        props["challenge_id"] = {"type": "string", "description": "two_factor challenge only (5 minutes)"}
        optional = (*optional, "challenge_id")
    return shape(props, optional=optional)


SIGN_IN_NOTE = (" With session: cookie the answer sets the qafila_session cookie (HttpOnly, SameSite=Strict, Path=/, "
                "Secure unless QAFILA_ENV=development) and carries csrf_token instead of token.")
MERCHANT.update({
    ("POST", "/auth/verify-otp"): Op(
        _sign_in(("not_enrolled", "challenge", "enrollment_required"), challenge=True),
        body({"request_id": text(64), "otp": {"type": "string", "pattern": "^[0-9]{6}$"},
              "merchant_id": {"type": "string", "maxLength": 40,
                              "description": "the merchant to sign in to, when the e-mail is a member of several "
                                             "(default: the oldest membership); 404 naming merchant_id when the "
                                             "e-mail is not its member (the code is not spent)"},
              "session": enum(("token", "cookie"))},
             required=("request_id", "otp")), errors=(401, 404),
        description="An e-mail with no membership signs a new merchant up (merchant_created). A member with "
                    "two-factor sign-in gets a challenge instead of a session." + SIGN_IN_NOTE),
    ("POST", "/auth/verify-two-factor"): Op(
        _sign_in(("verified",), challenge=False),
        {**body({"challenge_id": text(64), "code": TOTP_CODE,
                 "recovery_code": text(32, 8, description="one of the member's recovery codes (each works once)")},
                required=("challenge_id",)),
         "anyOf": [{"required": ["code"],
                    "properties": {"code": {"type": "string"}, "recovery_code": {"type": "null"}}},
                   {"required": ["recovery_code"],
                    "properties": {"recovery_code": {"type": "string"}, "code": {"type": "null"}}}]},
        errors=(401,),
        description="The second step of a sign-in: the challenge_id of verify-otp and the authenticator code or a "
                    "recovery code (exactly one). A wrong code is 401 invalid_two_factor_code; an unknown or "
                    "expired challenge 401 invalid_challenge." + SIGN_IN_NOTE),
    ("POST", "/auth/step-up"): Op(
        shape({"step_up_expires_at": TS}), body({"code": TOTP_CODE}, required=("code",)),
        description="A member's session only (an API key: 403 member_required), with two-factor sign-in on (400 "
                    "two_factor_not_enabled): for 5 minutes this session may mint live keys, PUT "
                    "/api/payout-settings and PUT /api/team/members/{id} (else 403 step_up_required)."),
    ("POST", "/auth/sign-out"): Op(
        shape({"signed_out": const_bool(True)}),
        description="Ends this member session (an API key: 403 member_required); it then answers 401 "
                    "session_revoked. A cookie session's answer clears the cookie."),
    ("GET", "/me"): Op(
        shape({"id": STR, "object": const("member"), "email": STR, "roles": arr(ROLE),
               "permissions": arr(enum(sorted(_permissions.ALL)), description="the union of the roles' permissions"),
               "two_factor_enabled": BOOL, "merchant_id": STR}),
        description="The member of this session (an API key: 403 member_required)."),
    ("GET", "/me/sessions"): Op(
        shape({"data": arr(SESSION), "has_more": BOOL}),
        description="The member's open sessions, newest first (an API key: 403 member_required)."),
    ("DELETE", "/me/sessions/{id}"): Op(
        shape({**SESSION["properties"], "revoked": const_bool(True)}),
        description="Ends one of the member's sessions: it then answers 401 session_revoked."),
    ("POST", "/me/sessions/revoke-others"): Op(
        shape({"revoked": {"type": "integer", "description": "how many sessions ended"}}),
        description="Ends every session of the member but this one."),
    ("POST", "/me/two-factor/enroll"): Op(
        shape({"secret": {"type": "string", "pattern": "^[A-Z2-7]+=*$", "description": "base32"},
               "otpauth_uri": {"type": "string",
                               "description": "otpauth://totp/Qafila:<email>?secret=...&issuer=Qafila"},
               "qr_code": {"type": "string", "description": "the otpauth_uri as an SVG data URI"}}),
        errors=(409,),
        description="A new secret, not in force until confirmed; 409 two_factor_already_enabled. Takes no "
                    "Idempotency-Key (the secret is never stored in clear)."),
    ("POST", "/me/two-factor/confirm"): Op(
        shape({"enabled": const_bool(True),
               "recovery_codes": arr(STR, minItems=_two_factor.RECOVERY_CODES, maxItems=_two_factor.RECOVERY_CODES,
                                     description="shown this once; each works once in place of a code")}),
        body({"code": TOTP_CODE}, required=("code",)), errors=(409,),
        description="The first code of the app turns two-factor sign-in on (400 two_factor_not_enrolled before "
                    "enroll; 409 two_factor_already_enabled). Takes no Idempotency-Key (the recovery codes are "
                    "shown once and never stored in clear)."),
    ("POST", "/me/two-factor/disable"): Op(
        shape({"enabled": const_bool(False)}), body({"code": TOTP_CODE}, required=("code",)), errors=(409,),
        description="409 two_factor_not_enabled, or two_factor_enforced when the merchant requires it."),
    ("POST", "/team/invites"): Op(
        INVITE, body({"email": text(254, format="email"), "roles": ROLES_IN}, required=("email", "roles")),
        errors=(409,),
        description="E-mails {QAFILA_PUBLIC_URL}/dashboard/accept-invite?token=<token> (valid 10 days). 409 "
                    "already_member or invite_pending (nothing written); inviting an owner takes an owner (else "
                    "403). A member's session only (an API key: 403 member_required)."),
    ("GET", "/team/invites"): Op(list_of(INVITE, total=None), query=PAGE),
    ("DELETE", "/team/invites/{id}"): Op(
        INVITE, errors=(409,),
        description="409 invite_not_pending once accepted or revoked. A member's session only."),
    ("POST", "/team/invites/accept"): Op(
        shape({"member": MEMBER, "merchant": shape({"id": STR, "name": STR})}),
        body({"token": text(200, description="the token of the invitation's link")}, required=("token",)),
        errors=(404, 410),
        description="No credential: the token is one. Unknown, used or revoked: 404 invite_not_found; expired: "
                    "410 invite_expired. Then sign in with verify-otp (merchant_id picks this merchant)."),
    ("GET", "/team/members"): Op(list_of(MEMBER, total=None), query=PAGE),
    ("GET", "/team/members/{id}"): Op(MEMBER),
    ("PUT", "/team/members/{id}"): Op(
        MEMBER, body({"roles": ROLES_IN}, required=("roles",)), errors=(409,),
        description="Replaces the member's roles, in force at once. Only an owner grants or takes owner (else "
                    "403); the last owner cannot lose it (409 last_owner). A member's session only; with "
                    "two-factor sign-in, a step-up (403 step_up_required)."),
    ("DELETE", "/team/members/{id}"): Op(
        shape({**MEMBER["properties"], "deleted": const_bool(True)}), errors=(409,),
        description="The member's sessions end at once. Only an owner removes an owner (else 403); the last owner "
                    "stays (409 last_owner). A member's session only."),
    ("GET", "/audit-events"): Op(
        shape({"data": arr(AUDIT_EVENT), "has_more": BOOL,
               "next_cursor": null({"type": "string", "description": "the starting_after of the next page"})}),
        query=(*PAGE, q("actor", id_schema(None), "the actor's id (mbr_ or key_)"),
               q("action", enum(_audit.ACTIONS)),
               q("object_type", {"type": "string", "maxLength": 40, "pattern": "^_*[A-Za-z][A-Za-z_]*$"},
                 "member, invite, api_key, refund, ..."),
               q("object_id", id_schema(None), "the object's id"),
               q("created_gte", WHEN, "ISO 8601 date-time or Unix seconds: at or after"),
               q("created_lte", WHEN, "ISO 8601 date-time or Unix seconds: at or before"),
               q("format", enum(("json", "csv")))),
        also_media=("text/csv",),
        description="Newest first (the order of writing). format=csv answers text/csv: "
                    + ", ".join(_audit.CSV_COLUMNS) + " (before and after as JSON)."),
    ("GET", "/payout-settings"): Op(PAYOUT_SETTINGS),
    ("PUT", "/payout-settings"): Op(
        PAYOUT_SETTINGS,
        body({"iban": {"type": "string", "maxLength": 64, "pattern": r"^\s*[A-Za-z]{2}[0-9]{2}[A-Za-z0-9\s]{11,}$",
                       "description": "the IBAN, spaces allowed: its country's length and format and its mod-97 "
                                      "check digits (400 naming iban otherwise: JSON Schema cannot state them)"},
              "account_holder_name": text(140, 1)}, required=("iban", "account_holder_name")),
        description="A member with two-factor sign-in needs a step-up (403 step_up_required). The audit log keeps "
                    "only the IBAN's last four characters."),
})

# ---- merchant /api: marketplace (rest_compat/merchant_marketplace.py, issue 47): sub-merchants,
# settings, splits, seller balances, payouts and their batches and files. Enumerations from
# services.money.marketplace.
from services.money.marketplace import sellers as _sellers, settings as _mkt_settings  # noqa: E402

ID_PREFIXES["*"].update({"sub-merchants": "smr", "sub_merchant": "smr", "sub_merchants": "smr"})
IBAN_IN = {"type": "string", "maxLength": 64, "pattern": r"^\s*[A-Za-z]{2}[0-9]{2}[A-Za-z0-9\s]{11,}$",
           "description": "an IBAN of the sub-merchant's country, spaces allowed: its length, format and mod-97 check "
                          "digits are checked (400 invalid_iban naming the field otherwise)"}
BIC_IN = {"type": ["string", "null"], "pattern": r"^\s*[A-Za-z]{6}[A-Za-z0-9]{2}([A-Za-z0-9]{3})?\s*$",
          "description": "a BIC (ISO 9362: bank, country, location[, branch]; an unknown country is a 400 invalid_bic)"}
PERCENT_IN = {"type": "string", "pattern": r"^\s*(100(\.0{1,4})?|[0-9]{1,2}(\.[0-9]{1,4})?)\s*$",
              "description": "a percentage from 0 to 100 as text, up to 4 decimals"}
SMR_ADDRESS = shape({"line1": STR, "line2": null(STR), "city": STR, "postal_code": null(STR)})
SMR_ADDRESS_IN = body({"line1": text(200, 1), "line2": text(200), "city": text(100, 1), "postal_code": text(20)},
                      required=("line1", "city"))
SMR_PAYOUT = shape({"iban": null(STR), "holder_name": null(STR), "bic": null(STR), "purpose": STR,
                    "hold_until": null(TS)})
SMR_PAYOUT_IN = body({"iban": IBAN_IN, "holder_name": text(140, 1), "bic": BIC_IN,
                      "purpose": {"type": "string", "pattern": r"^\s*[A-Z]{4}\s*$",
                                  "description": "ISO 20022 purpose code (default SUPP)"}},
                     description="holder_name comes with iban and is the legal_name's words (400 holder_name_mismatch)")
FEE = shape({"percent": STR, "fixed": INT})
FEE_IN = body({"percent": PERCENT_IN, "fixed": amount(0)})
SCHEDULE = shape({"interval": enum(_sellers.INTERVALS), "weekly_anchor": enum(_sellers.WEEKDAYS),
                  "monthly_anchor": INT, "minimum": INT, "reserve": INT})
SCHEDULE_IN = body({"interval": enum(_sellers.INTERVALS), "weekly_anchor": enum(_sellers.WEEKDAYS),
                    "monthly_anchor": {"type": "integer", "minimum": 1, "maximum": 31},
                    "minimum": amount(0), "reserve": amount(0)})
REQUIREMENTS = shape({"currently_due": arr(STR), "past_due": arr(STR),
                      "disabled_reason": null(enum(("requirements.past_due",)))})
SUB_MERCHANT = shape({
    "id": STR, "object": const("sub_merchant"), "type": enum(_sellers.TYPES), "legal_name": STR, "email": STR,
    "country": enum(_sellers.COUNTRIES), "currency": CURRENCY, "address": SMR_ADDRESS,
    "external_id": null(foreign(STR)),
    "tax_id": null(TAX_ID), "registration_number": null(STR), "payout": SMR_PAYOUT, "default_fee": FEE,
    "auto_release_days": null(INT), "payout_schedule": SCHEDULE, "status": enum(_sellers.STATUSES),
    "payouts_enabled": BOOL, "requirements": REQUIREMENTS, "livemode": BOOL, "created_at": TS, "updated_at": TS})
_SMR_IN = {"type": enum(_sellers.TYPES), "legal_name": text(200, 1),
           "email": {"type": "string", "maxLength": 254, "format": "email"},
           "country": enum(_sellers.COUNTRIES), "address": SMR_ADDRESS_IN,
           "external_id": foreign(text(200, description="your own reference")),
           "tax_id": TAX_ID_IN, "registration_number": text(64, 1), "payout": SMR_PAYOUT_IN, "default_fee": FEE_IN,
           "auto_release_days": {"type": "integer", "minimum": 1, "maximum": _sellers.MAX_RELEASE_DAYS},
           "payout_schedule": SCHEDULE_IN}
SMR_RULES = ("Companies and sole proprietors of SA, TR and EG need tax_id (SA sa_vat; TR tr_vkn with tax_office, or a "
             "sole proprietor's tr_tckn; EG eg_rin), elsewhere registration_number; a Turkish individual needs a "
             "tr_tckn. Missing payout details are requirements.currently_due (restricted); 30 days later past_due "
             "(disabled). A bad field is a 400 naming it; nothing is written.")
PAYOUT_ACCOUNT = shape({"iban": STR, "name": STR, "bic": null(STR)})
MARKETPLACE = shape({"object": const("marketplace"), "dispute_policy": enum(_mkt_settings.DISPUTE_POLICIES),
                     "payout_account": null(PAYOUT_ACCOUNT), "commission_invoices": BOOL, "livemode": BOOL,
                     "updated_at": null(TS)})

MERCHANT.update({
    ("POST", "/sub-merchants"): Op(SUB_MERCHANT, body(_SMR_IN, required=("type", "legal_name", "email", "country",
                                                                         "address")),
                                   description=SMR_RULES, headers=()),
    ("GET", "/sub-merchants"): Op(list_of(SUB_MERCHANT, total=None),
                                  query=(*PAGE, q("external_id", foreign(text(200)), "your own reference"))),
    ("GET", "/sub-merchants/{id}"): Op(SUB_MERCHANT),
    ("PUT", "/sub-merchants/{id}"): Op(SUB_MERCHANT, body(_SMR_IN),
                                       description="The fields given; type and country are fixed once set. A changed "
                                                   "IBAN holds payouts for 72 hours. " + SMR_RULES),
    ("GET", "/marketplace"): Op(MARKETPLACE),
    ("PUT", "/marketplace"): Op(MARKETPLACE, {**body({
        "dispute_policy": enum(_mkt_settings.DISPUTE_POLICIES),
        "payout_account": {"anyOf": [body({"iban": IBAN_IN, "name": text(140, 1), "bic": BIC_IN},
                                          required=("iban", "name")), {"type": "null"}]},
        "commission_invoices": BOOL}), "description": "the fields given (none: the settings as they are)"}),
})

# ---- marketplace splits (services.money.marketplace.splits) on /api payments and /v1 intents, the split
# objects, and a seller's balance.
from services.money.marketplace import splits as _splits  # noqa: E402

ID_PREFIXES["*"].update({"splits": "spl", "split": "spl"})
SPLIT = shape({"id": STR, "object": const("split"), "payment": STR, "sub_merchant": STR, "reference": null(STR),
               "currency": CURRENCY, "line_amount": INT, "fee": INT, "amount": INT, "release": enum(_splits.RELEASES),
               "status": enum(_splits.STATUSES), "auto_release_at": null(TS), "released_at": null(TS),
               "amount_refunded": INT, "amount_reversed": INT, "fee_refunded": INT, "amount_disputed": INT,
               "livemode": BOOL, "created_at": TS})
SPLIT_LINE_IN = body({"sub_merchant": id_schema("smr"), "reference": text(140),
                      "amount": amount(), "line_amount": amount(), "fee_percent": PERCENT_IN,
                      "fee_fixed": amount(0), "release": enum(_splits.RELEASES)},
                     required=("sub_merchant",),
                     description="amount (the seller's share, no fee) or line_amount (the line's price: the fee is "
                                 "half-up(line_amount x fee_percent / 100) + fee_fixed, default the sub-merchant's "
                                 "default_fee; the seller gets line_amount - fee)")
SPLITS_IN = {**arr(SPLIT_LINE_IN, maxItems=_splits.MAX_LINES),
             "description": "marketplace split lines, in the sub-merchants' currency; they add up to at most the "
                            "amount (400 splits_exceed_amount); an unknown or another platform's sub_merchant is a 400 "
                            "resource_missing naming splits[i].sub_merchant; a disabled one 400 sub_merchant_disabled, one paid "
                            "in another currency 400 sub_merchant_currency"}
for _table, _route in ((MERCHANT, ("POST", "/payments/create")), (V1, ("POST", "/payments/intent"))):
    _table[_route].request["properties"]["splits"] = SPLITS_IN
for _schema in (PAYMENT, INTENT):
    _schema["properties"]["splits"] = {**arr(SPLIT), "description": "in the create's answer when splits were given"}
SELLER_BALANCE = shape({"object": const("balance"), "sub_merchant": STR, "livemode": BOOL,
                        **{k: arr(AMOUNT_CUR) for k in ("held", "pending", "available", "reserve", "in_payout",
                                                          "paid_out")}},
                       description="the seller's money in its currency: held (not released), pending (released, until "
                                   "the payment's settlement date), available (may be negative), reserve (what "
                                   "payout_schedule.reserve keeps of it), in_payout, paid_out")

SPLIT_REVERSAL = shape({"split": STR, "amount": INT, "amount_reversed": INT, "fee_refunded": INT})
_REFUND_SPLIT_IN = {
    "split": {**id_schema("spl"), "description": "refund this split line only (else: spread over the lines and the "
                                                 "platform's rest by largest remainder)"},
    "reverse_split": {"type": "boolean", "description": "debit the sellers their lines' refunded parts"},
    "refund_platform_fee": {"type": "boolean", "description": "with reverse_split (default true): credit the sellers "
                                                              "the fee's share half-up(R x fee / line_amount)"}}
for _table in (MERCHANT, V1):
    _op = _table[("POST", "/payments/{id}/refund")]
    _op.request["properties"].update(_REFUND_SPLIT_IN)
    _resp = dict(_op.response, properties={**_op.response["properties"], "split_reversals": {
        **arr(SPLIT_REVERSAL), "description": "a split payment's: each line's part of the refund"}})
    _table[("POST", "/payments/{id}/refund")] = replace(_op, response=_resp)

MERCHANT.update({
    ("GET", "/sub-merchants/{id}/balance"): Op(SELLER_BALANCE),
    ("GET", "/splits"): Op(list_of(SPLIT, total=None),
                           query=(*PAGE, q("payment", id_schema("pay")), q("sub_merchant", id_schema("smr")),
                                  q("status", enum(_splits.STATUSES)))),
    ("GET", "/splits/{id}"): Op(SPLIT),
    ("POST", "/splits/{id}/release"): Op(SPLIT, body({}), description="held -> released (else 400 invalid_state)"),
    ("POST", "/splits/{id}/hold"): Op(SPLIT, body({}),
                                      description="released (not paid out: else 400 split_paid_out) or held -> held, "
                                                  "its auto-release stopped"),
})

# ---- marketplace payouts, batches, files, statements and test helpers (services.money.marketplace.payouts)
from services.money.marketplace import files as _mk_files, payouts as _payouts  # noqa: E402

ID_PREFIXES["*"].update({"payouts": "po", "payout": "po", "payout-batches": "pb", "batch": "pb"})
PAYOUT = shape({"id": STR, "object": const("payout"), "batch": STR, "sub_merchant": STR, "amount": INT,
                "currency": CURRENCY, "iban": STR, "holder_name": STR, "purpose": STR, "reference": STR,
                "status": enum(_payouts.STATUSES), "commission_invoice": null(STR), "paid_at": null(TS),
                "livemode": BOOL, "created_at": TS})
PAYOUT_BATCH = shape({"id": STR, "object": const("payout_batch"), "currency": CURRENCY, "count": INT, "total": INT,
                      "livemode": BOOL, "created_at": TS, "payouts": arr(PAYOUT)}, optional=("payouts",))
_SETTLE = "Test mode only (a live key: 400 test_mode_only). "

MERCHANT.update({
    ("GET", "/payouts"): Op(list_of(PAYOUT, total=None),
                            query=(*PAGE, q("sub_merchant", id_schema("smr")), q("batch", id_schema("pb")),
                                   q("status", enum(_payouts.STATUSES)))),
    ("GET", "/payouts/{id}"): Op(PAYOUT),
    ("GET", "/payouts/{id}/statement"): Op(
        None, media="text/csv",
        description="CSV " + ", ".join(_payouts.STATEMENT_COLUMNS) + "; types split, reversal, fee_refund, dispute, "
                    "dispute_won, carried_in, carried_forward; amounts in the currency's decimals, adding up to the "
                    "payout."),
    ("POST", "/payout-batches"): Op(
        PAYOUT_BATCH, body({"currency": enum(sorted(set(_sellers.COUNTRY_CURRENCY.values()))),
                            "sub_merchants": arr(id_schema("smr"), maxItems=500)}, required=("currency",)),
        description="Pays now every sub-merchant of the currency (or those named) whose payouts are enabled and whose "
                    "payable (available - reserve; 3-decimal currencies in multiples of 10 fils) reaches its "
                    "minimum; none: 400 nothing_to_pay."),
    ("GET", "/payout-batches"): Op(list_of(PAYOUT_BATCH, total=None), query=PAGE),
    ("GET", "/payout-batches/{id}"): Op(PAYOUT_BATCH),
    ("GET", "/payout-batches/{id}/file"): Op(
        None, media="application/xml", also_media=("text/csv",), query=(q("format", enum(_mk_files.FORMATS)),),
        description="format=pain.001.001.09 (default): ISO 20022 XML debiting the platform's payout_account (unset: "
                    "400 payout_account_required); format=csv: " + ", ".join(_mk_files.CSV_COLUMNS) + "."),
    ("POST", "/test-helpers/payouts/{id}/paid"): Op(PAYOUT, body({}), description=_SETTLE + "pending -> paid "
                                                    "(with its commission invoice); else 400 invalid_state"),
    ("POST", "/test-helpers/payouts/{id}/failed"): Op(PAYOUT, body({}), description=_SETTLE + "pending -> failed: "
                                                      "the money is available again; else 400 invalid_state"),
    ("POST", "/test-helpers/payouts/{id}/returned"): Op(PAYOUT, body({}), description=_SETTLE + "paid -> returned: "
                                                        "credited again, payout.iban due; else 400 invalid_state"),
})

OPERATIONS: dict[str, dict[tuple[str, str], Op]] = {"merchant": MERCHANT, "v1": V1, "crm": CRM}

# ---------------------------------------------------------------- errors

ERROR = {"type": "object", "required": ["error"], "properties": {"error": {
    "type": "object", "required": ["type", "code", "message", "param", "request_id"],
    "properties": {
        "type": {"type": "string", "description": "invalid_request_error, authentication_error, permission_error, "
                                                  "card_error, idempotency_error, rate_limit_error, api_error"},
        "code": {"type": "string", "description": "machine-readable, e.g. invalid_request, invalid_api_key, "
                                                  "resource_not_found, rate_limit_exceeded, idempotency_conflict, "
                                                  "permission_denied, session_expired"},
        "message": {"type": "string", "description": "on the merchant /api, the documented text for the status"},
        "param": {"type": ["string", "null"], "description": "the field or parameter at fault"},
        "permission": {"type": "string", "description": "on a 403 permission_denied: the permission the member's "
                                                        "roles lack (refunds_write, audit_read, ...)"},
        "request_id": {"type": "string", "description": "also in the X-Request-Id header"},
        "detail": {"type": "string", "description": "merchant /api only: exactly what is wrong"},
        "decline_code": {"type": "string", "description": "on a card decline (402 payment_declined): "
                                                          "card_declined, insufficient_funds, risk_declined, "
                                                          "authentication_required, processing_error"}}}}}

ERROR_TEXT = {
    400: "Invalid request: a field, parameter or path id is missing or malformed, or the operation is not "
         "allowed in the object's state",
    401: "Missing or invalid credential; a member's session that expired (session_expired: idle past "
         "QAFILA_SESSION_IDLE_SECONDS, or 12 hours old) or was signed out or revoked (session_revoked)",
    402: "Payment declined, or insufficient funds",
    403: "Not allowed: a member's roles lack the permission (permission_denied, naming it in `permission`); the "
         "operation needs a member's session, not an API key (member_required), a step-up within 5 minutes "
         "(step_up_required), or the member must first enrol in two-factor sign-in "
         "(two_factor_enrollment_required); a cookie session's write without its X-CSRF-Token (csrf_failed); "
         "or a bad webhook signature or token",
    404: "Resource not found",
    409: "Conflict: the idempotency key was used with other parameters, or is in use, or the value is taken",
    410: "Gone: the invitation has expired (invite_expired)",
    413: "Request body too large (1 MiB)",
    415: "Unsupported Content-Type",
    429: "Rate limit exceeded (see Retry-After)",
    500: "Internal server error",
    502: "The downstream platform refused or failed",
    503: "A backing service (database or key-value store) is unavailable; retry after Retry-After",
}


# A request line or header over 8,190 bytes is refused by the HTTP server itself, before any
# route runs, in plain text.
PLAIN_ERRORS = {400: {"text/plain": {"schema": STR}}}


def error_statuses(iface_name: str, route: Route, op: Op) -> list[int]:
    """Every operation may answer 400, 429, 500 and 503; an authenticated one 401 and 403 (a
    member's session: its roles lack the permission, it must enrol in two-factor sign-in, or
    its cookie's write lacks X-CSRF-Token); one with a path id 404; one taking a body 413 and
    415; a keyed POST 409; plus the operation's own."""
    out = {400, 429, 500, 503, *op.errors}
    if route.auth != "public":
        out.update((401, 403))
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
SESSION_COOKIE = "sessionCookie"      # an interface with `cookies` also takes a member's session cookie
SECURITY_SCHEMES = {
    "secretKey": {"type": "http", "scheme": "bearer", "description":
                  "A secret API key (sk_test_... or sk_live_...: every permission), or a member's session token "
                  "(sess_..., the token of verify-otp or verify-two-factor: its roles' permissions, in test mode). "
                  "Operations marked so also take a publishable key (pk_...)."},
    "crmAccessToken": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT",
                       "description": "The CRM access token of signup, login or refresh (15 minutes), or a merchant "
                                      "member's session token (sess_...)."},
    SESSION_COOKIE: {"type": "apiKey", "in": "cookie", "name": "qafila_session", "description":
                     "A member's browser session: the cookie set by verify-otp or verify-two-factor with session: "
                     "cookie (HttpOnly, SameSite=Strict). Used when no Authorization header is sent; every write "
                     "(any method but GET) also needs the X-CSRF-Token header with the sign-in's csrf_token (403 "
                     "csrf_failed otherwise)."},
}
CSRF_HEADER = Param("X-CSRF-Token", {"type": "string"}, "with the qafila_session cookie only: the csrf_token of the "
                    "sign-in (a write without it, or with another: 403 csrf_failed); ignored with an "
                    "Authorization header", "header")
KEY_HEADER = KEY_TEXT      # "" is no key
IDEMPOTENCY_HEADERS = (
    Param("X-Idempotency-Key", KEY_HEADER, "replays the first answer for the same key and parameters; "
          "other parameters: 409 idempotency_conflict", "header"),
    Param("Idempotency-Key", KEY_HEADER, "same as X-Idempotency-Key; both given with different values: "
          "400 (param idempotency_key)", "header"),
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
    return {"description": "OK" if status == 200 else "Created",
            "content": {"application/json": {"schema": op.response}, **{m: {"schema": STR} for m in op.also_media}}}


def operation(iface: Interface, route: Route, op: Op) -> dict:
    out: dict[str, Any] = {"operationId": f"{iface.name}.{route.handler.__name__}",
                           "summary": route.summary, "tags": [TAGS.get(iface.name, iface.name)]}
    if op.description:
        out["description"] = op.description
    rules = []          # what JSON Schema cannot say, in words and as x-qafila-* (.ci/schemathesis_hooks.py)
    if op.exclusive:
        out["x-qafila-exclusive"] = [list(g) for g in op.exclusive]
        rules.append("Give at most one of: " + "; ".join(", ".join(g) for g in op.exclusive) + ".")
    if op.distinct:
        out["x-qafila-distinct"] = [list(g) for g in op.distinct]
        rules += [f"{a} and {b} must differ." for a, b in op.distinct]
    if op.total:
        out["x-qafila-total"] = {"fields": list(op.total),
                                 "maximum": {cur: lim.maximum for cur, lim in money.LIMITS.items()}}
    if op.same:
        out["x-qafila-same"] = [list(g) for g in op.same]
        rules += [f"each {items}[].{field} must be the {field}." for items, field in op.same]
    if op.future:
        out["x-qafila-future"] = list(op.future)
        rules.append(", ".join(op.future) + " must be in the future.")
    if op.amount_query:
        out["x-qafila-amount"] = {"fields": list(op.amount_query),
                                  "limits": {cur: [lim.minimum, lim.maximum] for cur, lim in money.LIMITS.items()}}
        rules.append("{0} is within the minimum and maximum of {1} (x-qafila-amount).".format(*op.amount_query))
    if op.only:
        out["x-qafila-only"] = [[field, most, other, list(values)] for field, most, other, values in op.only]
        rules += [f"{field} above {most} only when {other} is {' or '.join(values)}."
                  for field, most, other, values in op.only]
    if op.pairs:
        out["x-qafila-pairs"] = [[field, other, {k: list(v) for k, v in allowed.items()}]
                                 for field, other, allowed in op.pairs]
        rules += [f"{other} must be one of {field}'s: " + "; ".join(f"{k}: {', '.join(v)}" for k, v in allowed.items())
                  + "." for field, other, allowed in op.pairs]
    if op.bnpl:
        out["x-qafila-bnpl"] = op.bnpl
        rules.append("BNPL: the amount within the method's limits in the currency, items adding up to it, a buyer "
                     "the provider can score (x-qafila-bnpl).")
    if op.local:
        out["x-qafila-local"] = op.local
        rules.append("A local method: a currency it serves, the amount within its limits there, only its own "
                     "fields (phone: stcpay, required, and eg_wallet; expires_in_hours: fawry and sadad; alias: "
                     "cliq and aani) (x-qafila-local).")
    if op.unique:
        out["x-qafila-unique"] = [list(g) for g in op.unique]
        rules += ["no two {0} have the same {1}.".format("[].".join(g[:-1]) + "[]", g[-1]) for g in op.unique]
    if op.span:
        out["x-qafila-span"] = list(op.span)
        rules.append("{1} needs {0}; {0} <= {1}, at most {2} days apart.".format(*op.span))
    if rules:
        out["description"] = (out.get("description", "") + " " + " ".join(rules) + " (400 otherwise)").strip()
    status = 303 if op.media == "redirect" else route.status
    responses: dict[str, Any] = {str(status): _response(status, op)}
    for code in error_statuses(iface.name, route, op):
        responses[str(code)] = {"$ref": f"#/components/responses/E{code}"}
    out["responses"] = responses
    if route.auth == "public":
        out["security"] = []
    else:
        out["security"] = [{SECURITY[iface.name]: []}]
        if getattr(iface, "cookies", False):
            out["security"].append({SESSION_COOKIE: []})
        if route.auth == "key_or_publishable":
            out["description"] = (out.get("description", "") + " Takes a publishable key too.").strip()
    params = [path_param(iface.name, route.path, p).openapi() for p in re.findall(r"\{(\w+)", route.path)]
    params += [query_param(iface.name, route.path, p).openapi() for p in op.query]
    params += [p.openapi() for p in op.headers]
    if getattr(iface, "cookies", False) and route.auth != "public" and route.method not in ("GET", "HEAD"):
        params.append(CSRF_HEADER.openapi())
    if takes_idempotency_key(iface.name, route):
        params += [p.openapi() for p in IDEMPOTENCY_HEADERS]
    if params:
        out["parameters"] = params
    if op.request is not None:
        out["requestBody"] = {"required": bool(op.request.get("required") or op.request.get("anyOf")),
                              "content": {op.request_media: {"schema": request_schema(iface.name, op.request)}}}
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
}
APP_ERRORS = {"/health": (503,), "/health/live": (), "/health/ready": (503,), "/metrics": (), "/openapi.json": (), "/invoices/{token}.pdf": (400, 404, 429, 500, 503)}
NOT_DOCUMENTED = ("/graphql", "/docs", "/static", "/sandbox", "/dashboard")   # /sandbox: the simulators; /dashboard: the web app


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
    schemes = sorted({SECURITY[i.name] for i in interfaces if i.name in SECURITY}
                     | ({SESSION_COOKIE} if any(getattr(i, "cookies", False) for i in interfaces) else set()))
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
                "content": {"application/json": {"schema": ref("Error")}, **PLAIN_ERRORS.get(code, {})}}
                for code, text_ in ERROR_TEXT.items()},
        },
    }

# ---- /v1 intents: the ETA e-receipt (services.einvoicing.eta.receipts), as on /api payments.
INTENT["properties"]["eta_receipt"] = null(ETA_RECEIPT_BLOCK)
INTENT["required"].append("eta_receipt")
V1[("POST", "/payments/intent")].request["properties"]["eta_receipt"] = {
    "type": "boolean", "description": "ask for an ETA e-receipt (EGP only: true with another currency is a 400 "
                                      "naming eta_receipt; a merchant set up with receipts: all gets one for every "
                                      "EGP payment)"}
# ---- /v1 intents: the Turkish e-invoice (services.einvoicing.gib.payments), as on /api payments.
INTENT["properties"]["invoice_id"] = null({"type": "string", "description": "the invoice made for a TRY intent that "
                                                                         "asked for one (invoice: true), once made"})
INTENT["properties"]["gib"] = null(GIB_BLOCK)
INTENT["required"] += ["invoice_id", "gib"]
V1[("POST", "/payments/intent")].request["properties"]["invoice"] = {
    "type": "boolean", "description": "a TRY intent asks for an invoice: once it succeeded the scheduler makes it and "
                                      "its GİB e-document (another currency: a 400 naming invoice); the buyer is the "
                                      "Qafila customer customer_id names, else the final consumer (e-Arşiv)"}

# ---- cross-field rules the hooks of .ci/schemathesis.sh apply (x-qafila-only): an invoice is asked for a
# TRY payment, link or intent, an ETA e-receipt for an EGP one (a 400 naming the field otherwise).
for _table, _route, _rules in ((MERCHANT, ("POST", "/payments/create"),
                                (("invoice", False, "currency", ("TRY",)), ("eta_receipt", False, "currency", ("EGP",)))),
                               (MERCHANT, ("POST", "/payment-links"), (("invoice", False, "currency", ("TRY",)),)),
                               (V1, ("POST", "/payments/intent"),
                                (("invoice", False, "currency", ("TRY",)), ("eta_receipt", False, "currency", ("EGP",))))):
    _table[_route] = replace(_table[_route], only=_table[_route].only + _rules)
