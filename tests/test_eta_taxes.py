"""ETA's taxes beside VAT on an EGP invoice's items (table tax T2/T3, withholding T4, fees T5-T20):
the invoice's tax and total, the document's taxableItems, totalTaxableFees, line totals, taxTotals
and totalAmount as ETA computes them (5 decimals), accepted by the simulator, a wrong sum refused
with ETA's error, bad input a 400 naming the field with nothing written, the GraphQL twin."""
from __future__ import annotations

from datetime import datetime, timezone

from models.billing import Invoice
from models.einvoicing import EinvoiceDocument, EinvoiceUnit
from services.einvoicing.eta import canonical, documents, simulator
from tests.billing_fixtures import call
from tests.conftest import gql as _gql
from tests.eta_fixtures import egp_invoice, mark_paid, rin_customer, setup

TAXED = [
    {"name": "Widget", "amount": 1999, "quantity": 3, "item_code": "W-1",
     "taxes": [{"type": "T2", "subtype": "Tbl01", "rate": 5}, {"type": "T4", "subtype": "W001", "rate": "1"}]},
    {"name": "Crate", "amount": 1000, "quantity": 1, "item_code": "C-1",
     "taxes": [{"type": "T3", "subtype": "Tbl02", "amount": 250}]},
    {"name": "Service", "amount": 10000, "quantity": 1, "item_code": "S-1",
     "taxes": [{"type": "T12", "subtype": "OF01", "rate": 2}, {"type": "T2", "subtype": "Tbl01", "rate": 5}]},
]


def _amounts(items: list[dict]) -> list[tuple[str, str, str, str]]:
    return [(t["taxType"], t["subType"], str(t["rate"]), str(t["amount"])) for t in items]


async def test_t1_t2_t3_t4_and_a_fee_add_up_as_eta_checks_them(client, merchant):
    await setup(client, merchant.sk)
    cid = await rin_customer(client, merchant.sk)
    inv = await egp_invoice(client, merchant.sk, cid, items=TAXED)
    # the invoice's tax: each line's taxes at ETA's 5 decimals (37.55839 EGP), half-up to the piastre once
    assert (inv["subtotal"], inv["tax"], inv["total"]) == (16997, 3756, 20753)
    assert inv["items"][0]["taxes"] == [{"type": "T2", "subtype": "Tbl01", "rate": "5"},
                                        {"type": "T4", "subtype": "W001", "rate": "1"}]
    assert inv["items"][1]["taxes"] == [{"type": "T3", "subtype": "Tbl02", "amount": 250}]
    paid = await mark_paid(client, merchant.sk, inv["id"])
    assert paid["eta"]["status"] == "valid" and paid["eta"]["errors"] == [], paid["eta"]
    status, got = await call(client, "GET", f"/api/invoices/{inv['id']}/eta", merchant.sk)
    assert status == 200
    row = await EinvoiceDocument.get(invoice_id=inv["id"], kind="invoice")
    doc = canonical.loads(row.body)
    l1, l2, l3 = doc["invoiceLines"]
    # line 1: T2 on the net total; T1 on net + T2; T4 on the net total, subtracted
    assert _amounts(l1["taxableItems"]) == [("T1", "V009", "14", "8.81559"), ("T2", "Tbl01", "5", "2.99850"),
                                            ("T4", "W001", "1", "0.59970")]
    assert (str(l1["netTotal"]), str(l1["totalTaxableFees"]), str(l1["total"])) == ("59.97000", "0.00000", "71.18439")
    # line 2: a fixed table tax (T3) inside the VAT base
    assert _amounts(l2["taxableItems"]) == [("T1", "V009", "14", "1.75000"), ("T3", "Tbl02", "0", "2.50000")]
    assert str(l2["total"]) == "14.25000"
    # line 3: a taxable fee (T12) inside the table tax's base and the VAT's
    assert _amounts(l3["taxableItems"]) == [("T1", "V009", "14", "14.99400"), ("T2", "Tbl01", "5", "5.10000"),
                                            ("T12", "OF01", "2", "2.00000")]
    assert (str(l3["totalTaxableFees"]), str(l3["total"])) == ("2.00000", "122.09400")
    assert [(t["taxType"], str(t["amount"])) for t in doc["taxTotals"]] == [
        ("T1", "25.55959"), ("T2", "8.09850"), ("T3", "2.50000"), ("T4", "0.59970"), ("T12", "2.00000")]
    assert (str(doc["totalSalesAmount"]), str(doc["netAmount"]), str(doc["totalAmount"])) == \
        ("169.97000", "169.97000", "207.52839")
    assert got["document"]["taxTotals"][3] == {"taxType": "T4", "amount": 0.5997}

    # the simulator refuses a wrong sum, with ETA's error on the path
    unit = await EinvoiceUnit.get(id=row.unit_id)
    now = datetime.now(timezone.utc)
    _, tok = await simulator.token({"grant_type": "client_credentials", "client_id": "c", "client_secret": "s"})
    auth = {"Authorization": f"Bearer {tok['access_token']}"}

    async def errors_of(changed: dict) -> list[tuple[str, str]]:
        unsigned = {k: v for k, v in changed.items() if k != "signatures"}
        body = canonical.loads(documents.signed_body(unsigned, unit, now))
        status, out = await simulator.submit_documents(auth, {"documents": [body]}, now)
        assert status == 202 and not out["rejectedDocuments"], out
        _, st = await simulator.document_status(auth, out["acceptedDocuments"][0]["uuid"])
        return [(e["propertyPath"], e["error"]) for s in st["validationResults"]["validationSteps"]
                for e in ((s["error"] or {}).get("innerError") or [])]

    assert await errors_of(canonical.loads(row.body)) == []
    bad = canonical.loads(row.body)      # T2 computed on the net total only (without the fee)
    bad["invoiceLines"][2]["taxableItems"][1]["amount"] = canonical.Number("5.00000")
    assert await errors_of(bad) == [
        ("invoiceLines[2].taxableItems[1].amount",
         "the T2 amount must be (netTotal + totalTaxableFees + valueDifference + T3) x rate / 100 (5.10000)"),
        ("invoiceLines[2].total",
         "total must be netTotal plus the line's taxes and taxable fees, less withholding (T4) (121.99400)")]
    bad = canonical.loads(row.body)      # VAT on the net total only (the table tax left out of its base)
    bad["invoiceLines"][0]["taxableItems"][0]["amount"] = canonical.Number("8.39580")
    assert [p for p, _ in await errors_of(bad)] == ["invoiceLines[0].taxableItems[0].amount", "invoiceLines[0].total"]
    bad = canonical.loads(row.body)      # withholding added instead of subtracted
    bad["invoiceLines"][0]["total"] = canonical.Number("72.38379")
    bad["totalAmount"] = canonical.Number("208.72779")
    assert [p for p, _ in await errors_of(bad)] == ["invoiceLines[0].total"]
    bad = canonical.loads(row.body)
    bad["invoiceLines"][2]["totalTaxableFees"] = canonical.Number("0.00000")
    assert [p for p, _ in await errors_of(bad)] == ["invoiceLines[2].totalTaxableFees"]
    bad = canonical.loads(row.body)
    bad["taxTotals"][1]["amount"] = canonical.Number("8.00000")
    assert await errors_of(bad) == [("taxTotals", "taxTotals T2 must be the sum of the lines' T2 (8.09850)")]
    bad = canonical.loads(row.body)
    bad["totalAmount"] = canonical.Number("208.72779")
    assert [p for p, _ in await errors_of(bad)] == ["totalAmount"]
    bad = canonical.loads(row.body)
    bad["invoiceLines"][0]["taxableItems"][1]["subType"] = "Tbl02"
    assert [p for p, _ in await errors_of(bad)] == ["invoiceLines[0].taxableItems[1].subType"]


async def test_rounding_of_the_invoice_tax_in_each_case(client, merchant):
    await setup(client, merchant.sk)
    cid = await rin_customer(client, merchant.sk)
    # 0.01 EGP x 3 with 5% table tax: T2 0.00150, T1 (0.03150 x 14%) 0.00441 -> 0.00591 EGP = 0.591 piastres -> 1
    items = [{"name": "Pin", "amount": 1, "quantity": 3, "item_code": "P-1",
              "taxes": [{"type": "T2", "subtype": "Tbl01", "rate": "5"}]}]
    inv = await egp_invoice(client, merchant.sk, cid, items=items)
    assert (inv["subtotal"], inv["tax"], inv["total"]) == (3, 1, 4)
    paid = await mark_paid(client, merchant.sk, inv["id"])
    assert paid["eta"]["status"] == "valid", paid["eta"]
    # exempt (V003 at 0) with withholding only: the total is less than the subtotal
    items = [{"name": "Advice", "amount": 100000, "item_code": "A-1", "taxes": [{"type": "T4", "subtype": "W010", "rate": 3}]}]
    inv = await egp_invoice(client, merchant.sk, cid, items=items, tax_rate=0)
    assert (inv["subtotal"], inv["tax"], inv["total"]) == (100000, -3000, 97000)
    paid = await mark_paid(client, merchant.sk, inv["id"])
    assert paid["eta"]["status"] == "valid", paid["eta"]
    doc = canonical.loads((await EinvoiceDocument.get(invoice_id=inv["id"], kind="invoice")).body)
    assert _amounts(doc["invoiceLines"][0]["taxableItems"]) == [("T1", "V003", "0", "0.00000"),
                                                                ("T4", "W010", "3", "30.00000")]
    assert str(doc["totalAmount"]) == "970.00000"


async def test_bad_item_taxes_name_the_field_and_write_nothing(client, merchant):
    await setup(client, merchant.sk)
    cid = await rin_customer(client, merchant.sk)
    t2 = {"type": "T2", "subtype": "Tbl01", "rate": 5}
    cases = (
        ([t2, {"type": "T4", "subtype": "W001", "rate": "abc"}], "items[0].taxes[1].rate"),
        ([t2, {"type": "T4", "subtype": "W001", "rate": 100.5}], "items[0].taxes[1].rate"),
        ([t2, {"type": "T4", "subtype": "W001", "rate": "1.234"}], "items[0].taxes[1].rate"),
        ([{"type": "T1", "subtype": "V009", "rate": 14}], "items[0].taxes[0].type"),
        ([{"type": "T99", "subtype": "X", "rate": 1}], "items[0].taxes[0].type"),
        ([{"type": "T2", "subtype": "Tbl02", "rate": 5}], "items[0].taxes[0].subtype"),
        ([{"type": "T3", "subtype": "Tbl02", "rate": 5}], "items[0].taxes[0].rate"),
        ([{"type": "T3", "subtype": "Tbl02"}], "items[0].taxes[0].amount"),
        ([{"type": "T3", "subtype": "Tbl02", "amount": -1}], "items[0].taxes[0].amount"),
        ([{"type": "T3", "subtype": "Tbl02", "amount": 1.5}], "items[0].taxes[0].amount"),
        ([{"type": "T2", "subtype": "Tbl01", "amount": 100}], "items[0].taxes[0].amount"),
        ([t2, t2], "items[0].taxes[1].type"),
        ([{**t2, "colour": "red"}], "items[0].taxes[0].colour"),
        (["T2"], "items[0].taxes[0]"),
        ({"type": "T2"}, "items[0].taxes"),
    )
    for taxes, param in cases:
        items = [{"name": "Widget", "amount": 1999, "item_code": "W-1", "taxes": taxes}]
        status, out = await call(client, "POST", "/api/invoices", merchant.sk,
                                 {"customer_id": cid, "currency": "EGP", "items": items, "tax_rate": 14})
        assert status == 400 and out["error"]["param"] == param, (taxes, out)
    # ETA's taxes are Egypt's: another currency's invoice refuses them
    status, out = await call(client, "POST", "/api/invoices", merchant.sk,
                             {"customer_id": cid, "currency": "KWD", "tax_rate": 0,
                              "items": [{"name": "Widget", "amount": 1999, "taxes": [t2]}]})
    assert status == 400 and out["error"]["param"] == "items[0].taxes", out
    assert await Invoice.filter(merchant_id=merchant.id).count() == 0


async def test_graphql_twin_takes_and_shows_item_taxes(client, merchant):
    await setup(client, merchant.sk)
    cid = await rin_customer(client, merchant.sk)
    mutation = """mutation($input: InvoiceCreateInput!) { invoiceCreate(input: $input) {
        invoice { subtotal tax total items { name taxes { type subtype rate amount } } }
        userErrors { field message } } }"""
    items = [{"name": i["name"], "amount": i["amount"], "quantity": i.get("quantity", 1), "itemCode": i["item_code"],
              "taxes": [{k: (str(v) if k == "rate" else v) for k, v in t.items()} for t in i["taxes"]]} for i in TAXED]
    status, out = await _gql(client, mutation, {"input": {"customerId": cid, "currency": "EGP", "taxRate": 14,
                                                          "items": items}}, key=merchant.sk)
    assert status == 200 and not out.get("errors"), out
    got = out["data"]["invoiceCreate"]
    assert got["userErrors"] == [] and (got["invoice"]["subtotal"], got["invoice"]["tax"], got["invoice"]["total"]) \
        == (16997, 3756, 20753)
    assert got["invoice"]["items"][1]["taxes"] == [{"type": "T3", "subtype": "Tbl02", "rate": None, "amount": 250}]
    items[0]["taxes"][1]["rate"] = "abc"
    status, out = await _gql(client, mutation, {"input": {"customerId": cid, "currency": "EGP", "taxRate": 14,
                                                          "items": items}}, key=merchant.sk)
    errs = out["data"]["invoiceCreate"]["userErrors"]
    assert errs and errs[0]["field"] in (["items", "0", "taxes", "1", "rate"], "items[0].taxes[1].rate"), errs
