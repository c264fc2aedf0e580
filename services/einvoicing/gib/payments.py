"""Payments that ask for an invoice (`invoice: true` on POST /api/payments/create): the scheduler's
`gib.payment_invoice` job makes each one a Qafila invoice of its own (paid by the payment, KDV
included in its amount at the unit's `kdv_rate`) and its GİB e-document with the e-Arşiv extras
of an internet sale (the web address, the payment's date, KREDIKARTI/BANKAKARTI, Qafila as the
payment agent) -- never on the payment's request, which only records the wish. The payment then
shows `invoice_id` and `gib`."""
from __future__ import annotations

import logging
from datetime import datetime
from decimal import Decimal

from models.payments import Customer, Payment
from services import scheduler
from services.billing import invoices
from services.einvoicing import core
from services.einvoicing.gib import documents, ubl
from services.infra.runtime import runtime
from services.errors import ServiceUnavailable
from services.principal import Principal

log = logging.getLogger("qafila.einvoicing.gib")
PAID = ("succeeded", "captured", "refunded", "disputed")
WAITING = ("authorized",)
PAYMENT_AGENT = "Qafila"
CLAIM_SECONDS = 300


def items_for(amount: int, rate: Decimal, name: str) -> list[invoices.Item]:
    """One line whose net + KDV (per line, half-up) is `amount`; when no net gives exactly that
    (KDV rounding jumps a kuruş), a second line of 1 kuruş, whose KDV rounds to 0, makes it up."""
    net = documents.net_for(amount, rate)
    out = [invoices.Item(name, net, 1)]
    rest = amount - net - ubl.line_kdv(net, rate)
    if rest:
        out.append(invoices.Item("Yuvarlama farkı", rest, 1))
    return out


async def _give_up(p: Payment, why: str) -> str:
    await Payment.filter(id=p.id, invoice_id=None).update(invoice_requested=False)
    return f"payment {p.id}: no invoice ({why})"


async def make_invoice(payment_id: str, when: datetime) -> str | None:
    p = await Payment.get_or_none(id=payment_id)
    if p is None or not p.invoice_requested or p.invoice_id:
        return None
    if p.status in WAITING:                 # an authorized payment's invoice waits for its capture
        return None
    if p.status not in PAID:
        return await _give_up(p, f"the payment is {p.status}")
    unit = await core.unit_of(p.merchant_id, p.livemode, documents.AUTHORITY)
    if unit is None:
        return await _give_up(p, "the merchant has no GİB unit in this mode")
    customer = await Customer.get_or_none(id=p.customer_id) if p.customer_id else None
    if customer is None:
        return await _give_up(p, "no customer")
    if not await runtime().kv.set(f"gib:payment-invoice:{p.id}", "1", ttl=CLAIM_SECONDS, nx=True):
        return None                         # another process is making it
    try:
        await documents.buyer_alias(unit, customer)      # the integrator answers before anything is made
    except ServiceUnavailable:
        await runtime().kv.delete(f"gib:payment-invoice:{p.id}")
        return None                         # due again at the next pass
    rate = Decimal(unit.settings["kdv_rate"])
    principal = Principal(merchant_id=p.merchant_id, livemode=p.livemode, kind="secret")
    inv = await invoices.create_for(principal=principal, customer=customer, currency="TRY",
                                    items=items_for(p.amount, rate, p.description or "Ödeme"), tax_rate=rate,
                                    due_date=ubl.local(when).date(), now=when)
    website = unit.settings.get("website")
    internet = ubl.InternetSale(website=website, payment_date=ubl.local(p.created_at).date(),
                                payment_agent=PAYMENT_AGENT) if website else None
    await documents.finalise(inv, require_cleared=False, internet=internet, payment_id=p.id)
    await invoices.mark_paid(principal=principal, invoice_id=inv.id, payment_id=p.id)
    fresh = await invoices.get_invoice(principal=principal, invoice_id=inv.id)
    await Payment.filter(id=p.id, invoice_id=None).update(invoice_id=inv.id, gib=fresh.gib)
    return f"payment {p.id}: invoice {inv.id} ({(fresh.gib or {}).get('number')})"


async def _due(scope: scheduler.Scope, until: datetime, limit: int) -> list[tuple[datetime, str]]:
    rows = await scope.apply(Payment.filter(invoice_requested=True, invoice_id=None, created_at__lte=until)) \
        .order_by("created_at").limit(limit).values_list("created_at", "id")
    return [(when, pid) for when, pid in rows]


def register_jobs() -> None:
    scheduler.register(scheduler.JobKind("gib.payment_invoice", _due, make_invoice))
