"""GİB documents through the real app: an e-Arşiv Fatura or an e-Fatura as a TRY invoice leaves
draft, in UBL-TR 1.2 that GİB's own XSDs and schematron accept (efatura-kontrol), signed by the
sandbox integrator (XAdES-BES, verified with the certificate it embeds); KDV per line half-up on
the invoice and the document; one gapless numbering (50 at once); a refusal for buyer VKN
1111111114 with the rule's message; the integrator down, then up (nothing lost, no number
skipped); the e-Arşiv report at midnight; the buyer's response; cancel; invoice.updated."""
from __future__ import annotations

import asyncio

from models.einvoicing import EinvoiceDocument, EinvoiceUnit
from models.events import Event
from services.einvoicing.gib import signing
from tests.billing_fixtures import advance, call
from tests.conftest import gql
from tests.gib_fixtures import in_2026  # noqa: F401
from tests.gib_fixtures import (REGISTERED, UNREGISTERED, buyer, gib_errors, mark_paid, setup, try_invoice, vkn,
                                x, xml_of)


async def events_of(merchant_id: str) -> list[dict]:
    rows = await Event.filter(merchant_id=merchant_id, type="invoice.updated").order_by("created_at")
    return [e.data for e in rows]


async def test_earsiv_for_a_buyer_without_a_number(client, merchant):
    await setup(client, merchant.sk)
    cid = await buyer(client, merchant.sk)
    inv = await try_invoice(client, merchant.sk, cid)
    assert inv["gib"] is None and (inv["subtotal"], inv["tax"], inv["total"]) == (6000, 1200, 7200)
    paid = await mark_paid(client, merchant.sk, inv["id"])
    g = paid["gib"]
    assert (g["type"], g["profile"], g["number"], g["status"], g["messages"]) == \
        ("earsiv", "EARSIVFATURA", "QAF2026000000001", "sent", [])
    xml = await xml_of(client, merchant.sk, inv["id"])
    assert gib_errors(xml) == []
    cert = signing.verify(xml)                           # XAdES-BES, with the certificate it embeds
    assert "Qafila Sandbox" in cert.subject.rfc4514_string()
    assert x(xml, "cbc:CustomizationID") == "TR1.2" and x(xml, "cbc:ProfileID") == "EARSIVFATURA"
    assert x(xml, "cbc:InvoiceTypeCode") == "SATIS" and x(xml, "cbc:UUID") == g["uuid"]
    assert x(xml, "cbc:ID") == "QAF2026000000001"
    assert x(xml, "cac:AccountingCustomerParty/cac:Party/cac:PartyIdentification/cbc:ID") == "11111111111"
    assert x(xml, "cac:AccountingCustomerParty/cac:Party/cac:Person/cbc:FamilyName") == "Yılmaz"
    assert x(xml, "cac:AccountingSupplierParty/cac:Party/cac:PartyIdentification/cbc:ID[@schemeID='VKN']") == \
        "1234567808"
    assert x(xml, "cac:LegalMonetaryTotal/cbc:LineExtensionAmount") == "60.00"
    assert x(xml, "cac:LegalMonetaryTotal/cbc:TaxExclusiveAmount") == "60.00"
    assert x(xml, "cac:LegalMonetaryTotal/cbc:TaxInclusiveAmount") == "72.00"
    assert x(xml, "cac:LegalMonetaryTotal/cbc:PayableAmount") == "72.00"
    assert x(xml, "cac:TaxTotal/cbc:TaxAmount") == "12.00"
    assert x(xml, "cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory/cac:TaxScheme/cbc:TaxTypeCode") == "0015"
    assert [float(t) for t in [x(xml, f"cac:InvoiceLine[{n}]/cac:TaxTotal/cbc:TaxAmount") for n in (1, 2)]] == \
        [11.99, 0.01]                                    # 59.97 x 20% = 11.994 -> 11.99; 0.03 x 20% = 0.006 -> 0.01
    assert x(xml, "cbc:Note") == "Yalnız yetmişiki TL"
    assert x(xml, "cac:AdditionalDocumentReference[cbc:DocumentType='XSLT']/cac:Attachment/"
                  "cbc:EmbeddedDocumentBinaryObject/@mimeCode") == "application/xml"
    # Turkey's time: the test clock's 09:00 UTC is 12:00 in Istanbul
    assert x(xml, "cbc:IssueTime") == "12:00:00"
    doc = await EinvoiceDocument.get(invoice_id=inv["id"])
    assert doc.body.encode() == xml and doc.authority == "gib" and doc.seq == 1
    assert [e["gib"]["status"] for e in await events_of(merchant.id)] == ["pending", "sent"]


async def test_kdv_is_rounded_per_line_on_the_invoice_and_the_document(client, merchant, make_merchant):
    items = [{"name": n, "amount": 2, "quantity": 1} for n in ("a", "b", "c")]      # 0.02 TL x 20% = 0.004 each
    other = await make_merchant()
    cid_other = await buyer(client, other.sk)
    plain = await try_invoice(client, other.sk, cid_other, items=items)
    assert (plain["subtotal"], plain["tax"]) == (6, 1)       # not set up: the subtotal's KDV, half-up
    await setup(client, merchant.sk)
    cid = await buyer(client, merchant.sk)
    inv = await try_invoice(client, merchant.sk, cid, items=items)
    assert (inv["subtotal"], inv["tax"], inv["total"]) == (6, 0, 6)       # set up: each line's, added up
    await mark_paid(client, merchant.sk, inv["id"])
    xml = await xml_of(client, merchant.sk, inv["id"])
    assert x(xml, "cac:TaxTotal/cbc:TaxAmount") == "0.00" and x(xml, "cac:LegalMonetaryTotal/cbc:PayableAmount") == "0.06"
    assert gib_errors(xml) == []
    for rate, code in ((10, None), (1, None), (0, "351")):
        inv = await try_invoice(client, merchant.sk, cid, tax_rate=rate)
        await mark_paid(client, merchant.sk, inv["id"])
        xml = await xml_of(client, merchant.sk, inv["id"])
        assert gib_errors(xml) == [], rate
        assert x(xml, "cac:TaxTotal/cbc:TaxAmount") == f"{inv['tax'] // 100}.{inv['tax'] % 100:02d}"
        if code:
            assert x(xml, "cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory/cbc:TaxExemptionReasonCode") == code
    status, out = await call(client, "POST", "/api/invoices", merchant.sk,
                             {"customer_id": cid, "currency": "TRY", "items": items, "tax_rate": 18})
    assert status == 400 and out["error"]["param"] == "tax_rate" and out["error"]["code"] == "gib_kdv_rate"
    # an invoice made at 18% before its merchant was set up cannot become an e-invoice: 400, still a draft
    before = await try_invoice(client, other.sk, cid_other, tax_rate=18)
    await setup(client, other.sk)
    status, out = await call(client, "PUT", f"/api/invoices/{before['id']}/mark-paid", other.sk)
    assert status == 400 and out["error"]["param"] == "tax_rate" and out["error"]["code"] == "gib_kdv_rate"
    status, after = await call(client, "GET", f"/api/invoices/{before['id']}", other.sk)
    assert after["status"] == "draft" and after["gib"] is None


async def test_efatura_for_a_registered_buyer_and_the_buyers_answer(client, merchant, clock):
    await setup(client, merchant.sk)
    cid = await buyer(client, merchant.sk, tax_id=vkn(REGISTERED), name="Deneme Sanayi Ltd. Şti.")
    inv = await try_invoice(client, merchant.sk, cid)
    paid = await mark_paid(client, merchant.sk, inv["id"])
    g = paid["gib"]
    assert (g["type"], g["profile"], g["status"]) == ("efatura", "TICARIFATURA", "sent")
    xml = await xml_of(client, merchant.sk, inv["id"])
    assert gib_errors(xml) == [] and signing.verify(xml)
    assert x(xml, "cac:AccountingCustomerParty/cac:Party/cac:PartyIdentification/cbc:ID[@schemeID='VKN']") == REGISTERED
    assert x(xml, "cac:AccountingCustomerParty/cac:Party/cac:PartyTaxScheme/cac:TaxScheme/cbc:Name") == "Beşiktaş"
    doc = await EinvoiceDocument.get(invoice_id=inv["id"])
    assert doc.external["alias"] == f"urn:mail:defaultpk@{REGISTERED}.sandbox.qafila.dev"
    # an e-Fatura cannot be canceled
    status, out = await call(client, "POST", f"/api/invoices/{inv['id']}/cancel-einvoice", merchant.sk, {})
    assert status == 400 and out["error"]["code"] == "gib_not_cancelable" and "IADE" in out["error"]["detail"]
    # the buyer accepts it (test helper), a minute later: the events of one request share their instant
    clock.advance(seconds=60)
    status, out = await call(client, "POST", "/api/test-helpers/gib/respond", merchant.sk,
                             {"invoice_id": inv["id"], "response": "maybe"})
    assert status == 400 and out["error"]["param"] == "response"
    status, out = await call(client, "POST", "/api/test-helpers/gib/respond", merchant.sk,
                             {"invoice_id": inv["id"], "response": "accept"})
    assert status == 200 and out["gib"]["status"] == "accepted", out
    status, out = await call(client, "POST", "/api/test-helpers/gib/respond", merchant.sk,
                             {"invoice_id": inv["id"], "response": "reject"})
    assert status == 400 and "accepted" in out["error"]["detail"]
    statuses = [e["gib"]["status"] for e in await events_of(merchant.id)]
    # pending and sent come from the one mark-paid request (the same created_at: their order is the
    # database's); accepted comes after both
    assert sorted(statuses[:2]) == ["pending", "sent"] and statuses[2:] == ["accepted"], statuses


async def test_the_buyers_window_is_eight_days_and_temelfatura_has_none(client, merchant):
    await setup(client, merchant.sk)
    cid = await buyer(client, merchant.sk, tax_id=vkn(REGISTERED))
    inv = await mark_paid(client, merchant.sk, (await try_invoice(client, merchant.sk, cid))["id"])
    await advance(client, merchant.sk, days=9)
    status, out = await call(client, "POST", "/api/test-helpers/gib/respond", merchant.sk,
                             {"invoice_id": inv["id"], "response": "reject"})
    assert status == 400 and out["error"]["code"] == "gib_response_window_closed"
    await setup(client, merchant.sk, efatura_profile="TEMELFATURA")
    inv = await mark_paid(client, merchant.sk, (await try_invoice(client, merchant.sk, cid))["id"])
    assert (inv["gib"]["profile"], inv["gib"]["status"]) == ("TEMELFATURA", "sent")
    status, out = await call(client, "POST", "/api/test-helpers/gib/respond", merchant.sk,
                             {"invoice_id": inv["id"], "response": "accept"})
    assert status == 400 and "TICARIFATURA" in out["error"]["detail"]


async def test_a_refused_buyer_is_rejected_with_the_rule_and_the_invoice_is_not_sent(client, merchant, smtp_sink):
    await setup(client, merchant.sk)
    cid = await buyer(client, merchant.sk, tax_id=vkn(UNREGISTERED))
    inv = await try_invoice(client, merchant.sk, cid)
    status, out = await call(client, "PUT", f"/api/invoices/{inv['id']}/send", merchant.sk, {"channel": "email"})
    assert status == 400 and out["error"]["code"] == "gib_rejected", out
    assert "sandbox-refused-buyer" in out["error"]["detail"] and UNREGISTERED in out["error"]["detail"]
    status, after = await call(client, "GET", f"/api/invoices/{inv['id']}", merchant.sk)
    assert after["status"] == "draft" and after["sent_to"] is None and len(smtp_sink.messages) == 0
    g = after["gib"]
    assert (g["type"], g["status"], g["number"]) == ("earsiv", "rejected", "QAF2026000000001")
    assert g["messages"][0]["code"] == "sandbox-refused-buyer"
    # the number stays the rejected document's; the next document takes the next one
    ok = await buyer(client, merchant.sk)
    other = await mark_paid(client, merchant.sk, (await try_invoice(client, merchant.sk, ok))["id"])
    assert other["gib"]["number"] == "QAF2026000000002"


async def test_integrator_down_then_up_loses_nothing_and_reports_at_midnight(client, merchant):
    await setup(client, merchant.sk)
    cid = await buyer(client, merchant.sk)
    ids = [(await try_invoice(client, merchant.sk, cid))["id"] for _ in range(3)]
    status, out = await call(client, "POST", "/api/test-helpers/einvoicing/outage", merchant.sk,
                             {"authority": "gib", "minutes": 120})
    assert status == 200, out
    for i in ids:
        paid = await mark_paid(client, merchant.sk, i)
        assert paid["status"] == "paid" and paid["gib"]["status"] == "pending"
    docs = await EinvoiceDocument.filter(merchant_id=merchant.id).order_by("seq")
    assert [(d.number, d.status) for d in docs] == [(f"QAF2026{n:09d}", "pending") for n in (1, 2, 3)]
    assert all(d.messages[0]["code"] == "gib_unavailable" for d in docs)
    # the test clock: 09:00 UTC (12:00 in Turkey); the outage ends at 11:00 UTC, midnight in Turkey is 21:00 UTC
    out = await advance(client, merchant.sk, days=1)
    docs = await EinvoiceDocument.filter(merchant_id=merchant.id).order_by("seq")
    assert [(d.number, d.status) for d in docs] == [(f"QAF2026{n:09d}", "reported") for n in (1, 2, 3)]
    assert all(d.attempts >= 3 for d in docs)
    for i in ids:
        status, inv = await call(client, "GET", f"/api/invoices/{i}", merchant.sk)
        assert inv["gib"]["status"] == "reported"
        assert gib_errors(await xml_of(client, merchant.sk, i)) == []
    statuses = [(e["gib"]["status"], [m["code"] for m in e["gib"]["messages"]])
                for e in await events_of(merchant.id) if e["id"] == ids[0]]
    assert statuses == [("pending", []), ("pending", ["gib_unavailable"]), ("sent", []), ("reported", [])]
    unit = await EinvoiceUnit.get(merchant_id=merchant.id)
    assert (unit.seq, unit.seq_year) == (3, 2026)


async def test_cancel_earsiv_within_seven_days(client, merchant, make_merchant):
    await setup(client, merchant.sk)
    cid = await buyer(client, merchant.sk)
    first = await mark_paid(client, merchant.sk, (await try_invoice(client, merchant.sk, cid))["id"])
    second = await mark_paid(client, merchant.sk, (await try_invoice(client, merchant.sk, cid))["id"])
    status, out = await call(client, "POST", f"/api/invoices/{first['id']}/cancel-einvoice", merchant.sk, {})
    assert status == 200 and out["gib"]["status"] == "canceled", out
    status, out = await call(client, "POST", f"/api/invoices/{first['id']}/cancel-einvoice", merchant.sk, {})
    assert status == 400 and "already canceled" in out["error"]["detail"]
    await advance(client, merchant.sk, days=8)
    status, out = await call(client, "POST", f"/api/invoices/{second['id']}/cancel-einvoice", merchant.sk, {})
    assert status == 400 and out["error"]["code"] == "gib_cancel_window_closed"
    status, after = await call(client, "GET", f"/api/invoices/{second['id']}", merchant.sk)
    assert after["gib"]["status"] == "reported"
    other = await make_merchant()              # another merchant never sees this invoice
    status, out = await call(client, "POST", f"/api/invoices/{second['id']}/cancel-einvoice", other.sk, {})
    assert status == 404
    r = await client.get(f"/api/invoices/{second['id']}/xml", headers={"Authorization": f"Bearer {other.sk}"})
    assert r.status == 404


async def test_not_an_einvoice(client, merchant):
    cid = await buyer(client, merchant.sk)
    before = await mark_paid(client, merchant.sk, (await try_invoice(client, merchant.sk, cid))["id"])
    assert before["gib"] is None                     # not set up yet
    r = await client.get(f"/api/invoices/{before['id']}/xml", headers={"Authorization": f"Bearer {merchant.sk}"})
    assert r.status == 404
    await setup(client, merchant.sk)
    usd = await try_invoice(client, merchant.sk, cid, currency="KWD",       # 3 decimals; not per-line KDV
                            items=[{"name": n, "amount": 2, "quantity": 1} for n in "abc"])
    assert (usd["subtotal"], usd["tax"]) == (6, 1)
    assert (await mark_paid(client, merchant.sk, usd["id"]))["gib"] is None
    status, out = await call(client, "POST", f"/api/invoices/{usd['id']}/cancel-einvoice", merchant.sk, {})
    assert status == 400 and out["error"]["detail"] == f"Invoice {usd['id']} has no e-document to cancel"


async def test_graphql_invoice_shows_the_gib_block(client, merchant):
    await setup(client, merchant.sk)
    cid = await buyer(client, merchant.sk)
    inv = await mark_paid(client, merchant.sk, (await try_invoice(client, merchant.sk, cid))["id"])
    status, out = await gql(client, """query($id: ID!) { invoice(id: $id) { gib { type profile number uuid status
        messages { code message } } } }""", {"id": inv["id"]}, merchant.sk)
    assert status == 200 and out["data"]["invoice"]["gib"] == {**inv["gib"], "messages": []}, out
    status, out = await gql(client, """mutation($id: ID!) { invoiceCancelEinvoice(input: {invoiceId: $id}) {
        gib { status } userErrors { field message } } }""", {"id": inv["id"]}, merchant.sk)
    assert out["data"]["invoiceCancelEinvoice"]["gib"] == {"status": "canceled"}, out


async def test_fifty_concurrent_documents_share_one_gapless_numbering(client, merchant, clock):
    await setup(client, merchant.sk)
    cid = await buyer(client, merchant.sk)
    efatura = await buyer(client, merchant.sk, tax_id=vkn(REGISTERED))
    ids = [(await try_invoice(client, merchant.sk, efatura if n % 5 == 0 else cid,
                              items=[{"name": "x", "amount": 100 + n, "quantity": 1}]))["id"] for n in range(50)]
    clock.advance(seconds=61)           # a fresh rate-limit window for the 50 at once
    results = await asyncio.gather(*(call(client, "PUT", f"/api/invoices/{i}/mark-paid", merchant.sk) for i in ids))
    assert all(s == 200 for s, _ in results), [b for s, b in results if s != 200][:3]
    docs = await EinvoiceDocument.filter(merchant_id=merchant.id).order_by("seq")
    assert [d.seq for d in docs] == list(range(1, 51))
    assert [d.number for d in docs] == [f"QAF2026{n:09d}" for n in range(1, 51)]
    assert sorted(d.invoice_id for d in docs) == sorted(ids)
    assert {d.type for d in docs} == {"efatura", "earsiv"} and all(d.status == "sent" for d in docs)
    unit = await EinvoiceUnit.get(merchant_id=merchant.id)
    assert unit.seq == 50




async def test_through_an_integrator_over_http(client, merchant):
    """A unit whose integrator is a URL (the live path: JSON over basic auth) -- here the sandbox
    served by this very app under /sandbox/gib; the password is sealed and never shown."""
    creds = {"url": str(client.make_url("/sandbox/gib")), "username": "qafila", "password": "pa55-word"}
    unit = await setup(client, merchant.sk, integrator=creds)
    assert unit["integrator"] == {"url": creds["url"], "username": "qafila"}
    status, out = await call(client, "GET", f"/api/einvoicing/gib/taxpayers/{REGISTERED}", merchant.sk)
    assert status == 200 and out["registered"] is True, out
    cid = await buyer(client, merchant.sk)
    inv = await mark_paid(client, merchant.sk, (await try_invoice(client, merchant.sk, cid))["id"])
    assert (inv["gib"]["type"], inv["gib"]["status"]) == ("earsiv", "sent"), inv
    xml = await xml_of(client, merchant.sk, inv["id"])
    assert gib_errors(xml) == [] and signing.verify(xml)
    await advance(client, merchant.sk, days=1)
    status, after = await call(client, "GET", f"/api/invoices/{inv['id']}", merchant.sk)
    assert after["gib"]["status"] == "reported"
    r = await client.post("/sandbox/gib/documents", json={"xml": "eA=="})
    assert r.status == 401                                  # no credentials


async def test_an_unreachable_taxpayer_list_issues_nothing(client, merchant):
    """A live-style integrator that does not answer: e-Fatura or e-Arşiv cannot be decided, so the
    invoice does not leave draft (503) and no number is taken."""
    creds = {"url": "http://127.0.0.1:9/integrator", "username": "qafila", "password": "pw"}      # nothing listens
    await setup(client, merchant.sk, integrator=creds)
    cid = await buyer(client, merchant.sk, tax_id=vkn(REGISTERED))
    inv = await try_invoice(client, merchant.sk, cid)
    status, out = await call(client, "PUT", f"/api/invoices/{inv['id']}/mark-paid", merchant.sk)
    assert status == 503 and out["error"]["code"] == "gib_unavailable", out
    status, after = await call(client, "GET", f"/api/invoices/{inv['id']}", merchant.sk)
    assert after["status"] == "draft" and after["gib"] is None
    assert await EinvoiceDocument.filter(merchant_id=merchant.id).count() == 0
    status, out = await call(client, "GET", f"/api/einvoicing/gib/taxpayers/{REGISTERED}", merchant.sk)
    assert status == 503 and out["error"]["code"] == "gib_unavailable"


async def test_the_numbering_starts_again_each_turkish_year(client, merchant, clock):
    await setup(client, merchant.sk)
    cid = await buyer(client, merchant.sk)
    first = await mark_paid(client, merchant.sk, (await try_invoice(client, merchant.sk, cid))["id"])
    assert first["gib"]["number"] == "QAF2026000000001"
    # 31 December 2026, 21:30 UTC: already 1 January 2027 in Turkey (UTC+3)
    from datetime import datetime, timezone
    clock.advance(seconds=(datetime(2026, 12, 31, 21, 30, tzinfo=timezone.utc) - clock.now()).total_seconds())
    inv = await try_invoice(client, merchant.sk, cid)
    status, unit = await call(client, "GET", "/api/einvoicing/gib", merchant.sk)
    assert status == 200 and unit["next_number"] == "QAF2027000000001"
    second = await mark_paid(client, merchant.sk, inv["id"])
    assert second["gib"]["number"] == "QAF2027000000001"
    xml = await xml_of(client, merchant.sk, inv["id"])
    assert x(xml, "cbc:IssueDate") == "2027-01-01" and x(xml, "cbc:IssueTime") == "00:30:00"
    assert gib_errors(xml) == []


def test_the_sandbox_takes_the_issue_date_rule_against_the_merchants_clock():
    import uuid
    from datetime import date, datetime, timezone
    from decimal import Decimal

    from services.einvoicing.gib import sandbox, ubl
    seller = ubl.Party("Qafila Ticaret A.Ş.", vkn="1234567808", tax_office="Kadıköy",
                       address={"district": "Kadıköy", "city": "İstanbul"})
    doc = ubl.Document(number="QAF2030000000001", uuid=str(uuid.uuid4()), issued_at=datetime(2030, 6, 1, 9, tzinfo=timezone.utc),
                       profile="EARSIVFATURA", type_code="SATIS", seller=seller, buyer=ubl.Party("A B", tckn="11111111111"),
                       lines=[ubl.Line("x", 1, 100, 100)], tax_rate=Decimal(20))
    key, cert = signing.sandbox_seal()
    signed = signing.sign(ubl.to_bytes(ubl.build(doc)), key=key, cert=cert, signing_time=doc.issued_at,
                          number=doc.number)
    assert sandbox.check(signed, today=date(2030, 6, 1)) == []          # the merchant's clock says it is that day
    late = sandbox.check(signed, today=date(2030, 5, 31))
    assert [m["code"] for m in late] == ["TimeCheck-1"] and "2030-06-01" in late[0]["message"]
