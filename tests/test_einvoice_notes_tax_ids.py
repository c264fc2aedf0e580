"""The follow-ups of e-invoicing: a note (by hand or by a refund) read back from its invoice (REST,
webhook, GraphQL), its own XML, the refund naming it; the customer's first-class tax identity
(`tax_id`) on /api/customers, the CRM and GraphQL, read by the Saudi e-invoice; the test-mode
outage helper of the e-invoicing core."""
from __future__ import annotations

import pytest
from lxml import etree

from models.einvoicing import ZatcaDocument
from models.events import Event
from services import tax_ids
from services.identity.api_keys import issue_key
from services.einvoicing.zatca import signing
from tests.billing_fixtures import call, customer
from tests.conftest import gql
from tests.crm_fixtures import acct, crm, make_account  # noqa: F401
from tests.test_zatca_api import finalise, onboard, sar_invoice, x
from tests.zatca_fixtures import schema_errors

NS = signing.NS_ALL


# ---------------------------------------------------------------- the tax identity's rules

@pytest.mark.parametrize("kind, value", [("sa_vat", "300000000000003"), ("tr_vkn", "1234567808"),
                                         ("tr_vkn", "9876543209"), ("tr_tckn", "10000000146"),
                                         ("tr_tckn", "11111111111"), ("eg_rin", "100200300")])
def test_valid_tax_ids_pass_their_rule(kind, value):
    from services.validation import Fields
    out = tax_ids.parse(Fields({"type": kind, "value": value}))
    assert out["type"] == kind and out["value"] == value and out["country"] == tax_ids.TYPES[kind]


@pytest.mark.parametrize("kind, value", [("sa_vat", "300000000000004"), ("sa_vat", "30000000000003"),
                                         ("tr_vkn", "1234567809"), ("tr_vkn", "123456780"),
                                         ("tr_tckn", "10000000147"), ("tr_tckn", "01234567890"),
                                         ("eg_rin", "10020030"), ("eg_rin", "10020030a")])
def test_check_digits_and_lengths_are_checked(kind, value):
    assert not (tax_ids._RULES[kind][0](value) and value.isdigit())


async def test_customer_tax_id_create_read_update_and_clear(client, merchant):
    status, c = await call(client, "POST", "/api/customers", merchant.sk,
                           {"name": "Anadolu Ltd", "tax_id": {"type": "tr_vkn", "value": "1234567808",
                                                              "tax_office": "Kadıköy"}})
    assert status == 200, c
    assert c["tax_id"] == {"type": "tr_vkn", "value": "1234567808", "country": "TR", "tax_office": "Kadıköy"}
    status, got = await call(client, "GET", f"/api/customers/{c['id']}", merchant.sk)
    assert got["tax_id"] == c["tax_id"]
    status, upd = await call(client, "PUT", f"/api/customers/{c['id']}", merchant.sk,
                             {"tax_id": {"type": "sa_vat", "value": "310000000000003"}})
    assert status == 200 and upd["tax_id"] == {"type": "sa_vat", "value": "310000000000003", "country": "SA"}
    status, upd = await call(client, "PUT", f"/api/customers/{c['id']}", merchant.sk, {"tax_id": None})
    assert status == 200 and upd["tax_id"] is None
    status, got = await call(client, "GET", f"/api/customers/{c['id']}", merchant.sk)
    assert got["tax_id"] is None


@pytest.mark.parametrize("tax_id, param, words", [
    ({"type": "tr_vkn", "value": "1234567809"}, "tax_id.value", "check digit"),
    ({"type": "sa_vat", "value": "12345"}, "tax_id.value", "Saudi VAT number"),
    ({"type": "eg_rin", "value": "12345678"}, "tax_id.value", "9 digits"),
    ({"type": "us_ein", "value": "12345"}, "tax_id.type", "sa_vat, tr_vkn, tr_tckn, eg_rin"),
    ({"type": "sa_vat", "value": "300000000000003", "country": "AE"}, "tax_id.country", "must be SA"),
    ({"type": "eg_rin", "value": "100200300", "tax_office": "Cairo"}, "tax_id.tax_office", "Turkish"),
    ({"type": "tr_vkn"}, "tax_id.value", "value"),
    ({"type": "tr_vkn", "value": "1234567808", "extra": 1}, "tax_id.extra", "extra"),
])
async def test_a_malformed_tax_id_is_a_400_naming_it_and_writes_nothing(client, merchant, tax_id, param, words):
    before = (await call(client, "GET", "/api/customers", merchant.sk))[1]["total"]
    status, out = await call(client, "POST", "/api/customers", merchant.sk, {"name": "X", "tax_id": tax_id})
    assert status == 400, out
    assert out["error"]["param"] == param and words in out["error"]["detail"], out
    assert (await call(client, "GET", "/api/customers", merchant.sk))[1]["total"] == before


CUSTOMER_CREATE = """mutation($input: CustomerCreateInput!) { customerCreate(input: $input) {
  customer { id taxId { type value country taxOffice } } userErrors { code field message } } }"""


async def test_graphql_tax_id_agrees_with_rest(client, merchant):
    _, data = await gql(client, CUSTOMER_CREATE, {"input": {"name": "Nile Co", "taxId": {"type": "eg_rin",
                                                                                      "value": "100200300"}}},
                     key=merchant.sk)
    out = data["data"]["customerCreate"]
    assert out["userErrors"] == [] and out["customer"]["taxId"] == {"type": "eg_rin", "value": "100200300",
                                                                    "country": "EG", "taxOffice": None}
    status, rest = await call(client, "GET", f"/api/customers/{out['customer']['id']}", merchant.sk)
    assert rest["tax_id"] == {"type": "eg_rin", "value": "100200300", "country": "EG"}
    _, bad = await gql(client, CUSTOMER_CREATE, {"input": {"name": "Nile Co", "taxId": {"type": "eg_rin",
                                                                                     "value": "1"}}},
                    key=merchant.sk)
    assert bad["data"]["customerCreate"]["customer"] is None
    assert bad["data"]["customerCreate"]["userErrors"][0]["field"] == "taxId.value"


async def test_crm_customer_tax_id(crm, acct):
    h = acct.h
    r = await crm.post("/api/customers", json={"name": "Acme", "tax_id": {"type": "tr_tckn", "value": "10000000146"}},
                       headers=h)
    body = await r.json()
    assert r.status in (200, 201), body
    assert body["tax_id"] == {"type": "tr_tckn", "value": "10000000146", "country": "TR", "tax_office": None}
    r = await crm.put(f"/api/customers/{body['id']}", json={"tax_id": {"type": "tr_tckn", "value": "10000000147"}},
                      headers=h)
    err = await r.json()
    assert r.status == 400 and err["error"]["param"] == "tax_id.value", err
    r = await crm.get(f"/api/customers/{body['id']}", headers=h)
    assert (await r.json())["tax_id"]["value"] == "10000000146"


# ---------------------------------------------------------------- the Saudi e-invoice reads it

async def test_saudi_e_invoice_reads_the_tax_id_and_still_the_old_metadata(client, merchant):
    await onboard(client, merchant.sk)
    status, new = await call(client, "POST", "/api/customers", merchant.sk,
                             {"name": "Riyadh Trading", "tax_id": {"type": "sa_vat", "value": "311111111111113"}})
    assert status == 200, new
    status, old = await call(client, "POST", "/api/customers", merchant.sk,
                             {"name": "Old Buyer", "metadata": {"vat_number": "322222222222223"}})
    status, walk_in = await call(client, "POST", "/api/customers", merchant.sk,
                                 {"name": "Walk-in", "tax_id": {"type": "tr_vkn", "value": "1234567808"}})
    for cid, vat, kind in ((new["id"], "311111111111113", "standard"), (old["id"], "322222222222223", "standard"),
                           (walk_in["id"], None, "simplified")):
        inv = await finalise(client, merchant.sk, (await sar_invoice(client, merchant.sk, cid))["id"])
        assert inv["zatca"]["type"] == kind, (cid, inv["zatca"])
        r = await client.get(f"/api/invoices/{inv['id']}/xml", headers={"Authorization": f"Bearer {merchant.sk}"})
        xml = await r.read()
        ids = etree.fromstring(xml).xpath("cac:AccountingCustomerParty//cbc:CompanyID", namespaces=NS)
        assert [i.text for i in ids] == ([vat] if vat else []), cid


# ---------------------------------------------------------------- notes read back

async def test_a_credit_note_by_hand_is_listed_on_its_invoice_and_readable(client, merchant):
    await onboard(client, merchant.sk)
    cid = await customer(client, merchant.sk, saved_card=None)
    inv = await finalise(client, merchant.sk, (await sar_invoice(client, merchant.sk, cid))["id"])
    assert inv["notes"] == []
    status, note = await call(client, "POST", f"/api/invoices/{inv['id']}/credit-notes", merchant.sk,
                              {"amount": 2300, "reason": "Returned one widget"})
    assert status == 200, note
    status, got = await call(client, "GET", f"/api/invoices/{inv['id']}", merchant.sk)
    assert len(got["notes"]) == 1
    listed = got["notes"][0]
    assert (listed["id"], listed["kind"], listed["number"], listed["amount"], listed["tax"]) == \
        (note["id"], "credit_note", note["number"], 2300, 300)
    assert listed["zatca"]["icv"] == 2 and listed["zatca"]["status"] == "pending"
    status, page = await call(client, "GET", f"/api/invoices/{inv['id']}/notes", merchant.sk)
    assert status == 200 and page["object"] == "list" and page["data"] == got["notes"]
    r = await client.get(f"/api/invoices/{inv['id']}/notes/{note['id']}/xml",
                         headers={"Authorization": f"Bearer {merchant.sk}"})
    assert r.status == 200 and r.headers["Content-Type"].startswith("application/xml")
    xml = await r.read()
    assert schema_errors(xml) == [] and signing.check(xml) == []
    assert x(xml, "cbc:InvoiceTypeCode") == "381"
    assert x(xml, "cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID") == inv["number"]
    # the invoice's own XML is still the invoice
    r = await client.get(f"/api/invoices/{inv['id']}/xml", headers={"Authorization": f"Bearer {merchant.sk}"})
    assert x(await r.read(), "cbc:InvoiceTypeCode") == "388"
    # the webhook event of the note carries the invoice with its notes
    updates = await Event.filter(merchant_id=merchant.id, type="invoice.updated", object_id=inv["id"]) \
        .values_list("data", flat=True)
    assert [[n["id"] for n in e["notes"]] for e in updates if e["notes"]] == [[note["id"]]]
    # the reporting job moves the listed status too
    from tests.billing_fixtures import advance
    await advance(client, merchant.sk, days=1)
    status, got = await call(client, "GET", f"/api/invoices/{inv['id']}", merchant.sk)
    assert got["notes"][0]["zatca"]["status"] == "reported"


async def test_a_note_of_another_invoice_or_merchant_is_404(client, merchant, make_merchant):
    await onboard(client, merchant.sk)
    cid = await customer(client, merchant.sk, saved_card=None)
    a = await finalise(client, merchant.sk, (await sar_invoice(client, merchant.sk, cid))["id"])
    b = await finalise(client, merchant.sk, (await sar_invoice(client, merchant.sk, cid))["id"])
    status, note = await call(client, "POST", f"/api/invoices/{a['id']}/credit-notes", merchant.sk,
                              {"amount": 100, "reason": "Goodwill"})
    other = await make_merchant("Other")
    for key, inv_id in ((merchant.sk, b["id"]), (other.sk, a["id"])):
        r = await client.get(f"/api/invoices/{inv_id}/notes/{note['id']}/xml",
                             headers={"Authorization": f"Bearer {key}"})
        assert r.status == 404, await r.text()
    status, out = await call(client, "GET", f"/api/invoices/{a['id']}/notes", other.sk)
    assert status == 404
    r = await client.get(f"/api/invoices/{a['id']}/notes/bad id/xml", headers={"Authorization": f"Bearer {merchant.sk}"})
    assert r.status in (400, 404)


INVOICE_NOTES = """query($id: ID!) { invoice(id: $id) { id notes { id kind number amount tax zatca { icv status } } } }"""
REFUND = """mutation($input: PaymentRefundInput!) { paymentRefund(input: $input) {
  refundId note { id kind number amount zatca { icv } } userErrors { code message field } } }"""


async def test_a_refund_names_the_credit_note_it_caused(client, merchant):
    await onboard(client, merchant.sk)
    cid = await customer(client, merchant.sk, currency="SAR")
    status, sub = await call(client, "POST", "/api/subscriptions", merchant.sk,
                             {"customer_id": cid, "plan": "Pro", "amount": 11500, "currency": "SAR", "interval": "month"})
    assert status == 200, sub
    status, inv = await call(client, "GET", f"/api/invoices/{sub['latest_invoice']}", merchant.sk)
    status, r = await call(client, "POST", f"/api/payments/{inv['payment_id']}/refund", merchant.sk,
                           {"amount": 5000, "reason": "Downgrade"})
    assert status == 200, r
    doc = await ZatcaDocument.get(invoice_id=inv["id"], kind="credit_note")
    assert r["note"]["id"] == doc.id and r["note"]["kind"] == "credit_note" and r["note"]["amount"] == 5000
    assert r["note"]["number"] == doc.number and r["note"]["zatca"]["icv"] == doc.icv
    _, data = await gql(client, REFUND, {"input": {"id": inv["payment_id"], "amount": 1000}}, key=merchant.sk)
    out = data["data"]["paymentRefund"]
    assert out["userErrors"] == [] and out["note"]["kind"] == "credit_note" and out["note"]["amount"] == 1000
    _, data = await gql(client, INVOICE_NOTES, {"id": inv["id"]}, key=merchant.sk)
    listed = data["data"]["invoice"]["notes"]
    assert [n["amount"] for n in listed] == [5000, 1000] and listed[1]["id"] == out["note"]["id"]
    status, rest = await call(client, "GET", f"/api/invoices/{inv['id']}/notes", merchant.sk)
    assert [n["id"] for n in rest["data"]] == [n["id"] for n in listed]
    # a refund of a payment that paid no e-invoice names no note
    status, p = await call(client, "POST", "/api/payments/create", merchant.sk,
                           {"amount": 1000, "currency": "SAR", "payment_method": {"type": "card", "card": {
                               "number": "4242424242424242", "exp_month": 12, "exp_year": 2035, "cvc": "123"}}})
    assert status == 200, p
    status, r = await call(client, "POST", f"/api/payments/{p['id']}/refund", merchant.sk, {})
    assert status == 200 and r["note"] is None


# ---------------------------------------------------------------- the outage helper

async def test_outage_helper_checks_its_input_and_test_mode(client, merchant):
    status, out = await call(client, "POST", "/api/test-helpers/einvoicing/outage", merchant.sk,
                             {"authority": "zatca", "minutes": 5})
    assert status == 400 and out["error"]["param"] == "authority"
    assert "must be one of" in out["error"]["detail"] and "gib, eta" in out["error"]["detail"]
    status, out = await call(client, "POST", "/api/test-helpers/einvoicing/outage", merchant.sk,
                             {"authority": "gib", "minutes": -1})
    assert status == 400 and out["error"]["param"] == "minutes"
    status, out = await call(client, "POST", "/api/test-helpers/einvoicing/outage", merchant.sk,
                             {"authority": "eta", "minutes": 30})
    assert status == 200 and out["authority"] == "eta" and out["until"], out
    _, live = await issue_key(merchant_id=merchant.id, kind="secret", livemode=True, name="live")
    status, out = await call(client, "POST", "/api/test-helpers/einvoicing/outage", live,
                             {"authority": "eta", "minutes": 30})
    assert status == 403 and out["error"]["code"] == "test_mode_only", out


async def test_a_zatca_e_invoice_cannot_be_canceled_and_says_what_to_do(client, merchant):
    await onboard(client, merchant.sk)
    cid = await customer(client, merchant.sk, saved_card=None)
    inv = await finalise(client, merchant.sk, (await sar_invoice(client, merchant.sk, cid))["id"])
    status, out = await call(client, "POST", f"/api/invoices/{inv['id']}/cancel-einvoice", merchant.sk, {})
    assert status == 400 and out["error"]["code"] == "einvoice_not_cancelable", out
    assert f"/api/invoices/{inv['id']}/credit-notes" in out["error"]["detail"]
    status, after = await call(client, "GET", f"/api/invoices/{inv['id']}", merchant.sk)
    assert after["zatca"] == inv["zatca"]
