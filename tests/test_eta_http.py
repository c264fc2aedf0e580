"""ETA over HTTP: a unit whose `base_url` is the simulator served by this very app under
/sandbox/eta speaks ETA's API through the runtime's HTTP sender -- the token a form POST, the
submission a POST of ETA's JSON text, the document's state a GET, the cancellation a PUT -- in
test mode and in live mode (whose status poll and cancellation used to answer 503)."""
from __future__ import annotations

from models.team import Member
from models.einvoicing import EinvoiceDocument, EinvoiceUnit
from services.einvoicing.eta import signing
from services.identity import auth
from tests.billing_fixtures import call
from tests.conftest import gql as _gql
from tests.eta_fixtures import SETUP, egp_invoice, mark_paid, rin_customer, setup


async def _sandbox_state(client, uuid: str) -> tuple[int, dict]:
    tok = await (await client.post("/sandbox/eta/connect/token",
                                   data={"grant_type": "client_credentials", "client_id": "c", "client_secret": "s"}
                                   )).json()
    r = await client.get(f"/sandbox/eta/api/v1/documents/{uuid}/raw",
                         headers={"Authorization": f"Bearer {tok['access_token']}"})
    return r.status, await r.json()


async def _valid_then_cancelled(client, key: str) -> None:
    cid = await rin_customer(client, key)
    inv = await egp_invoice(client, key, cid)
    paid = await mark_paid(client, key, inv["id"])
    e = paid["eta"]
    assert (e["status"], e["errors"]) == ("valid", []), e
    # the sandbox (reached over HTTP) holds the document the unit submitted, valid
    status, state = await _sandbox_state(client, e["uuid"])
    assert status == 200 and state["status"] == "Valid" and state["longId"] == e["long_id"], state
    status, out = await call(client, "POST", f"/api/invoices/{inv['id']}/cancel-einvoice", key,
                             {"reason": "Ordered twice"})
    assert status == 200 and out["eta"]["status"] == "cancelled", out
    status, state = await _sandbox_state(client, e["uuid"])
    assert state["status"] == "Cancelled"
    # a second cancellation: refused (the document is cancelled)
    status, out = await call(client, "POST", f"/api/invoices/{inv['id']}/cancel-einvoice", key, {"reason": "Again"})
    assert status == 400, out


async def test_a_test_unit_with_a_base_url_speaks_http_to_it(client, merchant):
    base = str(client.make_url("/sandbox/eta"))
    unit = await setup(client, merchant.sk, base_url=base + "/")
    assert unit["base_url"] == base
    await _valid_then_cancelled(client, merchant.sk)
    row = await EinvoiceUnit.get(merchant_id=merchant.id, authority="eta")
    assert row.settings["base_url"] == base
    status, out = await _gql(client, "{ etaUnit { baseUrl rin } }", key=merchant.sk)
    assert status == 200 and out["data"]["etaUnit"] == {"baseUrl": base, "rin": SETUP["rin"]}, out


async def test_a_live_unit_polls_and_cancels_over_http(client, merchant):
    session = await auth.open_session(await Member.get(merchant_id=merchant.id))
    live = await (await client.post("/api/api-keys", json={"mode": "live"},
                                    headers={"Authorization": f"Bearer {session.token}"})).json()
    key = live["key"]
    from datetime import datetime, timezone
    mat = signing.self_signed(rin=SETUP["rin"], name=SETUP["name"], now=datetime.now(timezone.utc))
    pem = {"certificate": signing.certificate_pem(mat.certificate), "private_key": signing.private_pem(mat.private_key)}
    # live mode: https only
    status, out = await call(client, "POST", "/api/einvoicing/eta/setup", key,
                             {**SETUP, **pem, "base_url": str(client.make_url("/sandbox/eta"))})
    assert status == 400 and out["error"]["param"] == "base_url", out
    for bad in ("ftp://eta.example", "https://", "https://eta.example/?x=1"):
        status, out = await call(client, "POST", "/api/einvoicing/eta/setup", key, {**SETUP, **pem, "base_url": bad})
        assert status == 400 and out["error"]["param"] == "base_url", (bad, out)
    unit = await setup(client, key, **pem)
    assert unit["livemode"] is True and unit["base_url"] is None
    # the test server stands in for ETA's production hosts (plain HTTP on loopback, which setup refuses in live
    # mode): the unit's base is pointed at it, as an operator would point it at ETA's preprod
    row = await EinvoiceUnit.get(merchant_id=merchant.id, livemode=True, authority="eta")
    await EinvoiceUnit.filter(id=row.id).update(settings={**row.settings,
                                                          "base_url": str(client.make_url("/sandbox/eta"))})
    await _valid_then_cancelled(client, key)
    assert await EinvoiceDocument.filter(merchant_id=merchant.id, livemode=True, status="cancelled").count() == 1


async def test_eta_unreachable_over_http_leaves_the_document_pending(client, merchant):
    await setup(client, merchant.sk, base_url="http://127.0.0.1:9/eta")      # nothing listens
    cid = await rin_customer(client, merchant.sk)
    inv = await egp_invoice(client, merchant.sk, cid)
    paid = await mark_paid(client, merchant.sk, inv["id"])
    assert paid["status"] == "paid" and paid["eta"]["status"] == "pending", paid["eta"]
    doc = await EinvoiceDocument.get(invoice_id=inv["id"], kind="invoice")
    assert doc.status == "pending" and doc.messages and doc.messages[0]["code"] == "eta_unavailable"
