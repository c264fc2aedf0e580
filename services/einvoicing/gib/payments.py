"""Payments that ask for an invoice (`invoice: true` on POST /api/payments/create): the scheduler's
`gib.payment_invoice` job makes each one a Qafila invoice of its own (paid by the payment, KDV
included in its amount at the unit's `kdv_rate`) and its GİB e-document with the e-Arşiv extras
of an internet sale (the web address, the payment's date, KREDIKARTI/BANKAKARTI, Qafila as the
payment agent) -- never on the payment's request, which only records the wish. The payment then
shows `invoice_id` and `gib`.

A `/v1` payment intent created with `invoice: true` (TRY) is the same, by the `gib.intent_invoice`
job, once the intent succeeded: its buyer is the Qafila customer its `customer_id` names (that
customer's tax_id decides e-Fatura or e-Arşiv), else the merchant's final consumer ("Nihai
Tüketici", no tax id: an e-Arşiv to TCKN 11111111111), one Qafila customer per merchant and mode
(docs/decisions.md)."""
from __future__ import annotations

import hashlib
import logging
from datetime import datetime
from decimal import Decimal

from tortoise.exceptions import IntegrityError

from models.intents import PaymentIntent
from models.payments import Customer, Payment
from services import due_reads, scheduler
from services.billing import invoices
from services.einvoicing import core
from services.einvoicing.gib import documents, ubl
from services.infra.runtime import runtime
from services.payments import methods
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


# The rows still waiting for their invoice: the partial indexes' predicate (payments 0012,
# intents 0017), written as literals. PostgreSQL uses a partial index only when the statement's
# WHERE implies the index's, and a generic plan (app/pg_engine.py) has no parameter values to
# prove `invoice_requested = $1` with: written by the ORM, the intents' read scanned the whole table
# on every scheduler pass (280,000 intents in the test database: minutes for one global pass).
_WAITING = '"invoice_requested" AND "invoice_id" IS NULL'


async def _waiting(model, scope: scheduler.Scope, until: datetime, limit: int,
                   also: str = "") -> list[tuple[datetime, str]]:
    """(created_at, id) of `model`'s rows of `scope` still waiting for their invoice, created at
    or before `until`, oldest first."""
    return await due_reads.due(model, predicate=_WAITING, column="created_at", until=until, limit=limit,
                               livemode=scope.livemode, merchant_id=scope.merchant_id,
                               exclude_merchants=scope.exclude_merchants, also=[also] if also else [])


async def _due(scope: scheduler.Scope, until: datetime, limit: int) -> list[tuple[datetime, str]]:
    return await _waiting(Payment, scope, until, limit)


# ---------------------------------------------------------------- /v1 payment intents

INTENT_PAID = ("succeeded", "refunded")
INTENT_GONE = ("canceled",)             # anything else may still succeed (a failed intent can be confirmed again)
FINAL_CONSUMER = "Nihai Tüketici"


def _means_of(method: str) -> str:
    if method == "cod":
        return "KAPIDAODEME"
    if method == "crypto" or method in methods.BNPL_TYPES:
        return "ODEMEARACISI"
    return "KREDIKARTI/BANKAKARTI"


async def _final_consumer(merchant_id: str, livemode: bool, when: datetime) -> Customer:
    """The merchant's one "Nihai Tüketici" customer of this mode (no tax id: e-Arşiv, TCKN
    11111111111), made the first time an intent without a Qafila customer asks for an invoice."""
    digest = hashlib.sha256(f"gib-final-consumer:{merchant_id}:{int(livemode)}".encode()).hexdigest()[:32]
    cid = f"cus_{digest}"
    found = await Customer.get_or_none(id=cid, merchant_id=merchant_id, livemode=livemode)
    if found is not None:
        return found
    try:
        return await Customer.create(id=cid, merchant_id=merchant_id, livemode=livemode, name=FINAL_CONSUMER,
                                     metadata={"qafila": "gib_final_consumer"}, tax_id=None,
                                     created_at=when, updated_at=when)
    except IntegrityError:              # made meanwhile by another run
        return await Customer.get(id=cid)


async def _intent_buyer(i: PaymentIntent, when: datetime) -> Customer:
    if i.customer_id:
        found = await Customer.get_or_none(id=i.customer_id, merchant_id=i.merchant_id, livemode=i.livemode)
        if found is not None:
            return found
    return await _final_consumer(i.merchant_id, i.livemode, when)


async def _give_up_intent(i: PaymentIntent, why: str) -> str:
    await PaymentIntent.filter(id=i.id, invoice_id=None).update(invoice_requested=False)
    return f"payment intent {i.id}: no invoice ({why})"


async def make_intent_invoice(intent_id: str, when: datetime) -> str | None:
    i = await PaymentIntent.get_or_none(id=intent_id)
    if i is None or not i.invoice_requested or i.invoice_id:
        return None
    if i.status in INTENT_GONE:
        return await _give_up_intent(i, f"the payment intent is {i.status}")
    if i.status not in INTENT_PAID:     # not paid yet: waits (not due: _due_intents leaves it out)
        return None
    unit = await core.unit_of(i.merchant_id, i.livemode, documents.AUTHORITY)
    if unit is None:
        return await _give_up_intent(i, "the merchant has no GİB unit in this mode")
    key = f"gib:intent-invoice:{i.id}"
    if not await runtime().kv.set(key, "1", ttl=CLAIM_SECONDS, nx=True):
        return None                         # another process is making it
    customer = await _intent_buyer(i, when)
    try:
        await documents.buyer_alias(unit, customer)      # the integrator answers before anything is made
    except ServiceUnavailable:
        await runtime().kv.delete(key)
        return None                         # due again at the next pass
    rate = Decimal(unit.settings["kdv_rate"])
    principal = Principal(merchant_id=i.merchant_id, livemode=i.livemode, kind="secret")
    amount = i.amount_received or i.amount
    inv = await invoices.create_for(principal=principal, customer=customer, currency="TRY",
                                    items=items_for(amount, rate, i.description or "Ödeme"), tax_rate=rate,
                                    due_date=ubl.local(when).date(), now=when)
    website = unit.settings.get("website")
    internet = ubl.InternetSale(website=website, payment_date=ubl.local(i.succeeded_at or i.created_at).date(),
                                payment_means=_means_of(i.payment_method),
                                payment_agent=PAYMENT_AGENT) if website else None
    await documents.finalise(inv, require_cleared=False, internet=internet, payment_id=i.id)
    await invoices.mark_paid(principal=principal, invoice_id=inv.id, payment_id=i.id)
    fresh = await invoices.get_invoice(principal=principal, invoice_id=inv.id)
    await PaymentIntent.filter(id=i.id, invoice_id=None).update(invoice_id=inv.id, gib=fresh.gib)
    return f"payment intent {i.id}: invoice {inv.id} ({(fresh.gib or {}).get('number')})"


async def _due_intents(scope: scheduler.Scope, until: datetime, limit: int) -> list[tuple[datetime, str]]:
    settled = ", ".join(repr(x) for x in INTENT_PAID + INTENT_GONE)
    return await _waiting(PaymentIntent, scope, until, limit, also=f"status IN ({settled})")


def register_jobs() -> None:
    scheduler.register(scheduler.JobKind("gib.payment_invoice", _due, make_invoice))
    scheduler.register(scheduler.JobKind("gib.intent_invoice", _due_intents, make_intent_invoice))
