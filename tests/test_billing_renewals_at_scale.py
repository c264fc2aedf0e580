"""Renewals at scale (issue 22): 300 daily renewals of a customer without a saved card, each
invoice rendered as a PDF and mailed -- every one of them, with the clock advanced in one call."""
from __future__ import annotations

import io
import time
from datetime import datetime, timezone

import pytest
from pypdf import PdfReader

from app.server import create_app
from models.billing import Invoice, InvoiceDelivery
from services.billing import deliveries
from services.infra.mail import Mailer
from tests.billing_fixtures import advance, call, customer, subscribe

RENEWALS = int(__import__("os").environ.get("QAFILA_TEST_RENEWALS", "300"))


class KeepingMailer(Mailer):
    """The app's mailer (no transport: the log), keeping every message, not only the last 200."""

    def __init__(self):
        super().__init__()
        self.every: list = []

    async def send(self, **kw) -> None:
        await super().send(**kw)
        self.every.append(self.sent[-1])


@pytest.fixture
def app(settings, clock):
    return create_app(settings, clock=clock, mailer=KeepingMailer())


async def test_300_daily_renewals_each_mail_their_pdf(client, merchant, mailer, clock):
    clock.set(datetime(2027, 1, 1, 9, 0, tzinfo=timezone.utc))
    cid = await customer(client, merchant.sk, email="daily@example.com", saved_card=None)
    s = await subscribe(client, merchant.sk, cid, interval="day", amount=1250, currency="KWD")
    before = len(mailer.every)
    started = time.perf_counter()
    out = await advance(client, merchant.sk, days=RENEWALS)
    took = time.perf_counter() - started
    assert len(out["ran"]) == RENEWALS
    assert all("queued to send by email" in r["outcome"] for r in out["ran"])
    invoices = await Invoice.filter(subscription_id=s["id"]).order_by("created_at")
    renewed = invoices[-RENEWALS:]
    assert len(invoices) == RENEWALS + 1                       # the first period (sent at create) and each day
    # the run wrote every invoice and its delivery, in one transaction each; none is mailed yet
    assert await InvoiceDelivery.filter(invoice_id__in=[i.id for i in renewed], status="pending").count() == RENEWALS
    assert len(mailer.every) == before

    started = time.perf_counter()
    while (await deliveries.run_once(owner="test-worker", merchant_id=merchant.id))["claimed"]:
        pass
    sent_in = time.perf_counter() - started
    print(f"\nadvance over {RENEWALS} daily renewals: {took:.2f} s; their {RENEWALS} PDFs mailed after: {sent_in:.2f} s")

    mails = mailer.every[before:]
    assert len(mails) == RENEWALS
    assert sorted(m.subject for m in mails) == sorted(f"Invoice {inv.number}" for inv in renewed)
    for m in mails:
        assert m.to == "daily@example.com"
        (name, mime, pdf), = m.attachments
        assert mime == "application/pdf" and name == m.subject.removeprefix("Invoice ") + ".pdf"
    last = max(mails, key=lambda m: m.subject)
    assert last.subject.removeprefix("Invoice ") in PdfReader(io.BytesIO(last.attachments[0][2])).pages[0].extract_text()
    for inv in await Invoice.filter(id__in=[i.id for i in renewed]):
        assert inv.status == "sent" and inv.sent_to == "daily@example.com" and inv.sent_via == "email", inv.number
    assert await InvoiceDelivery.filter(invoice_id__in=[i.id for i in renewed], status="sent").count() == RENEWALS
    assert await deliveries.pending_count(merchant_id=merchant.id) == 0


async def test_a_queued_invoice_paid_meanwhile_is_not_mailed_and_a_failing_mail_server_is_retried(
        client, merchant, mailer, clock, monkeypatch):
    clock.set(datetime(2027, 3, 1, 9, 0, tzinfo=timezone.utc))
    cid = await customer(client, merchant.sk, email="two@example.com", saved_card=None)
    s = await subscribe(client, merchant.sk, cid, interval="day", amount=250000, currency="IQD")
    await advance(client, merchant.sk, days=2)
    first, second = await Invoice.filter(subscription_id=s["id"]).order_by("created_at").offset(1)
    status, _ = await call(client, "PUT", f"/api/invoices/{first.id}/mark-paid", merchant.sk)
    assert status == 200
    before = len(mailer.every)

    async def refuse(**kw):
        raise ConnectionRefusedError("mail server down")
    monkeypatch.setattr(mailer, "send", refuse)
    stats = await deliveries.run_once(owner="w1", merchant_id=merchant.id)
    assert stats == {"claimed": 2, "skipped": 1, "pending": 1}
    assert (await InvoiceDelivery.get(invoice_id=first.id)).status == "skipped"      # paid: nothing to ask
    retried = await InvoiceDelivery.get(invoice_id=second.id)
    assert retried.status == "pending" and retried.attempts == 1 and "mail server" in retried.last_error
    assert (await Invoice.get(id=second.id)).status == "draft"
    # not due again before its retry time; then sent
    assert (await deliveries.run_once(owner="w1", merchant_id=merchant.id))["claimed"] == 0
    monkeypatch.undo()
    clock.advance(seconds=deliveries.RETRY_DELAYS[0])
    assert (await deliveries.run_once(owner="w1", merchant_id=merchant.id)) == {"claimed": 1, "sent": 1}
    assert [m.subject for m in mailer.every[before:]] == [f"Invoice {second.number}"]
    assert (await Invoice.get(id=second.id)).status == "sent"
