"""Payouts to sellers (issue 47): the scheduled run at the start of each local day, payable =
available - reserve (KWD in multiples of 10 fils), batches per currency, the pain.001.001.09 file
valid against the ISO 20022 schema, the CSV, the test helpers (paid, failed, returned), the
statement adding up to the payout, and the commission invoice."""
from __future__ import annotations

import csv
import io
from decimal import Decimal
from xml.etree import ElementTree as ET

import xmlschema

from models.billing import Invoice
from models.events import Event
from services.money.marketplace import files
from tests.marketplace_fixtures import IBANS, make_seller
from tests.money_fixtures import at, get, run_until
from tests.payments_fixtures import call, card

NS = {"p": files.NAMESPACE}
SCHEMA = xmlschema.XMLSchema(str(files.XSD))


async def pay(client, key, amount, currency, splits):
    status, p = await call(client, "POST", "/api/payments/create", key,
                           {"amount": amount, "currency": currency, "payment_method": card(), "splits": splits})
    assert status == 200, p
    return p


async def balance(client, key, smr) -> dict:
    b = await get(client, f"/api/sub-merchants/{smr}/balance", key)
    return {k: b[k][0]["amount"] for k in ("held", "pending", "available", "reserve", "in_payout", "paid_out")}


async def test_a_kwd_batch_pays_in_multiples_of_10_fils_keeps_the_reserve_and_its_file_is_valid_pain001(
        client, merchant, clock):
    clock.set(at(2026, 3, 2, 9, 0))                                         # Monday
    status, _ = await call(client, "PUT", "/api/marketplace", merchant.sk,
                           {"payout_account": {"iban": IBANS["KW"], "name": "Souq Platform W.L.L.",
                                               "bic": "CBKUKWKW"}})
    assert status == 200
    k = await make_seller(client, merchant.sk, "KW", payout_schedule={"interval": "manual", "reserve": 1000},
                          payout={"iban": IBANS["KW"], "holder_name": "Nakheel Trading Co.", "purpose": "GDDS",
                                  "bic": "CBKUKWKW"})
    j = await make_seller(client, merchant.sk, "KW", name="Dar Al Kutub", payout_schedule={"interval": "manual"})
    p = await pay(client, merchant.sk, 20000, "KWD", [
        {"sub_merchant": k["id"], "line_amount": 10000, "fee_percent": "2.5", "fee_fixed": 5, "reference": "o-1"},
        {"sub_merchant": j["id"], "amount": 8754}])                   # 250 + 5 fee: 9745 to k
    status, err = await call(client, "POST", "/api/payout-batches", merchant.sk, {"currency": "KWD"})
    assert status == 400 and err["error"]["code"] == "nothing_to_pay"           # still pending (T+1)
    clock.set(at(2026, 3, 3, 9, 0))
    assert await balance(client, merchant.sk, k["id"]) == {"held": 0, "pending": 0, "available": 9745,
                                                          "reserve": 1000, "in_payout": 0, "paid_out": 0}
    status, b = await call(client, "POST", "/api/payout-batches", merchant.sk, {"currency": "KWD"})
    assert status == 201, b
    assert b["id"].startswith("pb_") and (b["count"], b["total"]) == (2, 8740 + 8750)
    by_seller = {x["sub_merchant"]: x for x in b["payouts"]}
    pk, pj = by_seller[k["id"]], by_seller[j["id"]]
    assert (pk["amount"], pk["status"], pk["iban"], pk["purpose"]) == (8740, "pending", IBANS["KW"], "GDDS")
    assert pj["amount"] == 8750                                    # 8.754 KWD: 4 fils stay
    assert await balance(client, merchant.sk, k["id"]) == {"held": 0, "pending": 0, "available": 1005,
                                                          "reserve": 1000, "in_payout": 8740, "paid_out": 0}
    # the pain.001.001.09 file: valid against the ISO schema, as written
    r = await client.get(f"/api/payout-batches/{b['id']}/file", headers={"Authorization": f"Bearer {merchant.sk}"})
    assert r.status == 200 and r.content_type == "application/xml"
    xml = await r.read()
    SCHEMA.validate(xml)
    doc = ET.fromstring(xml)
    assert doc.findtext("p:CstmrCdtTrfInitn/p:GrpHdr/p:MsgId", namespaces=NS) == b["id"]
    assert doc.findtext("p:CstmrCdtTrfInitn/p:GrpHdr/p:NbOfTxs", namespaces=NS) == "2"
    assert doc.findtext("p:CstmrCdtTrfInitn/p:GrpHdr/p:CtrlSum", namespaces=NS) == "17.490"
    inf = doc.find("p:CstmrCdtTrfInitn/p:PmtInf", NS)
    assert inf.findtext("p:PmtMtd", namespaces=NS) == "TRF"
    assert inf.findtext("p:DbtrAcct/p:Id/p:IBAN", namespaces=NS) == IBANS["KW"]
    assert inf.findtext("p:Dbtr/p:Nm", namespaces=NS) == "Souq Platform W.L.L."
    txs = {t.findtext("p:PmtId/p:EndToEndId", namespaces=NS): t for t in inf.findall("p:CdtTrfTxInf", NS)}
    t = txs[pk["id"]]
    amt = t.find("p:Amt/p:InstdAmt", NS)
    assert (amt.text, amt.get("Ccy")) == ("8.740", "KWD")
    assert t.findtext("p:Cdtr/p:Nm", namespaces=NS) == "Nakheel Trading Co."
    assert t.findtext("p:CdtrAcct/p:Id/p:IBAN", namespaces=NS) == IBANS["KW"]
    assert t.findtext("p:Purp/p:Cd", namespaces=NS) == "GDDS"
    assert t.findtext("p:RmtInf/p:Ustrd", namespaces=NS) == pk["reference"]
    assert txs[pj["id"]].find("p:Amt/p:InstdAmt", NS).text == "8.750"
    # the CSV, amounts as in the XML
    r = await client.get(f"/api/payout-batches/{b['id']}/file?format=csv",
                         headers={"Authorization": f"Bearer {merchant.sk}"})
    rows = list(csv.DictReader(io.StringIO(await r.text())))
    assert list(rows[0]) == list(files.CSV_COLUMNS)
    assert {row["payout_id"]: row["amount"] for row in rows} == {pk["id"]: "8.740", pj["id"]: "8.750"}
    # the statement adds up to the payout: the split line, and the reserve and fils carried forward
    r = await client.get(f"/api/payouts/{pk['id']}/statement", headers={"Authorization": f"Bearer {merchant.sk}"})
    lines = list(csv.DictReader(io.StringIO(await r.text())))
    assert [(x["type"], x["split"], x["line_amount"], x["fee"], x["amount"]) for x in lines] == [
        ("split", p["splits"][0]["id"], "10.000", "0.255", "9.745"), ("carried_forward", "", "", "", "-1.005")]
    assert sum(Decimal(x["amount"]) for x in lines) == Decimal("8.740")
    assert await Event.filter(merchant_id=merchant.id, type="payout_batch.created").count() == 1


async def test_helpers_paid_with_a_commission_invoice_failed_and_returned(client, merchant, clock):
    clock.set(at(2026, 3, 2, 9, 0))
    s = await make_seller(client, merchant.sk, "SA", payout_schedule={"interval": "manual"})
    await pay(client, merchant.sk, 10000, "SAR", [{"sub_merchant": s["id"], "line_amount": 10000,
                                                   "fee_percent": "10"}])
    clock.set(at(2026, 3, 3, 9, 0))
    status, b = await call(client, "POST", "/api/payout-batches", merchant.sk, {"currency": "SAR",
                                                                                 "sub_merchants": [s["id"]]})
    assert status == 201, b
    po = b["payouts"][0]
    status, paid = await call(client, "POST", f"/api/test-helpers/payouts/{po['id']}/paid", merchant.sk)
    assert status == 200 and paid["status"] == "paid" and paid["paid_at"] is not None
    inv = await Invoice.get(id=paid["commission_invoice"])
    assert (inv.status, inv.total, inv.currency) == ("paid", 1000, "SAR")
    assert (await get(client, f"/api/invoices/{inv.id}", merchant.sk))["status"] == "paid"
    assert await balance(client, merchant.sk, s["id"]) == {"held": 0, "pending": 0, "available": 0, "reserve": 0,
                                                          "in_payout": 0, "paid_out": 9000}
    status, err = await call(client, "POST", f"/api/test-helpers/payouts/{po['id']}/failed", merchant.sk)
    assert status == 400 and err["error"]["code"] == "invalid_state"
    status, back = await call(client, "POST", f"/api/test-helpers/payouts/{po['id']}/returned", merchant.sk)
    assert status == 200 and back["status"] == "returned"
    seller = await get(client, f"/api/sub-merchants/{s['id']}", merchant.sk)
    assert seller["requirements"]["currently_due"] == ["payout.iban"] and not seller["payouts_enabled"]
    assert (await balance(client, merchant.sk, s["id"]))["available"] == 9000
    status, err = await call(client, "POST", "/api/payout-batches", merchant.sk, {"currency": "SAR"})
    assert status == 400 and err["error"]["code"] == "nothing_to_pay"          # payout.iban is due again
    status, _ = await call(client, "PUT", f"/api/sub-merchants/{s['id']}", merchant.sk,
                           {"payout": {"iban": IBANS["SA"]}})
    status, b2 = await call(client, "POST", "/api/payout-batches", merchant.sk, {"currency": "SAR"})
    assert status == 201 and b2["payouts"][0]["amount"] == 9000
    po2 = b2["payouts"][0]
    r = await client.get(f"/api/payouts/{po2['id']}/statement", headers={"Authorization": f"Bearer {merchant.sk}"})
    assert [(x["type"], x["amount"]) for x in csv.DictReader(io.StringIO(await r.text()))] == \
        [("carried_in", "90.00")]
    status, failed = await call(client, "POST", f"/api/test-helpers/payouts/{po2['id']}/failed", merchant.sk)
    assert status == 200 and failed["status"] == "failed"
    assert (await balance(client, merchant.sk, s["id"]))["available"] == 9000
    assert [e.type for e in await Event.filter(merchant_id=merchant.id, type__startswith="payout.").order_by(
        "created_at")] == ["payout.paid", "payout.returned", "payout.failed"]
    # a file needs the platform's payout account
    status, err = await call(client, "GET", f"/api/payout-batches/{b['id']}/file", merchant.sk)
    assert status == 400 and err["error"]["code"] == "payout_account_required"


async def test_the_schedule_pays_daily_weekly_on_its_anchor_and_respects_the_minimum(client, merchant, clock):
    clock.set(at(2026, 3, 2, 9, 0))                                   # Monday; TR market (UTC+3)
    daily = await make_seller(client, merchant.sk, "SA")
    weekly = await make_seller(client, merchant.sk, "SA", name="Dar Al Kutub",
                               payout_schedule={"interval": "weekly", "weekly_anchor": "thursday"})
    small = await make_seller(client, merchant.sk, "SA", name="Small Shop",
                              payout_schedule={"interval": "daily", "minimum": 5000})
    await pay(client, merchant.sk, 10000, "SAR", [{"sub_merchant": daily["id"], "amount": 3000},
                                                  {"sub_merchant": weekly["id"], "amount": 3000},
                                                  {"sub_merchant": small["id"], "amount": 3000}])
    await run_until(clock, merchant.id, at(2026, 3, 3, 21, 0))     # Wednesday 00:00 local: available since Tue
    page = (await get(client, "/api/payouts", merchant.sk))["data"]
    assert [(x["sub_merchant"], x["amount"]) for x in page] == [(daily["id"], 3000)]
    await run_until(clock, merchant.id, at(2026, 3, 4, 21, 0))     # Thursday 00:00 local: the weekly anchor
    page = (await get(client, "/api/payouts", merchant.sk))["data"]
    assert sorted((x["sub_merchant"], x["amount"]) for x in page) == sorted([(daily["id"], 3000),
                                                                            (weekly["id"], 3000)])
    batches = (await get(client, "/api/payout-batches", merchant.sk))["data"]
    assert len(batches) == 2 and all(x["currency"] == "SAR" for x in batches)
    assert (await balance(client, merchant.sk, small["id"]))["available"] == 3000        # under its minimum


async def test_a_split_paid_out_cannot_be_held_and_others_payouts_are_404(client, merchant, make_merchant, clock):
    clock.set(at(2026, 3, 2, 9, 0))
    s = await make_seller(client, merchant.sk, "SA", payout_schedule={"interval": "manual"})
    p = await pay(client, merchant.sk, 10000, "SAR", [{"sub_merchant": s["id"], "amount": 3000}])
    clock.set(at(2026, 3, 3, 9, 0))
    status, b = await call(client, "POST", "/api/payout-batches", merchant.sk, {"currency": "SAR"})
    assert status == 201
    status, err = await call(client, "POST", f"/api/splits/{p['splits'][0]['id']}/hold", merchant.sk)
    assert status == 400 and err["error"]["code"] == "split_paid_out"
    other = await make_merchant()
    for path in (f"/api/payouts/{b['payouts'][0]['id']}", f"/api/payout-batches/{b['id']}",
                 f"/api/sub-merchants/{s['id']}/balance"):
        status, _ = await call(client, "GET", path, other.sk)
        assert status == 404, path
    status, err = await call(client, "POST", "/api/payout-batches", merchant.sk,
                             {"currency": "SAR", "sub_merchants": ["smr_000000000000000000000000"]})
    assert status == 400 and err["error"]["param"] == "sub_merchants[0]"


async def test_a_commission_invoice_is_e_invoiced_when_the_platform_is_set_up_with_gib(client, merchant, clock):
    from tests.gib_fixtures import setup

    clock.set(at(2026, 3, 2, 9, 0))
    await setup(client, merchant.sk)
    s = await make_seller(client, merchant.sk, "TR", payout_schedule={"interval": "manual"},
                          tax_id={"type": "tr_vkn", "value": "9876543209", "tax_office": "Beşiktaş"})
    await pay(client, merchant.sk, 10000, "TRY", [{"sub_merchant": s["id"], "line_amount": 10000,
                                                   "fee_percent": "10"}])
    clock.set(at(2026, 3, 3, 9, 0))
    status, b = await call(client, "POST", "/api/payout-batches", merchant.sk, {"currency": "TRY"})
    assert status == 201, b
    status, paid = await call(client, "POST", f"/api/test-helpers/payouts/{b['payouts'][0]['id']}/paid", merchant.sk)
    assert status == 200, paid
    inv = await get(client, f"/api/invoices/{paid['commission_invoice']}", merchant.sk)
    assert inv["status"] == "paid" and inv["total"] == 1000 and inv["gib"] is not None, inv


def test_schedule_days_daily_weekly_monthly_and_manual():
    from datetime import date

    from services.money.marketplace.payouts import _due_by_schedule

    assert _due_by_schedule({"interval": "daily"}, date(2026, 2, 3))
    assert _due_by_schedule({"interval": "weekly", "weekly_anchor": "tuesday"}, date(2026, 2, 3))
    assert not _due_by_schedule({"interval": "weekly", "weekly_anchor": "monday"}, date(2026, 2, 3))
    assert _due_by_schedule({"interval": "monthly", "monthly_anchor": 31}, date(2026, 2, 28))      # the month's last
    assert not _due_by_schedule({"interval": "monthly", "monthly_anchor": 31}, date(2026, 3, 30))
    assert _due_by_schedule({"interval": "monthly", "monthly_anchor": 31}, date(2026, 3, 31))
    assert not _due_by_schedule({"interval": "manual"}, date(2026, 3, 31))
