"""The invoice as events carry it and its URLs: shared by invoices and by e-invoicing
(services.einvoicing.zatca), which must not import the invoices module back."""
from __future__ import annotations

from models.billing import Invoice
from services.infra.runtime import runtime
from services.timestamps import iso


def urls(inv: Invoice) -> dict[str, str]:
    cfg = runtime().config
    return {"pdf_url": f"{cfg.public_url}/invoices/{inv.access_token}.pdf",
            "hosted_invoice_url": f"{cfg.pay_url}/{inv.id}"}


def invoice_object(inv: Invoice) -> dict:
    """The invoice as events carry it (data.object); REST shapes the same fields."""
    return {"id": inv.id, "object": "invoice", "number": inv.number, "status": inv.status,
            "customer_id": inv.customer_id, "subscription_id": inv.subscription_id, "currency": inv.currency,
            "items": inv.items, "subtotal": inv.subtotal, "tax_rate": inv.tax_rate, "tax": inv.tax,
            "total": inv.total, "exchange_rate": inv.exchange_rate, "due_date": inv.due_date.isoformat(), **urls(inv),
            "sent_to": inv.sent_to,
            "paid_at": iso(inv.paid_at), "payment_id": inv.payment_id, "zatca": inv.zatca, "gib": inv.gib,
            "eta": inv.eta,
            "notes": inv.notes or [],
            "livemode": inv.livemode, "created_at": iso(inv.created_at)}
