"""The payment as events carry it (`data.object`): one shape for every domain that emits a
payment event (payments themselves, money's disputes), importing nothing of either."""
from __future__ import annotations

from typing import Any

from models.payments import Payment
from services.payments import cards, installments, receipts
from services.timestamps import iso

# The payment's columns payment_method_object reads (a list that reads only some columns reads these).
METHOD_COLUMNS = ("payment_method_type", "card_brand", "card_last4", "card_exp_month", "card_exp_year",
                  "card_fingerprint", "card_country", "card_networks", "wallet")


def payment_method_object(p: Any) -> dict:
    """`payment_method` of the payment object: its type, the card (of a wallet payment: the device
    card) with its networks -- a row stored before every card kept them shows its brand's -- and
    the wallet of an Apple Pay / Google Pay payment."""
    out = {"type": p.payment_method_type,
           "card": {"brand": p.card_brand, "last4": p.card_last4, "exp_month": p.card_exp_month,
                    "exp_year": p.card_exp_year, "fingerprint": p.card_fingerprint, "country": p.card_country,
                    "networks": cards.card_networks(p.card_brand, p.card_networks)}}
    if p.wallet:
        out["wallet"] = p.wallet
    return out


def event_object(p: Payment, **extra: Any) -> dict:
    """The payment as events carry it (data.object)."""
    return {"id": p.id, "object": "payment", "status": p.status, "amount": p.amount, "currency": p.currency,
            "amount_captured": p.amount_captured, "amount_refunded": p.amount_refunded, "provider": p.provider,
            "decline_code": p.decline_code, "customer_id": p.customer_id,
            "payment_method": payment_method_object(p), "metadata": p.metadata,
            "livemode": p.livemode, "created_at": iso(p.created_at),
            "receipt_url": receipts.url_of(p.id, p.receipt_token) if p.status in receipts.PAID else None,
            "dispute": None, "installments": installments.as_object(p.installments), "eta_receipt": p.eta_receipt,
            **extra}
