"""ETA (Egypt) e-invoices through the real app: the canonical serialization against ETA's
published SDK example, setting up the unit, an EGP invoice of an eg_rin customer leaving draft
(built, signed CAdES-BES, submitted to the simulator, valid), a receiver ETA does not know
(invalid, with ETA's errors), bad input naming the field with nothing written, ETA down then
back (the core's job retries), gapless numbering under concurrency, notes and cancellation."""
from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import pathlib
import shutil
import subprocess

from models.team import Member
from models.billing import Invoice
from models.einvoicing import EinvoiceDocument, EinvoiceUnit
from models.events import Event
from services.einvoicing.eta import canonical, signing
from tests.billing_fixtures import advance, call
from tests.conftest import gql as _gql
from tests.eta_fixtures import ITEMS, SETUP, egp_invoice, mark_paid, rin_customer, setup

DATA = pathlib.Path(__file__).parent / "data" / "eta"


# ---------------------------------------------------------------- canonical form (ETA's SDK example)

def test_canonical_serialization_matches_etas_published_example():
    # ETA SDK, "Document serialization approach": the sample document and its serialized text.
    doc = canonical.loads((DATA / "sdk_sample.json").read_text("utf-8"))
    expected = (DATA / "sdk_sample_serialized.txt").read_text("utf-8")
    assert canonical.serialize(doc) == expected
    assert canonical.digest(doc) == hashlib.sha256(expected.encode("utf-8")).hexdigest()
    # numbers keep their written text both ways (10.50 is "10.50", 12 is "12")
    assert '"GROSSWEIGHT""10.50"' in expected and '"RATE""12"' in expected
    assert canonical.loads(canonical.dumps(doc)) == doc


def test_canonical_arrays_of_values_repeat_their_name():
    assert canonical.serialize({"references": ["a", "b"], "x": {"y": 1}}) == \
        '"REFERENCES""REFERENCES""a""REFERENCES""b""X""Y""1"'
    assert canonical.serialize({"empty": []}) == '"EMPTY"'


# ---------------------------------------------------------------- setting up

async def test_setup_bad_input_names_the_field_and_writes_nothing(client, merchant):
    branch = SETUP["branch"]
    for over, param in (({"rin": "12345678"}, "rin"), ({"rin": "12345678a"}, "rin"),
                        ({"activity_code": "462"}, "activity_code"), ({"activity_code": "46a0"}, "activity_code"),
                        ({"client_secret": ""}, "client_secret"),
                        ({"branch": {**branch, "address": {**branch["address"], "country": "SA"}}},
                         "branch.address.country"),
                        ({"branch": {"id": "0", "address": {"country": "EG"}}}, "branch.address.governate"),
                        ({"certificate": "-----BEGIN CERTIFICATE-----"}, "private_key"),
                        ({"certificate": "x", "private_key": "y"}, "private_key"),
                        ({"receipts": "some"}, "receipts"), ({"colour": "red"}, "colour")):
        status, out = await call(client, "POST", "/api/einvoicing/eta/setup", merchant.sk, {**SETUP, **over})
        assert status == 400 and out["error"]["param"] == param, (param, out)
        assert "s3cr3t" not in json.dumps(out)
    status, unit = await call(client, "GET", "/api/einvoicing/eta", merchant.sk)
    assert status == 200 and unit["status"] == "not_set_up" and unit["id"] is None
    assert await EinvoiceUnit.filter(merchant_id=merchant.id).count() == 0


async def test_setup_keeps_secrets_sealed_and_shows_the_certificate(client, merchant):
    unit = await setup(client, merchant.sk)
    assert (unit["object"], unit["status"], unit["rin"], unit["activity_code"]) == ("eta_unit", "active", "100200300", "4620")
    assert unit["certificate_self_signed"] is True and len(unit["certificate_serial"]) > 8
    assert unit["certificate_expires_at"] > "2027" and unit["receipts"] == "on_request"
    status, again = await call(client, "GET", "/api/einvoicing/eta", merchant.sk)
    assert status == 200 and again == unit
    row = await EinvoiceUnit.get(merchant_id=merchant.id, authority="eta")
    assert row.secrets_enc.startswith("v1.") and "PRIVATE" not in row.secrets_enc and "s3cr3t" not in row.secrets_enc
    assert "s3cr3t" not in json.dumps(row.settings) and "PRIVATE" not in json.dumps(row.settings)
    assert "erp-client-1" not in json.dumps(row.settings)
    text = json.dumps(unit) + json.dumps(again)
    assert "s3cr3t" not in text and "PRIVATE" not in text and "erp-client-1" not in text
    events = await Event.filter(merchant_id=merchant.id).values_list("data", flat=True)
    assert not any("s3cr3t" in json.dumps(e) or "PRIVATE" in json.dumps(e) for e in events)
    # the merchant's own certificate: kept as given, its key sealed
    mat = signing.self_signed(rin="100200300", name="Own", now=row.created_at)
    own = await setup(client, merchant.sk, certificate=signing.certificate_pem(mat.certificate),
                      private_key=signing.private_pem(mat.private_key))
    assert own["certificate_self_signed"] is False and own["certificate_serial"] == format(mat.certificate.serial_number, "x")
    assert own["id"] == unit["id"]
    other = signing.self_signed(rin="100200300", name="Other", now=row.created_at)
    status, out = await call(client, "POST", "/api/einvoicing/eta/setup", merchant.sk,
                             {**SETUP, "certificate": signing.certificate_pem(mat.certificate),
                              "private_key": signing.private_pem(other.private_key)})
    assert status == 400 and out["error"]["param"] == "private_key" and "PRIVATE" not in json.dumps(out)


async def test_live_mode_needs_a_certificate(client, merchant):
    from services.identity import auth
    session = await auth.open_session(await Member.get(merchant_id=merchant.id))
    live = await (await client.post("/api/api-keys", json={"mode": "live"},
                                    headers={"Authorization": f"Bearer {session.token}"})).json()
    status, out = await call(client, "POST", "/api/einvoicing/eta/setup", live["key"], SETUP)
    assert status == 400 and out["error"]["param"] == "certificate"


# ---------------------------------------------------------------- e-invoices

def _lines(doc):
    return doc["invoiceLines"]


async def test_egp_invoice_of_an_eg_rin_customer_is_signed_submitted_and_valid(client, merchant):
    await setup(client, merchant.sk)
    cid = await rin_customer(client, merchant.sk)
    inv = await egp_invoice(client, merchant.sk, cid)
    assert inv["eta"] is None and (inv["subtotal"], inv["tax"], inv["total"]) == (6000, 840, 6840)
    assert inv["items"][0] == {"name": "Widget", "amount": 1999, "quantity": 3, "item_code": "W-1"}
    paid = await mark_paid(client, merchant.sk, inv["id"])
    e = paid["eta"]
    assert e["status"] == "valid" and e["errors"] == [] and e["type"] == "I" and e["internal_id"] == inv["number"]
    assert len(e["uuid"]) == 26 and e["long_id"] and e["submission_id"]

    status, out = await call(client, "GET", f"/api/invoices/{inv['id']}/eta", merchant.sk)
    assert status == 200 and out["uuid"] == e["uuid"] and out["status"] == "valid"
    doc = out["document"]
    assert (doc["documentType"], doc["documentTypeVersion"], doc["taxpayerActivityCode"]) == ("I", "1.0", "4620")
    assert doc["issuer"]["id"] == "100200300" and doc["issuer"]["address"]["branchID"] == "0"
    assert doc["receiver"] == {"address": {"country": "EG", "governate": "Giza", "regionCity": "Dokki",
                                           "street": "Tahrir", "buildingNumber": "7"},
                               "type": "B", "id": "200300400", "name": "Delta Buyers LLC"}
    assert doc["dateTimeIssued"].endswith("Z") and doc["internalID"] == inv["number"]
    w, g = _lines(doc)
    assert (w["itemType"], w["itemCode"], w["unitType"]) == ("EGS", "EG-100200300-W-1", "EA")      # defaults
    assert (g["itemType"], g["itemCode"], g["unitType"]) == ("GS1", "10001774", "KGM")
    assert w["unitValue"] == {"currencySold": "EGP", "amountEGP": 19.99} and w["quantity"] == 3
    assert (w["salesTotal"], w["netTotal"], w["total"]) == (59.97, 59.97, 68.3658)
    assert w["taxableItems"] == [{"taxType": "T1", "amount": 8.3958, "subType": "V009", "rate": 14}]
    assert g["taxableItems"][0]["amount"] == 0.0042 and g["total"] == 0.0342
    assert (doc["totalSalesAmount"], doc["netAmount"], doc["totalAmount"]) == (60, 60, 68.4)
    assert doc["taxTotals"] == [{"taxType": "T1", "amount": 8.4}]

    # the body as stored is the JSON as submitted: amounts with ETA's 5 decimals, signed
    row = await EinvoiceDocument.get(invoice_id=inv["id"], kind="invoice")
    assert '"amountEGP":19.99000' in row.body and '"totalAmount":68.40000' in row.body
    submitted = canonical.loads(row.body)
    sig = submitted.pop("signatures")
    assert [s["signatureType"] for s in sig] == ["I"]
    serialized = canonical.serialize(submitted)
    problems, cert = signing.verify(serialized, sig[0]["value"])
    assert problems == [] and format(cert.serial_number, "x") == (await call(
        client, "GET", "/api/einvoicing/eta", merchant.sk))[1]["certificate_serial"]
    assert signing.verify(serialized.replace("Widget", "Wodget"), sig[0]["value"])[0]
    if shutil.which("openssl"):       # an independent CMS verifier agrees
        tmp = pathlib.Path(f"/tmp/eta-{row.id}")
        tmp.mkdir(exist_ok=True)
        (tmp / "sig.der").write_bytes(base64.b64decode(sig[0]["value"]))
        (tmp / "data.txt").write_text(serialized, "utf-8")
        res = subprocess.run(["openssl", "cms", "-verify", "-inform", "DER", "-in", str(tmp / "sig.der"), "-binary",
                              "-content", str(tmp / "data.txt"), "-noverify", "-out", "/dev/null"],
                             capture_output=True, text=True)
        shutil.rmtree(tmp)
        assert res.returncode == 0, res.stderr
    # served as JSON on /xml too (the core's document route), and on notes' routes
    r = await client.get(f"/api/invoices/{inv['id']}/xml", headers={"Authorization": f"Bearer {merchant.sk}"})
    assert r.status == 200 and r.headers["Content-Type"].startswith("application/json")
    assert json.loads(await r.text())["internalID"] == inv["number"]
    updates = await Event.filter(merchant_id=merchant.id, type="invoice.updated").order_by("created_at")
    assert [u.data["eta"]["status"] for u in updates] == ["pending", "valid"]
    assert (await EinvoiceUnit.get(merchant_id=merchant.id)).seq == 1


async def test_a_receiver_eta_does_not_know_is_invalid_with_etas_errors(client, merchant):
    await setup(client, merchant.sk)
    cid = await rin_customer(client, merchant.sk, rin="999999999")
    inv = await egp_invoice(client, merchant.sk, cid)
    paid = await mark_paid(client, merchant.sk, inv["id"])
    e = paid["eta"]
    assert e["status"] == "invalid" and e["uuid"]
    assert e["errors"] == [{"path": "receiver.id", "code": "ReceiverNotRegistered",
                            "message": "Receiver registration number 999999999 is not a registered, active taxpayer"}]
    status, out = await call(client, "POST", f"/api/invoices/{inv['id']}/credit-notes", merchant.sk,
                             {"reason": "Wrong"})
    assert status == 400 and out["error"]["code"] == "invalid_state" and "it is invalid" in out["error"]["detail"], out


async def test_bad_invoice_input_is_a_400_naming_the_field_and_nothing_is_written(client, merchant):
    await setup(client, merchant.sk)
    cid = await rin_customer(client, merchant.sk)
    for item, param in (({"item_type": "UPC"}, "items[0].item_type"), ({"unit_type": "E A"}, "items[0].unit_type"),
                        ({"item_code": "no spaces"}, "items[0].item_code")):
        status, out = await call(client, "POST", "/api/invoices", merchant.sk,
                                 {"customer_id": cid, "currency": "EGP", "items": [{**ITEMS[0], **item}]})
        assert status == 400 and out["error"]["param"] == param, out
    no_code = await egp_invoice(client, merchant.sk, cid, items=[ITEMS[0], {"name": "Thing", "amount": 100}])
    status, out = await call(client, "PUT", f"/api/invoices/{no_code['id']}/mark-paid", merchant.sk)
    assert status == 400 and out["error"]["param"] == "items[1].item_code", out
    other_rate = await egp_invoice(client, merchant.sk, cid, tax_rate=10)
    status, out = await call(client, "PUT", f"/api/invoices/{other_rate['id']}/mark-paid", merchant.sk)
    assert status == 400 and out["error"]["param"] == "tax_rate", out
    for i in (no_code, other_rate):
        stored = await Invoice.get(id=i["id"])
        assert stored.status == "draft" and stored.eta is None
    assert await EinvoiceDocument.filter(merchant_id=merchant.id).count() == 0
    assert (await EinvoiceUnit.get(merchant_id=merchant.id)).seq == 0
    # another currency is ETA's too, and needs its EGP rate: never a silent skip
    status, lira = await call(client, "POST", "/api/invoices", merchant.sk,
                              {"customer_id": cid, "currency": "TRY", "items": [{"name": "X", "amount": 100}]})
    out = await mark_paid(client, merchant.sk, lira["id"], expect=400)
    assert (out["error"]["param"], out["error"]["code"]) == ("currency", "exchange_rate_missing"), out
    assert (await Invoice.get(id=lira["id"])).status == "draft"
    # not ETA's: a customer without an Egyptian tax id
    status, plain = await call(client, "POST", "/api/customers", merchant.sk, {"name": "Walk-in"})
    inv = await egp_invoice(client, merchant.sk, plain["id"], items=[{"name": "X", "amount": 100}])
    assert (await mark_paid(client, merchant.sk, inv["id"]))["eta"] is None


async def test_eta_down_then_up_the_job_submits_later_and_loses_nothing(client, merchant):
    await setup(client, merchant.sk)
    cid = await rin_customer(client, merchant.sk)
    status, out = await call(client, "POST", "/api/test-helpers/einvoicing/outage", merchant.sk,
                             {"authority": "eta", "minutes": 90})
    assert status == 200, out
    ids = [(await egp_invoice(client, merchant.sk, cid))["id"] for _ in range(2)]
    for i in ids:
        assert (await mark_paid(client, merchant.sk, i))["eta"]["status"] == "pending"
    docs = await EinvoiceDocument.filter(merchant_id=merchant.id).order_by("seq")
    assert [d.seq for d in docs] == [1, 2] and all(d.status == "pending" and d.attempts == 1 for d in docs)
    assert docs[0].messages[0]["code"] == "eta_unavailable"
    # 60 minutes: still down (attempt 2 at +1 min, 3 at +6, 4 at +21, 5 at +51); at 1 day: up
    await advance(client, merchant.sk, days=1)
    for i in ids:
        status, inv = await call(client, "GET", f"/api/invoices/{i}", merchant.sk)
        assert inv["eta"]["status"] == "valid", inv["eta"]
    docs = await EinvoiceDocument.filter(merchant_id=merchant.id).order_by("seq")
    assert all(d.attempts >= 5 and d.next_attempt_at is None for d in docs)


async def test_numbers_are_gapless_under_concurrent_finalisation(client, merchant):
    await setup(client, merchant.sk)
    cid = await rin_customer(client, merchant.sk)
    ids = [(await egp_invoice(client, merchant.sk, cid, items=[ITEMS[0]]))["id"] for _ in range(12)]
    results = await asyncio.gather(*(call(client, "PUT", f"/api/invoices/{i}/mark-paid", merchant.sk) for i in ids),
                                   *(call(client, "PUT", f"/api/invoices/{i}/mark-paid", merchant.sk) for i in ids[:4]))
    # each invoice is paid once (a second mark-paid of the same invoice: 400 already paid)
    assert sorted(s for s, _ in results) == [200] * 12 + [400] * 4
    assert all(out["error"]["code"] == "invalid_state" for s, out in results if s == 400)
    docs = await EinvoiceDocument.filter(merchant_id=merchant.id).order_by("seq")
    assert [d.seq for d in docs] == list(range(1, 13)) and len({d.invoice_id for d in docs}) == 12
    assert (await EinvoiceUnit.get(merchant_id=merchant.id)).seq == 12


# ---------------------------------------------------------------- notes and cancellation

async def test_credit_and_debit_notes_refer_to_the_original_and_are_listed(client, merchant):
    await setup(client, merchant.sk)
    cid = await rin_customer(client, merchant.sk)
    inv = await mark_paid(client, merchant.sk, (await egp_invoice(client, merchant.sk, cid))["id"])
    status, c = await call(client, "POST", f"/api/invoices/{inv['id']}/credit-notes", merchant.sk,
                           {"amount": 1140, "reason": "Returned goods"})
    assert status == 200, c
    assert (c["object"], c["kind"], c["amount"], c["tax"], c["number"]) == ("eta_document", "credit_note", 1140, 140,
                                                                            f"{inv['number']}-C1")
    assert c["eta"]["status"] == "valid" and c["eta"]["type"] == "C"
    status, d = await call(client, "POST", f"/api/invoices/{inv['id']}/debit-notes", merchant.sk,
                           {"amount": 228, "reason": "Freight"})
    assert status == 200 and d["eta"]["type"] == "D" and d["number"] == f"{inv['number']}-D1"
    status, out = await call(client, "GET", f"/api/invoices/{inv['id']}/eta", merchant.sk)
    notes = out["notes"]
    assert [n["document"]["documentType"] for n in notes] == ["C", "D"]
    assert all(n["document"]["references"] == [inv["eta"]["uuid"]] for n in notes)
    assert notes[0]["document"]["totalAmount"] == 11.4 and notes[0]["document"]["taxTotals"][0]["amount"] == 1.4
    status, listed = await call(client, "GET", f"/api/invoices/{inv['id']}/notes", merchant.sk)
    assert [(n["kind"], n["eta"]["status"]) for n in listed["data"]] == [("credit_note", "valid"), ("debit_note", "valid")]
    r = await client.get(f"/api/invoices/{inv['id']}/notes/{c['id']}/xml",
                         headers={"Authorization": f"Bearer {merchant.sk}"})
    assert r.status == 200 and json.loads(await r.text())["documentType"] == "C"
    status, out = await call(client, "POST", f"/api/invoices/{inv['id']}/credit-notes", merchant.sk,
                             {"amount": 6000, "reason": "Too much"})
    assert status == 400 and out["error"]["param"] == "amount"
    assert [d.seq for d in await EinvoiceDocument.filter(merchant_id=merchant.id).order_by("seq")] == [1, 2, 3]


async def test_cancel_a_valid_einvoice_with_a_reason_within_the_window(client, merchant):
    await setup(client, merchant.sk)
    cid = await rin_customer(client, merchant.sk)
    inv = await mark_paid(client, merchant.sk, (await egp_invoice(client, merchant.sk, cid))["id"])
    status, out = await call(client, "POST", f"/api/invoices/{inv['id']}/cancel-einvoice", merchant.sk, {})
    assert status == 400 and out["error"]["param"] == "reason"
    status, out = await call(client, "POST", f"/api/invoices/{inv['id']}/cancel-einvoice", merchant.sk,
                             {"reason": "Issued twice"})
    assert status == 200 and out["eta"]["status"] == "cancelled", out
    status, out = await call(client, "POST", f"/api/invoices/{inv['id']}/cancel-einvoice", merchant.sk,
                             {"reason": "Again"})
    assert status == 400 and out["error"]["code"] == "invalid_state"
    late = await mark_paid(client, merchant.sk, (await egp_invoice(client, merchant.sk, cid))["id"])
    await call(client, "POST", "/api/test-helpers/advance-clock", merchant.sk, {"days": 8})
    status, out = await call(client, "POST", f"/api/invoices/{late['id']}/cancel-einvoice", merchant.sk,
                             {"reason": "Late"})
    assert status == 400 and out["error"]["code"] == "eta_cancel_refused" and "7 days" in out["error"]["detail"]
    assert (await call(client, "GET", f"/api/invoices/{late['id']}", merchant.sk))[1]["eta"]["status"] == "valid"


async def test_another_merchant_sees_nothing(client, merchant, make_merchant):
    await setup(client, merchant.sk)
    cid = await rin_customer(client, merchant.sk)
    inv = await mark_paid(client, merchant.sk, (await egp_invoice(client, merchant.sk, cid))["id"])
    other = await make_merchant()
    for method, path, body in (("GET", f"/api/invoices/{inv['id']}/eta", None),
                               ("POST", f"/api/invoices/{inv['id']}/cancel-einvoice", {"reason": "x"})):
        status, out = await call(client, method, path, other.sk, body)
        assert status == 404, out
    status, unit = await call(client, "GET", "/api/einvoicing/eta", other.sk)
    assert unit["status"] == "not_set_up"


# ---------------------------------------------------------------- GraphQL twins

async def gql(client, query, variables=None, key=None):
    status, out = await _gql(client, query, variables, key=key)
    assert status == 200 and not out.get("errors"), out
    return out


async def test_graphql_twins(client, merchant):
    setup_m = """mutation($input: EtaSetupInput!) { etaSetup(input: $input) {
      unit { status rin activityCode branch { id address { governate regionCity } } certificateSerial receipts }
      userErrors { code field message } } }"""
    inp = {"rin": SETUP["rin"], "name": SETUP["name"], "activityCode": "4620", "clientId": "erp-client-1",
           "clientSecret": "s3cr3t-erp-secret-value",
           "branch": {"id": "0", "address": {"country": "EG", "governate": "Cairo", "regionCity": "Nasr City",
                                             "street": "Abbas El Akkad", "buildingNumber": "12"}}}
    bad = await gql(client, setup_m, {"input": {**inp, "rin": "12"}}, key=merchant.sk)
    assert bad["data"]["etaSetup"]["unit"] is None
    assert bad["data"]["etaSetup"]["userErrors"][0]["field"] == "rin"
    out = await gql(client, setup_m, {"input": inp}, key=merchant.sk)
    unit = out["data"]["etaSetup"]["unit"]
    assert unit["status"] == "active" and unit["branch"]["address"]["regionCity"] == "Nasr City"
    assert "s3cr3t" not in json.dumps(out)
    q = await gql(client, "{ etaUnit { rin documentsIssued certificateSerial } }", key=merchant.sk)
    assert q["data"]["etaUnit"] == {"rin": "100200300", "documentsIssued": 0,
                                    "certificateSerial": unit["certificateSerial"]}
    cid = await rin_customer(client, merchant.sk)
    inv = await mark_paid(client, merchant.sk, (await egp_invoice(client, merchant.sk, cid))["id"])
    note = await gql(client, """mutation($input: EtaNoteInput!) { invoiceEtaNote(input: $input) {
      note { kind amount tax eta { type status } } userErrors { code field message } } }""",
                     {"input": {"invoiceId": inv["id"], "kind": "credit_note", "amount": 1140, "reason": "Return"}},
                     key=merchant.sk)
    assert note["data"]["invoiceEtaNote"]["note"] == {"kind": "credit_note", "amount": 1140, "tax": 140,
                                                      "eta": {"type": "C", "status": "valid"}}
    got = await gql(client, """query($id: ID!) { invoice(id: $id) { items { itemCode itemType unitType }
      eta { status uuid type errors { path } } notes { kind eta { status } } } }""", {"id": inv["id"]}, key=merchant.sk)
    i = got["data"]["invoice"]
    assert i["eta"] == {"status": "valid", "uuid": inv["eta"]["uuid"], "type": "I", "errors": []}
    assert i["items"][1] == {"itemCode": "10001774", "itemType": "GS1", "unitType": "KGM"}
    assert i["notes"] == [{"kind": "credit_note", "eta": {"status": "valid"}}]
    cancel = await gql(client, """mutation($input: EinvoiceCancelInput!) { invoiceCancelEinvoice(input: $input) {
      eta { status } userErrors { code field } } }""", {"input": {"invoiceId": inv["id"], "reason": "Twice"}},
                       key=merchant.sk)
    assert cancel["data"]["invoiceCancelEinvoice"]["eta"] == {"status": "cancelled"}


# ---------------------------------------------------------------- refunds of invoiced payments

async def test_refund_of_a_payment_that_paid_an_eta_invoice_issues_a_credit_note(client, merchant):
    from tests.billing_fixtures import customer
    from tests.eta_fixtures import ADDRESS

    await setup(client, merchant.sk, default_item_code="SUB-PRO", receipts="all")
    cid = await customer(client, merchant.sk, currency="EGP")          # a saved card, paid in EGP
    status, c = await call(client, "PUT", f"/api/customers/{cid}", merchant.sk,
                           {"tax_id": {"type": "eg_rin", "value": "200300400"}, "metadata": ADDRESS})
    assert status == 200 and c["tax_id"]["value"] == "200300400", c
    status, sub = await call(client, "POST", "/api/subscriptions", merchant.sk,
                             {"customer_id": cid, "plan": "Pro", "amount": 11400, "currency": "EGP", "interval": "month"})
    assert status == 200, sub
    status, inv = await call(client, "GET", f"/api/invoices/{sub['latest_invoice']}", merchant.sk)
    assert inv["status"] == "paid" and inv["eta"]["status"] == "valid" and inv["payment_id"]
    doc = (await call(client, "GET", f"/api/invoices/{inv['id']}/eta", merchant.sk))[1]["document"]
    assert doc["invoiceLines"][0]["itemCode"] == "EG-100200300-SUB-PRO"
    status, r = await call(client, "POST", f"/api/payments/{inv['payment_id']}/refund", merchant.sk,
                           {"amount": 5700, "reason": "Downgrade"})
    assert status == 200, r
    notes = await EinvoiceDocument.filter(invoice_id=inv["id"], kind="credit_note")
    assert len(notes) == 1 and (notes[0].amount, notes[0].reason, notes[0].status) == (5700, "Downgrade", "valid")
    assert canonical.loads(notes[0].body)["references"] == [inv["eta"]["uuid"]]
    status, again = await call(client, "GET", f"/api/invoices/{inv['id']}", merchant.sk)
    assert [(n["kind"], n["amount"], n["eta"]["type"]) for n in again["notes"]] == [("credit_note", 5700, "C")]
    # a B2B payment is on its e-invoice, not on an e-receipt
    await advance(client, merchant.sk, days=1)
    assert not await EinvoiceDocument.filter(payment_id=inv["payment_id"]).exists()


async def test_no_secret_or_key_in_a_log_line(client, merchant, caplog):
    import logging
    caplog.set_level(logging.DEBUG)
    unit = await setup(client, merchant.sk)
    await call(client, "POST", "/api/test-helpers/einvoicing/outage", merchant.sk, {"authority": "eta", "minutes": 10})
    cid = await rin_customer(client, merchant.sk)
    inv = await mark_paid(client, merchant.sk, (await egp_invoice(client, merchant.sk, cid))["id"])
    assert inv["eta"]["status"] == "pending"
    await advance(client, merchant.sk, days=1)
    assert (await call(client, "GET", f"/api/invoices/{inv['id']}", merchant.sk))[1]["eta"]["status"] == "valid"
    text = caplog.text
    assert unit["id"] in text                              # the requests were logged (the driver's too)
    for secret in ("s3cr3t-erp-secret-value", "erp-client-1", "PRIVATE KEY"):
        assert secret not in text


# ---------------------------------------------------------------- the simulator checks what ETA checks

async def test_the_simulator_refuses_what_eta_refuses(client, merchant):
    from datetime import datetime, timezone

    from services.einvoicing.eta import simulator

    await setup(client, merchant.sk)
    cid = await rin_customer(client, merchant.sk)
    inv = await mark_paid(client, merchant.sk, (await egp_invoice(client, merchant.sk, cid))["id"])
    row = await EinvoiceDocument.get(invoice_id=inv["id"], kind="invoice")
    unit = await EinvoiceUnit.get(id=row.unit_id)
    now = datetime.now(timezone.utc)
    _, tok = await simulator.token({"grant_type": "client_credentials", "client_id": "c", "client_secret": "s"})
    auth = {"Authorization": f"Bearer {tok['access_token']}"}
    assert (await simulator.submit_documents({}, {"documents": []}, now))[0] == 401

    async def outcome(doc: dict) -> tuple[str, list]:
        status, out = await simulator.submit_documents(auth, {"documents": [doc]}, now)
        assert status == 202, out
        if out["rejectedDocuments"]:
            return "rejected", [d["propertyPath"] for d in out["rejectedDocuments"][0]["error"]["details"]]
        _, st = await simulator.document_status(auth, out["acceptedDocuments"][0]["uuid"])
        return st["status"], [e["propertyPath"] for s in st["validationResults"]["validationSteps"]
                              for e in ((s["error"] or {}).get("innerError") or [])]

    submitted = canonical.loads(row.body)
    assert await outcome(submitted) == ("Valid", [])
    # a document changed after signing: its signature no longer verifies
    tampered = canonical.loads(row.body)
    tampered["invoiceLines"][0]["description"] = "Changed"
    assert await outcome(tampered) == ("Invalid", ["signatures[0].value"])
    # re-signed but wrong arithmetic: the line's VAT and the totals are checked
    from services.einvoicing.eta import documents
    bad = canonical.loads(row.body)
    del bad["signatures"]
    bad["invoiceLines"][0]["taxableItems"][0]["amount"] = canonical.Number("8.39000")
    status, paths = await outcome(canonical.loads(documents.signed_body(bad, unit, now)))
    assert (status, paths) == ("Invalid", ["invoiceLines[0].taxableItems[0].amount", "invoiceLines[0].total"])
    bad = canonical.loads(row.body)
    del bad["signatures"]
    bad["totalAmount"] = canonical.Number("68.41000")
    assert await outcome(canonical.loads(documents.signed_body(bad, unit, now))) == ("Invalid", ["totalAmount"])
    # an EGS code of another issuer
    bad = canonical.loads(row.body)
    del bad["signatures"]
    bad["invoiceLines"][0]["itemCode"] = "EG-999000111-W-1"
    assert await outcome(canonical.loads(documents.signed_body(bad, unit, now))) == \
        ("Invalid", ["invoiceLines[0].itemCode"])
    # a bad structure is rejected at submission
    bad = canonical.loads(row.body)
    bad["documentTypeVersion"] = "0.9"
    del bad["internalID"]
    assert await outcome(bad) == ("rejected", ["internalID"])
    # a note must refer to a valid document of the same issuer
    bad = canonical.loads(row.body)
    del bad["signatures"]
    bad["documentType"], bad["references"] = "C", ["NOSUCHDOCUMENT"]
    assert await outcome(canonical.loads(documents.signed_body(bad, unit, now))) == ("Invalid", ["references[0]"])


async def test_the_simulator_over_http(client, merchant):
    await setup(client, merchant.sk)
    cid = await rin_customer(client, merchant.sk)
    inv = await mark_paid(client, merchant.sk, (await egp_invoice(client, merchant.sk, cid))["id"])
    body = (await EinvoiceDocument.get(invoice_id=inv["id"], kind="invoice")).body
    r = await client.post("/sandbox/eta/connect/token", data={"grant_type": "client_credentials",
                                                               "client_id": "erp", "client_secret": "x"})
    assert r.status == 200
    auth = {"Authorization": "Bearer " + (await r.json())["access_token"], "Content-Type": "application/json"}
    r = await client.post("/sandbox/eta/api/v1/documentsubmissions", data='{"documents": [' + body + ']}',
                          headers=auth)
    out = await r.json()
    assert r.status == 202 and len(out["acceptedDocuments"]) == 1, out
    uuid = out["acceptedDocuments"][0]["uuid"]
    r = await client.get(f"/sandbox/eta/api/v1/documents/{uuid}/raw", headers=auth)
    assert r.status == 200 and (await r.json())["status"] == "Valid"
    r = await client.put(f"/sandbox/eta/api/v1.0/documents/state/{uuid}/state",
                         json={"status": "cancelled", "reason": "test"}, headers=auth)
    assert r.status == 200
    r = await client.get(f"/sandbox/eta/api/v1/documents/{uuid}/raw", headers=auth)
    assert (await r.json())["status"] == "Cancelled"
    r = await client.post("/sandbox/eta/api/v1/documentsubmissions", data="[]", headers=auth)
    assert r.status == 400
    r = await client.post("/sandbox/eta/api/v1/receiptsubmissions", json={"receipts": []})
    assert r.status == 401
