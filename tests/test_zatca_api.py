"""ZATCA e-invoicing through the real app: onboarding (simulator in-process and over HTTP),
e-invoices as invoices leave draft, reporting by the scheduler (ZATCA down, then up), clearance
of standard invoices and a refusal shown with its messages, the chain (invoice, invoice, credit
note; 50 at once), the XML, REST and GraphQL."""
from __future__ import annotations

import asyncio
import base64

from lxml import etree

from models.einvoicing import ZatcaDocument, ZatcaUnit
from models.events import Event
from services.einvoicing.zatca import signing, simulator
from services.infra.runtime import runtime
from tests.billing_fixtures import advance, call, customer
from tests.conftest import gql
from tests.zatca_fixtures import FIRST_PIH, schema_errors

NS = signing.NS_ALL
ONBOARD = {"otp": "123345", "vat_number": "300000000000003", "organization_name": "Acme Trading LLC",
           "organization_unit": "Riyadh Branch", "common_name": "EGS-POS-1",
           "address": {"street": "King Fahd Road", "building_number": "1234", "district": "Olaya", "city": "Riyadh",
                       "postal_code": "12345"}}
ITEMS = [{"name": "Widget", "amount": 1999, "quantity": 3}, {"name": "Gadget", "amount": 3, "quantity": 1}]


async def onboard(client, key, **over):
    status, unit = await call(client, "POST", "/api/einvoicing/zatca/onboard", key, {**ONBOARD, **over})
    assert status == 200, unit
    return unit


async def sar_invoice(client, key, cid, *, expect=200, **over):
    body = {"customer_id": cid, "currency": "SAR", "items": ITEMS, "tax_rate": 15, **over}
    status, inv = await call(client, "POST", "/api/invoices", key, body)
    assert status == expect, inv
    return inv


async def finalise(client, key, inv_id, expect=200):
    status, inv = await call(client, "PUT", f"/api/invoices/{inv_id}/mark-paid", key)
    assert status == expect, inv
    return inv


async def xml_of(client, key, inv_id) -> bytes:
    r = await client.get(f"/api/invoices/{inv_id}/xml", headers={"Authorization": f"Bearer {key}"})
    assert r.status == 200, await r.text()
    assert r.headers["Content-Type"].startswith("application/xml")
    return await r.read()


def x(xml: bytes, path: str) -> str:
    return etree.fromstring(xml).xpath(path, namespaces=NS)[0].text


# ---------------------------------------------------------------- onboarding

async def test_onboarding_bad_input_names_the_field(client, merchant):
    for body, param in (({**ONBOARD, "otp": "12ab56"}, "otp"), ({**ONBOARD, "vat_number": "123456789012345"}, "vat_number"),
                        ({k: v for k, v in ONBOARD.items() if k != "common_name"}, "common_name"),
                        ({**ONBOARD, "invoice_types": "9999"}, "invoice_types"),
                        ({**ONBOARD, "address": {**ONBOARD["address"], "postal_code": "12"}}, "address.postal_code"),
                        ({**ONBOARD, "colour": "red"}, "colour")):
        status, out = await call(client, "POST", "/api/einvoicing/zatca/onboard", merchant.sk, body)
        assert status == 400 and out["error"]["param"] == param, (param, out)
    status, unit = await call(client, "GET", "/api/einvoicing/zatca", merchant.sk)
    assert status == 200 and unit["status"] == "not_onboarded" and unit["id"] is None


async def test_zatca_refusal_of_the_otp_is_shown_with_its_message(client, merchant):
    status, out = await call(client, "POST", "/api/einvoicing/zatca/onboard", merchant.sk, {**ONBOARD, "otp": "654321"})
    assert status == 400
    assert out["error"]["code"] == "zatca_refused" and out["error"]["param"] == "otp"
    assert "Invalid-OTP" in out["error"]["detail"] and "654321" not in str(out)     # ZATCA's message, not the OTP
    assert await ZatcaUnit.filter(merchant_id=merchant.id).count() == 0


async def test_onboarding_stores_an_encrypted_key_and_shows_the_certificate(client, merchant):
    unit = await onboard(client, merchant.sk)
    assert unit["status"] == "onboarded" and unit["object"] == "zatca_unit" and unit["icv"] == 0
    assert unit["vat_number"] == "300000000000003" and unit["livemode"] is False
    assert len(unit["certificate_serial"]) > 8 and unit["certificate_expires_at"] > "2030"
    status, again = await call(client, "GET", "/api/einvoicing/zatca", merchant.sk)
    assert status == 200 and again == unit
    row = await ZatcaUnit.get(merchant_id=merchant.id)
    for stored in (row.private_key_enc, row.secret_enc):
        assert stored.startswith("v1.") and "PRIVATE" not in stored
    answer = str(unit) + str(again)
    assert "PRIVATE" not in answer and row.private_key_enc not in answer and row.secret_enc not in answer
    events = await Event.filter(merchant_id=merchant.id).values_list("data", flat=True)
    assert not any(row.private_key_enc in str(e) or "PRIVATE" in str(e) for e in events)
    cert = simulator.certificate_of(row.token)
    assert format(cert.serial_number, "x") == unit["certificate_serial"]


# ---------------------------------------------------------------- simplified: reported by the job

async def test_simplified_invoice_is_signed_and_reported_by_the_scheduler(client, merchant):
    await onboard(client, merchant.sk)
    cid = await customer(client, merchant.sk, saved_card=None, name="Walk-in")
    inv = await sar_invoice(client, merchant.sk, cid)
    assert inv["zatca"] is None and (inv["subtotal"], inv["tax"], inv["total"]) == (6000, 900, 6900)
    paid = await finalise(client, merchant.sk, inv["id"])
    z = paid["zatca"]
    assert (z["type"], z["icv"], z["status"], z["messages"]) == ("simplified", 1, "pending", [])
    xml = await xml_of(client, merchant.sk, inv["id"])
    assert schema_errors(xml) == [] and signing.check(xml) == []
    assert z["hash"] == signing.invoice_hash(xml) and x(xml, "cbc:UUID") == z["uuid"]
    assert x(xml, "cac:AdditionalDocumentReference[cbc:ID='PIH']/cac:Attachment/cbc:EmbeddedDocumentBinaryObject") == FIRST_PIH
    assert x(xml, "cac:LegalMonetaryTotal/cbc:TaxInclusiveAmount") == "69.00" and x(xml, "cac:TaxTotal/cbc:TaxAmount") == "9.00"
    assert x(xml, "cac:LegalMonetaryTotal/cbc:LineExtensionAmount") == "60.00"

    out = await call(client, "POST", "/api/test-helpers/advance-clock", merchant.sk, {"days": 1})
    assert out[0] == 200 and any(r["kind"] == "zatca.submit" for r in out[1]["ran"]), out
    status, after = await call(client, "GET", f"/api/invoices/{inv['id']}", merchant.sk)
    assert after["zatca"]["status"] == "reported" and after["zatca"]["messages"][0]["code"] == "XSD_ZATCA_VALID"
    updates = await Event.filter(merchant_id=merchant.id, type="invoice.updated").order_by("created_at")
    assert [e.data["zatca"]["status"] for e in updates] == ["pending", "reported"]


async def test_zatca_down_then_up_reports_later_and_loses_nothing(client, merchant):
    await onboard(client, merchant.sk)
    cid = await customer(client, merchant.sk, saved_card=None)
    ids = [(await sar_invoice(client, merchant.sk, cid))["id"] for _ in range(3)]
    cfg = runtime().config
    saved = cfg.zatca_url
    try:
        cfg.zatca_url = "http://127.0.0.1:9/e-invoicing"          # nothing listens: ZATCA is down
        for i in ids:
            await finalise(client, merchant.sk, i)
        await advance(client, merchant.sk, days=1)
        docs = await ZatcaDocument.filter(merchant_id=merchant.id).order_by("icv")
        assert [d.status for d in docs] == ["pending"] * 3 and all(d.attempts >= 2 for d in docs)
        assert all(d.messages[0]["code"] == "zatca_unavailable" for d in docs)
        # ZATCA is back -- over real HTTP, the simulator served by this very app.
        cfg.zatca_url = str(client.make_url("/sandbox/zatca"))
        await advance(client, merchant.sk, days=1)
    finally:
        cfg.zatca_url = saved
    docs = await ZatcaDocument.filter(merchant_id=merchant.id).order_by("icv")
    assert [(d.icv, d.status) for d in docs] == [(1, "reported"), (2, "reported"), (3, "reported")]
    for i in ids:
        status, inv = await call(client, "GET", f"/api/invoices/{i}", merchant.sk)
        assert inv["zatca"]["status"] == "reported"


# ---------------------------------------------------------------- standard: cleared before sending

async def test_standard_invoice_is_cleared_before_it_is_sent(client, merchant, smtp_sink):
    await onboard(client, merchant.sk)
    cid = await customer(client, merchant.sk, saved_card=None, metadata={"vat_number": "311111111111113"})
    inv = await sar_invoice(client, merchant.sk, cid)
    status, sent = await call(client, "PUT", f"/api/invoices/{inv['id']}/send", merchant.sk, {"channel": "email"})
    assert status == 200, sent
    assert sent["zatca"]["type"] == "standard" and sent["zatca"]["status"] == "cleared"
    xml = await xml_of(client, merchant.sk, inv["id"])
    doc = await ZatcaDocument.get(invoice_id=inv["id"])
    assert xml.decode() == doc.xml and signing.check(xml) == [] and schema_errors(xml) == []
    assert len(smtp_sink.messages) == 1
    assert etree.fromstring(xml).xpath("cbc:InvoiceTypeCode", namespaces=NS)[0].attrib["name"] == "0100000"
    assert x(xml, "cac:AccountingCustomerParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID") == "311111111111113"


async def test_a_rejected_standard_invoice_is_shown_with_zatca_messages_and_not_sent(client, merchant, smtp_sink):
    await onboard(client, merchant.sk)
    cid = await customer(client, merchant.sk, saved_card=None,
                         metadata={"vat_number": simulator.REJECTED_BUYER_VAT})
    inv = await sar_invoice(client, merchant.sk, cid)
    status, out = await call(client, "PUT", f"/api/invoices/{inv['id']}/send", merchant.sk, {"channel": "email"})
    assert status == 400 and out["error"]["code"] == "zatca_rejected" and "BR-KSA-40" in out["error"]["detail"]
    status, after = await call(client, "GET", f"/api/invoices/{inv['id']}", merchant.sk)
    assert after["status"] == "draft" and after["sent_to"] is None
    assert after["zatca"]["status"] == "rejected"
    assert [m["code"] for m in after["zatca"]["messages"]] == ["BR-KSA-40"]
    assert smtp_sink.messages == []


# ---------------------------------------------------------------- the chain

async def test_chain_invoice_invoice_credit_note_links_up(client, merchant):
    await onboard(client, merchant.sk)
    cid = await customer(client, merchant.sk, saved_card=None)
    a = await finalise(client, merchant.sk, (await sar_invoice(client, merchant.sk, cid))["id"])
    b = await finalise(client, merchant.sk, (await sar_invoice(client, merchant.sk, cid))["id"])
    status, note = await call(client, "POST", f"/api/invoices/{a['id']}/credit-notes", merchant.sk,
                              {"amount": 2300, "reason": "Returned one widget"})
    assert status == 200, note
    assert (note["kind"], note["icv"], note["amount"], note["tax"]) == ("credit_note", 3, 2300, 300)
    docs = await ZatcaDocument.filter(merchant_id=merchant.id).order_by("icv")
    assert [d.icv for d in docs] == [1, 2, 3]
    assert docs[0].pih == FIRST_PIH and docs[1].pih == docs[0].hash and docs[2].pih == docs[1].hash
    assert a["zatca"]["hash"] == docs[0].hash and b["zatca"]["hash"] == docs[1].hash
    xml = docs[2].xml.encode()
    assert schema_errors(xml) == [] and signing.check(xml) == []
    assert etree.fromstring(xml).xpath("cbc:InvoiceTypeCode", namespaces=NS)[0].text == "381"
    assert x(xml, "cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID") == a["number"]
    assert x(xml, "cac:LegalMonetaryTotal/cbc:TaxInclusiveAmount") == "23.00"
    # Not more than the invoice: 6900 - 2300 = 4600 left.
    status, out = await call(client, "POST", f"/api/invoices/{a['id']}/credit-notes", merchant.sk,
                             {"amount": 4601, "reason": "too much"})
    assert status == 400 and out["error"]["param"] == "amount"
    status, debit = await call(client, "POST", f"/api/invoices/{b['id']}/debit-notes", merchant.sk,
                               {"amount": 115, "reason": "Delivery fee"})
    assert status == 200 and (debit["kind"], debit["icv"], debit["tax"]) == ("debit_note", 4, 15)
    await advance(client, merchant.sk, days=1)
    docs = await ZatcaDocument.filter(merchant_id=merchant.id).order_by("icv")
    assert [d.status for d in docs] == ["reported"] * 4


async def test_fifty_concurrent_invoices_chain_without_gaps(client, merchant, clock):
    await onboard(client, merchant.sk)
    cid = await customer(client, merchant.sk, saved_card=None)
    ids = [(await sar_invoice(client, merchant.sk, cid, items=[{"name": "x", "amount": 100 + n, "quantity": 1}]))["id"]
           for n in range(50)]
    clock.advance(seconds=61)           # a fresh rate-limit window (100 requests a minute) for the 50 at once
    results = await asyncio.gather(*(call(client, "PUT", f"/api/invoices/{i}/mark-paid", merchant.sk) for i in ids))
    assert all(s == 200 for s, _ in results), [b for s, b in results if s != 200][:3]
    docs = await ZatcaDocument.filter(merchant_id=merchant.id).order_by("icv")
    assert [d.icv for d in docs] == list(range(1, 51))
    assert docs[0].pih == FIRST_PIH
    assert all(docs[n].pih == docs[n - 1].hash for n in range(1, 50))
    assert sorted(d.invoice_id for d in docs) == sorted(ids)
    unit = await ZatcaUnit.get(merchant_id=merchant.id)
    assert unit.icv == 50 and unit.last_hash == docs[-1].hash


# ---------------------------------------------------------------- what is not an e-invoice

async def test_only_sar_invoices_of_onboarded_merchants_and_vat_at_15(client, merchant, make_merchant):
    cid = await customer(client, merchant.sk, saved_card=None)
    before = await finalise(client, merchant.sk, (await sar_invoice(client, merchant.sk, cid))["id"])
    assert before["zatca"] is None                                 # not onboarded yet
    r = await client.get(f"/api/invoices/{before['id']}/xml", headers={"Authorization": f"Bearer {merchant.sk}"})
    assert r.status == 404
    await onboard(client, merchant.sk)
    aed = await finalise(client, merchant.sk, (await sar_invoice(client, merchant.sk, cid, currency="AED"))["id"])
    assert aed["zatca"] is None
    five = await sar_invoice(client, merchant.sk, cid, tax_rate=5)
    status, out = await call(client, "PUT", f"/api/invoices/{five['id']}/mark-paid", merchant.sk)
    assert status == 400 and out["error"]["param"] == "tax_rate" and out["error"]["code"] == "zatca_vat_rate"
    assert out["error"]["detail"].startswith("tax_rate must be one of 15, 0 on a Saudi e-invoice"), out
    status, after = await call(client, "GET", f"/api/invoices/{five['id']}", merchant.sk)
    assert after["status"] == "draft"
    # Another merchant's invoice: 404, not its XML.
    other = await make_merchant()
    mine = await finalise(client, merchant.sk, (await sar_invoice(client, merchant.sk, cid))["id"])
    r = await client.get(f"/api/invoices/{mine['id']}/xml", headers={"Authorization": f"Bearer {other.sk}"})
    assert r.status == 404


# ---------------------------------------------------------------- GraphQL

ZATCA_QUERY = """query($id: ID!) { invoice(id: $id) { id zatca { type uuid icv hash status messages { code message } } }
  zatcaUnit { status vatNumber certificateSerial icv } }"""
ONBOARD_MUTATION = """mutation($input: ZatcaOnboardInput!) { zatcaOnboard(input: $input) {
  unit { status vatNumber certificateSerial certificateExpiresAt } userErrors { code field message } } }"""


GQL_ONBOARD = {"otp": "123345", "vatNumber": "300000000000003", "organizationName": "Acme Trading LLC",
               "organizationUnit": "Riyadh Branch", "commonName": "EGS-POS-1"}


async def test_graphql_agrees_with_rest(client, merchant):
    _, data = await gql(client, ONBOARD_MUTATION, {"input": {**GQL_ONBOARD, "otp": "000000"}}, key=merchant.sk)
    assert data.get("data"), data
    errs = data["data"]["zatcaOnboard"]["userErrors"]
    assert errs[0]["code"] == "zatca_refused" and errs[0]["field"] == "otp"
    _, data = await gql(client, ONBOARD_MUTATION, {"input": GQL_ONBOARD}, key=merchant.sk)
    unit = data["data"]["zatcaOnboard"]["unit"]
    assert unit["status"] == "onboarded" and unit["vatNumber"] == "300000000000003"
    cid = await customer(client, merchant.sk, saved_card=None)
    inv = await finalise(client, merchant.sk, (await sar_invoice(client, merchant.sk, cid))["id"])
    _, data = await gql(client, ZATCA_QUERY, {"id": inv["id"]}, key=merchant.sk)
    z = data["data"]["invoice"]["zatca"]
    assert z == {"type": "simplified", "uuid": inv["zatca"]["uuid"], "icv": 1, "hash": inv["zatca"]["hash"],
                 "status": "pending", "messages": []}
    assert data["data"]["zatcaUnit"] == {"status": "onboarded", "vatNumber": "300000000000003",
                                         "certificateSerial": unit["certificateSerial"], "icv": 1}


# ---------------------------------------------------------------- refunds of invoiced payments

async def test_refund_of_an_invoiced_payment_issues_a_credit_note(client, merchant):
    await onboard(client, merchant.sk)
    cid = await customer(client, merchant.sk, currency="SAR")          # a saved SAR card
    status, sub = await call(client, "POST", "/api/subscriptions", merchant.sk,
                             {"customer_id": cid, "plan": "Pro", "amount": 11500, "currency": "SAR", "interval": "month"})
    assert status == 200, sub
    status, inv = await call(client, "GET", f"/api/invoices/{sub['latest_invoice']}", merchant.sk)
    assert inv["status"] == "paid" and inv["zatca"]["icv"] == 1 and inv["payment_id"]
    status, r = await call(client, "POST", f"/api/payments/{inv['payment_id']}/refund", merchant.sk,
                           {"amount": 5000, "reason": "Downgrade"})
    assert status == 200, r
    notes = await ZatcaDocument.filter(invoice_id=inv["id"], kind="credit_note")
    assert len(notes) == 1 and (notes[0].amount, notes[0].icv, notes[0].reason) == (5000, 2, "Downgrade")
    xml = notes[0].xml.encode()
    assert x(xml, "cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID") == inv["number"]
    assert schema_errors(xml) == [] and signing.check(xml) == []
    # The rest of the payment: the note covers what is left, never more than the invoice.
    status, r = await call(client, "POST", f"/api/payments/{inv['payment_id']}/refund", merchant.sk, {})
    assert status == 200, r
    amounts = sorted(await ZatcaDocument.filter(invoice_id=inv["id"], kind="credit_note").values_list("amount", flat=True))
    assert amounts == [5000, 6500]


NOTE_MUTATION = """mutation($input: ZatcaNoteInput!) { invoiceCreditNote(input: $input) {
  note { kind number amount tax reason zatca { icv status type } } userErrors { code field message } } }"""


async def test_graphql_credit_note_agrees_with_rest(client, merchant):
    await onboard(client, merchant.sk)
    cid = await customer(client, merchant.sk, saved_card=None)
    inv = await finalise(client, merchant.sk, (await sar_invoice(client, merchant.sk, cid))["id"])
    _, data = await gql(client, NOTE_MUTATION, {"input": {"invoiceId": inv["id"], "reason": "x", "amount": 7000}},
                        key=merchant.sk)
    assert data["data"]["invoiceCreditNote"]["userErrors"][0]["field"] == "amount"
    _, data = await gql(client, NOTE_MUTATION, {"input": {"invoiceId": inv["id"], "reason": "Damaged", "amount": 1150}},
                        key=merchant.sk)
    note = data["data"]["invoiceCreditNote"]["note"]
    assert note == {"kind": "credit_note", "number": f"{inv['number']}-C1", "amount": 1150, "tax": 150,
                    "reason": "Damaged", "zatca": {"icv": 2, "status": "pending", "type": "simplified"}}


async def test_concurrent_finalisations_of_one_invoice_make_one_document(client, merchant):
    await onboard(client, merchant.sk)
    cid = await customer(client, merchant.sk, saved_card=None)
    inv = await sar_invoice(client, merchant.sk, cid)
    answers = await asyncio.gather(*(call(client, "PUT", f"/api/invoices/{inv['id']}/mark-paid", merchant.sk)
                                     for _ in range(5)))
    assert sorted(s for s, _ in answers) == [200, 400, 400, 400, 400]          # invalid_state: already paid
    docs = await ZatcaDocument.filter(invoice_id=inv["id"])
    assert len(docs) == 1 and docs[0].icv == 1


async def test_sandbox_over_http_answers_zatca_json(client):
    r = await client.post("/sandbox/zatca/compliance", json={"csr": "x"}, headers={"OTP": "000000"})
    assert r.status == 400 and (await r.json())["code"] == "Invalid-OTP"
    r = await client.post("/sandbox/zatca/compliance", json={"csr": "not a csr"}, headers={"OTP": "123345"})
    assert r.status == 400 and (await r.json())["code"] == "Invalid-CSR"
    r = await client.post("/sandbox/zatca/invoices/reporting/single", json={})
    assert r.status == 401
    r = await client.post("/sandbox/zatca/nope", json={})
    assert r.status == 404
    r = await client.post("/sandbox/zatca/compliance", data=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status == 400


async def test_a_changed_secret_key_is_a_clear_409_and_the_job_retries(client, merchant):
    await onboard(client, merchant.sk)
    cid = await customer(client, merchant.sk, saved_card=None)
    first = await finalise(client, merchant.sk, (await sar_invoice(client, merchant.sk, cid))["id"])
    second = await sar_invoice(client, merchant.sk, cid)
    cfg = runtime().config
    saved = cfg.secret_key
    try:
        cfg.secret_key = "another-secret-key-0123456789abcdef0123456789"
        status, out = await call(client, "PUT", f"/api/invoices/{second['id']}/mark-paid", merchant.sk)
        assert status == 409 and out["error"]["code"] == "zatca_unit_unreadable"
        assert "another-secret" not in str(out) and saved not in str(out)
        out = await advance(client, merchant.sk, days=1)
        doc = await ZatcaDocument.get(invoice_id=first["id"])
        assert doc.status == "pending" and doc.messages[0]["code"] == "zatca_unit_unreadable"
    finally:
        cfg.secret_key = saved
    await advance(client, merchant.sk, days=1)
    assert (await ZatcaDocument.get(invoice_id=first["id"])).status == "reported"
