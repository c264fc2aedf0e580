"""CRM messaging: webhook verification, signature checks on the raw body, idempotent storage
linked by phone, the inbox grouped per customer, and sending through a local fake Graph API."""
from __future__ import annotations

import pytest
from aiohttp import web

from models.crm import Message
from tests.crm_fixtures import acct, crm, crm_runtime, dumps, make_account, new_email, sign  # noqa: F401

SECRET = "dev-messaging-app-secret"          # the test default of QAFILA_MESSAGING_APP_SECRET


def wa_payload(pnid: str, messages: list[dict] | None = None, statuses: list[dict] | None = None) -> dict:
    value = {"messaging_product": "whatsapp", "metadata": {"display_phone_number": "15550001111",
                                                           "phone_number_id": pnid}}
    if messages is not None:
        value["messages"] = messages
        value["contacts"] = [{"profile": {"name": "Someone"}, "wa_id": m["from"]} for m in messages]
    if statuses is not None:
        value["statuses"] = statuses
    return {"object": "whatsapp_business_account",
            "entry": [{"id": "WABA1", "changes": [{"field": "messages", "value": value}]}]}


def text(mid: str, frm: str, body: str, ts: int = 1767603600) -> dict:
    return {"from": frm, "id": mid, "timestamp": str(ts), "type": "text", "text": {"body": body}}


async def post_webhook(crm, payload: dict, secret: str = SECRET, signature: str | None = None):
    raw = dumps(payload)
    sig = signature if signature is not None else sign(raw, secret)
    return await crm.post("/api/messaging/webhook", data=raw,
                          headers={"Content-Type": "application/json", "X-Hub-Signature-256": sig})


async def with_number(crm, a, pnid: str | None = None) -> str:
    pnid = pnid or f"pn{new_email()[:12].replace('-', '').replace('@', '')}"
    r = await crm.put("/api/company", json={"phone_number_id": pnid}, headers=a.h)
    assert r.status == 200, await r.text()
    return pnid


async def test_webhook_verification(crm):
    r = await crm.get("/api/messaging/webhook?hub.mode=subscribe&hub.verify_token=dev-messaging-verify-token"
                      "&hub.challenge=1158201444")
    assert r.status == 200 and await r.text() == "1158201444"
    r = await crm.get("/api/messaging/webhook?hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1")
    assert r.status == 403 and (await r.json())["error"]["code"] == "verification_failed"
    r = await crm.get("/api/messaging/webhook?hub.mode=unsubscribe&hub.verify_token=dev-messaging-verify-token"
                      "&hub.challenge=1")
    assert r.status == 403


async def test_webhook_signature_is_required_and_checked_on_the_raw_body(crm, acct):
    pnid = await with_number(crm, acct)
    payload = wa_payload(pnid, [text("wamid.SIG1", "905551112233", "hello")])
    raw = dumps(payload)
    for sig in (None, "", "sha1=abc", "sha256=" + "0" * 64, sign(raw, "another-secret")):
        headers = {"Content-Type": "application/json"}
        if sig is not None:
            headers["X-Hub-Signature-256"] = sig
        r = await crm.post("/api/messaging/webhook", data=raw, headers=headers)
        assert r.status == 401, sig
        assert (await r.json())["error"]["code"] == "invalid_signature"
    # the same JSON re-serialised with other whitespace: the signature no longer matches
    r = await crm.post("/api/messaging/webhook", data=raw.replace(b",", b", "),
                       headers={"X-Hub-Signature-256": sign(raw, SECRET)})
    assert r.status == 401
    assert await Message.filter(company_id=acct.company_id).count() == 0
    r = await crm.post("/api/messaging/webhook", data=raw, headers={"X-Hub-Signature-256": sign(raw, SECRET)})
    assert r.status == 200 and (await r.json())["messages"] == 1


async def test_inbound_messages_are_stored_once_and_linked_by_phone(crm, acct):
    pnid = await with_number(crm, acct)
    r = await crm.post("/api/customers", json={"name": "Layla", "phone": "+905551112233"}, headers=acct.h)
    cid = (await r.json())["id"]
    payload = wa_payload(pnid, [text("wamid.A1", "905551112233", "Merhaba"), text("wamid.A2", "905559999999", "Hi")])
    r = await post_webhook(crm, payload)
    assert r.status == 200
    assert await r.json() == {"received": True, "messages": 2, "duplicates": 0, "statuses": 0, "ignored": 0}
    r = await post_webhook(crm, payload)                               # the platform retries
    assert (await r.json())["duplicates"] == 2
    rows = await Message.filter(company_id=acct.company_id).order_by("platform_message_id")
    assert [(m.platform_message_id, m.customer_id, m.phone, m.body, m.direction) for m in rows] == [
        ("wamid.A1", cid, "+905551112233", "Merhaba", "inbound"),
        ("wamid.A2", None, "+905559999999", "Hi", "inbound")]
    # a customer created later picks up the earlier messages of its phone
    r = await crm.post("/api/customers", json={"name": "Late", "phone": "+905559999999"}, headers=acct.h)
    late = (await r.json())["id"]
    assert (await Message.get(platform_message_id="wamid.A2", company_id=acct.company_id)).customer_id == late


async def test_webhook_for_an_unknown_number_is_acknowledged_not_stored(crm, make_account):
    a = await make_account()
    r = await post_webhook(crm, wa_payload("pn-nobody", [text("wamid.X", "905551112233", "hi")]))
    assert r.status == 200 and (await r.json())["ignored"] == 1
    assert await Message.filter(platform_message_id="wamid.X").count() == 0
    r = await crm.post("/api/messaging/webhook", data=b"[1]", headers={"X-Hub-Signature-256": sign(b"[1]", SECRET)})
    assert r.status == 400


async def test_inbox_groups_per_customer_with_last_message_and_unread(crm, acct, make_account):
    pnid = await with_number(crm, acct)
    layla = (await (await crm.post("/api/customers", json={"name": "Layla", "phone": "+905551112233"},
                                   headers=acct.h)).json())["id"]
    omar = (await (await crm.post("/api/customers", json={"name": "Omar", "phone": "+971501234567"},
                                  headers=acct.h)).json())["id"]
    await post_webhook(crm, wa_payload(pnid, [
        text("wamid.1", "905551112233", "first", 1767603600),
        text("wamid.2", "971501234567", "salaam", 1767603700),
        text("wamid.3", "905551112233", "second", 1767603800),
        text("wamid.4", "966500000000", "unknown", 1767603650)]))
    r = await crm.get("/api/messaging/inbox", headers=acct.h)
    assert r.status == 200
    convs = (await r.json())["data"]
    assert [(c["customer_id"], c["phone"], c["last_message"]["text"], c["unread_count"], c["message_count"])
            for c in convs] == [(layla, "+905551112233", "second", 2, 2),
                                (omar, "+971501234567", "salaam", 1, 1),
                                (None, "+966500000000", "unknown", 1, 1)]
    assert convs[0]["customer"]["name"] == "Layla"
    r = await crm.post("/api/messaging/read", json={"customer_id": layla}, headers=acct.h)
    assert (await r.json())["marked"] == 2
    r = await crm.get("/api/messaging/inbox?unread=true", headers=acct.h)
    assert [c["customer_id"] for c in (await r.json())["data"]] == [omar, None]
    r = await crm.get("/api/messaging/inbox?limit=1", headers=acct.h)
    b = await r.json()
    assert len(b["data"]) == 1 and b["has_more"] is True and b["total_count"] == 3
    r = await crm.get(f"/api/messaging/inbox?limit=2&starting_after={b['next_cursor']}", headers=acct.h)
    assert [c["customer_id"] for c in (await r.json())["data"]] == [omar, None]
    other = await make_account()
    r = await crm.get("/api/messaging/inbox", headers=other.h)
    assert (await r.json())["data"] == []


@pytest.fixture
async def fake_graph(aiohttp_server):
    """A local fake of the platform's Graph API: records requests, answers like the real one."""
    seen: list[dict] = []
    state = {"fail": None}

    async def messages(request: web.Request):
        body = await request.json()
        seen.append({"path": request.path, "auth": request.headers.get("Authorization"), "body": body})
        if state["fail"]:
            return web.json_response({"error": {"message": "(#131030) Recipient not in allowed list",
                                                "type": "OAuthException", "code": 131030}}, status=400)
        return web.json_response({"messaging_product": "whatsapp",
                                  "contacts": [{"input": body["to"], "wa_id": body["to"]}],
                                  "messages": [{"id": f"wamid.OUT{len(seen)}"}]})

    app = web.Application()
    app.router.add_post("/{version}/{pnid}/messages", messages)
    server = await aiohttp_server(app)
    return server, seen, state


async def test_send_posts_to_the_graph_api_and_records_the_outcome(crm, crm_runtime, acct, fake_graph, clock):
    server, seen, state = fake_graph
    crm_runtime.config.messaging_graph_url = str(server.make_url("")).rstrip("/")
    crm_runtime.config.messaging_access_token = "EAAG-test-token"
    pnid = await with_number(crm, acct)
    cid = (await (await crm.post("/api/customers", json={"name": "Layla", "phone": "+905551112233"},
                                 headers=acct.h)).json())["id"]
    r = await crm.post("/api/messaging/send", json={"customer_id": cid, "text": "Your order shipped"},
                       headers=acct.h)
    assert r.status == 201, await r.text()
    m = await r.json()
    assert (m["status"], m["direction"], m["platform_message_id"], m["customer_id"]) == ("sent", "outbound",
                                                                                        "wamid.OUT1", cid)
    assert seen == [{"path": f"/v19.0/{pnid}/messages", "auth": "Bearer EAAG-test-token",
                     "body": {"messaging_product": "whatsapp", "recipient_type": "individual", "to": "905551112233",
                              "type": "text", "text": {"preview_url": False, "body": "Your order shipped"}}}]
    # delivery status from the platform moves the message forward
    await post_webhook(crm, wa_payload(pnid, statuses=[{"id": "wamid.OUT1", "status": "delivered",
                                                        "recipient_id": "905551112233"}]))
    assert (await Message.get(id=m["id"])).status == "delivered"
    # the platform refuses: 502, recorded as failed
    state["fail"] = True
    clock.advance(seconds=5)
    r = await crm.post("/api/messaging/send", json={"to": "+905551112233", "text": "again"}, headers=acct.h)
    assert r.status == 502
    err = (await r.json())["error"]
    assert err["code"] == "messaging_send_failed" and "HTTP 400" in err["message"]
    failed = await Message.filter(company_id=acct.company_id, status="failed").first()
    assert failed.body == "again" and failed.customer_id == cid and "Recipient not in allowed list" in failed.error
    # inbox shows the conversation with the last (failed) message
    r = await crm.get("/api/messaging/inbox", headers=acct.h)
    conv = (await r.json())["data"][0]
    assert conv["customer_id"] == cid and conv["last_message"]["status"] == "failed" and conv["unread_count"] == 0


async def test_send_validation_and_unreachable_platform(crm, crm_runtime, acct):
    r = await crm.post("/api/messaging/send", json={"text": "hi"}, headers=acct.h)
    assert r.status == 400 and (await r.json())["error"]["param"] == "customer_id"
    r = await crm.post("/api/messaging/send", json={"to": "+905551112233"}, headers=acct.h)
    assert r.status == 400 and (await r.json())["error"]["param"] == "text"
    r = await crm.post("/api/messaging/send", json={"to": "+905551112233", "text": "hi"}, headers=acct.h)
    assert r.status == 503 and (await r.json())["error"]["code"] == "messaging_not_configured"
    crm_runtime.config.messaging_graph_url = "http://127.0.0.1:9"        # nothing listens there
    crm_runtime.config.messaging_access_token = "t"
    await with_number(crm, acct)
    r = await crm.post("/api/messaging/send", json={"to": "+905551112233", "text": "hi"}, headers=acct.h)
    assert r.status == 502 and "no answer from the platform" in (await r.json())["error"]["message"]
    assert await Message.filter(company_id=acct.company_id, status="failed").count() == 1
    assert (await crm.post("/api/messaging/send", json={"to": "+1", "text": "x"})).status == 401
