"""GİB returns (IADE) through the real app: by hand (partial, at most what is left), on a refund
of a payment that paid the invoice, listed in the invoice's notes with their own XML that GİB's
rules accept, an e-Fatura's return a TEMELFATURA; GraphQL twin."""
from __future__ import annotations

from models.einvoicing import EinvoiceDocument
from services.einvoicing.gib import signing
from tests.billing_fixtures import call, customer
from tests.conftest import gql
from tests.gib_fixtures import in_2026  # noqa: F401
from tests.gib_fixtures import REGISTERED, buyer, gib_errors, mark_paid, setup, try_invoice, vkn, x, xml_of


async def test_partial_returns_by_hand_are_listed_in_the_notes(client, merchant):
    await setup(client, merchant.sk)
    cid = await buyer(client, merchant.sk)
    inv = await mark_paid(client, merchant.sk, (await try_invoice(client, merchant.sk, cid))["id"])
    assert inv["total"] == 7200
    for body, param in (({"amount": 3600}, "reason"), ({"amount": 7201, "reason": "x"}, "amount"),
                        ({"amount": 0, "reason": "x"}, "amount"), ({"reason": "x", "colour": 1}, "colour")):
        status, out = await call(client, "POST", f"/api/invoices/{inv['id']}/returns", merchant.sk, body)
        assert status == 400 and out["error"]["param"] == param, (body, out)
    status, note = await call(client, "POST", f"/api/invoices/{inv['id']}/returns", merchant.sk,
                              {"amount": 3600, "reason": "Hasarlı ürün"})
    assert status == 200, note
    assert (note["kind"], note["number"], note["amount"], note["tax"], note["reason"]) == \
        ("return", "QAF2026000000002", 3600, 600, "Hasarlı ürün")
    assert (note["gib"]["type"], note["gib"]["profile"], note["gib"]["status"]) == ("earsiv", "EARSIVFATURA", "sent")
    xml = await xml_of(client, merchant.sk, inv["id"], note["id"])
    assert gib_errors(xml) == [] and signing.verify(xml)
    assert x(xml, "cbc:InvoiceTypeCode") == "IADE" and x(xml, "cbc:ID") == "QAF2026000000002"
    assert x(xml, "cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID") == inv["gib"]["number"]
    assert x(xml, "cac:BillingReference/cac:InvoiceDocumentReference/cbc:DocumentTypeCode") == "IADE"
    assert x(xml, "cac:LegalMonetaryTotal/cbc:PayableAmount") == "36.00" and x(xml, "cac:TaxTotal/cbc:TaxAmount") == "6.00"
    # more than what is left: refused, nothing written
    status, out = await call(client, "POST", f"/api/invoices/{inv['id']}/returns", merchant.sk,
                             {"amount": 3601, "reason": "x"})
    assert status == 400 and out["error"]["param"] == "amount" and "3600" in out["error"]["detail"]
    status, rest = await call(client, "POST", f"/api/invoices/{inv['id']}/returns", merchant.sk, {"reason": "Kalan"})
    assert status == 400 and rest["error"]["param"] == "amount"         # the default is the whole invoice: too much
    status, rest = await call(client, "POST", f"/api/invoices/{inv['id']}/returns", merchant.sk,
                              {"amount": 3600, "reason": "Kalan"})
    assert status == 200 and rest["number"] == "QAF2026000000003"
    status, notes = await call(client, "GET", f"/api/invoices/{inv['id']}/notes", merchant.sk)
    assert [n["id"] for n in notes["data"]] == [note["id"], rest["id"]]
    status, got = await call(client, "GET", f"/api/invoices/{inv['id']}", merchant.sk)
    assert [n["gib"]["number"] for n in got["notes"]] == ["QAF2026000000002", "QAF2026000000003"]
    assert await EinvoiceDocument.filter(invoice_id=inv["id"], kind="return").count() == 2


async def test_an_efaturas_return_is_temelfatura(client, merchant):
    await setup(client, merchant.sk)
    cid = await buyer(client, merchant.sk, tax_id=vkn(REGISTERED))
    inv = await mark_paid(client, merchant.sk, (await try_invoice(client, merchant.sk, cid))["id"])
    assert inv["gib"]["profile"] == "TICARIFATURA"
    status, note = await call(client, "POST", f"/api/invoices/{inv['id']}/returns", merchant.sk,
                              {"amount": 1200, "reason": "Fiyat farkı"})
    assert status == 200, note
    assert (note["gib"]["type"], note["gib"]["profile"], note["tax"]) == ("efatura", "TEMELFATURA", 200)
    xml = await xml_of(client, merchant.sk, inv["id"], note["id"])
    assert gib_errors(xml) == [] and x(xml, "cbc:ProfileID") == "TEMELFATURA"


async def test_no_return_before_gib_took_the_original(client, merchant):
    await setup(client, merchant.sk)
    cid = await buyer(client, merchant.sk)
    await call(client, "POST", "/api/test-helpers/einvoicing/outage", merchant.sk, {"authority": "gib", "minutes": 60})
    inv = await mark_paid(client, merchant.sk, (await try_invoice(client, merchant.sk, cid))["id"])
    status, out = await call(client, "POST", f"/api/invoices/{inv['id']}/returns", merchant.sk,
                             {"amount": 100, "reason": "x"})
    assert status == 400 and out["error"]["code"] == "invalid_state" and "pending" in out["error"]["detail"]
    draft = await try_invoice(client, merchant.sk, cid)
    status, out = await call(client, "POST", f"/api/invoices/{draft['id']}/returns", merchant.sk,
                             {"amount": 100, "reason": "x"})
    assert status == 400 and "not a Turkish e-invoice" in out["error"]["detail"]


async def test_a_refund_of_an_invoiced_payment_issues_an_iade(client, merchant):
    await setup(client, merchant.sk)
    cid = await customer(client, merchant.sk)                  # a saved TRY card
    status, sub = await call(client, "POST", "/api/subscriptions", merchant.sk,
                             {"customer_id": cid, "plan": "Pro", "amount": 9900, "currency": "TRY", "interval": "month"})
    assert status == 200, sub
    status, inv = await call(client, "GET", f"/api/invoices/{sub['latest_invoice']}", merchant.sk)
    assert inv["status"] == "paid" and inv["gib"]["status"] == "sent" and inv["payment_id"], inv
    status, r = await call(client, "POST", f"/api/payments/{inv['payment_id']}/refund", merchant.sk,
                           {"amount": 5000, "reason": "Downgrade"})
    assert status == 200, r
    assert r["note"]["kind"] == "return" and r["note"]["amount"] == 5000 and r["note"]["gib"]["status"] == "sent", r
    docs = await EinvoiceDocument.filter(invoice_id=inv["id"], kind="return")
    assert [(d.amount, d.reason, d.payment_id) for d in docs] == [(5000, "Downgrade", inv["payment_id"])]
    xml = docs[0].body.encode()
    assert gib_errors(xml) == [] and x(xml, "cbc:InvoiceTypeCode") == "IADE"
    status, r = await call(client, "POST", f"/api/payments/{inv['payment_id']}/refund", merchant.sk, {})
    assert status == 200 and r["note"]["amount"] == 4900
    amounts = sorted(await EinvoiceDocument.filter(invoice_id=inv["id"], kind="return").values_list("amount", flat=True))
    assert amounts == [4900, 5000]


async def test_graphql_return(client, merchant):
    await setup(client, merchant.sk)
    cid = await buyer(client, merchant.sk)
    inv = await mark_paid(client, merchant.sk, (await try_invoice(client, merchant.sk, cid))["id"])
    q = """mutation($input: GibReturnInput!) { invoiceGibReturn(input: $input) {
        note { kind number amount tax gib { profile status } } userErrors { field message } } }"""
    _, out = await gql(client, q, {"input": {"invoiceId": inv["id"], "reason": "x", "amount": 9000}}, merchant.sk)
    assert out["data"]["invoiceGibReturn"]["userErrors"][0]["field"] == "amount", out
    _, out = await gql(client, q, {"input": {"invoiceId": inv["id"], "reason": "Bozuk", "amount": 1200}}, merchant.sk)
    assert out["data"]["invoiceGibReturn"]["note"] == {"kind": "return", "number": "QAF2026000000002", "amount": 1200,
                                                       "tax": 200, "gib": {"profile": "EARSIVFATURA",
                                                                           "status": "sent"}}, out
