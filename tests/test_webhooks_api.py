"""Webhook endpoints over REST and GraphQL: configuration rules, outbound safety, the test
delivery, the events list, tenant isolation, and parity between the two protocols."""
from __future__ import annotations

import hashlib
import hmac
import json

from models.webhooks import WebhookEndpoint
from services import webhooks
from services.identity import api_keys
from tests.helpers import bearer, gql
from tests.webhooks_fixtures import emit, receiver  # noqa: F401

CONFIGURE = """mutation($input: WebhookEndpointConfigureInput!) {
  webhookEndpointConfigure(input: $input) {
    webhookEndpoint { id url status events livemode }
    secret
    userErrors { code message field }
  }
}"""

TEST = """mutation($input: WebhookTestInput!) {
  webhookTest(input: $input) { delivered statusCode latencyMs eventId userErrors { code message field } }
}"""

EVENTS = """query { webhookEvents(first: 10) { totalCount edges { node { id event delivered status attempts } } } }"""

ENDPOINTS = """query { webhookEndpoints(first: 10) { totalCount edges { node { id url status events } } } }"""

RETRY = """mutation($input: WebhookEventRetryInput!) {
  webhookEventRetry(input: $input) {
    webhookEvent { id delivered status deliveries { state attempts attemptLog { number statusCode manual } } }
    userErrors { code message field }
  }
}"""


async def live_key(merchant) -> str:
    _, full = await api_keys.issue_key(merchant_id=merchant.id, kind="secret", livemode=True)
    return full


async def post(client, path, body, key):
    resp = await client.post(path, json=body, headers=bearer(key))
    return resp.status, await resp.json()


async def test_configure_refuses_unknown_event_types_and_stores_nothing(client, merchant, receiver):
    status, body = await post(client, "/api/webhooks/configure",
                              {"url": receiver.url(), "events": ["payment.succeeded", "payment.exploded"]}, merchant.sk)
    assert status == 400
    assert body["error"]["message"] == "Invalid request body" and body["error"]["param"] == "events[1]"
    assert body["error"]["code"] == "invalid_request"
    for bad, param in (({"events": ["*"]}, "url"), ({"url": receiver.url()}, "events"),
                       ({"url": receiver.url(), "events": []}, "events"),
                       ({"url": receiver.url(), "events": "*"}, "events"),
                       ({"url": receiver.url(), "events": ["*"], "secret": "x"}, "secret"),
                       ({"url": "ftp://example.com/x", "events": ["*"]}, "url")):
        status, body = await post(client, "/api/webhooks/configure", bad, merchant.sk)
        assert status == 400 and body["error"]["param"] == param, (bad, body)
    assert await WebhookEndpoint.filter(merchant_id=merchant.id).count() == 0


async def test_configure_twice_with_one_url_updates_the_subscription(client, merchant, receiver):
    _, first = await post(client, "/api/webhooks/configure", {"url": receiver.url(), "events": ["payment.failed"]},
                          merchant.sk)
    _, again = await post(client, "/api/webhooks/configure",
                          {"url": receiver.url(), "events": ["*", "payment.failed"]}, merchant.sk)
    assert again["id"] == first["id"] and again["secret"] == first["secret"] and again["events"] == ["*"]
    resp = await client.get("/api/webhooks/endpoints", headers=bearer(merchant.sk))
    data = (await resp.json())["data"]
    assert [e["id"] for e in data] == [first["id"]] and "secret" not in data[0]


async def test_live_mode_refuses_unsafe_urls(client, merchant):
    key = await live_key(merchant)
    refused = {
        "http://93.184.216.34/hook": "url must use https in live mode",
        "https://127.0.0.1/hook": None, "https://localhost:8443/hook": None, "https://10.1.2.3/hook": None,
        "https://192.168.0.10/hook": None, "https://172.16.5.5/hook": None, "https://169.254.10.1/hook": None,
        "https://169.254.169.254/latest/meta-data": None, "https://[::1]/hook": None, "https://[fe80::1]/hook": None,
        "https://[::ffff:127.0.0.1]/hook": None, "https://0.0.0.0/hook": None,
        "https://user:pw@93.184.216.34/hook": "url must not contain credentials",
    }
    for url, message in refused.items():
        status, body = await post(client, "/api/webhooks/configure", {"url": url, "events": ["*"]}, key)
        assert status == 400, url
        assert body["error"]["code"] == "invalid_webhook_url" and body["error"]["param"] == "url", url
        assert body["error"]["message"] == "Invalid request body", url          # the documented text
        assert body["error"]["detail"] == (message or "url must resolve to a public address (not loopback, "
                                           "private, link-local or metadata) in live mode"), url
    assert await WebhookEndpoint.filter(merchant_id=merchant.id).count() == 0
    status, body = await post(client, "/api/webhooks/configure", {"url": "https://93.184.216.34/hook",
                                                                  "events": ["*"]}, key)
    assert status == 200 and body["status"] == "active"
    assert (await WebhookEndpoint.get(id=body["id"])).livemode is True


async def test_test_mode_allows_loopback_http_but_never_metadata(client, merchant, receiver):
    status, _ = await post(client, "/api/webhooks/configure", {"url": receiver.url(), "events": ["*"]}, merchant.sk)
    assert status == 200
    for url in ("http://169.254.169.254/latest", "http://metadata.google.internal/x", "http://[fd00:ec2::254]/"):
        status, body = await post(client, "/api/webhooks/configure", {"url": url, "events": ["*"]}, merchant.sk)
        assert status == 400 and body["error"]["code"] == "invalid_webhook_url", url


async def test_a_live_endpoint_is_not_delivered_to_a_private_address(client, merchant, receiver, clock):
    # As if the host had resolved to a public address when configured and to loopback now.
    now = clock.now()
    ep = await WebhookEndpoint.create(id="whk_rebind" + merchant.id[-8:], merchant_id=merchant.id, livemode=True,
                                      url=receiver.url(), secret="whsec_x", events=["*"], created_at=now,
                                      updated_at=now)
    await emit(merchant.id, livemode=True)
    await webhooks.run_once(owner="t", merchant_id=merchant.id)
    assert receiver.got == []
    d = await ep.deliveries.all().first()
    assert d.state == "pending" and d.last_error == "address not allowed"


async def test_test_delivery_reports_the_receivers_answer(client, merchant, receiver, clock):
    _, hook = await post(client, "/api/webhooks/configure", {"url": receiver.url(), "events": ["payment.succeeded"]},
                         merchant.sk)
    status, body = await post(client, "/api/webhooks/test", {"event": "payment.succeeded"}, merchant.sk)

    assert status == 200
    assert body["delivered"] is True and body["status_code"] == 200
    assert isinstance(body["latency_ms"], int) and 0 <= body["latency_ms"] < 5000
    (got,) = receiver.got
    sent = json.loads(got.body)
    assert sent["type"] == "payment.succeeded" and sent["id"].startswith("evt_") and sent["merchant_id"] == merchant.id
    assert sent["data"]["object"]["object"] == "payment" and sent["livemode"] is False
    assert got.headers["x-service-signature"] == hmac.new(hook["secret"].encode(), got.body, hashlib.sha256).hexdigest()

    receiver.default = 503
    status, body = await post(client, "/api/webhooks/test", {"event": "payment.succeeded"}, merchant.sk)
    assert status == 200 and body["delivered"] is False and body["status_code"] == 503


async def test_test_delivery_needs_a_subscribed_endpoint(client, merchant, receiver):
    status, body = await post(client, "/api/webhooks/test", {"event": "payment.succeeded"}, merchant.sk)
    assert status == 400 and body["error"]["code"] == "no_webhook_endpoint" and body["error"]["param"] == "event"
    await post(client, "/api/webhooks/configure", {"url": receiver.url(), "events": ["payment.failed"]}, merchant.sk)
    status, body = await post(client, "/api/webhooks/test", {"event": "payment.succeeded"}, merchant.sk)
    assert status == 400 and body["error"]["code"] == "no_webhook_endpoint"
    status, body = await post(client, "/api/webhooks/test", {"event": "payment.nope"}, merchant.sk)
    assert status == 400 and body["error"]["param"] == "event" and body["error"]["message"] == "Invalid request body"
    assert receiver.got == []


async def test_another_merchants_events_are_invisible(client, make_merchant, receiver):
    a, b = await make_merchant(), await make_merchant()
    await post(client, "/api/webhooks/configure", {"url": receiver.url(), "events": ["*"]}, a.sk)
    ev = await emit(a.id)
    await webhooks.run_once(owner="t", merchant_id=a.id)

    for method, path in (("GET", f"/api/webhooks/events/{ev.id}"), ("POST", f"/api/webhooks/events/{ev.id}/retry")):
        resp = await client.request(method, path, headers=bearer(b.sk))
        assert resp.status == 404
        assert (await resp.json())["error"]["message"] == "Resource not found"
    resp = await client.get("/api/webhooks/events", headers=bearer(b.sk))
    assert (await resp.json())["data"] == []
    resp = await client.get("/api/webhooks/endpoints", headers=bearer(b.sk))
    assert (await resp.json())["data"] == []
    status, body = await gql(client, "query($id: ID!) { node(id: $id) { id } }", {"id": ev.id}, key=b.sk)
    assert body["errors"][0]["extensions"]["code"] == "resource_not_found"
    # and test mode does not see live: the same merchant's live key sees no test events
    resp = await client.get("/api/webhooks/events", headers=bearer(await live_key(a)))
    assert (await resp.json())["data"] == []


async def test_webhooks_require_an_api_key(client):
    for method, path in (("POST", "/api/webhooks/configure"), ("GET", "/api/webhooks/events"),
                         ("POST", "/api/webhooks/test")):
        resp = await client.request(method, path, json={})
        assert resp.status == 401 and (await resp.json())["error"]["message"] == "Invalid API key"


async def test_graphql_matches_rest(client, merchant, receiver, clock):
    status, body = await gql(client, CONFIGURE, {"input": {"url": receiver.url(), "events": ["payment.succeeded"]}},
                             key=merchant.sk)
    payload = body["data"]["webhookEndpointConfigure"]
    assert payload["userErrors"] == [] and payload["secret"].startswith("whsec_")
    ep = payload["webhookEndpoint"]
    assert ep["url"] == receiver.url() and ep["status"] == "active" and ep["events"] == ["payment.succeeded"]
    _, body = await gql(client, CONFIGURE, {"input": {"url": receiver.url(), "events": ["nope"]}}, key=merchant.sk)
    assert body["data"]["webhookEndpointConfigure"]["userErrors"][0]["field"] == "events[0]"

    _, body = await gql(client, ENDPOINTS, key=merchant.sk)
    rest = await (await client.get("/api/webhooks/endpoints", headers=bearer(merchant.sk))).json()
    assert [e["node"]["id"] for e in body["data"]["webhookEndpoints"]["edges"]] == [e["id"] for e in rest["data"]]

    _, body = await gql(client, TEST, {"input": {"event": "payment.succeeded"}}, key=merchant.sk)
    t = body["data"]["webhookTest"]
    assert t["delivered"] is True and t["statusCode"] == 200 and t["userErrors"] == []

    receiver.default = 500
    ev = await emit(merchant.id)
    await webhooks.run_once(owner="t", merchant_id=merchant.id)
    for delay in webhooks.RETRY_DELAYS:
        clock.advance(seconds=delay)
        await webhooks.run_once(owner="t", merchant_id=merchant.id)
    _, body = await gql(client, EVENTS, key=merchant.sk)
    rest = await (await client.get("/api/webhooks/events", headers=bearer(merchant.sk))).json()
    nodes = [e["node"] for e in body["data"]["webhookEvents"]["edges"]]
    assert [(n["id"], n["event"], n["delivered"], n["status"], n["attempts"]) for n in nodes] == \
        [(e["id"], e["event"], e["delivered"], e["status"], e["attempts"]) for e in rest["data"]]
    assert nodes[0]["status"] == "failed" and nodes[0]["attempts"] == 8

    receiver.default = 200
    _, body = await gql(client, RETRY, {"input": {"id": ev.id}}, key=merchant.sk)
    r = body["data"]["webhookEventRetry"]
    assert r["userErrors"] == [] and r["webhookEvent"]["delivered"] is True
    assert r["webhookEvent"]["deliveries"][0]["attemptLog"][-1] == {"number": 9, "statusCode": 200, "manual": True}
    _, body = await gql(client, RETRY, {"input": {"id": ev.id}}, key=merchant.sk)
    assert body["data"]["webhookEventRetry"]["userErrors"] == [
        {"code": "invalid_state", "message": "only a failed event can be retried; this one is delivered",
         "field": "id"}]
