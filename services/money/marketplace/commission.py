"""Commission invoices: a paid payout whose lines carried commission (fees less fees refunded)
gets a paid invoice (`/api/invoices`) to the seller as a customer of the platform (made once from
the sub-merchant: its legal name, e-mail and tax id). Marking it paid e-invoices it when the
platform is set up with ZATCA, GİB or ETA (services.billing.invoices.mark_paid)."""
from __future__ import annotations

import logging
from decimal import Decimal

from models.marketplace import Payout, SubMerchant
from models.payments import Customer
from services.billing import invoices
from services.errors import DomainError
from services.ids import new_id
from services.infra import clock
from services.money.marketplace import payouts
from services.money.marketplace import settings as mk_settings
from services.principal import Principal

log = logging.getLogger("qafila.marketplace")


async def _customer_of(principal: Principal, s: SubMerchant) -> Customer:
    if s.customer_id:
        c = await Customer.get_or_none(id=s.customer_id, **principal.scope)
        if c is not None:
            return c
    now = await clock.now_for(principal)
    c = await Customer.create(id=new_id("cus"), merchant_id=s.merchant_id, livemode=s.livemode, email=s.email,
                              name=s.legal_name, phone=None, metadata={"sub_merchant": s.id}, tax_id=s.tax_id,
                              address=None, created_at=now, updated_at=now)
    s.customer_id = c.id
    await SubMerchant.filter(id=s.id).update(customer_id=c.id)
    return c


async def invoice_commission(principal: Principal, p: Payout, s: SubMerchant) -> str | None:
    """The paid commission invoice of a payout (its id), or None without commission or when the
    platform turned them off. An e-invoicing refusal leaves the invoice a draft (logged): the payout
    stays paid."""
    if p.commission <= 0:
        return None
    settings = await mk_settings.get_settings(principal=principal)
    if settings is not None and not settings.commission_invoices:
        return None
    customer = await _customer_of(principal, s)
    now = await clock.now_for(principal)
    inv = await invoices.create_for(
        principal=principal, customer=customer, currency=p.currency,
        items=[invoices.Item(name=f"Marketplace commission, payout {p.id}", amount=p.commission, quantity=1)],
        tax_rate=Decimal(0), due_date=now.date(), now=now)
    try:
        await invoices.mark_paid(principal=principal, invoice_id=inv.id)
    except DomainError as exc:
        log.warning("commission invoice %s of payout %s left a draft: %s", inv.id, p.id, exc.message)
    return inv.id


async def settle(*, principal: Principal, payout_id: str, outcome: str) -> Payout:
    """The test helpers' bank answer (services.money.marketplace.payouts.settle_payout), a paid
    payout with its commission invoice."""
    return await payouts.settle_payout(principal=principal, payout_id=payout_id, outcome=outcome,
                                       on_paid=lambda p, s: invoice_commission(principal, p, s))
