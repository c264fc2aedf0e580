"""Live events over GraphQL subscriptions (graphql-transport-ws on /graphql): a merchant's own
events as they commit, authenticated by the key in connection_init; 4401 for a bad key."""
from __future__ import annotations

import asyncio

import aiohttp

from services.events import EVENT_TYPES
from tests.money_fixtures import pay_ok
from tests.payments_fixtures import DECLINED, call, card

PROTOCOL = "graphql-transport-ws"
SUB = ('subscription($types: [String!]) { paymentEvents(types: $types) { id type created livemode merchantId '
       'payment { id status amount currency } envelope } }')


async def connect(client, key: str):
    ws = await client.ws_connect("/graphql", protocols=[PROTOCOL])
    await ws.send_json({"type": "connection_init", "payload": {"authorization": f"Bearer {key}"}})
    return ws


async def next_message(ws, timeout: float = 5.0) -> dict:
    """The next protocol message other than ping/pong, waiting at most `timeout` seconds."""
    while True:
        msg = await asyncio.wait_for(ws.receive(), timeout)
        assert msg.type == aiohttp.WSMsgType.TEXT, msg           # text frames, as browsers expect
        data = msg.json()
        if data["type"] == "ping":
            await ws.send_json({"type": "pong"})
            continue
        if data["type"] != "pong":
            return data


async def test_a_subscriber_receives_its_own_payment_succeeded_and_nothing_of_another(client, merchant,
                                                                                       make_merchant):
    other = await make_merchant("Other")
    ws = await connect(client, merchant.sk)
    assert (await next_message(ws))["type"] == "connection_ack"
    await ws.send_json({"id": "1", "type": "subscribe",
                        "payload": {"query": SUB, "variables": {"types": ["payment.succeeded"]}}})
    await asyncio.sleep(0.6)                                    # the stream has opened (its first poll)
    theirs = await pay_ok(client, other.sk, amount=4000)        # another merchant's payment: never seen
    status, _ = await call(client, "POST", "/api/payments/create", merchant.sk,
                           {"amount": 3000, "currency": "TRY", "payment_method": card(DECLINED)})
    assert status == 402                                        # payment.failed: filtered out by types
    mine = await pay_ok(client, merchant.sk, amount=5000)
    msg = await next_message(ws, timeout=3.0)                   # within the bound, well under it in practice
    assert msg["type"] == "next" and msg["id"] == "1", msg
    event = msg["payload"]["data"]["paymentEvents"]
    assert event["type"] == "payment.succeeded" and event["merchantId"] == merchant.id
    assert event["payment"] == {"id": mine["id"], "status": "succeeded", "amount": 5000, "currency": "TRY"}
    assert event["livemode"] is False and event["id"].startswith("evt_")
    envelope = event["envelope"]                                 # the webhook envelope, as delivered
    assert (envelope["id"], envelope["type"], envelope["merchant_id"]) == (event["id"], event["type"], merchant.id)
    assert envelope["data"]["object"]["id"] == mine["id"] and isinstance(envelope["created"], int)
    try:
        extra = await next_message(ws, timeout=1.0)
    except asyncio.TimeoutError:
        extra = None
    assert extra is None, extra                                  # nothing of the other merchant, nothing filtered
    assert theirs["id"] != mine["id"]
    await ws.send_json({"id": "1", "type": "complete"})
    await ws.close()


async def test_a_bad_or_missing_key_closes_the_socket_with_4401(client, merchant):
    for payload in ({"authorization": "Bearer sk_test_not_a_key"}, {}, {"authorization": merchant.pk}):
        ws = await client.ws_connect("/graphql", protocols=[PROTOCOL])
        await ws.send_json({"type": "connection_init", "payload": payload})
        msg = await asyncio.wait_for(ws.receive(), 5)
        assert msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING), msg
        assert ws.close_code == 4401, (payload, ws.close_code)


async def test_unknown_event_types_are_an_error_naming_types(client, merchant):
    ws = await connect(client, merchant.sk)
    assert (await next_message(ws))["type"] == "connection_ack"
    await ws.send_json({"id": "7", "type": "subscribe",
                        "payload": {"query": SUB, "variables": {"types": ["payment.succeeded", "payment.exploded"]}}})
    msg = await next_message(ws)
    assert msg["id"] == "7" and msg["type"] in ("error", "next"), msg
    errors = msg["payload"] if msg["type"] == "error" else msg["payload"]["errors"]
    assert errors[0]["message"] == f"types[1] must be one of {', '.join(EVENT_TYPES)}"     # issue 35: the set named
    await ws.close()


async def test_only_graphql_transport_ws_is_spoken(client):
    ws = await client.ws_connect("/graphql", protocols=["graphql-ws"])
    msg = await asyncio.wait_for(ws.receive(), 5)
    assert msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED) and ws.close_code == 4406
