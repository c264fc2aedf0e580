"""A /v1 payment intent that asks for an invoice (invoice: true, TRY only): the create only records
the wish in the intent's own row; once the intent succeeded the scheduler (gib.intent_invoice)
makes the paid invoice (KDV included at the unit's kdv_rate) and its GİB e-document; the intent
shows invoice_id and gib (REST, webhooks, GraphQL); a /v1 refund issues an IADE listed in the
invoice's notes. The buyer: the Qafila customer customer_id names, else the final consumer
(e-Arşiv, TCKN 11111111111)."""
from __future__ import annotations

from datetime import timedelta

from models.events import Event
from models.einvoicing import EinvoiceDocument
from models.intents import PaymentIntent
from models.payments import Customer
from tests.billing_fixtures import call
from tests.conftest import gql
from tests.gib_fixtures import in_2026  # noqa: F401
from tests.gib_fixtures import REGISTERED, buyer, gib_errors, setup, vkn, x, xml_of
from tests.intents_fixtures import confirm, create, get, post

GIB_QUERY = """query($id: ID!) { paymentIntent(id: $id) { invoiceId gib { type number status } } }"""


async def run_jobs(client, key, clock, minutes: int = 1):
    status, out = await call(client, "POST", "/api/test-helpers/advance-clock", key,
                             {"to": (clock.now() + timedelta(minutes=minutes)).isoformat()})
    assert status == 200, out
    return [r for r in out["ran"] if r["kind"].startswith("gib.")]


async def test_an_intent_asking_for_an_invoice_gets_one_once_it_succeeded_and_its_refund_an_iade(
        client, merchant, clock):
    await setup(client, merchant.sk)
    cid = await buyer(client, merchant.sk)
    i = await create(client, merchant.sk, amount=12000, currency="TRY", invoice=True, customer_id=cid,
                     description="Sipariş 2001")
    assert (i["invoice_id"], i["gib"]) == (None, None)
    assert await PaymentIntent.filter(id=i["id"], invoice_requested=True).count() == 1
    assert await run_jobs(client, merchant.sk, clock) == []          # not paid yet: nothing to make
    assert await EinvoiceDocument.filter(merchant_id=merchant.id).count() == 0
    done = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_visa")
    assert done["status"] == "succeeded" and done["invoice_id"] is None, done     # never on the request
    ran = await run_jobs(client, merchant.sk, clock)
    assert [(r["kind"], r["id"]) for r in ran] == [("gib.intent_invoice", i["id"])], ran
    got = await get(client, merchant.sk, i["id"])
    assert got["invoice_id"] and (got["gib"]["type"], got["gib"]["status"], got["gib"]["number"]) == \
        ("earsiv", "sent", "QAF2026000000001"), got
    status, inv = await call(client, "GET", f"/api/invoices/{got['invoice_id']}", merchant.sk)
    assert (inv["status"], inv["payment_id"], inv["currency"], inv["customer_id"]) == ("paid", i["id"], "TRY", cid)
    assert (inv["subtotal"], inv["tax"], inv["total"]) == (10000, 2000, 12000)        # 20% included
    assert inv["gib"] == got["gib"]
    xml = await xml_of(client, merchant.sk, inv["id"])
    assert gib_errors(xml) == []
    assert x(xml, "cac:AccountingCustomerParty/cac:Party/cac:PartyIdentification/cbc:ID") == "11111111111"
    assert x(xml, "cac:AccountingSupplierParty/cac:Party/cbc:WebsiteURI") == "https://shop.qafila.com.tr"
    assert x(xml, "cac:PaymentMeans/cbc:InstructionNote") == "KREDIKARTI/BANKAKARTI"
    assert x(xml, "cac:AdditionalDocumentReference[cbc:DocumentTypeCode='ODEME_ARACISI']/cbc:ID") == "Qafila"
    assert x(xml, "cac:InvoiceLine/cac:Item/cbc:Name") == "Sipariş 2001"
    assert await run_jobs(client, merchant.sk, clock) == []          # made once
    _, data = await gql(client, GIB_QUERY, {"id": i["id"]}, merchant.sk)
    assert data["data"]["paymentIntent"] == {"invoiceId": got["invoice_id"], "gib": {
        "type": "earsiv", "number": "QAF2026000000001", "status": "sent"}}, data
    # a /v1 refund issues an IADE through the e-invoicing core, listed in the invoice's notes
    refunded = await post(client, merchant.sk, f"/v1/payments/{i['id']}/refund", {"amount": 3000})
    assert refunded["amount_refunded"] == 3000, refunded
    status, inv = await call(client, "GET", f"/api/invoices/{got['invoice_id']}", merchant.sk)
    assert [(n["kind"], n["amount"], n["gib"]["type"]) for n in inv["notes"]] == [("return", 3000, "earsiv")], inv
    returns = await EinvoiceDocument.filter(invoice_id=inv["id"], kind="return").values_list("payment_id", flat=True)
    assert returns == [i["id"]]
    # the webhook of the refund carries the intent's invoice and e-document
    ev = await Event.filter(object_id=i["id"], type="payment.refunded").first()
    assert ev.data["invoice_id"] == got["invoice_id"] and ev.data["gib"]["number"] == "QAF2026000000001", ev.data


async def test_a_registered_customer_gets_an_efatura_and_no_customer_the_final_consumer(client, merchant, clock):
    await setup(client, merchant.sk, kdv_rate=10)
    cid = await buyer(client, merchant.sk, tax_id=vkn(REGISTERED), name="Deneme Sanayi Ltd. Şti.")
    a = await create(client, merchant.sk, amount=11001, currency="TRY", invoice=True, customer_id=cid)
    b = await create(client, merchant.sk, amount=5000, currency="TRY", invoice=True)      # no customer
    c = await create(client, merchant.sk, amount=2500, currency="TRY", invoice=True, customer_id="shop-user-42")
    for intent in (a, b, c):
        await confirm(client, merchant.sk, intent["id"], payment_method_id="pm_card_visa")
    ran = await run_jobs(client, merchant.sk, clock)
    assert sorted(r["id"] for r in ran) == sorted([a["id"], b["id"], c["id"]]), ran
    ga, gb, gc = [await get(client, merchant.sk, intent["id"]) for intent in (a, b, c)]
    assert ga["gib"]["type"] == "efatura" and gb["gib"]["type"] == "earsiv" and gc["gib"]["type"] == "earsiv"
    status, inv = await call(client, "GET", f"/api/invoices/{ga['invoice_id']}", merchant.sk)
    assert (inv["total"], inv["tax_rate"], inv["tax"], inv["customer_id"]) == (11001, 10, 1000, cid), inv
    # the intents without a Qafila customer share the merchant's one final consumer
    _, ib = await call(client, "GET", f"/api/invoices/{gb['invoice_id']}", merchant.sk)
    _, ic = await call(client, "GET", f"/api/invoices/{gc['invoice_id']}", merchant.sk)
    assert ib["customer_id"] == ic["customer_id"] != cid
    fc = await Customer.get(id=ib["customer_id"])
    assert (fc.merchant_id, fc.name, fc.tax_id) == (merchant.id, "Nihai Tüketici", None)
    assert (ib["total"], ib["tax"]) == (5000, 455)
    xml = await xml_of(client, merchant.sk, ib["id"])
    assert gib_errors(xml) == []
    assert x(xml, "cac:AccountingCustomerParty/cac:Party/cac:PartyIdentification/cbc:ID") == "11111111111"
    # the e-Arşiv's report at Turkey's next midnight: the intent's gib follows its document
    ran = await run_jobs(client, merchant.sk, clock, minutes=24 * 60)
    assert "gib.report" in [r["kind"] for r in ran], ran
    gb = await get(client, merchant.sk, b["id"])
    assert gb["gib"]["status"] == "reported", gb
    _, ib = await call(client, "GET", f"/api/invoices/{gb['invoice_id']}", merchant.sk)
    assert ib["gib"] == gb["gib"]


async def test_refused_and_dropped_requests(client, merchant, make_merchant, clock):
    # a non-TRY intent cannot ask: a 400 naming invoice, nothing written
    for currency, amount in (("SAR", 1000), ("KWD", 1500), ("EGP", 2280)):
        bad = await create(client, merchant.sk, amount=amount, currency=currency, invoice=True, expect=400)
        assert (bad["error"]["param"], bad["error"]["code"]) == ("invoice", "invalid_request"), bad
        assert "TRY" in bad["error"]["message"], bad
    bad = await create(client, merchant.sk, amount=1000, currency="TRY", invoice="yes", expect=400)
    assert bad["error"]["param"] == "invoice", bad
    assert await PaymentIntent.filter(merchant_id=merchant.id).count() == 0
    # GraphQL refuses the same
    _, data = await gql(client, """mutation($input: PaymentIntentCreateInput!) { paymentIntentCreate(input: $input) {
        paymentIntent { id } userErrors { field message } } }""",
                        {"input": {"amount": 1000, "currency": "SAR", "paymentMethod": "card", "invoice": True}},
                        merchant.sk)
    assert data["data"]["paymentIntentCreate"]["userErrors"][0]["field"] == "invoice", data
    # a canceled intent's wish is dropped, said in the job's outcome; an unpaid one waits
    await setup(client, merchant.sk)
    gone = await create(client, merchant.sk, amount=1000, currency="TRY", invoice=True)
    waiting = await create(client, merchant.sk, amount=1000, currency="TRY", invoice=True)
    await post(client, merchant.sk, f"/v1/payments/{gone['id']}/cancel", {})
    ran = await run_jobs(client, merchant.sk, clock)
    assert [r["outcome"] for r in ran] == [f"payment intent {gone['id']}: no invoice (the payment intent is canceled)"]
    assert await PaymentIntent.filter(id=waiting["id"], invoice_requested=True).count() == 1
    # a merchant without a GİB unit: dropped too
    other = await make_merchant()
    q = await create(client, other.sk, amount=1000, currency="TRY", invoice=True)
    await confirm(client, other.sk, q["id"], payment_method_id="pm_card_visa")
    ran = await run_jobs(client, other.sk, clock, minutes=2)
    assert [r["outcome"] for r in ran] == [
        f"payment intent {q['id']}: no invoice (the merchant has no GİB unit in this mode)"], ran
    got = await get(client, other.sk, q["id"])
    assert (got["invoice_id"], got["gib"]) == (None, None)
    await get(client, merchant.sk, q["id"], expect=404)          # another merchant's intent


async def test_the_wish_is_written_in_the_intents_own_insert(client, merchant, monkeypatch):
    """No statement of its own on the create's path (PostgreSQL: the create is one write)."""
    from tests.test_create_paths import _postgres, round_trips
    await setup(client, merchant.sk)
    cid = await buyer(client, merchant.sk)
    await create(client, merchant.sk, currency="TRY")                 # the merchant's market is now known
    with round_trips(monkeypatch) as sent:
        i = await create(client, merchant.sk, currency="TRY", invoice=True, customer_id=cid)
    if _postgres():
        assert len(sent) == 1 and sent[0].startswith("WITH w0 AS (INSERT"), sent
    assert await PaymentIntent.filter(id=i["id"], invoice_requested=True, customer_id=cid).count() == 1
    assert await EinvoiceDocument.filter(merchant_id=merchant.id).count() == 0
