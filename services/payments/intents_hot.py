"""The `/v1` intent's hot reads on PostgreSQL, beside the generic ones of services.payments.intents:
`GET /v1/payments/:id` and the unfiltered page `GET /v1/payments?limit=&starting_after=`.

What the generic path does per request and these do not: a RowView per row (a per-column loop
converting every one of the row's 49 columns), `intent_object` reading them by attribute, the
keyset builder's value plan. Here each statement is written once at import (the page's once per
limit, its LIMIT in the text as the reference writes it), selects only the columns the answer
shows, is prepared once per pooled connection (asyncpg's statement cache, keyed by the text),
and its record is turned into the documented object by `intent_answer`, which reads the columns by
position. JSON columns the answer shows as they are stored (metadata, split, eta_receipt, gib,
next_action) go into the answer as their stored JSON text (`orjson.Fragment`): never decoded and
encoded again.

The generic path stays the reference and the fallback: on SQLite (the embedded default), for a
page with filters, and for an intent the read must first expire (unpaid past `expires_at`: the
generic path cancels it and reads it again). tests/test_hot_intents.py holds the two to the same
answer for intents of every kind (card, confirmed card, wallet, installments, BNPL, local methods,
crypto, COD, QR, ETA receipt, GİB invoice, splits, a receipt).
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Mapping

import orjson

from models import _lookup as lookup
from models.intents import PaymentIntent
from services.errors import NotFound, ValidationError
from services.pagination import check_limit
from services.infra.runtime import runtime
from services.payments import installments, intents, receipts
from services.payments.wallets import service as wallets
from services.principal import Principal
from services.timestamps import iso
from services.ids import check_id
from services.validation import check_str

# The columns the answer shows, in the order the encoder reads them.
COLUMNS = ("id", "status", "amount", "currency", "amount_received", "amount_refunded", "payment_method",
           "payment_method_ref", "fee_amount", "fee_rate", "fee_processing", "fee_conversion", "fee_network",
           "net_amount", "settlement_date", "merchant_id", "customer_id", "order_id", "description",
           "statement_descriptor", "metadata", "locale", "created_at", "expires_at", "succeeded_at", "canceled_at",
           "cancellation_reason", "livemode", "next_action", "receipt_token", "failure_code", "failure_message",
           "split", "installments", "eta_receipt", "invoice_id", "gib", "crypto", "cod_address", "cod_status",
           "method_details")
_SELECT = ", ".join(f'i."{c}"' for c in COLUMNS)
RETRIEVE_SQL = (f'SELECT {_SELECT}, r."channel", r."sent_to", r."status" FROM "payment_intents" i '
                f'LEFT JOIN "receipts" r ON r."payment_id" = i."id" '
                f'WHERE i."id" = $1 AND i."merchant_id" = $2 AND i."livemode" = $3 LIMIT 1')
_N = len(COLUMNS)
_TOTAL = ('(SELECT COALESCE(SUM("n"), 0) FROM "list_counts" WHERE "merchant_id" = $1 AND "livemode" = $2 '
          'AND "kind" = \'intents\')')


def _page_sql(limit: int, cursor: bool) -> str:
    """One page, newest first, with the list's total from its counter slots and (after a cursor)
    whether the cursor is an intent of this list: one statement, limit + 1 rows."""
    after = ""
    found = "1"
    if cursor:
        found = ('(SELECT 1 FROM "payment_intents" WHERE "id" = $3 AND "merchant_id" = $1 AND "livemode" = $2)')
        after = (' AND ("created_at", "id") < ((SELECT "created_at" FROM "payment_intents" WHERE "id" = $3 '
                 'AND "merchant_id" = $1 AND "livemode" = $2), $3)')
    return (f'SELECT {found} AS "_found", {_TOTAL} AS "_total", p.* FROM (SELECT 1) m LEFT JOIN '
            f'(SELECT {", ".join(chr(34) + c + chr(34) for c in COLUMNS)} FROM "payment_intents" '
            f'WHERE "merchant_id" = $1 AND "livemode" = $2{after} '
            f'ORDER BY "created_at" DESC, "id" DESC LIMIT {int(limit) + 1}) p ON 1 = 1 '
            f'ORDER BY p."created_at" DESC, p."id" DESC')


_PAGES: dict[tuple[int, bool], str] = {}


def page_sql(limit: int, cursor: bool) -> str:
    sql = _PAGES.get((limit, cursor))
    if sql is None:
        sql = _PAGES[(limit, cursor)] = _page_sql(limit, cursor)
    return sql


def available() -> bool:
    """On PostgreSQL: elsewhere the generic code is the only one."""
    return lookup.on_postgres(PaymentIntent)


def _json(text: str | None) -> Any:
    return None if text is None else orjson.loads(text)


def _rare(r, o: int) -> SimpleNamespace:
    """The few attributes the optional blocks' shapers read (local methods, BNPL, wallets, crypto)."""
    return SimpleNamespace(id=r[o], status=r[o + 1], amount=r[o + 2], amount_received=r[o + 4],
                           payment_method=r[o + 6], method_details=_json(r[o + 40]), crypto=_json(r[o + 37]))


def encoder_context() -> tuple:
    """What every object of one answer shares, found once per answer, not once per object: the
    checkout URL's prefix and client_secret's keyed HMAC states (intents._sign's)."""
    config = runtime().config
    if intents._KEYED[0] != config.secret_key:
        intents._KEYED[:] = intents._keyed(config.secret_key)
    return config.pay_url.rstrip("/") + "/", intents._KEYED[1], intents._KEYED[2]


def intent_answer(r, o: int = 0, context: tuple | None = None) -> dict[str, Any]:
    """The documented payment intent (intents.intent_object) from a record of COLUMNS starting at
    position `o`; `context`: encoder_context(), when the caller makes several."""
    prefix, inner, outer = context or encoder_context()
    (iid, status, amount, currency, received, refunded, method, pm_ref, fee_amount, fee_rate, processing,
     conversion, network, net, settles, merchant_id, customer_id, order_id, description, descriptor, metadata,
     locale, created, expires, succeeded, canceled, reason, livemode, next_action, token, failure_code,
     failure_message, split, terms, eta, invoice_id, gib, crypto, cod, _cod_status, details) = r[o:o + _N]
    signing = inner.copy()
    signing.update(b"client_secret:" + iid.encode())
    signed = outer.copy()
    signed.update(signing.digest())
    obj: dict[str, Any] = {
        "id": iid, "object": "payment_intent", "status": status, "amount": amount, "currency": currency,
        "amount_received": received, "amount_refunded": refunded, "payment_method": method,
        "payment_method_id": pm_ref, "checkout_url": prefix + iid,
        "client_secret": f"{iid}_secret_{signed.hexdigest()[:24]}",
        "fee": {"amount": fee_amount, "currency": currency, "rate": fee_rate,
                "breakdown": {"processing": processing, "currency_conversion": conversion, "network": network}},
        "net_amount": net, "settlement_date": settles.isoformat(), "merchant_id": merchant_id,
        "customer_id": customer_id, "order_id": order_id, "description": description,
        "statement_descriptor": descriptor, "metadata": {} if metadata is None else orjson.Fragment(metadata),
        "locale": locale, "created_at": iso(created), "expires_at": iso(expires),
        "succeeded_at": None if succeeded is None else iso(succeeded),
        "canceled_at": None if canceled is None else iso(canceled), "cancellation_reason": reason,
        "livemode": livemode, "next_action": None if next_action is None else orjson.Fragment(next_action),
        "receipt_url": f"{prefix}{iid}/receipt/{token}" if token else None,
        "failure_code": failure_code, "failure_message": failure_message,
        "split": [] if split is None else orjson.Fragment(split),
        "installments": None if terms is None else installments.as_object(orjson.loads(terms)),
        "eta_receipt": None if eta is None else orjson.Fragment(eta), "invoice_id": invoice_id,
        "gib": None if gib is None else orjson.Fragment(gib),
    }
    if crypto is not None or method == "qr" or cod is not None or details is not None:
        _optional(obj, r, o)
    return obj


def _optional(obj: dict[str, Any], r, o: int) -> None:
    """The blocks only some intents carry, shaped by the generic code's own helpers."""
    rare = _rare(r, o)
    if rare.crypto is not None:
        c = rare.crypto
        obj["crypto"] = {"asset": c["asset"], "network": c["network"], "address": c["address"],
                         "amount_crypto": c["amount_crypto"], "rate": c["rate"],
                         "rate_locked_until": c["rate_locked_until"], "qr_code_url": intents.qr_code_url_of(rare),
                         "detected_at": c.get("detected_at"), "confirmed_at": c.get("confirmed_at"),
                         "transaction_hash": c.get("transaction_hash")}
    if rare.payment_method == "qr":
        obj["qr_code_url"] = intents.qr_code_url_of(rare)
    if r[o + 38] is not None:
        obj["cod_address"] = _json(r[o + 38])
        obj["cod_status"] = r[o + 39]
    if rare.method_details is not None:
        obj.update(intents._local.object_fields(rare))
        if "wallet" in rare.method_details:
            obj["payment_method_details"] = wallets.details_object(rare.method_details)


def _due(r, o: int, now) -> bool:
    """Past `expires_at` and still expirable: the generic read cancels it first."""
    return r[o + 23] <= now and intents.expirable(SimpleNamespace(
        status=r[o + 1], failure_code=r[o + 30], payment_method=r[o + 6],
        crypto=_json(r[o + 37]) if r[o + 37] is not None else None))


async def _any_due(principal: Principal, records, o: int) -> bool:
    now = None
    for r in records:
        if r[o + 23] is not None and r[o + 1] in _EXPIRABLE:
            if now is None:
                now = await intents.now_for(principal)
            if _due(r, o, now):
                return True
    return False


_EXPIRABLE = frozenset(intents.UNPAID + ("failed", "requires_capture", "processing"))


async def retrieve(principal: Principal, intent_id: Any, client_secret: str | None) -> dict[str, Any] | None:
    """The answer of `GET /v1/payments/:id` (with `receipt` once there is one), or None when the
    generic path must answer (not PostgreSQL, or the intent is due to expire)."""
    if not available():
        return None
    if not isinstance(intent_id, str):
        raise NotFound("No such payment intent", param="id")
    found = await lookup.fetch(PaymentIntent._meta.db, RETRIEVE_SQL,
                               (intent_id, principal.merchant_id, principal.livemode))
    if not found:
        raise NotFound("No such payment intent", param="id")
    r = found[0]
    if principal.kind == "publishable":
        intents._check_client_secret(principal, SimpleNamespace(id=r[0]), client_secret)
    if r[1] in _EXPIRABLE and await _any_due(principal, found, 0):
        return None
    out = intent_answer(r)
    if r[_N] is not None:
        out["receipt"] = {"channel": r[_N], "sent_to": r[_N + 1], "status": r[_N + 2]}
    return out


_PAGE_QUERY = frozenset({"limit", "starting_after"})


async def page(principal: Principal, query: Mapping[str, Any]) -> dict[str, Any] | None:
    """The answer of an unfiltered `GET /v1/payments` page, or None when the generic path must
    answer (not PostgreSQL, a filter, or an intent of the page due to expire)."""
    if not available() or not _PAGE_QUERY.issuperset(query):
        return None
    limit = check_limit(query.get("limit"))
    after = query.get("starting_after") or None
    if after is not None:
        after = check_str(after, "starting_after", max_len=44)
        check_id(after, "starting_after")
    values = (principal.merchant_id, principal.livemode) + ((after,) if after else ())
    found = await lookup.fetch(PaymentIntent._meta.db, page_sql(limit, after is not None), values)
    head = found[0]
    if after is not None and head[0] is None:
        raise ValidationError("starting_after is not an id from this list", param="starting_after")
    records = found if head[2] is not None else []
    if await _any_due(principal, records, 2):
        return None
    has_more = len(records) > limit
    context = encoder_context()
    data = [intent_answer(r, 2, context) for r in records[:limit]]
    return {"object": "list", "data": data, "has_more": has_more,
            "next_cursor": data[-1]["id"] if has_more and data else None, "total_count": int(head[1] or 0)}
