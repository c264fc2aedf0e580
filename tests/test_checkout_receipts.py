"""Automatic receipts: written with the successful payment (outbox), sent after the commit by
messaging (phone) or e-mail, retried, readable on the payment; a messaging outage never fails
or slows a payment. A local fake of the Graph-API-style platform and a real SMTP sink."""
from __future__ import annotations

import asyncio
import re
import time
from email import message_from_bytes, policy

import pytest
from aiohttp import web

from models.receipts import Receipt
from services.payments import receipts
from tests.billing_fixtures import customer
from tests.checkout_fixtures import DECLINED, call, card_form, make_link, path_of, submit
from tests.conftest import gql
from tests.payments_fixtures import APPROVED, card


@pytest.fixture
async def platform(aiohttp_server, backend):
    """The messaging platform's Graph API, faked: `state["mode"]` ok | down (503) | hang."""
    seen: list[dict] = []
    state = {"mode": "ok"}

    async def messages(request: web.Request):
        body = await request.json()
        seen.append({"path": request.path, "auth": request.headers.get("Authorization"), "body": body})
        if state["mode"] == "hang":
            await asyncio.sleep(30)
        if state["mode"] != "ok":
            return web.json_response({"error": {"message": "Service unavailable", "code": 2}}, status=503)
        return web.json_response({"messaging_product": "whatsapp", "messages": [{"id": f"wamid.R{len(seen)}"}]})

    app = web.Application()
    app.router.add_post("/{version}/{pnid}/messages", messages)
    server = await aiohttp_server(app)
    cfg = backend.runtime.config
    cfg.messaging_graph_url = str(server.make_url("")).rstrip("/")
    cfg.messaging_phone_number_id, cfg.messaging_access_token = "1055", "EAAG-test"
    return seen, state


async def _send(merchant_id: str):
    return await receipts.run_once(owner="test-worker", merchant_id=merchant_id)


def _pay_id(html: str) -> str:
    return re.search(r'data-testid="payment-id">(pay_\w+)<', html).group(1)


async def test_one_receipt_per_successful_payment_none_for_a_declined_one(client, make_merchant, platform, smtp_sink):
    seen, _ = platform
    m = await make_merchant(name="Zeytin Shop")
    link = await make_link(client, m.sk, amount=15000)
    path = path_of(link["url"])
    # A buyer with a phone pays on the link (messaging), in Turkish.
    status, html, _ = await submit(client, path + "?locale=tr", card_form(phone="+90 555 111 2233"))
    assert status == 200, html
    by_phone = _pay_id(html)
    # A declined buyer: no receipt.
    status, _, _ = await submit(client, path, card_form(DECLINED, email="declined@example.com"))
    assert status == 402
    # An /api payment whose customer has an e-mail only.
    status, p = await call(client, "POST", "/api/payments/create", m.sk,
                           {"amount": 2500, "currency": "KWD", "payment_method": card(APPROVED),
                            "customer": {"email": "layla@example.com", "name": "Layla"}})
    assert status == 200
    by_mail = p["id"]
    # An intent whose customer has a phone, in Arabic.
    cid = await customer(client, m.sk, email=None, phone="+966 50 123 4567", saved_card=None)
    status, i = await call(client, "POST", "/v1/payments/intent", m.sk,
                           {"amount": 5000, "currency": "SAR", "payment_method": "card", "customer_id": cid,
                            "locale": "ar"})
    status, _ = await call(client, "POST", f"/v1/payments/{i['id']}/confirm", m.sk, {"payment_method_id": "pm_card_visa"})
    assert status == 200
    # Nothing was sent inside the requests: the outbox holds three receipts, none for the decline.
    assert seen == [] and smtp_sink.messages == []
    rows = {r.payment_id: r for r in await Receipt.filter(merchant_id=m.id)}
    assert set(rows) == {by_phone, by_mail, i["id"]}
    assert {r.status for r in rows.values()} == {"pending"}

    stats = await _send(m.id)
    assert (stats.claimed, stats.sent) == (3, 3)
    assert len(seen) == 2 and len(smtp_sink.messages) == 1
    msgs = {s["body"]["to"]: s for s in seen}
    tr = msgs["905551112233"]
    assert tr["path"] == "/v19.0/1055/messages" and tr["auth"] == "Bearer EAAG-test"
    text = tr["body"]["text"]["body"]
    # Issue 22: each message links the one receipt_url (a token of its own), the one the API shows.
    urls = {pid: (await call(client, "GET", f"{base}/{pid}", m.sk))[1]["receipt_url"]
            for base, pid in (("/api/payments", by_phone), ("/api/payments", by_mail), ("/v1/payments", i["id"]))}
    assert all(re.fullmatch(rf"https://pay\.qafila\.test/{pid}/receipt/[0-9A-Za-z]{{32}}", u) for pid, u in urls.items())
    assert "Zeytin Shop" in text and "150,00 ₺" in text and urls[by_phone] in text
    ar = msgs["966501234567"]["body"]["text"]["body"]
    assert "تم استلام" in ar and "٥٠٫٠٠" in ar and urls[i["id"]] in ar
    rcpt, raw = smtp_sink.messages[0]
    mail = message_from_bytes(raw, policy=policy.default)
    assert rcpt == ["layla@example.com"] and "Zeytin Shop" in mail["Subject"]
    # An e-mail-only customer names no language: the merchant's default (a TR merchant: Turkish).
    assert "2,500 KWD" in mail.get_content() and urls[by_mail] in mail.get_content()
    # Readable on the payment, REST and GraphQL alike.
    status, got = await call(client, "GET", f"/api/payments/{by_phone}", m.sk)
    assert got["receipt"] == {"channel": "messaging", "sent_to": "+90 555 111 2233", "status": "sent"}
    status, got = await call(client, "GET", f"/api/payments/{by_mail}", m.sk)
    assert got["receipt"] == {"channel": "email", "sent_to": "layla@example.com", "status": "sent"}
    status, got = await call(client, "GET", f"/v1/payments/{i['id']}", m.sk)
    assert got["receipt"] == {"channel": "messaging", "sent_to": "+966 50 123 4567", "status": "sent"}
    status, out = await gql(client, "query($id: ID!) { paymentIntent(id: $id) { receipt { channel sentTo status } } "
                                    "payment(id: \"%s\") { receipt { channel status } } }" % by_mail,
                            {"id": i["id"]}, key=m.sk)
    assert out["data"] == {"paymentIntent": {"receipt": {"channel": "messaging", "sentTo": "+966 50 123 4567",
                                                         "status": "sent"}},
                           "payment": {"receipt": {"channel": "email", "status": "sent"}}}, out
    # One each: running again sends nothing more.
    assert (await _send(m.id)).claimed == 0 and len(seen) == 2 and len(smtp_sink.messages) == 1


async def test_a_payment_succeeds_while_the_platform_is_down_and_the_receipt_follows(client, merchant, platform,
                                                                                     clock):
    seen, state = platform
    state["mode"] = "hang"           # the platform accepts connections and never answers
    started = time.monotonic()
    status, p = await call(client, "POST", "/api/payments/create", merchant.sk,
                           {"amount": 10000, "currency": "TRY", "payment_method": card(APPROVED),
                            "customer": {"phone": "+90 532 000 0001"}})
    assert status == 200 and p["status"] == "succeeded"
    assert time.monotonic() - started < 2 and seen == []       # the payment never waited for the platform
    state["mode"] = "down"           # 503
    stats = await _send(merchant.id)
    assert (stats.claimed, stats.sent) == (1, 0)
    r = await Receipt.get(payment_id=p["id"])
    assert r.status == "pending" and r.attempts == 1 and r.last_error == "HTTP 503"
    assert (await _send(merchant.id)).claimed == 0              # retried later, not at once
    status, got = await call(client, "GET", f"/api/payments/{p['id']}", merchant.sk)
    assert got["status"] == "succeeded" and got["receipt"]["status"] == "pending"
    state["mode"] = "ok"
    clock.advance(seconds=receipts.RETRY_DELAYS[0])
    stats = await _send(merchant.id)
    assert stats.sent == 1 and len(seen) == 2
    r = await Receipt.get(payment_id=p["id"])
    assert r.status == "sent" and r.attempts == 2 and r.message_id == "wamid.R2"


async def test_retries_end_in_failed_and_no_contact_means_no_receipt(client, merchant, platform, clock):
    seen, state = platform
    state["mode"] = "down"
    status, p = await call(client, "POST", "/api/payments/create", merchant.sk,
                           {"amount": 10000, "currency": "TRY", "payment_method": card(APPROVED),
                            "customer": {"phone": "+90 532 000 0002"}})
    for delay in (0, *receipts.RETRY_DELAYS):
        clock.advance(seconds=delay)
        assert (await _send(merchant.id)).claimed == 1
    r = await Receipt.get(payment_id=p["id"])
    assert r.status == "failed" and r.attempts == receipts.MAX_ATTEMPTS
    status, p = await call(client, "POST", "/api/payments/create", merchant.sk,
                           {"amount": 10000, "currency": "TRY", "payment_method": card(APPROVED)})
    assert status == 200 and not await Receipt.filter(payment_id=p["id"]).exists()
