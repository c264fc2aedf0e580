"""A TRY payment that asks for an invoice (invoice: true): the payment's request only records the
wish; the scheduler makes the paid invoice (KDV included in the amount at the unit's kdv_rate)
and its e-Arşiv document with the internet sale's extras; the payment shows invoice_id and gib;
a refund of it issues an IADE. Bad input is a 400 naming `invoice`."""
from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from models.einvoicing import EinvoiceDocument
from models.payments import Payment
from services.einvoicing.gib import payments as gib_payments, ubl
from tests.billing_fixtures import call
from tests.conftest import gql
from tests.gib_fixtures import in_2026  # noqa: F401
from tests.gib_fixtures import buyer, gib_errors, setup, x, xml_of
from tests.payments_fixtures import APPROVED, card


async def pay(client, key, *, expect=200, **over):
    body = {"amount": 12000, "currency": "TRY", "payment_method": card(APPROVED), "invoice": True, **over}
    status, p = await call(client, "POST", "/api/payments/create", key, {k: v for k, v in body.items() if v is not None})
    assert status == expect, p
    return p


async def run_jobs(client, key, clock, minutes: int = 1):
    status, out = await call(client, "POST", "/api/test-helpers/advance-clock", key,
                             {"to": (clock.now() + timedelta(minutes=minutes)).isoformat()})
    assert status == 200, out
    return [r for r in out["ran"] if r["kind"].startswith("gib.")]


def test_items_add_up_to_the_amount_with_kdv_per_line():
    for rate in (20, 10, 1, 0):
        for amount in range(1, 400):
            items = gib_payments.items_for(amount, Decimal(rate), "x")
            total = sum(i.amount + ubl.line_kdv(i.amount, Decimal(rate)) for i in items)
            assert total == amount and len(items) <= 2, (rate, amount, items)


async def test_a_payment_asking_for_an_invoice_gets_one_from_the_scheduler(client, merchant, clock):
    await setup(client, merchant.sk)
    cid = await buyer(client, merchant.sk)
    p = await pay(client, merchant.sk, customer_id=cid, description="Sipariş 1001")
    assert p["status"] == "succeeded" and p["invoice_id"] is None and p["gib"] is None     # not on the request
    assert await EinvoiceDocument.filter(merchant_id=merchant.id).count() == 0
    ran = await run_jobs(client, merchant.sk, clock)
    assert [r["kind"] for r in ran] == ["gib.payment_invoice"], ran
    status, p = await call(client, "GET", f"/api/payments/{p['id']}", merchant.sk)
    assert p["invoice_id"] and (p["gib"]["type"], p["gib"]["status"], p["gib"]["number"]) == \
        ("earsiv", "sent", "QAF2026000000001"), p
    status, inv = await call(client, "GET", f"/api/invoices/{p['invoice_id']}", merchant.sk)
    assert (inv["status"], inv["payment_id"], inv["currency"]) == ("paid", p["id"], "TRY")
    assert (inv["subtotal"], inv["tax"], inv["total"]) == (10000, 2000, 12000)        # 20% included
    assert inv["gib"] == p["gib"]
    xml = await xml_of(client, merchant.sk, inv["id"])
    assert gib_errors(xml) == []
    assert x(xml, "cac:AccountingSupplierParty/cac:Party/cbc:WebsiteURI") == "https://shop.qafila.com.tr"
    assert x(xml, "cac:PaymentMeans/cbc:InstructionNote") == "KREDIKARTI/BANKAKARTI"
    assert x(xml, "cac:PaymentMeans/cbc:PaymentDueDate") == clock.now().date().isoformat()
    assert x(xml, "cac:AdditionalDocumentReference[cbc:DocumentTypeCode='ODEME_ARACISI']/cbc:ID") == "Qafila"
    assert x(xml, "cac:InvoiceLine/cac:Item/cbc:Name") == "Sipariş 1001"
    assert await run_jobs(client, merchant.sk, clock) == []      # nothing more to make for it
    assert await Payment.filter(id=p["id"], invoice_requested=True).count() == 1
    # a refund of the payment issues an IADE
    status, r = await call(client, "POST", f"/api/payments/{p['id']}/refund", merchant.sk, {"amount": 3000})
    assert status == 200 and r["note"]["kind"] == "return" and r["note"]["amount"] == 3000, r
    _, data = await gql(client, """query($id: ID!) { payment(id: $id) { invoiceId gib { type number status } } }""",
                        {"id": p["id"]}, merchant.sk)
    assert data["data"]["payment"] == {"invoiceId": p["invoice_id"],
                                       "gib": {"type": "earsiv", "number": "QAF2026000000001", "status": "sent"}}, data


async def test_kdv_rate_of_the_unit_and_payments_that_get_no_invoice(client, merchant, make_merchant, clock):
    await setup(client, merchant.sk, kdv_rate=10)
    cid = await buyer(client, merchant.sk)
    p = await pay(client, merchant.sk, customer_id=cid, amount=11001)
    await run_jobs(client, merchant.sk, clock)
    status, p = await call(client, "GET", f"/api/payments/{p['id']}", merchant.sk)
    status, inv = await call(client, "GET", f"/api/invoices/{p['invoice_id']}", merchant.sk)
    assert inv["total"] == 11001 and inv["tax_rate"] == 10 and inv["tax"] == 1000
    # a merchant without a GİB unit: the wish is dropped, said in the job's outcome
    other = await make_merchant()
    ocid = await buyer(client, other.sk)
    q = await pay(client, other.sk, customer_id=ocid)
    ran = await run_jobs(client, other.sk, clock, minutes=2)
    assert [r["outcome"] for r in ran] == [f"payment {q['id']}: no invoice (the merchant has no GİB unit in this mode)"]
    status, q = await call(client, "GET", f"/api/payments/{q['id']}", other.sk)
    assert status == 200 and q["invoice_id"] is None and q["gib"] is None


async def test_bad_invoice_requests_name_the_field(client, merchant):
    cid = await buyer(client, merchant.sk)
    for over, detail in (({"currency": "SAR", "customer_id": cid}, "TRY"), ({}, "customer_id"),
                         ({"invoice": "yes", "customer_id": cid}, "boolean")):
        status, out = await call(client, "POST", "/api/payments/create", merchant.sk,
                                 {"amount": 12000, "currency": "TRY", "payment_method": card(APPROVED), "invoice": True,
                                  **over})
        assert status == 400 and out["error"]["param"] == "invoice" and detail in out["error"]["detail"], out
    assert await Payment.filter(merchant_id=merchant.id).count() == 0


async def test_a_payment_link_whose_payments_ask_for_an_invoice(client, merchant, clock):
    from tests.checkout_fixtures import card_form, make_link, path_of, submit
    await setup(client, merchant.sk)
    status, out = await call(client, "POST", "/api/payment-links", merchant.sk,
                             {"amount": 15000, "currency": "SAR", "invoice": True})
    assert status == 400 and out["error"]["param"] == "invoice"
    link = await make_link(client, merchant.sk, invoice=True)
    assert link["invoice"] is True and (await make_link(client, merchant.sk))["invoice"] is False
    status, _, _ = await submit(client, path_of(link["url"]), card_form(email="ayse@example.com"))
    assert status in (200, 303), status
    p = await Payment.get(payment_link=link["id"])
    assert p.invoice_requested is True and p.invoice_id is None
    ran = await run_jobs(client, merchant.sk, clock)
    assert [r["kind"] for r in ran] == ["gib.payment_invoice"], ran
    status, got = await call(client, "GET", f"/api/payments/{p.id}", merchant.sk)
    assert got["invoice_id"] and got["gib"]["type"] == "earsiv" and got["gib"]["status"] == "sent", got
    status, inv = await call(client, "GET", f"/api/invoices/{got['invoice_id']}", merchant.sk)
    assert (inv["total"], inv["tax"], inv["status"]) == (15000, 2500, "paid")
    xml = await xml_of(client, merchant.sk, inv["id"])
    assert gib_errors(xml) == [] and x(xml, "cac:InvoiceLine/cac:Item/cbc:Name") == "Handmade rug"
    _, data = await gql(client, """query($id: ID!) { paymentLink(id: $id) { invoice } }""", {"id": link["id"]},
                        merchant.sk)
    assert data["data"]["paymentLink"] == {"invoice": True}, data
