"""ETA e-receipts through the real app: a request written with the EGP payment, the receipt
built and chained by the scheduler (uuid = SHA-256 of the canonical receipt with an empty uuid,
previousUUID the unit's last), submitted in batches, retried while ETA is down, return receipts
on refunds, the QR URL, settings all / on_request, bad input, and a chain that never forks under
concurrent payments and builders."""
from __future__ import annotations

import asyncio
import hashlib

from models.einvoicing import EinvoiceDocument, EinvoiceRequest, EinvoiceUnit
from services.einvoicing.eta import canonical, receipts
from tests.billing_fixtures import call
from tests.conftest import gql
from tests.eta_fixtures import setup
from tests.payments_fixtures import APPROVED, card


async def pay(client, key, amount=1000, currency="EGP", expect=200, **over):
    status, p = await call(client, "POST", "/api/payments/create", key,
                           {"amount": amount, "currency": currency, "payment_method": card(APPROVED), **over})
    assert status == expect, p
    return p


async def run_jobs(client, key, **body):
    status, out = await call(client, "POST", "/api/test-helpers/advance-clock", key, body or {"days": 1})
    assert status == 200, out
    return [r for r in out["ran"] if r["kind"].startswith("eta.")]


async def receipt(client, key, pid, expect=200):
    status, out = await call(client, "GET", f"/api/payments/{pid}/eta-receipt", key)
    assert status == expect, out
    return out


def check_uuid(r: dict) -> None:
    blank = {**r, "header": {**r["header"], "uuid": ""}}
    assert r["header"]["uuid"] == hashlib.sha256(canonical.serialize(blank).encode("utf-8")).hexdigest()


async def test_every_egp_payment_gets_a_chained_receipt_built_and_submitted_by_the_scheduler(client, merchant, clock):
    await setup(client, merchant.sk, receipts="all")
    first = await pay(client, merchant.sk, amount=1000, description="Coffee beans")
    clock.advance(1)                                          # the requests are built in payment order
    assert first["eta_receipt"] is None                     # nothing built on the payment's request
    assert await EinvoiceDocument.filter(merchant_id=merchant.id).count() == 0
    assert await EinvoiceRequest.filter(merchant_id=merchant.id).count() == 1
    second = await pay(client, merchant.sk, amount=11400)
    await pay(client, merchant.sk, amount=500, currency="SAR")          # not Egyptian: no request
    ran = await run_jobs(client, merchant.sk)
    assert [r["kind"] for r in ran] == ["eta.receipt_build", "eta.receipt_build", "eta.receipt_submit"], ran
    assert await EinvoiceRequest.filter(merchant_id=merchant.id).count() == 0

    r1 = await receipt(client, merchant.sk, first["id"])
    r2 = await receipt(client, merchant.sk, second["id"])
    assert (r1["number"], r1["status"], r1["previous_uuid"]) == ("RCP-00000001", "valid", "")
    assert (r2["number"], r2["status"], r2["previous_uuid"]) == ("RCP-00000002", "valid", r1["uuid"])
    doc = r1["receipt"]
    h = doc["header"]
    assert (h["receiptNumber"], h["uuid"], h["previousUUID"], h["currency"]) == ("RCP-00000001", r1["uuid"], "", "EGP")
    assert doc["documentType"] == {"receiptType": "S", "typeVersion": "1.2"}
    assert doc["seller"]["rin"] == "100200300" and doc["seller"]["deviceSerialNumber"] == "POS-0001"
    assert doc["seller"]["activityCode"] == "4620" and doc["buyer"]["type"] == "P" and doc["paymentMethod"] == "V"
    item = doc["itemData"][0]
    assert item["description"] == "Coffee beans" and item["itemCode"] == "EG-100200300-PAYMENT"
    # 10.00 EGP, VAT 14% inside: 8.77193 + 1.22807, exactly the amount paid
    assert (item["netSale"], item["taxableItems"][0]["amount"], doc["totalAmount"]) == (8.77193, 1.22807, 10)
    assert r2["receipt"]["totalAmount"] == 114 and r2["receipt"]["taxTotals"] == [{"taxType": "T1", "amount": 14}]
    # the stored body hashes to its uuid, and the QR code is ETA's receipt URL with uuid and date
    row = await EinvoiceDocument.get(payment_id=first["id"])
    check_uuid(canonical.loads(row.body))
    assert r1["qr_url"] == (f"https://preprod.invoicing.eta.gov.eg/receipts/search/{r1['uuid']}/share/"
                            f"{h['dateTimeIssued']}#Total:10.00000,IssuerRIN:100200300")
    status, p = await call(client, "GET", f"/api/payments/{first['id']}", merchant.sk)
    assert p["eta_receipt"] == {"document_id": row.id, "uuid": r1["uuid"], "number": "RCP-00000001", "status": "valid",
                                "qr_url": r1["qr_url"], "amount": 1000, "returns": []}
    # the receipt page (and so its print) carries ETA's QR code; its text version the URL
    from tests.checkout_fixtures import path_of
    r = await client.get(path_of(p["receipt_url"]), headers={"Accept": "text/html"})
    html = await r.text()
    assert r.status == 200 and 'data-testid="receipt-eta-qr"' in html and "<svg" in html
    assert f'href="{r1["qr_url"]}"' in html.replace("&amp;", "&").replace("&#35;", "#")
    r = await client.get(path_of(p["receipt_url"]), headers={"Accept": "text/plain"})
    assert f"ETA e-receipt: {r1['qr_url']}" in await r.text()
    # one submission for both (a batch)
    docs = await EinvoiceDocument.filter(merchant_id=merchant.id).order_by("seq")
    assert len({d.external["submission_id"] for d in docs}) == 1
    unit = await EinvoiceUnit.get(merchant_id=merchant.id)
    assert (unit.receipt_seq, unit.chain_head, unit.seq) == (2, r2["uuid"], 0)
    status, out = await gql(client, """query($id: ID!) { payment(id: $id) { etaReceipt { uuid number status qrUrl
      returns { number } } } }""", {"id": first["id"]}, key=merchant.sk)
    assert status == 200 and out["data"]["payment"]["etaReceipt"] == {
        "uuid": r1["uuid"], "number": "RCP-00000001", "status": "valid", "qrUrl": r1["qr_url"], "returns": []}, out


async def test_on_request_only_payments_that_ask_and_bad_input(client, merchant, clock):
    await setup(client, merchant.sk)            # receipts: on_request (the default)
    plain = await pay(client, merchant.sk)
    asked = await pay(client, merchant.sk, eta_receipt=True)
    clock.advance(1)
    status, out = await gql(client, """mutation($input: PaymentCreateInput!) { paymentCreate(input: $input) {
      payment { etaReceipt { status uuid } } userErrors { field code } } }""",
                            {"input": {"amount": 1000, "currency": "EGP", "etaReceipt": True,
                                       "paymentMethod": {"card": {"number": APPROVED, "expMonth": 12, "expYear": 2030}}}}, key=merchant.sk)
    assert status == 200 and out["data"]["paymentCreate"]["payment"]["etaReceipt"] == {"status": "queued", "uuid": None}, out
    assert plain["eta_receipt"] is None
    assert asked["eta_receipt"] == {"uuid": None, "number": None, "status": "queued"}
    status, out = await call(client, "POST", "/api/payments/create", merchant.sk,
                             {"amount": 1000, "currency": "SAR", "payment_method": card(APPROVED), "eta_receipt": True})
    assert status == 400 and out["error"]["param"] == "eta_receipt"
    status, out = await call(client, "POST", "/api/payments/create", merchant.sk,
                             {"amount": 1000, "currency": "EGP", "payment_method": card(APPROVED), "eta_receipt": "yes"})
    assert status == 400 and out["error"]["param"] == "eta_receipt"
    await run_jobs(client, merchant.sk)
    await receipt(client, merchant.sk, plain["id"], expect=404)
    r = await receipt(client, merchant.sk, asked["id"])
    assert (r["number"], r["status"], r["previous_uuid"]) == ("RCP-00000001", "valid", "")
    status, p = await call(client, "GET", f"/api/payments/{plain['id']}", merchant.sk)
    assert p["eta_receipt"] is None


async def test_a_merchant_without_eta_never_gets_one(client, merchant, make_merchant):
    asked = await pay(client, merchant.sk, eta_receipt=True)
    await run_jobs(client, merchant.sk)
    status, p = await call(client, "GET", f"/api/payments/{asked['id']}", merchant.sk)
    assert p["eta_receipt"] == {"uuid": None, "number": None, "status": "not_issued", "reason": "no ETA unit"}
    assert await EinvoiceDocument.filter(merchant_id=merchant.id).count() == 0
    await setup(client, merchant.sk, receipts="all")
    mine = await pay(client, merchant.sk)
    await run_jobs(client, merchant.sk)
    other = await make_merchant()
    await receipt(client, other.sk, mine["id"], expect=404)


async def test_eta_down_receipts_wait_in_order_and_go_when_it_is_back(client, merchant, clock):
    await setup(client, merchant.sk, receipts="all")
    status, out = await call(client, "POST", "/api/test-helpers/einvoicing/outage", merchant.sk,
                             {"authority": "eta", "minutes": 120})
    assert status == 200
    ids = []
    for n in range(3):
        ids.append((await pay(client, merchant.sk, amount=1000 + n))["id"])
        clock.advance(1)
    await run_jobs_minutes(client, merchant.sk, 30)          # still down: built, chained, kept queued
    docs = await EinvoiceDocument.filter(merchant_id=merchant.id).order_by("seq")
    assert [d.status for d in docs] == ["queued"] * 3 and all(d.attempts >= 1 for d in docs)
    assert docs[0].messages[0]["code"] == "eta_unavailable"
    assert [d.previous for d in docs] == ["", docs[0].uuid, docs[1].uuid]
    status, p = await call(client, "GET", f"/api/payments/{ids[0]}", merchant.sk)
    assert p["eta_receipt"]["status"] == "queued" and p["eta_receipt"]["uuid"] == docs[0].uuid
    await run_jobs(client, merchant.sk)             # a day later: ETA is back
    docs = await EinvoiceDocument.filter(merchant_id=merchant.id).order_by("seq")
    assert [d.status for d in docs] == ["valid"] * 3 and len({d.external["submission_id"] for d in docs}) == 1


async def run_jobs_minutes(client, key, minutes: int):
    from datetime import datetime, timedelta
    status, c = await call(client, "GET", "/api/test-helpers/clock", key)
    to = datetime.fromisoformat(c["now"].replace("Z", "+00:00")) + timedelta(minutes=minutes)
    return await run_jobs(client, key, to=to.isoformat().replace("+00:00", "Z"))


async def test_a_refund_gets_a_return_receipt_on_the_chain(client, merchant, clock):
    await setup(client, merchant.sk, receipts="all")
    p = await pay(client, merchant.sk, amount=2280)
    await run_jobs(client, merchant.sk)
    status, r = await call(client, "POST", f"/api/payments/{p['id']}/refund", merchant.sk, {"amount": 1140})
    assert status == 200, r
    await run_jobs(client, merchant.sk)
    out = await receipt(client, merchant.sk, p["id"])
    assert len(out["returns"]) == 1
    ret = out["returns"][0]
    assert (ret["number"], ret["status"], ret["previous_uuid"], ret["amount"]) == ("RCP-00000002", "valid", out["uuid"], 1140)
    doc = ret["receipt"]
    assert doc["documentType"]["receiptType"] == "R" and doc["header"]["referenceUUID"] == out["uuid"]
    assert doc["totalAmount"] == 11.4
    status, pay_now = await call(client, "GET", f"/api/payments/{p['id']}", merchant.sk)
    assert [x["number"] for x in pay_now["eta_receipt"]["returns"]] == ["RCP-00000002"]


async def test_the_chain_never_forks_under_concurrent_payments_and_builders(client, merchant):
    await setup(client, merchant.sk, receipts="all")
    payments = await asyncio.gather(*(pay(client, merchant.sk, amount=1000 + n) for n in range(12)))
    requests = await EinvoiceRequest.filter(merchant_id=merchant.id).values_list("id", flat=True)
    assert len(requests) == 12
    from services.einvoicing import core
    when = await core.now_of(merchant.id, False)
    # every request built by two builders at once: each once, one chain
    outs = await asyncio.gather(*(receipts.build(r, when) for r in requests for _ in range(2)))
    assert sum(1 for o in outs if o is not None) == 12
    docs = await EinvoiceDocument.filter(merchant_id=merchant.id).order_by("seq")
    assert [d.seq for d in docs] == list(range(1, 13))
    assert [d.previous for d in docs] == [""] + [d.uuid for d in docs[:-1]]
    assert len({d.uuid for d in docs}) == 12 and {d.payment_id for d in docs} == {p["id"] for p in payments}
    unit = await EinvoiceUnit.get(merchant_id=merchant.id)
    assert (unit.receipt_seq, unit.chain_head) == (12, docs[-1].uuid)
    await run_jobs(client, merchant.sk)
    assert set(await EinvoiceDocument.filter(merchant_id=merchant.id).values_list("status", flat=True)) == {"valid"}


async def test_a_v1_payment_intent_asks_for_a_receipt_and_its_refund_gets_a_return(client, merchant, clock):
    from tests.intents_fixtures import confirm, create, post
    await setup(client, merchant.sk)                # on_request
    bad = await create(client, merchant.sk, amount=1000, currency="SAR", eta_receipt=True, expect=400)
    assert bad["error"]["param"] == "eta_receipt"
    i = await create(client, merchant.sk, amount=2280, currency="EGP", eta_receipt=True)
    assert i["eta_receipt"] == {"uuid": None, "number": None, "status": "queued"}
    done = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_visa")
    assert done["status"] == "succeeded", done
    plain = await create(client, merchant.sk, amount=1000, currency="EGP")
    await confirm(client, merchant.sk, plain["id"], payment_method_id="pm_card_visa")
    await run_jobs(client, merchant.sk)
    r = await receipt(client, merchant.sk, i["id"])
    assert (r["number"], r["status"], r["receipt"]["paymentMethod"], r["receipt"]["totalAmount"]) == \
        ("RCP-00000001", "valid", "V", 22.8)
    await receipt(client, merchant.sk, plain["id"], expect=404)
    status, got = await call(client, "GET", f"/v1/payments/{i['id']}", merchant.sk)
    assert got["eta_receipt"]["uuid"] == r["uuid"] and got["eta_receipt"]["status"] == "valid"
    clock.advance(60)
    refunded = await post(client, merchant.sk, f"/v1/payments/{i['id']}/refund", {"amount": 1140})
    assert refunded["amount_refunded"] == 1140, refunded
    await run_jobs(client, merchant.sk)
    r = await receipt(client, merchant.sk, i["id"])
    assert [(x["number"], x["status"], x["previous_uuid"]) for x in r["returns"]] == [("RCP-00000002", "valid", r["uuid"])]
    assert r["returns"][0]["receipt"]["header"]["referenceUUID"] == r["uuid"]
