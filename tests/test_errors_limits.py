"""Errors and limits that tell the truth: every /api 400 carries the documented message, a 429
names the limit that applied, aliased mutations count one by one, and a PUT's idempotency key
replays its first outcome."""
from models.billing import Subscription
from models.payments import Customer
from tests.billing_fixtures import call, customer, subscribe
from tests.conftest import bearer, gql
from tests.payments_fixtures import card

# ------------------------------------------------------------------ 400: "Invalid request body"


async def test_every_api_400_carries_the_documented_message_with_the_reason_in_detail(client, merchant):
    link_status, link = await call(client, "POST", "/api/payment-links", merchant.sk,
                                   {"amount": 1000, "currency": "TRY", "description": "x"})
    assert link_status == 200, link
    await call(client, "PUT", f"/api/payment-links/{link['id']}/cancel", merchant.sk)
    cases = [
        # (method, path, body, param, a word of the reason)
        ("POST", "/api/payments/create", {"amount": -5, "currency": "TRY", "payment_method": card()}, "amount", "amount"),
        ("POST", "/api/customers", {"email": "not-an-email"}, "email", "email"),
        ("POST", "/api/webhooks/configure", {"url": "ftp://example.com/hook", "events": ["*"]}, "url", "https"),
        ("GET", "/api/payments/pay_!!", None, "id", "id"),
        ("PUT", f"/api/payment-links/{link['id']}/cancel", None, None, "cancelled"),   # a move that no longer applies
        ("PUT", "/api/customers/cus_AAAAAAAAAAAAAAAAAAAAAAAA", {"name": 5}, "name", "name"),
    ]
    for method, path, body, param, word in cases:
        status, out = await call(client, method, path, merchant.sk, body)
        assert status == 400, (path, out)
        err = out["error"]
        assert err["message"] == "Invalid request body", (path, err)
        assert word in err["detail"].lower(), (path, err)
        if param is not None:
            assert err["param"] == param, (path, err)
    # a body that is not JSON at all
    r = await client.post("/api/customers", data=b"{oops", headers={**bearer(merchant.sk),
                                                                      "Content-Type": "application/json"})
    err = (await r.json())["error"]
    assert r.status == 400 and err["message"] == "Invalid request body" and err["detail"]


# ------------------------------------------------------------------ 429: the limit that applied


async def test_otp_429_names_five_per_minute_and_the_next_minute_allows_again(client, mailer, clock):
    clock.set(clock.now().replace(second=0, microsecond=0))
    email = "limit-me@example.com"
    for _ in range(5):
        r = await client.post("/api/auth/request-otp", json={"email": email})
        assert r.status == 200
    r = await client.post("/api/auth/request-otp", json={"email": email})
    err = (await r.json())["error"]
    assert r.status == 429 and err["message"] == "Rate limit exceeded (5/min)"
    assert r.headers["X-RateLimit-Limit"] == "5"
    # GraphQL says the same limit
    status, body = await gql(client, """mutation($i: OtpRequestInput!) { otpRequest(input: $i) {
        requestId userErrors { code message } } }""", {"i": {"email": email}})
    errors = body.get("errors") or body["data"]["otpRequest"]["userErrors"]
    assert errors[0]["message"] == "Rate limit exceeded (5/min)", body
    clock.advance(seconds=60)
    assert (await client.post("/api/auth/request-otp", json={"email": email})).status == 200


async def test_the_api_429_still_says_100_per_minute(client, merchant, clock):
    clock.set(clock.now().replace(second=0, microsecond=0))
    for _ in range(100):
        await client.get("/api/api-keys?limit=1", headers=bearer(merchant.sk))
    r = await client.get("/api/api-keys?limit=1", headers=bearer(merchant.sk))
    assert r.status == 429 and (await r.json())["error"]["message"] == "Rate limit exceeded (100/min)"


# ------------------------------------------------------------------ aliased mutations count one by one

CREATE_3 = """mutation { a: customerCreate(input: {name: "A"}) { customer { id } }
  b: customerCreate(input: {name: "B"}) { customer { id } }
  ...More }
fragment More on Mutation { c: customerCreate(input: {name: "C"}) { customer { id } } __typename }"""


async def test_each_aliased_mutation_field_counts_against_the_rate_limit(client, merchant, clock):
    clock.set(clock.now().replace(second=0, microsecond=0))
    r = await client.post("/graphql", json={"query": CREATE_3}, headers=bearer(merchant.sk))
    assert r.status == 200 and len((await r.json())["data"]) == 4
    assert r.headers["X-RateLimit-Remaining"] == "97"          # three fields, three requests
    r = await client.post("/graphql", json={"query": "{ viewer { id } }"}, headers=bearer(merchant.sk))
    assert r.headers["X-RateLimit-Remaining"] == "96"          # a query of one field counts once
    for _ in range(95):
        await client.get("/api/api-keys?limit=1", headers=bearer(merchant.sk))
    before = await Customer.filter(merchant_id=merchant.id).count()
    # one request left: an operation of three mutations is refused whole, nothing runs
    r = await client.post("/graphql", json={"query": CREATE_3}, headers=bearer(merchant.sk))
    body = await r.json()
    assert r.status == 429 and body["errors"][0]["extensions"]["code"] == "rate_limit_exceeded"
    assert body["errors"][0]["message"] == "Rate limit exceeded (100/min)"
    assert await Customer.filter(merchant_id=merchant.id).count() == before


# ------------------------------------------------------------------ PUT with an Idempotency-Key


async def put(client, path, key, idem=None, body=None):
    headers = bearer(key) | ({"Idempotency-Key": idem} if idem else {})
    r = await client.put(path, json=body, headers=headers)
    return r.status, await r.json()


async def test_a_put_retried_with_its_key_answers_its_first_outcome(client, merchant):
    cid = await customer(client, merchant.sk)
    s = await subscribe(client, merchant.sk, cid)
    path = f"/api/subscriptions/{s['id']}/cancel"
    status, first = await put(client, path, merchant.sk, "cancel-1")
    assert status == 200 and first["status"] == "cancelled"
    status, again = await put(client, path, merchant.sk, "cancel-1")
    assert status == 200 and again == first                      # the first 200, not "already cancelled"
    # without a key the move no longer applies: a clear 400
    status, e = await put(client, path, merchant.sk)
    assert status == 400 and e["error"]["message"] == "Invalid request body" and "cancelled" in e["error"]["detail"]
    # the same key with other parameters (another subscription) is a 409, and changes nothing
    s2 = await subscribe(client, merchant.sk, cid)
    status, e = await put(client, f"/api/subscriptions/{s2['id']}/cancel", merchant.sk, "cancel-1")
    assert status == 409 and e["error"]["code"] == "idempotency_conflict"
    assert (await Subscription.get(id=s2["id"])).status == "active"


async def test_a_put_update_replays_and_a_changed_body_under_the_key_is_409(client, merchant):
    cid = await customer(client, merchant.sk, saved_card=None)
    path = f"/api/customers/{cid}"
    status, first = await put(client, path, merchant.sk, "rename", {"name": "First"})
    assert status == 200 and first["name"] == "First"
    await put(client, path, merchant.sk, None, {"name": "Changed meanwhile"})
    status, again = await put(client, path, merchant.sk, "rename", {"name": "First"})
    assert status == 200 and again == first                      # replayed, not re-run
    assert (await Customer.get(id=cid)).name == "Changed meanwhile"
    status, e = await put(client, path, merchant.sk, "rename", {"name": "Other"})
    assert status == 409 and e["error"]["code"] == "idempotency_conflict"
    # a refusal is replayed as the same refusal: pausing a cancelled subscription
    s = await subscribe(client, merchant.sk, await customer(client, merchant.sk))
    await put(client, f"/api/subscriptions/{s['id']}/cancel", merchant.sk)
    status, e1 = await put(client, f"/api/subscriptions/{s['id']}/pause", merchant.sk, "pause-1")
    status2, e2 = await put(client, f"/api/subscriptions/{s['id']}/pause", merchant.sk, "pause-1")
    assert status == status2 == 400 and e1["error"]["detail"] == e2["error"]["detail"]
