"""Invoices: totals and half-up tax in every currency, gapless numbers under concurrency, the PDF
(read back with pypdf; Arabic shaped; the ZATCA QR for a Saudi VAT number), sending by e-mail to
a real SMTP sink and by messaging to a local fake of the platform, states, and GraphQL parity."""
from __future__ import annotations

import asyncio
import io
import re
import unicodedata
from email import message_from_bytes
from email.policy import default as email_policy

import pytest
from aiohttp import web
from pypdf import PdfReader

from models.billing import Invoice
from models.events import Event
from tests.billing_fixtures import call, customer
from tests.conftest import gql
from tests.payments_fixtures import CURRENCIES

ITEMS = [{"name": "Consulting", "amount": 1005, "quantity": 1}]


async def create(client, key, cid, *, expect=200, **body):
    body = {"customer_id": cid, "currency": "TRY", "items": ITEMS, **body}
    status, inv = await call(client, "POST", "/api/invoices", key, body)
    assert status == expect, inv
    return inv


async def pdf_text(client, url: str) -> tuple[str, PdfReader]:
    path = url.split("://", 1)[1].split("/", 1)[1]
    r = await client.get("/" + path)
    assert r.status == 200 and r.headers["Content-Type"] == "application/pdf"
    reader = PdfReader(io.BytesIO(await r.read()))
    return "\n".join(p.extract_text() for p in reader.pages), reader


@pytest.mark.parametrize("currency", CURRENCIES)
@pytest.mark.parametrize("items, rate, subtotal, tax", [
    ([{"name": "a", "amount": 1005, "quantity": 1}], 5, 1005, 50),           # 50.25 -> 50
    ([{"name": "a", "amount": 505, "quantity": 2}], 5, 1010, 51),            # 50.5 -> 51 (half-up)
    ([{"name": "a", "amount": 111, "quantity": 3}], "7.5", 333, 25),         # 24.975 -> 25
    ([{"name": "a", "amount": 1, "quantity": 1}], 49.99, 1, 0),              # 0.4999 -> 0
    ([{"name": "a", "amount": 1, "quantity": 1}, {"name": "b", "amount": 0, "quantity": 9}], 50, 1, 1),   # 0.5 -> 1
    ([{"name": "a", "amount": 2500, "quantity": 4}], 0, 10000, 0),
])
async def test_totals_and_half_up_tax_in_every_currency(client, merchant, currency, items, rate, subtotal, tax):
    cid = await customer(client, merchant.sk, saved_card=None)
    inv = await create(client, merchant.sk, cid, currency=currency, items=items, tax_rate=rate)
    assert (inv["subtotal"], inv["tax"], inv["total"]) == (subtotal, tax, subtotal + tax)
    assert inv["currency"] == currency and inv["status"] == "draft"
    assert re.fullmatch(r"INV-\d{4}-000001", inv["number"])


async def test_numbers_have_no_gaps_under_50_concurrent_creates(client, merchant, make_merchant):
    cid = await customer(client, merchant.sk, saved_card=None)
    other = await make_merchant()
    ocid = await customer(client, other.sk, saved_card=None)
    answers = await asyncio.gather(*[
        call(client, "POST", "/api/invoices", merchant.sk, {"customer_id": cid, "currency": "SAR", "items": ITEMS})
        for _ in range(50)], *[
        call(client, "POST", "/api/invoices", other.sk, {"customer_id": ocid, "currency": "SAR", "items": ITEMS})
        for _ in range(5)])
    assert {status for status, _ in answers} == {200}, [a for a in answers if a[0] != 200][:2]
    mine = sorted(int(inv["number"].rsplit("-", 1)[1]) for _, inv in answers[:50])
    assert mine == list(range(1, 51))                                       # no gap, no repeat
    theirs = sorted(int(inv["number"].rsplit("-", 1)[1]) for _, inv in answers[50:])
    assert theirs == [1, 2, 3, 4, 5]                                        # each merchant counts its own


@pytest.mark.parametrize("body, param", [
    ({"items": []}, "items"),
    ({"items": [{"name": "x", "amount": 100, "quantity": 0}]}, "items[0].quantity"),
    ({"items": [{"name": "x", "amount": -1, "quantity": 1}]}, "items[0].amount"),
    ({"items": [{"amount": 100}]}, "items[0].name"),
    ({"items": [{"name": "x", "amount": 100, "price": 1}]}, "items[0].price"),
    ({"items": [{"name": "ok", "amount": 100}, {"name": "Bell\x07", "amount": 100}]}, "items[1].name"),
    ({"tax_rate": 100.01}, "tax_rate"),
    ({"tax_rate": -1}, "tax_rate"),
    ({"tax_rate": 12.345}, "tax_rate"),
    ({"tax_rate": "abc"}, "tax_rate"),
    ({"tax_rate": True}, "tax_rate"),
    ({"due_date": "2020-01-01"}, "due_date"),
    ({"due_date": "2026-13-01"}, "due_date"),
    ({"currency": "EUR"}, "currency"),
    ({"customer_id": "cus_nobody"}, "customer_id"),
    ({"items": [{"name": "x", "amount": 10**14, "quantity": 1000}]}, "items[0].amount"),
])
async def test_bad_input_is_a_400_naming_the_field(client, merchant, body, param):
    cid = await customer(client, merchant.sk, saved_card=None)
    e = await create(client, merchant.sk, cid, expect=400, **body)
    assert e["error"]["param"] == param and e["error"]["message"] == "Invalid request body", e
    assert await Invoice.filter(merchant_id=merchant.id).count() == 0


async def test_the_pdf_opens_without_a_key_and_holds_the_number_and_the_total(client, merchant):
    await call(client, "PUT", "/api/merchant", merchant.sk, {"legal_name": "Anatolia Trading A.Ş.",
                                                             "address": "Bağdat Cd. 1, İstanbul"})
    cid = await customer(client, merchant.sk, name="Zeynep Yılmaz", saved_card=None)
    inv = await create(client, merchant.sk, cid, currency="KWD", tax_rate=5,
                       items=[{"name": "Hosting", "amount": 12345, "quantity": 2}])
    assert inv["pdf_url"].startswith("http://api.qafila.test/invoices/") and inv["pdf_url"].endswith(".pdf")
    text, _ = await pdf_text(client, inv["pdf_url"])
    assert inv["number"] in text and "25.925" in text                      # 24.690 + 1.235 KWD, 3 decimals
    assert "Anatolia Trading" in text and "Zeynep" in text
    r = await client.get("/invoices/" + "x" * 32 + ".pdf")
    assert r.status == 404


async def test_an_arabic_customer_gets_a_shaped_right_to_left_pdf(client, merchant):
    cid = await customer(client, merchant.sk, phone="+966501234567", name="عبدالله", saved_card=None)
    inv = await create(client, merchant.sk, cid, currency="SAR", tax_rate=15)
    assert inv["locale"] == "ar"
    text, reader = await pdf_text(client, inv["pdf_url"])
    arabic = [c for c in unicodedata.normalize("NFKC", text) if "\u0600" <= c <= "\u06ff"]
    assert len(arabic) > 20 and inv["number"] in text
    fonts = str(reader.pages[0]["/Resources"]["/Font"].get_object())
    assert "Arabic" in str([f.get_object()["/BaseFont"] for f in reader.pages[0]["/Resources"]["/Font"].values()]) \
        or "Arabic" in fonts


async def test_a_saudi_vat_number_puts_the_zatca_qr_on_the_pdf(client, merchant):
    status, e = await call(client, "PUT", "/api/merchant", merchant.sk, {"country": "SA", "tax_number": "12345"})
    assert status == 400 and e["error"]["param"] == "tax_number"
    status, prof = await call(client, "PUT", "/api/merchant", merchant.sk,
                              {"country": "SA", "tax_number": "310122393500003", "legal_name": "Riyadh Shop"})
    assert status == 200 and prof["tax_number"] == "310122393500003"
    cid = await customer(client, merchant.sk, saved_card=None)
    inv = await create(client, merchant.sk, cid, currency="SAR", tax_rate=15)
    _, reader = await pdf_text(client, inv["pdf_url"])
    assert len(reader.pages[0].images) >= 1
    # a Turkish merchant's PDF has no QR
    status, _ = await call(client, "PUT", "/api/merchant", merchant.sk, {"country": "TR"})
    inv2 = await create(client, merchant.sk, cid, currency="TRY")
    _, reader2 = await pdf_text(client, inv2["pdf_url"])
    assert len(reader2.pages[0].images) == 0


async def test_send_by_email_delivers_the_pdf_and_the_payment_link(client, merchant, smtp_sink):
    sink = smtp_sink
    cid = await customer(client, merchant.sk, email="ayse@example.com", saved_card=None)
    inv = await create(client, merchant.sk, cid)
    status, sent = await call(client, "PUT", f"/api/invoices/{inv['id']}/send", merchant.sk, {"channel": "email"})
    assert status == 200 and sent["status"] == "sent" and sent["sent_to"] == "ayse@example.com"
    assert len(sink.messages) == 1 and sink.messages[0][0] == ["ayse@example.com"]
    msg = message_from_bytes(sink.messages[0][1], policy=email_policy)
    assert inv["number"] in msg["Subject"]
    body = msg.get_body(("plain",)).get_content()
    assert inv["hosted_invoice_url"] in body
    pdfs = [p for p in msg.iter_attachments() if p.get_content_type() == "application/pdf"]
    assert len(pdfs) == 1
    text = PdfReader(io.BytesIO(pdfs[0].get_content())).pages[0].extract_text()
    assert inv["number"] in text
    # sending again is allowed; the event carries the invoice
    status, again = await call(client, "PUT", f"/api/invoices/{inv['id']}/send", merchant.sk, {"channel": "email"})
    assert status == 200 and len(sink.messages) == 2
    ev = await Event.filter(merchant_id=merchant.id, type="invoice.sent").order_by("created_at").first()
    assert ev.data["id"] == inv["id"] and ev.data["object"] == "invoice" and ev.data["sent_to"] == "ayse@example.com"


@pytest.fixture
async def fake_platform(aiohttp_server, backend):
    seen: list[dict] = []

    async def messages(request: web.Request):
        body = await request.json()
        seen.append({"path": request.path, "body": body})
        return web.json_response({"messaging_product": "whatsapp", "messages": [{"id": f"wamid.{len(seen)}"}]})

    app = web.Application()
    app.router.add_post("/{version}/{pnid}/messages", messages)
    server = await aiohttp_server(app)
    cfg = backend.runtime.config
    cfg.messaging_graph_url = str(server.make_url("")).rstrip("/")
    cfg.messaging_phone_number_id, cfg.messaging_access_token = "1055", "EAAG-test"
    return seen


async def test_send_by_messaging_posts_a_document_with_the_pdf_link(client, merchant, fake_platform):
    cid = await customer(client, merchant.sk, email=None, phone="+90 555 111 2233", saved_card=None)
    inv = await create(client, merchant.sk, cid)
    status, sent = await call(client, "PUT", f"/api/invoices/{inv['id']}/send", merchant.sk, {"channel": "messaging"})
    assert status == 200 and sent["sent_to"] == "+90 555 111 2233" and sent["status"] == "sent"
    assert len(fake_platform) == 1
    body = fake_platform[0]["body"]
    assert fake_platform[0]["path"].endswith("/1055/messages") and body["to"] == "905551112233"
    assert body["type"] == "document" and body["document"]["link"] == inv["pdf_url"]
    assert body["document"]["filename"] == f"{inv['number']}.pdf"


async def test_states_and_contacts(client, merchant):
    cid = await customer(client, merchant.sk, email=None, phone=None, name="No Contact", saved_card=None)
    inv = await create(client, merchant.sk, cid)
    for channel, param in (("email", "channel"), ("messaging", "channel"), ("fax", "channel"), (None, "channel")):
        status, e = await call(client, "PUT", f"/api/invoices/{inv['id']}/send", merchant.sk,
                               {"channel": channel} if channel else {})
        assert status == 400 and e["error"]["param"] == param, e
    status, paid = await call(client, "PUT", f"/api/invoices/{inv['id']}/mark-paid", merchant.sk)
    assert status == 200 and paid["status"] == "paid" and paid["paid_at"]
    status, e = await call(client, "PUT", f"/api/invoices/{inv['id']}/mark-paid", merchant.sk)
    assert status == 400 and e["error"]["message"] == "Invalid request body" and "already paid" in e["error"]["detail"]
    status, e = await call(client, "PUT", f"/api/invoices/{inv['id']}/send", merchant.sk, {"channel": "email"})
    assert status == 400 and "cannot be sent" in e["error"]["detail"]
    assert await Event.filter(merchant_id=merchant.id, type="invoice.paid").count() == 1


async def test_list_filters_and_tenancy(client, merchant, make_merchant, clock):
    cid = await customer(client, merchant.sk, saved_card=None)
    ids = []
    for _ in range(3):
        ids.append((await create(client, merchant.sk, cid))["id"])
        clock.advance(seconds=1)
    await call(client, "PUT", f"/api/invoices/{ids[1]}/mark-paid", merchant.sk)
    status, page = await call(client, "GET", "/api/invoices?limit=2", merchant.sk)
    assert [i["id"] for i in page["data"]] == ids[::-1][:2] and page["has_more"] is True
    status, paid = await call(client, "GET", "/api/invoices?status=paid", merchant.sk)
    assert [i["id"] for i in paid["data"]] == [ids[1]]
    other = await make_merchant()
    for method, path in (("GET", f"/api/invoices/{ids[0]}"), ("PUT", f"/api/invoices/{ids[0]}/mark-paid")):
        status, e = await call(client, method, path, other.sk)
        assert status == 404
    status, e = await call(client, "GET", "/api/invoices?customer_id=bad id", merchant.sk)
    assert status == 400 and e["error"]["param"] == "customer_id"


INV_QUERY = """query($id: ID!) { invoice(id: $id) { id number status subtotal tax taxRate total currency dueDate
  pdfUrl hostedInvoiceUrl items { name amount quantity } customer { id } } }"""


async def test_graphql_twins_agree_with_rest(client, merchant):
    cid = await customer(client, merchant.sk, saved_card=None)
    _, body = await gql(client, """mutation($i: InvoiceCreateInput!) { invoiceCreate(input: $i) {
        invoice { id } userErrors { code field } } }""",
                        {"i": {"customerId": cid, "currency": "IQD", "taxRate": 2.5,
                               "items": [{"name": "Tea", "amount": 1250, "quantity": 3}]}}, merchant.sk)
    iid = body["data"]["invoiceCreate"]["invoice"]["id"]
    status, rest = await call(client, "GET", f"/api/invoices/{iid}", merchant.sk)
    _, body = await gql(client, INV_QUERY, {"id": iid}, merchant.sk)
    g = body["data"]["invoice"]
    assert (g["number"], g["status"], g["subtotal"], g["tax"], g["total"], g["currency"], g["dueDate"],
            g["pdfUrl"], g["hostedInvoiceUrl"]) == (rest["number"], rest["status"], rest["subtotal"], rest["tax"],
                                                   rest["total"], rest["currency"], rest["due_date"],
                                                   rest["pdf_url"], rest["hosted_invoice_url"])
    assert (rest["subtotal"], rest["tax"]) == (3750, 94)                   # 93.75 -> 94
    assert g["items"] == [{"name": "Tea", "amount": 1250, "quantity": 3}] and g["customer"]["id"] == cid
    _, bad = await gql(client, """mutation($i: InvoiceCreateInput!) { invoiceCreate(input: $i) {
        invoice { id } userErrors { code field } } }""",
                       {"i": {"customerId": cid, "currency": "IQD", "taxRate": 101, "items": []}}, merchant.sk)
    assert bad["data"]["invoiceCreate"]["userErrors"][0]["field"] in ("items", "tax_rate", "taxRate")
    _, paid = await gql(client, "mutation($i: InvoiceIdInput!) { invoiceMarkPaid(input: $i) { invoice { status } "
                                "userErrors { code } } }", {"i": {"id": iid}}, merchant.sk)
    assert paid["data"]["invoiceMarkPaid"]["invoice"]["status"] == "paid"
    _, prof = await gql(client, "mutation { merchantProfileUpdate(input: {legalName: \"X Ltd\"}) { merchant "
                                "{ legalName } userErrors { code } } }", None, merchant.sk)
    assert prof["data"]["merchantProfileUpdate"]["merchant"]["legalName"] == "X Ltd"
    status, rest_prof = await call(client, "GET", "/api/merchant", merchant.sk)
    assert rest_prof["legal_name"] == "X Ltd"
