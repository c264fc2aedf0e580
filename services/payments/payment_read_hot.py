"""`GET /api/payments/:id` on PostgreSQL, beside the generic read (payments.get_payment_detail and
rest_compat.merchant_payments.payment_shape).

One statement written once at import: the columns the documented payment shows (not the row's
every column), its receipt's state and its dispute, joined; prepared once per pooled connection
(asyncpg's statement cache). The record becomes the answer in `payment_answer`, which reads it by
position: no RowView, no per-column conversion loop. JSON columns shown as stored (the routing
decision, metadata, the wallet, the GİB and ETA blocks) are embedded as their stored text
(`orjson.Fragment`), never decoded and encoded again; installments (every field present) and the
card's networks (the brand's when none are stored) are decoded.

GraphQL `payment(id)` asking only the payment's own plain fields (no JSON block, no card) reads
`PLAIN` alone with `PLAIN_SQL` (`read_plain`): schema.payments makes its Payment from that record.

On SQLite (the embedded default) the generic read answers. tests/test_hot_payments.py holds the
two to the same answer for the same row: every column and optional block (a wallet, installments,
GİB, ETA, a receipt, a dispute, BNPL and local methods' payment_method, an invoice).
"""
from __future__ import annotations

from typing import Any

import orjson

from models import _lookup as lookup
from models.payments import Payment
from services.errors import NotFound
from services.payments import installments, receipts
from services.principal import Principal
from services.timestamps import iso

COLUMNS = ("id", "status", "amount", "currency", "provider", "routing_decision", "risk_score", "created_at",
           "amount_captured", "amount_refunded", "capture_method", "customer_id", "decline_code",
           "payment_method_type", "card_brand", "card_last4", "card_exp_month", "card_exp_year", "card_fingerprint",
           "card_country", "card_networks", "wallet", "metadata", "livemode", "payment_link", "receipt_token",
           "installments", "invoice_id", "gib", "eta_receipt")
DISPUTE = ("id", "amount", "fee", "currency", "reason", "status", "evidence_due_by", "created_at", "closed_at")
_N = len(COLUMNS)
SQL = (f'SELECT {", ".join(f"p.{chr(34)}{c}{chr(34)}" for c in COLUMNS)}, r."channel", r."sent_to", r."status", '
       f'{", ".join(f"d.{chr(34)}{c}{chr(34)}" for c in DISPUTE)} FROM "payments" p '
       f'LEFT JOIN "receipts" r ON r."payment_id" = p."id" LEFT JOIN "disputes" d ON d."payment_id" = p."id" '
       f'WHERE p."id" = $1 AND p."merchant_id" = $2 AND p."livemode" = $3 LIMIT 1')
_PAID = frozenset(receipts.PAID)
# What schema.payments.Payment.of reads of a payment besides its JSON blocks and card, in this order
PLAIN = ("id", "status", "amount", "currency", "provider", "risk_score", "created_at", "amount_captured",
         "amount_refunded", "capture_method", "decline_code", "customer_id", "payment_link", "receipt_token")
PLAIN_SQL = (f'SELECT {", ".join(chr(34) + c + chr(34) for c in PLAIN)} FROM "payments" '
             f'WHERE "id" = $1 AND "merchant_id" = $2 AND "livemode" = $3 LIMIT 1')


def available() -> bool:
    """On PostgreSQL: elsewhere the generic read is the only one."""
    return lookup.on_postgres(Payment)


def _raw(text: str | None) -> Any:
    return None if text is None else orjson.Fragment(text)


def payment_answer(r) -> dict[str, Any]:
    """The documented payment (merchant_payments.payment_shape with its receipt and dispute)."""
    pid, status, brand = r[0], r[1], r[14]
    stored = r[20]
    networks = orjson.loads(stored) if stored is not None else None
    method = {"type": r[13], "card": {"brand": brand, "last4": r[15], "exp_month": r[16], "exp_year": r[17],
                                      "fingerprint": r[18], "country": r[19],
                                      "networks": list(networks) if networks else
                                      ([brand] if brand and brand != "unknown" else [])}}
    wallet = r[21]
    if wallet is not None:                   # an Apple Pay / Google Pay payment's (rare): decoded
        wallet = orjson.loads(wallet)
        if wallet:
            method["wallet"] = wallet
    inst = r[26]
    d = _N + 3
    return {"id": pid, "object": "payment", "status": status, "amount": r[2], "currency": r[3],
            "provider": r[4], "routing_decision": _raw(r[5]), "risk_score": r[6], "created_at": iso(r[7]),
            "amount_captured": r[8], "amount_refunded": r[9], "capture_method": r[10], "customer_id": r[11],
            "decline_code": r[12], "payment_method": method, "metadata": _raw(r[22]) or {}, "livemode": r[23],
            "payment_link": r[24],
            "receipt_url": receipts.url_of(pid, r[25]) if status in _PAID else None,
            "dispute": None if r[d] is None else {
                "id": r[d], "object": "dispute", "amount": r[d + 1], "fee": r[d + 2], "currency": r[d + 3],
                "reason": r[d + 4], "status": r[d + 5], "evidence_due_by": iso(r[d + 6]),
                "created_at": iso(r[d + 7]), "closed_at": iso(r[d + 8])},
            "installments": installments.as_object(orjson.loads(inst)) if inst is not None else None,
            "invoice_id": r[27], "gib": _raw(r[28]), "eta_receipt": _raw(r[29]),
            "receipt": None if r[_N] is None else {"channel": r[_N], "sent_to": r[_N + 1], "status": r[_N + 2]}}


async def _one(sql: str, principal: Principal, payment_id: Any):
    """The payment's record by `sql` (its id, merchant and mode as $1-$3); NotFound when none."""
    if not isinstance(payment_id, str):
        raise NotFound()
    found = await lookup.fetch(Payment._meta.db, sql, (payment_id, principal.merchant_id, principal.livemode))
    if not found:
        raise NotFound()
    return found[0]


async def read(principal: Principal, payment_id: Any) -> dict[str, Any] | None:
    """The answer of `GET /api/payments/:id`, or None off PostgreSQL (the generic read answers)."""
    return payment_answer(await _one(SQL, principal, payment_id)) if available() else None


async def read_plain(principal: Principal, payment_id: Any):
    """The payment's `PLAIN` columns (an asyncpg record, by position), or None off PostgreSQL."""
    return await _one(PLAIN_SQL, principal, payment_id) if available() else None
