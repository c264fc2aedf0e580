"""Payment links over REST and GraphQL (merchant-api.md "Payment links"), and publishable keys
refused everywhere but the browser-client operations."""
from __future__ import annotations

from datetime import timedelta

from tests.checkout_fixtures import call, make_link
from tests.conftest import gql
from tests.helpers import bearer

LINK_FIELDS = """id url status amount currency description expiresAt paymentsCount amountCollected createdAt"""
CREATE = "mutation($input: PaymentLinkCreateInput!) { paymentLinkCreate(input: $input) { paymentLink { %s } " \
         "userErrors { code message field } } }" % LINK_FIELDS
CANCEL = "mutation($id: ID!) { paymentLinkCancel(input: {id: $id}) { paymentLink { id status } " \
         "userErrors { code message field } } }"
GET = "query($id: ID!) { paymentLink(id: $id) { %s } }" % LINK_FIELDS
LIST = "query($first: Int, $after: String) { paymentLinks(first: $first, after: $after) { totalCount " \
       "pageInfo { hasNextPage endCursor } edges { node { id status } } } }"


async def test_create_read_list_cancel_with_the_documented_fields(client, merchant, clock):
    link = await make_link(client, merchant.sk, amount=12345, currency="KWD", expires_at=int(clock.time()) + 3600,
                           metadata={"order": "A-1"})
    assert link["id"].startswith("lnk_") and link["url"] == f"https://pay.qafila.test/{link['id']}"
    assert (link["status"], link["amount"], link["currency"]) == ("active", 12345, "KWD")
    assert link["payments_count"] == 0 and link["amount_collected"] == 0 and link["metadata"] == {"order": "A-1"}
    status, got = await call(client, "GET", f"/api/payment-links/{link['id']}", merchant.sk)
    assert status == 200 and {k: got[k] for k in ("id", "url", "status", "amount", "currency", "created_at")} == \
        {k: link[k] for k in ("id", "url", "status", "amount", "currency", "created_at")}
    clock.advance(seconds=1)
    second = await make_link(client, merchant.sk)
    status, page = await call(client, "GET", "/api/payment-links?limit=1", merchant.sk)
    assert status == 200 and [x["id"] for x in page["data"]] == [second["id"]] and page["has_more"] is True
    assert set(page["data"][0]) >= {"id", "url", "status"}
    status, page = await call(client, "GET", f"/api/payment-links?limit=1&starting_after={second['id']}", merchant.sk)
    assert [x["id"] for x in page["data"]] == [link["id"]] and page["has_more"] is False
    status, cancelled = await call(client, "PUT", f"/api/payment-links/{link['id']}/cancel", merchant.sk)
    assert status == 200 and cancelled["id"] == link["id"] and cancelled["status"] == "cancelled"
    status, again = await call(client, "PUT", f"/api/payment-links/{link['id']}/cancel", merchant.sk)
    assert status == 400 and again["error"]["code"] == "invalid_state" and "cancelled" in again["error"]["detail"]


async def test_a_link_past_expires_at_reads_expired_and_cannot_be_cancelled(client, merchant, clock):
    link = await make_link(client, merchant.sk, expires_at=(clock.now() + timedelta(minutes=5)).isoformat())
    clock.advance(minutes=6)
    status, got = await call(client, "GET", f"/api/payment-links/{link['id']}", merchant.sk)
    assert got["status"] == "expired"
    status, e = await call(client, "GET", "/api/payment-links?status=expired", merchant.sk)
    assert [x["id"] for x in e["data"]] == [link["id"]]
    status, e = await call(client, "PUT", f"/api/payment-links/{link['id']}/cancel", merchant.sk)
    assert status == 400 and "expired" in e["error"]["detail"]


async def test_bad_input_names_the_field(client, merchant, clock):
    cases = [({"currency": "TRY"}, "amount"), ({"amount": 100}, "currency"),
             ({"amount": 10, "currency": "TRY"}, "amount"),                # below the 1.00 TRY minimum
             ({"amount": 1.5, "currency": "TRY"}, "amount"), ({"amount": 1000, "currency": "EUR"}, "currency"),
             ({"amount": 1000, "currency": "TRY", "expires_at": int(clock.time()) - 1}, "expires_at"),
             ({"amount": 1000, "currency": "TRY", "expires_at": "next tuesday"}, "expires_at"),
             ({"amount": 1000, "currency": "TRY", "description": "x" * 501}, "description"),
             ({"amount": 1000, "currency": "TRY", "colour": "red"}, "colour")]
    for body, param in cases:
        status, e = await call(client, "POST", "/api/payment-links", merchant.sk, body)
        assert status == 400 and e["error"]["param"] == param, (body, e)
        assert e["error"]["message"] == "Invalid request body"
    status, e = await call(client, "GET", "/api/payment-links/lnk_doesnotexist000000", merchant.sk)
    assert status == 404 and e["error"]["message"] == "Resource not found"
    status, e = await call(client, "GET", "/api/payment-links?limit=0", merchant.sk)
    assert status == 400 and e["error"]["param"] == "limit"


async def test_tenants_are_apart(client, make_merchant):
    a, b = await make_merchant(), await make_merchant()
    link = await make_link(client, a.sk)
    status, _ = await call(client, "GET", f"/api/payment-links/{link['id']}", b.sk)
    assert status == 404
    status, _ = await call(client, "PUT", f"/api/payment-links/{link['id']}/cancel", b.sk)
    assert status == 404
    status, page = await call(client, "GET", "/api/payment-links", b.sk)
    assert page["data"] == []


async def test_graphql_twins_agree_with_rest(client, merchant, clock):
    status, out = await gql(client, CREATE, {"input": {"amount": 2500, "currency": "SAR", "description": "Gift"}},
                            key=merchant.sk)
    assert status == 200 and out["data"]["paymentLinkCreate"]["userErrors"] == []
    node = out["data"]["paymentLinkCreate"]["paymentLink"]
    status, rest = await call(client, "GET", f"/api/payment-links/{node['id']}", merchant.sk)
    assert (node["url"], node["status"], node["amount"], node["currency"], node["paymentsCount"]) == \
        (rest["url"], rest["status"], rest["amount"], rest["currency"], rest["payments_count"])
    status, out = await gql(client, CREATE, {"input": {"amount": 1, "currency": "SAR"}}, key=merchant.sk)
    assert out["data"]["paymentLinkCreate"]["userErrors"][0]["field"] == "amount"
    status, out = await gql(client, GET, {"id": node["id"]}, key=merchant.sk)
    assert out["data"]["paymentLink"]["description"] == "Gift"
    status, out = await gql(client, LIST, {"first": 5}, key=merchant.sk)
    assert out["data"]["paymentLinks"]["totalCount"] == 1
    status, out = await gql(client, CANCEL, {"id": node["id"]}, key=merchant.sk)
    assert out["data"]["paymentLinkCancel"]["paymentLink"]["status"] == "cancelled"
    status, out = await gql(client, CANCEL, {"id": node["id"]}, key=merchant.sk)
    assert out["data"]["paymentLinkCancel"]["userErrors"][0]["code"] == "invalid_state"


async def test_a_publishable_key_is_refused_except_for_the_browser_client(client, merchant):
    """pk_ keys work only on /v1 confirm, retrieve (with the intent's client_secret) and payment
    methods; every other operation answers 401 with a clear message."""
    pk = merchant.pk
    assert pk.startswith("pk_test_")
    for method, path, body in [("POST", "/api/payment-links", {"amount": 1000, "currency": "TRY"}),
                               ("GET", "/api/payment-links", None), ("GET", "/api/payments/list", None),
                               ("POST", "/api/payments/create", {}), ("GET", "/v1/payments", None),
                               ("POST", "/v1/payments/intent", {"amount": 1000, "currency": "TRY",
                                                                "payment_method": "card"}),
                               ("GET", "/api/invoices", None), ("GET", "/api/api-keys", None)]:
        r = await client.request(method, path, json=body, headers=bearer(pk))
        e = await r.json()
        assert r.status in (401, 403), (path, e)
        assert e["error"]["code"] in ("invalid_api_key", "permission_denied") and e["error"].get("detail", e["error"]["message"]), path
    status, out = await gql(client, "{ paymentLinks(first: 1) { totalCount } }", key=pk)
    assert "errors" in out and out["errors"][0]["extensions"]["status"] in (401, 403)
    # ... while the browser client's operations accept it with the intent's client secret.
    status, intent = await call(client, "POST", "/v1/payments/intent", merchant.sk,
                                {"amount": 1000, "currency": "TRY", "payment_method": "card"})
    r = await client.get(f"/v1/payments/{intent['id']}?client_secret={intent['client_secret']}", headers=bearer(pk))
    assert r.status == 200
    r = await client.get(f"/v1/payments/{intent['id']}", headers=bearer(pk))
    assert r.status == 400 and (await r.json())["error"]["param"] == "client_secret"
