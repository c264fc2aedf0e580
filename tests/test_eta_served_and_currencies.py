"""ETA through the real app (issue 43): documents and receipts served exactly as submitted (their
stored text spliced into the answer, so the served document hashes like the /xml body and a
served receipt recomputes its uuid), and invoices in another currency than EGP (USD joins the
currency table): `unitValue` with the amount sold, the rate and amountEGP to 5 decimals, the rate
given on the invoice or taken from the merchant's CRM rates, and no rate a 400 naming `currency`
with the invoice left a draft."""
from __future__ import annotations

import hashlib
import json
from decimal import ROUND_HALF_UP, Decimal

from models.billing import Invoice
from models.einvoicing import EinvoiceDocument, EinvoiceUnit
from services.einvoicing.eta import canonical, signing, simulator
from tests.billing_fixtures import call
from tests.conftest import gql
from tests.crm_fixtures import crm, signup  # noqa: F401
from tests.eta_fixtures import egp_invoice, mark_paid, rin_customer, setup
from tests.helpers import bearer
from tests.payments_fixtures import APPROVED, card

P5 = Decimal("0.00001")
INVOICE_FIELDS = """id currency exchangeRate status eta { status type }"""
INVOICE_CREATE = ("mutation($input: InvoiceCreateInput!) { invoiceCreate(input: $input) { invoice { "
                  + INVOICE_FIELDS + " } userErrors { code field message } } }")
INVOICE_UPDATE = ("mutation($input: InvoiceUpdateInput!) { invoiceUpdate(input: $input) { invoice { "
                  + INVOICE_FIELDS + " } userErrors { code field message } } }")
PROFILE_UPDATE = """mutation($input: MerchantProfileUpdateInput!) { merchantProfileUpdate(input: $input) {
  merchant { crmCompanyId } userErrors { code field message } } }"""


async def raw(client, path: str, key: str) -> tuple[int, str]:
    r = await client.get(path, headers=bearer(key))
    return r.status, await r.text()


def unsigned_digest(doc: dict) -> tuple[str, str]:
    """(SHA-256 of ETA's canonical serialization of the document without its signatures, the signature)."""
    sig = doc["signatures"][0]["value"]
    body = {k: v for k, v in doc.items() if k != "signatures"}
    return hashlib.sha256(canonical.serialize(body).encode("utf-8")).hexdigest(), sig


def same_as_xml(served: dict, xml_text: str) -> None:
    """The served document serializes (and hashes) like the /xml body, and its signature verifies."""
    stored = canonical.loads(xml_text)
    assert canonical.serialize(served) == canonical.serialize(stored)
    assert canonical.digest(served) == canonical.digest(stored)
    digest, sig = unsigned_digest(served)
    assert digest == unsigned_digest(stored)[0]
    problems, _cert = signing.verify(canonical.serialize({k: v for k, v in served.items() if k != "signatures"}), sig)
    assert problems == []


def recomputes_its_uuid(receipt: dict) -> None:
    blank = {**receipt, "header": {**receipt["header"], "uuid": ""}}
    assert hashlib.sha256(canonical.serialize(blank).encode("utf-8")).hexdigest() == receipt["header"]["uuid"]


# ---------------------------------------------------------------- served exactly as submitted

async def test_the_eta_document_and_its_notes_are_served_as_submitted(client, merchant):
    await setup(client, merchant.sk)
    cid = await rin_customer(client, merchant.sk)
    inv = await egp_invoice(client, merchant.sk, cid, items=[{"name": "Cable", "amount": 10050, "quantity": 3,
                                                              "item_code": "C-9"}])
    assert (await mark_paid(client, merchant.sk, inv["id"]))["eta"]["status"] == "valid"
    status, note = await call(client, "POST", f"/api/invoices/{inv['id']}/credit-notes", merchant.sk,
                              {"amount": 1140, "reason": "Damaged"})
    assert status == 200 and note["eta"]["status"] == "valid", note

    status, text = await raw(client, f"/api/invoices/{inv['id']}/eta", merchant.sk)
    assert status == 200
    # the literals as submitted: 5 decimals, an integer quantity and rate
    assert '"salesTotal":301.50000' in text and '"valueDifference":0.00000' in text
    assert '"quantity":3,' in text and '"rate":14}' in text
    answer = canonical.loads(text)
    assert answer["document"]["invoiceLines"][0]["salesTotal"] == "301.50000"
    status, xml = await raw(client, f"/api/invoices/{inv['id']}/xml", merchant.sk)
    assert status == 200
    same_as_xml(answer["document"], xml)
    # each note's document too, against its own /xml
    assert [n["kind"] for n in answer["notes"]] == ["credit_note"]
    status, note_xml = await raw(client, f"/api/invoices/{inv['id']}/notes/{answer['notes'][0]['id']}/xml",
                                 merchant.sk)
    assert status == 200
    same_as_xml(answer["notes"][0]["document"], note_xml)
    assert answer["notes"][0]["document"]["references"] == [answer["uuid"]]
    # what a JSON parser reading numbers as floats gets is the same document (an object, not a string)
    assert json.loads(text)["document"]["invoiceLines"][0]["salesTotal"] == 301.5


async def pay(client, key, amount):
    status, p = await call(client, "POST", "/api/payments/create", key,
                           {"amount": amount, "currency": "EGP", "payment_method": card(APPROVED)})
    assert status == 200, p
    return p


async def run_jobs(client, key):
    status, out = await call(client, "POST", "/api/test-helpers/advance-clock", key, {"days": 1})
    assert status == 200, out


async def test_a_served_receipt_and_its_returns_recompute_their_uuids(client, merchant):
    await setup(client, merchant.sk, receipts="all")
    p = await pay(client, merchant.sk, 11400)
    await run_jobs(client, merchant.sk)
    for amount in (1140, 2280):
        status, r = await call(client, "POST", f"/api/payments/{p['id']}/refund", merchant.sk, {"amount": amount})
        assert status == 200, r
    await run_jobs(client, merchant.sk)

    status, text = await raw(client, f"/api/payments/{p['id']}/eta-receipt", merchant.sk)
    assert status == 200
    assert '"unitPrice":100.00000' in text and '"totalAmount":114.00000' in text and '"exchangeRate":0}' in text
    answer = canonical.loads(text)
    assert answer["status"] == "valid" and [r["status"] for r in answer["returns"]] == ["valid", "valid"]
    for served in (answer, *answer["returns"]):
        assert served["receipt"]["header"]["uuid"] == served["uuid"]
        recomputes_its_uuid(served["receipt"])
        row = await EinvoiceDocument.get(id=served["document_id"])
        assert canonical.serialize(served["receipt"]) == canonical.serialize(canonical.loads(row.body))
    assert [r["receipt"]["header"]["referenceUUID"] for r in answer["returns"]] == [answer["uuid"]] * 2
    assert sorted(r["receipt"]["totalAmount"] for r in answer["returns"]) == ["11.40000", "22.80000"]


# ---------------------------------------------------------------- invoices in another currency

def q5(d: Decimal) -> Decimal:
    return d.quantize(P5, rounding=ROUND_HALF_UP)


async def test_a_usd_invoice_with_its_rate_is_an_eta_document_in_usd(client, merchant):
    await setup(client, merchant.sk)
    cid = await rin_customer(client, merchant.sk)
    items = [{"name": "Consulting", "amount": 12345, "quantity": 3, "item_code": "C-1"},
             {"name": "Stamp", "amount": 50, "quantity": 1, "item_code": "S-1"}]
    status, inv = await call(client, "POST", "/api/invoices", merchant.sk,
                             {"customer_id": cid, "currency": "USD", "items": items, "tax_rate": 14,
                              "exchange_rate": "48.00001"})
    assert status == 200, inv
    assert (inv["currency"], inv["exchange_rate"], inv["total"], inv["eta"]) == ("USD", "48.00001", 42277, None)
    paid = await mark_paid(client, merchant.sk, inv["id"])
    assert paid["eta"]["status"] == "valid" and paid["eta"]["errors"] == [] and paid["exchange_rate"] == "48.00001"

    status, text = await raw(client, f"/api/invoices/{inv['id']}/eta", merchant.sk)
    doc = canonical.loads(text)["document"]
    first, stamp = doc["invoiceLines"]
    assert first["unitValue"] == {"currencySold": "USD", "amountEGP": "5925.60123", "amountSold": "123.45000",
                                  "currencyExchangeRate": "48.00001"}
    # 0.50 x 48.00001 = 24.000005: half-up to 5 decimals (not to the even 24.00000)
    assert stamp["unitValue"] == {"currencySold": "USD", "amountEGP": "24.00001", "amountSold": "0.50000",
                                  "currencyExchangeRate": "48.00001"}
    # every line and total in EGP, from amountEGP, as ETA checks them
    for ln in (first, stamp):
        egp = Decimal(ln["unitValue"]["amountEGP"])
        assert Decimal(ln["salesTotal"]) == q5(egp * Decimal(ln["quantity"]))
        assert Decimal(ln["taxableItems"][0]["amount"]) == q5(Decimal(ln["netTotal"]) * 14 / 100)
    assert first["salesTotal"] == "17776.80369" and doc["totalSalesAmount"] == "17800.80370"
    assert Decimal(doc["totalAmount"]) == sum(Decimal(ln["total"]) for ln in (first, stamp))
    assert simulator.check_lines(doc, "invoiceLines", "100200300", unit_key="unitValue") == []
    row = await EinvoiceDocument.get(invoice_id=inv["id"], kind="invoice")
    assert (row.currency, row.amount, row.tax) == ("USD", 42277, inv["tax"])

    # a credit note on it: in USD at the original's rate
    status, note = await call(client, "POST", f"/api/invoices/{inv['id']}/credit-notes", merchant.sk,
                              {"amount": 1140, "reason": "Discount"})
    assert status == 200 and note["eta"]["status"] == "valid", note
    status, text = await raw(client, f"/api/invoices/{inv['id']}/eta", merchant.sk)
    credit = canonical.loads(text)["notes"][0]["document"]["invoiceLines"][0]["unitValue"]
    assert credit == {"currencySold": "USD", "amountEGP": "480.00010", "amountSold": "10.00000",
                      "currencyExchangeRate": "48.00001"}


def test_the_simulator_checks_the_amount_in_egp():
    line = {"description": "X", "itemType": "EGS", "itemCode": "EG-100200300-X", "unitType": "EA", "quantity": 2,
            "salesTotal": Decimal("970.00000"), "netTotal": Decimal("970.00000"), "total": Decimal("1105.80000"),
            "unitValue": {"currencySold": "USD", "amountEGP": Decimal("485.00000"), "amountSold": Decimal("10.00000"),
                          "currencyExchangeRate": Decimal("48.50000")},
            "taxableItems": [{"taxType": "T1", "amount": Decimal("135.80000"), "subType": "V009", "rate": 14}]}
    doc = {"invoiceLines": [line], "totalSalesAmount": Decimal("970.00000"), "netAmount": Decimal("970.00000"),
           "taxTotals": [{"taxType": "T1", "amount": Decimal("135.80000")}], "totalAmount": Decimal("1105.80000")}
    assert simulator.check_lines(doc, "invoiceLines", "100200300", unit_key="unitValue") == []
    wrong = {**line, "unitValue": {**line["unitValue"], "amountEGP": Decimal("486.00000")}}
    errors = simulator.check_lines({**doc, "invoiceLines": [wrong]}, "invoiceLines", "100200300", unit_key="unitValue")
    assert [e["propertyPath"] for e in errors] == ["invoiceLines[0].unitValue.amountEGP"]
    assert "485.00000" in errors[0]["error"]
    no_rate = {**line, "unitValue": {k: v for k, v in line["unitValue"].items() if k != "currencyExchangeRate"}}
    errors = simulator.check_lines({**doc, "invoiceLines": [no_rate]}, "invoiceLines", "100200300",
                                   unit_key="unitValue")
    assert [e["propertyPath"] for e in errors] == ["invoiceLines[0].unitValue.currencyExchangeRate"]


async def test_a_sar_invoice_with_no_rate_is_a_400_naming_currency_and_stays_a_draft(client, merchant):
    await setup(client, merchant.sk)
    cid = await rin_customer(client, merchant.sk)
    status, inv = await call(client, "POST", "/api/invoices", merchant.sk,
                             {"customer_id": cid, "currency": "SAR", "items": [{"name": "Dates", "amount": 2000,
                                                                               "item_code": "D-1"}], "tax_rate": 14})
    assert status == 200 and inv["exchange_rate"] is None, inv
    for path, body in (("mark-paid", None), ("send", {"channel": "email"})):
        status, out = await call(client, "PUT", f"/api/invoices/{inv['id']}/{path}", merchant.sk, body)
        assert status == 400, out
        assert (out["error"]["param"], out["error"]["code"]) == ("currency", "exchange_rate_missing"), out
        assert out["error"]["detail"] == "no EGP rate for SAR: give exchange_rate"
    stored = await Invoice.get(id=inv["id"])
    assert (stored.status, stored.eta, stored.exchange_rate, stored.sent_to) == ("draft", None, None, None)
    assert await EinvoiceDocument.filter(merchant_id=merchant.id).count() == 0
    assert (await EinvoiceUnit.get(merchant_id=merchant.id)).seq == 0
    # GraphQL says the same, as a userError on currency
    status, out = await gql(client, """mutation($input: InvoiceIdInput!) { invoiceMarkPaid(input: $input) {
      invoice { id } userErrors { code field message } } }""", {"input": {"id": inv["id"]}}, key=merchant.sk)
    assert out["data"]["invoiceMarkPaid"] == {"invoice": None, "userErrors": [
        {"code": "exchange_rate_missing", "field": "currency", "message": "no EGP rate for SAR: give exchange_rate"}]}
    # the draft takes a rate (PUT /api/invoices/:id), then leaves draft as an ETA document in SAR
    status, out = await call(client, "PUT", f"/api/invoices/{inv['id']}", merchant.sk, {"exchange_rate": "12.93"})
    assert status == 200 and out["exchange_rate"] == "12.93", out
    paid = await mark_paid(client, merchant.sk, inv["id"])
    assert paid["eta"]["status"] == "valid"
    status, out = await call(client, "PUT", f"/api/invoices/{inv['id']}", merchant.sk, {"exchange_rate": "13"})
    assert status == 400 and out["error"]["code"] == "invalid_state", out
    assert (await Invoice.get(id=inv["id"])).exchange_rate == "12.93"


async def test_the_merchants_crm_rate_prices_an_invoice_without_its_own(client, crm, merchant):  # noqa: F811
    await setup(client, merchant.sk)
    cid = await rin_customer(client, merchant.sk)
    body = {"customer_id": cid, "currency": "SAR", "items": [{"name": "Dates", "amount": 2000, "item_code": "D-1"}],
            "tax_rate": 14}
    admin = await signup(crm)
    # the CRM company's rates: the newest dated on or before today, used inverted if only EGP -> SAR is set
    for rate, day in (("0.0775", "2026-01-01"), ("0.08", "2026-01-02")):
        r = await crm.put("/api/reports/rates", json={"base": "EGP", "quote": "SAR", "rate": rate, "rate_date": day},
                          headers=admin.h)
        assert r.status == 200, await r.text()
    # not linked yet: no rate
    status, inv = await call(client, "POST", "/api/invoices", merchant.sk, body)
    assert (await mark_paid(client, merchant.sk, inv["id"], expect=400))["error"]["param"] == "currency"

    # linking takes an admin's access token of the company; a bad one is a 400 naming it, nothing changed
    status, out = await call(client, "PUT", "/api/merchant", merchant.sk, {"crm_access_token": "not-a-token"})
    assert status == 400 and out["error"]["param"] == "crm_access_token" and "not-a-token" not in json.dumps(out)
    r = await crm.post("/api/users", json={"email": f"m-{admin.email}", "password": "Correct-Horse-9-Battery",
                                           "role": "member"}, headers=admin.h)
    assert r.status == 201, await r.text()
    r = await crm.post("/api/auth/login", json={"email": f"m-{admin.email}", "password": "Correct-Horse-9-Battery"})
    member = (await r.json())["access_token"]
    status, out = await call(client, "PUT", "/api/merchant", merchant.sk, {"crm_access_token": member})
    assert status == 400 and out["error"]["param"] == "crm_access_token" and member not in json.dumps(out)
    assert (await call(client, "GET", "/api/merchant", merchant.sk))[1]["crm_company_id"] is None
    status, out = await call(client, "PUT", "/api/merchant", merchant.sk, {"crm_access_token": admin.access})
    assert status == 200 and out["crm_company_id"] == admin.company_id, out
    assert admin.access not in json.dumps(out)

    paid = await mark_paid(client, merchant.sk, inv["id"])
    assert paid["eta"]["status"] == "valid" and paid["exchange_rate"] == "12.5", paid      # 1 / 0.08
    status, text = await raw(client, f"/api/invoices/{inv['id']}/eta", merchant.sk)
    sold = canonical.loads(text)["document"]["invoiceLines"][0]["unitValue"]
    assert sold == {"currencySold": "SAR", "amountEGP": "250.00000", "amountSold": "20.00000",
                    "currencyExchangeRate": "12.50000"}
    # the invoice's own rate wins over the CRM's
    status, own = await call(client, "POST", "/api/invoices", merchant.sk, {**body, "exchange_rate": "12.7"})
    assert (await mark_paid(client, merchant.sk, own["id"]))["exchange_rate"] == "12.7"

    # GraphQL shows the link; null unlinks it, and the next invoice has no rate again
    status, out = await gql(client, "{ merchantProfile { crmCompanyId } }", key=merchant.sk)
    assert out["data"]["merchantProfile"] == {"crmCompanyId": admin.company_id}, out
    status, out = await gql(client, PROFILE_UPDATE, {"input": {"crmAccessToken": None}}, key=merchant.sk)
    assert out["data"]["merchantProfileUpdate"] == {"merchant": {"crmCompanyId": None}, "userErrors": []}, out
    status, later = await call(client, "POST", "/api/invoices", merchant.sk, body)
    assert (await mark_paid(client, merchant.sk, later["id"], expect=400))["error"]["param"] == "currency"


async def test_exchange_rate_input_is_checked_and_graphql_agrees(client, merchant):
    await setup(client, merchant.sk)
    cid = await rin_customer(client, merchant.sk)
    base = {"customer_id": cid, "currency": "USD", "items": [{"name": "X", "amount": 1000, "item_code": "X"}]}
    gql_base = {"currency": "USD", "items": [{"name": "X", "amount": 1000, "itemCode": "X"}]}
    for bad in ("0", "0.00", "-1", "48.123456", "abc", "1e2", "1000000.5", True, {"v": 1}, 0):
        status, out = await call(client, "POST", "/api/invoices", merchant.sk, {**base, "exchange_rate": bad})
        assert status == 400 and out["error"]["param"] == "exchange_rate", (bad, out)
    status, out = await call(client, "POST", "/api/invoices", merchant.sk,
                             {**base, "currency": "EGP", "exchange_rate": "1"})
    assert status == 400 and out["error"]["param"] == "exchange_rate", out
    assert await Invoice.filter(merchant_id=merchant.id).count() == 0
    status, inv = await call(client, "POST", "/api/invoices", merchant.sk, {**base, "exchange_rate": 48.5})
    assert status == 200 and inv["exchange_rate"] == "48.5", inv
    for bad, param in (({"exchange_rate": "x"}, "exchange_rate"), ({}, "exchange_rate"),
                       ({"exchange_rate": "1", "colour": "red"}, "colour")):
        status, out = await call(client, "PUT", f"/api/invoices/{inv['id']}", merchant.sk, bad)
        assert status == 400 and out["error"]["param"] == param, (bad, out)
    status, out = await call(client, "PUT", f"/api/invoices/{inv['id']}", merchant.sk, {"exchange_rate": None})
    assert status == 200 and out["exchange_rate"] is None
    status, out = await call(client, "GET", f"/api/invoices/{inv['id']}", merchant.sk)
    assert out["exchange_rate"] is None

    status, out = await gql(client, INVOICE_CREATE, {"input": {**gql_base, "customerId": cid, "exchangeRate": "48.25"}},
                            key=merchant.sk)
    assert out.get("data"), out
    created = out["data"]["invoiceCreate"]
    assert created["userErrors"] == [] and created["invoice"]["exchangeRate"] == "48.25", out
    gid = created["invoice"]["id"]
    status, out = await gql(client, INVOICE_CREATE, {"input": {**gql_base, "customerId": cid, "exchangeRate": "0"}},
                            key=merchant.sk)
    assert [e["field"] for e in out["data"]["invoiceCreate"]["userErrors"]] == ["exchangeRate"], out
    status, out = await gql(client, INVOICE_UPDATE, {"input": {"id": gid, "exchangeRate": "49"}}, key=merchant.sk)
    assert out["data"]["invoiceUpdate"]["invoice"]["exchangeRate"] == "49", out
    status, out = await gql(client, INVOICE_UPDATE, {"input": {"id": gid, "exchangeRate": None}}, key=merchant.sk)
    assert out["data"]["invoiceUpdate"]["invoice"]["exchangeRate"] is None, out
    status, out = await gql(client, INVOICE_UPDATE, {"input": {"id": gid, "exchangeRate": "49"}}, key=merchant.sk)
    status, out = await gql(client, """mutation($input: InvoiceIdInput!) { invoiceMarkPaid(input: $input) {
      invoice { exchangeRate eta { status type } } userErrors { code } } }""", {"input": {"id": gid}}, key=merchant.sk)
    assert out["data"]["invoiceMarkPaid"]["invoice"] == {"exchangeRate": "49", "eta": {"status": "valid", "type": "I"}}


async def test_usd_is_in_the_currency_table(client, merchant):
    from services.money import currencies as money
    assert money.exponent("USD") == 2 and (money.LIMITS["USD"].minimum, money.LIMITS["USD"].maximum) == (100, 1_500_000)
    status, out = await call(client, "POST", "/api/invoices", merchant.sk,
                             {"customer_id": await rin_customer(client, merchant.sk), "currency": "usd",
                              "items": [{"name": "Too much", "amount": 1_500_001}]})
    assert status == 400 and out["error"]["param"] == "items[0].amount", out
