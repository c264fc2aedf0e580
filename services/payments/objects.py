"""The payment as events carry it (`data.object`): one shape for every domain that emits a
payment event (payments themselves, money's disputes), importing nothing of either."""
from __future__ import annotations

from typing import Any

from models.payments import Payment
from services.payments import installments, receipts
from services.timestamps import iso


def event_object(p: Payment, **extra: Any) -> dict:
    """The payment as events carry it (data.object)."""
    return {"id": p.id, "object": "payment", "status": p.status, "amount": p.amount, "currency": p.currency,
            "amount_captured": p.amount_captured, "amount_refunded": p.amount_refunded, "provider": p.provider,
            "decline_code": p.decline_code, "customer_id": p.customer_id, "metadata": p.metadata,
            "livemode": p.livemode, "created_at": iso(p.created_at),
            "receipt_url": receipts.url_of(p.id, p.receipt_token) if p.status in receipts.PAID else None,
            "dispute": None, "installments": installments.as_object(p.installments), "eta_receipt": p.eta_receipt,
            **extra}
