"""Issue 12 (hardening): one contract across REST, GraphQL and webhooks.

- a webhook endpoint answering 204 (or any 2xx, however the answer ends) counts as delivered;
- a decline's 402 carries `decline_code` on /api, /v1 and in GraphQL;
- every error body carries the request id of the X-Request-Id header, in one format;
- timestamps render identically in REST, GraphQL and webhook payloads;
- lists are in the same order in REST and GraphQL;
- one table of currency limits on /api and /v1, in all 7 currencies;
- gaps: API key without a name, OTP sign-up flag, request-otp 429 detail, CRM default rates
  and the company currency from its country.
"""
from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field

import pytest

from models.events import Event
from services import webhooks
from services.money import currencies as money
from tests.crm_fixtures import crm, signup  # noqa: F401
from tests.helpers import bearer, gql
from tests.intents_fixtures import create as create_intent
from tests.payments_fixtures import APPROVED, DECLINED, INSUFFICIENT, call, card, no_exploration, pay  # noqa: F401
from tests.test_foundation_auth import request_code, uniq
from tests.webhooks_fixtures import receiver  # noqa: F401

ISO_MS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
GENERATED_RID = re.compile(r"req_[A-Za-z0-9]{24}")
CURRENCIES = ("TRY", "SAR", "AED", "KWD", "QAR", "EGP", "IQD", "BHD", "OMR", "JOD", "USD")
HOME = {"TRY": "TR", "SAR": "SA", "AED": "AE", "QAR": "QA", "KWD": "KW", "EGP": "EG", "IQD": "IQ", "BHD": "BH",
        "OMR": "OM", "JOD": "JO", "USD": "EG"}        # USD: an Egyptian exporter's


# ---------------------------------------------------------------- a raw webhook receiver

@dataclass
class RawReceiver:
    """Answers every POST with the exact bytes of `answer`, then holds the connection open until
    the client closes it or `hold` seconds pass: answers aiohttp's own server never sends."""
    answer: bytes = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
    hold: float = 7.0           # longer than the 5 s delivery timeout
    base: str = ""
    bodies: list[bytes] = field(default_factory=list)

    def url(self) -> str:
        return self.base + "/hook"

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(re.search(rb"(?i)content-length:\s*(\d+)", head).group(1))
            self.bodies.append(await reader.readexactly(length))
            writer.write(self.answer)
            await writer.drain()
            await asyncio.wait_for(reader.read(), self.hold)
        except (asyncio.CancelledError, asyncio.TimeoutError, ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()


@pytest.fixture
async def raw_receiver():
    rx = RawReceiver()
    server = await asyncio.start_server(rx.handle, "127.0.0.1", 0)
    rx.base = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    yield rx
    server.close()


async def configure(client, key, url, events=("payment.succeeded",)):
    resp = await client.post("/api/webhooks/configure", json={"url": url, "events": list(events)}, headers=bearer(key))
    assert resp.status == 200, await resp.text()
    return await resp.json()


# A 204 with a body (FastAPI's `null`), a 204 followed by a stray chunk terminator, and a 200
# whose (empty so far) body runs until the connection closes: each is a 2xx answered in time.
ODD_2XX = {
    "204 with a body": b"HTTP/1.1 204 No Content\r\nContent-Length: 4\r\nContent-Type: application/json\r\n\r\nnull",
    "204 chunked": b"HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    "200 body until close": b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n",
}


@pytest.mark.parametrize("answer", list(ODD_2XX))
async def test_a_2xx_answer_counts_as_delivered_by_the_dispatcher(client, merchant, raw_receiver, answer):
    raw_receiver.answer = ODD_2XX[answer]
    await configure(client, merchant.sk, raw_receiver.url())
    status, _ = await pay(client, merchant.sk, 10000, "TRY")
    assert status == 200

    stats = await webhooks.run_once(owner="contract", merchant_id=merchant.id)

    assert (stats.claimed, stats.delivered, stats.failed) == (1, 1, 0), answer
    resp = await client.get("/api/webhooks/events", headers=bearer(merchant.sk))
    (ev,) = (await resp.json())["data"]
    assert ev["delivered"] is True and ev["status"] == "delivered"


@pytest.mark.parametrize("answer", list(ODD_2XX))
async def test_a_2xx_answer_counts_as_delivered_by_the_test_delivery(client, merchant, raw_receiver, answer):
    raw_receiver.answer = ODD_2XX[answer]
    await configure(client, merchant.sk, raw_receiver.url())
    resp = await client.post("/api/webhooks/test", json={"event": "payment.succeeded"}, headers=bearer(merchant.sk))
    body = await resp.json()
    assert resp.status == 200, body
    assert body["delivered"] is True and body["status_code"] == int(ODD_2XX[answer][9:12])
    assert body["latency_ms"] < 1000            # decided on the status line, not on the body


async def test_a_plain_204_counts_as_delivered(client, merchant, receiver):
    receiver.default = 204
    await configure(client, merchant.sk, receiver.url())
    resp = await client.post("/api/webhooks/test", json={"event": "payment.succeeded"}, headers=bearer(merchant.sk))
    assert (await resp.json())["delivered"] is True
    await pay(client, merchant.sk, 10000, "TRY")
    stats = await webhooks.run_once(owner="contract", merchant_id=merchant.id)
    assert stats.delivered == 1 and stats.failed == 0


# ---------------------------------------------------------------- decline_code

PAY_GQL = """mutation($input: PaymentCreateInput!) {
  paymentCreate(input: $input) { payment { id } userErrors { code message field declineCode } }
}"""

CONFIRM_GQL = """mutation($input: PaymentIntentConfirmInput!) {
  paymentIntentConfirm(input: $input) { paymentIntent { id status failureCode } userErrors { code field declineCode } }
}"""


@pytest.mark.parametrize("number,reason", [(DECLINED, "card_declined"), (INSUFFICIENT, "insufficient_funds")])
async def test_api_402_carries_the_decline_code(client, merchant, number, reason):
    status, body = await pay(client, merchant.sk, 5000, "TRY", number)
    assert status == 402
    e = body["error"]
    assert e["message"] == "Payment declined" and e["code"] == "payment_declined" and e["decline_code"] == reason
    assert reason in e["detail"]
    # an idempotent replay answers the same error, decline_code included
    body_ = {"amount": 5000, "currency": "TRY", "payment_method": card(number)}
    first = await call(client, "POST", "/api/payments/create", merchant.sk, body_, {"Idempotency-Key": "dc-1"})
    again = await call(client, "POST", "/api/payments/create", merchant.sk, body_, {"Idempotency-Key": "dc-1"})
    assert first[0] == again[0] == 402
    assert first[1]["error"]["decline_code"] == again[1]["error"]["decline_code"] == reason


@pytest.mark.parametrize("pm,reason", [("pm_card_chargeDeclined", "card_declined"),
                                       ("pm_card_insufficientFunds", "insufficient_funds")])
async def test_v1_confirm_decline_is_402_with_the_decline_code(client, merchant, pm, reason):
    i = await create_intent(client, merchant.sk)
    r = await client.post(f"/v1/payments/{i['id']}/confirm", json={"payment_method_id": pm}, headers=bearer(merchant.sk))
    body = await r.json()
    assert r.status == 402, body
    assert body["error"]["code"] == "payment_declined" and body["error"]["decline_code"] == reason
    assert body["error"]["type"] == "card_error"
    got = await (await client.get(f"/v1/payments/{i['id']}", headers=bearer(merchant.sk))).json()
    assert got["status"] == "failed" and got["failure_code"] == reason
    assert await Event.filter(object_id=i["id"], type="payment.failed").count() == 1


async def test_graphql_declines_carry_the_decline_code(client, merchant):
    _, out = await gql(client, PAY_GQL, {"input": {"amount": 5000, "currency": "TRY", "paymentMethod": {
        "card": {"number": INSUFFICIENT, "expMonth": 12, "expYear": 2030}}}}, merchant.sk)
    (err,) = out["data"]["paymentCreate"]["userErrors"]
    assert err["code"] == "payment_declined" and err["declineCode"] == "insufficient_funds"
    i = await create_intent(client, merchant.sk)
    _, out = await gql(client, CONFIRM_GQL, {"input": {"id": i["id"], "paymentMethodId": "pm_card_chargeDeclined"}},
                       merchant.sk)
    payload = out["data"]["paymentIntentConfirm"]
    assert payload["userErrors"] == [{"code": "payment_declined", "field": "paymentMethodId",
                                      "declineCode": "card_declined"}]
    assert payload["paymentIntent"] == {"id": i["id"], "status": "failed", "failureCode": "card_declined"}


# ---------------------------------------------------------------- request ids

def _rid_of(body: dict) -> str:
    if "error" in body:
        return body["error"]["request_id"]
    return body["errors"][0]["extensions"]["request_id"]


async def test_every_error_body_carries_the_request_id_of_its_header(client, merchant, crm):
    i = await create_intent(client, merchant.sk)
    cases = [
        (client, "GET", "/api/payments/list", {}, None),                                   # 401
        (client, "GET", "/api/payments/pay_doesnotexist", bearer(merchant.sk), None),      # 404
        (client, "POST", "/api/payments/create", bearer(merchant.sk), {"amount": "x"}),   # 400
        (client, "POST", "/api/payments/create", bearer(merchant.sk),                     # 402
         {"amount": 5000, "currency": "TRY", "payment_method": card(DECLINED)}),
        (client, "GET", "/v1/payments", {}, None),                                         # 401
        (client, "POST", "/v1/payments/intent", bearer(merchant.sk), {"amount": 1, "currency": "TRY",
                                                                      "payment_method": "card"}),  # 400
        (client, "POST", f"/v1/payments/{i['id']}/confirm", bearer(merchant.sk),
         {"payment_method_id": "pm_card_chargeDeclined"}),                                 # 402
        (client, "GET", "/no/such/path", {}, None),                                        # 404 outside the APIs
        (client, "POST", "/graphql", bearer("sk_test_nope"), {"query": "{ viewer { id } }"}),   # 401
        (client, "POST", "/graphql", bearer(merchant.sk), {"query": "{ nope }"}),                # 400
        (client, "POST", "/graphql", bearer(merchant.sk), {"query": '{ payment(id: "pay_nope") { id } }'}),
        (crm, "GET", "/api/customers", {}, None),                                          # 401
        (crm, "GET", "/no/such/path", {}, None),                                           # 404
    ]
    for app_client, method, path, headers, body in cases:
        resp = await app_client.request(method, path, headers=headers, json=body)
        data = await resp.json()
        header = resp.headers["X-Request-Id"]
        assert GENERATED_RID.fullmatch(header), (path, header)
        assert _rid_of(data) == header, (method, path, resp.status, data)
        # a caller's own id is echoed in the header and the body alike
        resp = await app_client.request(method, path, headers={**headers, "X-Request-Id": "trace-42.a"}, json=body)
        data = await resp.json()
        assert resp.headers["X-Request-Id"] == _rid_of(data) == "trace-42.a", (path, data)


# ---------------------------------------------------------------- timestamps

async def test_one_timestamp_format_in_rest_graphql_and_webhooks(client, merchant, receiver, clock):
    clock.advance(seconds=0.123456)           # sub-millisecond digits that a raw isoformat() would show
    await configure(client, merchant.sk, receiver.url())
    status, created = await pay(client, merchant.sk, 10000, "TRY")
    assert status == 200
    pid = created["id"]
    rest = (await call(client, "GET", f"/api/payments/{pid}", merchant.sk))[1]["created_at"]
    _, out = await gql(client, "query($id: ID!) { payment(id: $id) { createdAt } }", {"id": pid}, merchant.sk)
    graphql = out["data"]["payment"]["createdAt"]
    await webhooks.run_once(owner="contract", merchant_id=merchant.id)
    (got,) = receiver.got
    hook = json.loads(got.body)["data"]["object"]["created_at"]
    assert created["created_at"] == rest == graphql == hook
    assert ISO_MS.fullmatch(rest) and rest.endswith(":00.123Z"), rest
    assert isinstance(json.loads(got.body)["created"], int)      # the documented Unix-seconds envelope field

    # a /v1 intent: REST and GraphQL
    i = await create_intent(client, merchant.sk)
    _, out = await gql(client, "query($id: ID!) { paymentIntent(id: $id) { createdAt expiresAt } }",
                       {"id": i["id"]}, merchant.sk)
    assert (out["data"]["paymentIntent"]["createdAt"], out["data"]["paymentIntent"]["expiresAt"]) == (
        i["created_at"], i["expires_at"])
    assert ISO_MS.fullmatch(i["created_at"])

    # webhook events and API keys
    rest_events = (await call(client, "GET", "/api/webhooks/events", merchant.sk))[1]["data"]
    _, out = await gql(client, "{ webhookEvents(first: 10) { edges { node { id createdAt } } } }", key=merchant.sk)
    assert [(e["id"], e["created_at"]) for e in rest_events] == [
        (e["node"]["id"], e["node"]["createdAt"]) for e in out["data"]["webhookEvents"]["edges"]]
    rest_keys = (await call(client, "GET", "/api/api-keys", merchant.sk))[1]["data"]
    _, out = await gql(client, "{ apiKeys(first: 10) { edges { node { id createdAt lastUsed } } } }", key=merchant.sk)
    assert [(k["id"], k["created_at"], k["last_used"]) for k in rest_keys] == [
        (e["node"]["id"], e["node"]["createdAt"], e["node"]["lastUsed"]) for e in out["data"]["apiKeys"]["edges"]]
    assert all(ISO_MS.fullmatch(k["created_at"]) for k in rest_keys)


# ---------------------------------------------------------------- list order

async def _rest_ids(client, path, key):
    status, body = await call(client, "GET", path, key)
    assert status == 200, body
    return [row["id"] for row in body["data"]]


async def _gql_ids(client, field, key, args="first: 100"):
    _, out = await gql(client, f"{{ {field}({args}) {{ edges {{ node {{ id }} }} }} }}", key=key)
    return [e["node"]["id"] for e in out["data"][field]["edges"]]


async def test_rest_and_graphql_list_the_same_ids_in_the_same_order(client, merchant, clock):
    # Several objects per instant (the frozen clock): the order rests on the id tie-break.
    for n in range(4):
        for _ in range(3):
            assert (await pay(client, merchant.sk, 1000 + n, "TRY"))[0] == 200
            await create_intent(client, merchant.sk, amount=1000 + n)
            await call(client, "POST", "/api/customers", merchant.sk, {"email": f"c{n}-{_}@example.com"})
            await call(client, "POST", "/api/api-keys", merchant.sk, {"name": f"k{n}"})
        clock.advance(seconds=1)
    pairs = [
        ("/api/payments/list?limit=100", "payments"),
        ("/v1/payments?limit=100", "paymentIntents"),
        ("/api/customers?limit=100", "customers"),
        ("/api/api-keys?limit=100", "apiKeys"),
        ("/api/webhooks/events?limit=100", "webhookEvents"),
    ]
    for path, field_ in pairs:
        rest, graph = await _rest_ids(client, path, merchant.sk), await _gql_ids(client, field_, merchant.sk)
        assert rest == graph and len(rest) >= 12, (path, rest, graph)
    # newest first, ties broken by id (descending)
    from models.payments import Payment
    rows = await Payment.filter(merchant_id=merchant.id).values_list("created_at", "id")
    expected = [pid for _, pid in sorted(rows, key=lambda r: (r[0], r[1]), reverse=True)]
    assert await _rest_ids(client, "/api/payments/list?limit=100", merchant.sk) == expected


async def test_crm_rest_and_graphql_list_in_the_same_order(crm, clock):
    acct = await signup(crm)
    for n in range(3):
        for m in range(3):
            r = await crm.post("/api/customers", json={"name": f"C{n}{m}"}, headers=acct.h)
            cid = (await r.json())["id"]
            await crm.post("/api/deals", json={"title": "D", "customer_id": cid, "value": 100, "currency": "TRY"},
                           headers=acct.h)
        clock.advance(seconds=1)
    for path, field_ in (("/api/customers?limit=100", "customers"), ("/api/deals?limit=100", "deals")):
        rest = [row["id"] for row in (await (await crm.get(path, headers=acct.h)).json())["data"]]
        r = await crm.post("/graphql", json={"query": f"{{ crm {{ {field_}(first: 100) {{ edges {{ node {{ id }} }} }} }} }}"},
                           headers=acct.h)
        graph = [e["node"]["id"] for e in (await r.json())["data"]["crm"][field_]["edges"]]
        assert rest == graph and len(rest) == 9, (path, rest, graph)


# ---------------------------------------------------------------- amount limits, one table

DOCUMENTED = {  # currency: (exponent, minimum, maximum) in minor units
    "TRY": (2, 100, 50_000_000), "SAR": (2, 10, 5_000_000), "AED": (2, 10, 5_000_000), "KWD": (3, 100, 4_000_000),
    "QAR": (2, 10, 5_000_000), "EGP": (2, 500, 60_000_000), "IQD": (3, 250_000, 16_000_000_000),
    "BHD": (3, 100, 5_000_000), "OMR": (3, 100, 5_000_000), "JOD": (3, 100, 10_000_000),
    "USD": (2, 100, 1_500_000),
}


def test_the_currency_table():
    assert {r.currency: (r.exponent, r.minimum, r.maximum) for r in money.table()} == DOCUMENTED
    assert money.table()[0].currency == "TRY" and [r.currency for r in money.table()] == list(CURRENCIES)


@pytest.mark.parametrize("currency", CURRENCIES)
async def test_amount_limits_are_the_same_on_api_and_v1(client, make_merchant, currency):
    from tests.intents_fixtures import set_country
    m = await make_merchant()
    await set_country(m.id, HOME[currency])
    _, lo, hi = DOCUMENTED[currency]
    for amount, ok in ((lo - 1, False), (lo, True), (hi, True), (hi + 1, False)):
        status, body = await pay(client, m.sk, amount, currency, routing="atlas")
        if ok:
            assert status == 200 and body["amount"] == amount, (currency, amount, body)
        else:
            assert status == 400 and body["error"]["param"] == "amount", (currency, amount, body)
            assert body["error"]["message"] == "Invalid request body"
            assert "in minor units" in body["error"]["detail"]
        r = await client.post("/v1/payments/intent", json={"amount": amount, "currency": currency,
                                                           "payment_method": "card"}, headers=bearer(m.sk))
        b = await r.json()
        if ok:
            assert r.status == 201 and b["amount"] == amount, (currency, amount, b)
        else:
            assert r.status == 400 and (b["error"]["code"], b["error"]["param"]) == ("invalid_amount", "amount")


async def test_configured_limits_apply_to_both_interfaces(client, merchant):
    try:
        money.configure_limits({"TRY": money.AmountLimit(100, 200_000_000)})     # an enterprise arrangement
        assert (await pay(client, merchant.sk, 100_000_000, "TRY", routing="atlas"))[0] == 200
        await create_intent(client, merchant.sk, amount=100_000_000)
    finally:
        money.configure_limits(None)
    assert money.LIMITS["TRY"].maximum == 50_000_000
    with pytest.raises(ValueError):
        money.configure_limits({"TRY": money.AmountLimit(10, 5)})


# ---------------------------------------------------------------- gaps

async def test_api_key_without_a_name_gets_a_default_name(client, merchant):
    status, body = await call(client, "POST", "/api/api-keys", merchant.sk, None)
    assert status == 200 and body["name"] == "Secret key (test)" and body["key"].startswith("sk_test_")
    status, body = await call(client, "POST", "/api/api-keys", merchant.sk, {"type": "publishable"})
    assert status == 200 and body["name"] == "Publishable key (test)"
    status, body = await call(client, "POST", "/api/api-keys", merchant.sk, {"name": "  "})
    assert status == 400 and body["error"]["param"] == "name"
    _, out = await gql(client, "mutation { apiKeyCreate(input: {}) { apiKey { name } userErrors { code } } }",
                       key=merchant.sk)
    assert out["data"]["apiKeyCreate"]["apiKey"]["name"] == "Secret key (test)"


async def test_verify_otp_says_when_it_signed_the_merchant_up(client, mailer):
    email = uniq("signup")
    for expected in (True, False):
        body, code = await request_code(client, mailer, email)
        r = await client.post("/api/auth/verify-otp", json={"request_id": body["request_id"], "otp": code})
        got = await r.json()
        assert r.status == 200 and got["merchant_created"] is expected, got
    body, code = await request_code(client, mailer, email)
    _, out = await gql(client, """mutation($input: OtpVerifyInput!) {
        otpVerify(input: $input) { merchantId merchantCreated userErrors { code } } }""",
                       {"input": {"requestId": body["request_id"], "otp": code}})
    assert out["data"]["otpVerify"]["merchantCreated"] is False


async def test_request_otp_429_names_the_real_limit(client, mailer):
    email = uniq("limited")
    for _ in range(5):
        await request_code(client, mailer, email)
    resp = await client.post("/api/auth/request-otp", json={"email": email})
    body = await resp.json()
    assert resp.status == 429
    assert body["error"]["message"] == "Rate limit exceeded (5/min)"     # the documented form, the limit that applied
    assert "5 per minute" in body["error"]["detail"] and "retry after" in body["error"]["detail"]
    assert resp.headers["X-RateLimit-Limit"] == "5" and resp.headers["X-RateLimit-Remaining"] == "0"
    assert 1 <= int(resp.headers["Retry-After"]) <= 60
    assert body["error"]["request_id"] == resp.headers["X-Request-Id"]


@pytest.mark.parametrize("country,currency", [("SA", "SAR"), ("AE", "AED"), ("TR", "TRY"), ("KW", "KWD"),
                                              ("QA", "QAR"), ("EG", "EGP"), ("IQ", "IQD"), (None, "USD")])
async def test_company_currency_comes_from_its_country(crm, country, currency):
    acct = await signup(crm, **({"country": country} if country else {}))
    assert acct.body["company"]["currency"] == currency and acct.body["company"]["country"] == country
    acct = await signup(crm, country="SA", currency="USD")             # an explicit currency wins
    assert acct.body["company"]["currency"] == "USD"


async def test_pipeline_report_on_a_fresh_company_uses_the_pegged_rates(crm):
    acct = await signup(crm, country="SA")
    r = await crm.post("/api/customers", json={"name": "Layla"}, headers=acct.h)
    cid = (await r.json())["id"]
    for value, cur, stage, prob in ((100_000, "AED", "lead", 50), (100_000, "USD", "proposal", 100),
                                    (100_000, "SAR", "qualified", 10), (100_000, "QAR", "negotiation", 100)):
        r = await crm.post("/api/deals", json={"title": "D", "customer_id": cid, "value": value, "currency": cur,
                                               "stage": stage, "probability": prob}, headers=acct.h)
        assert r.status == 201, await r.text()
    r = await crm.get("/api/reports/pipeline", headers=acct.h)              # the company's currency: SAR
    b = await r.json()
    assert r.status == 200, b
    assert b["currency"] == "SAR"
    # 1000 AED = 1021.10 SAR (3.75/3.6725), 1000 USD = 3750.00 SAR, 1000 QAR = 1030.22 SAR (3.75/3.64)
    stages = {s["stage"]: s["value"] for s in b["stages"]}
    assert stages == {"lead": 102110, "qualified": 100_000, "proposal": 375_000, "negotiation": 103022}
    used = {(x["base"], x["quote"]): x for x in b["rates_used"]}
    assert used[("USD", "SAR")]["rate"] == "3.75" and used[("USD", "SAR")]["source"] == "reference"
    assert used[("USD", "SAR")]["rate_date"] is None
    # revenue in USD works too; a floating currency without a configured rate is no 400 (issue 22):
    # every deal is listed in its own currency and each pair named
    assert (await crm.get("/api/reports/revenue?currency=USD", headers=acct.h)).status == 200
    r = await crm.get("/api/reports/pipeline?currency=TRY", headers=acct.h)
    b = await r.json()
    assert r.status == 200 and b["total"] == {"count": 4, "value": 0, "weighted_value": 0}    # issue 35: counted
    assert [(u["currency"], u["amount"]) for u in b["unconverted"]] == [("AED", 100_000), ("QAR", 100_000),
                                                                        ("SAR", 100_000), ("USD", 100_000)]
    assert b["missing_rates"] == [{"base": c, "quote": "TRY"} for c in ("AED", "QAR", "SAR", "USD")]
    # a configured rate wins over the reference rate
    await crm.put("/api/reports/rates", json={"base": "USD", "quote": "SAR", "rate": "3.7", "rate_date": "2026-01-02"},
                  headers=acct.h)
    b = await (await crm.get("/api/reports/pipeline", headers=acct.h)).json()
    assert {s["stage"]: s["value"] for s in b["stages"]}["proposal"] == 370_000


async def test_tokens_follow_the_injected_clock_even_ahead_of_the_wall_clock(crm, client, mailer, clock):
    # The test clock moves a day per test; once it passes the wall clock, PyJWT's own `iat`
    # check (wall clock) refused every fresh token as "not yet valid".
    from datetime import datetime, timezone
    clock.set(datetime(2031, 3, 1, 12, 0, tzinfo=timezone.utc))
    acct = await signup(crm)
    assert (await crm.get("/api/me", headers=acct.h)).status == 200
    body, code = await request_code(client, mailer, uniq("future"))
    r = await client.post("/api/auth/verify-otp", json={"request_id": body["request_id"], "otp": code})
    token = (await r.json())["token"]
    assert (await client.get("/api/api-keys", headers=bearer(token))).status == 200


async def test_billing_events_render_timestamps_like_rest(client, merchant, clock):
    from tests.billing_fixtures import customer, subscribe
    clock.advance(seconds=0.5004)
    cid = await customer(client, merchant.sk)
    sub = await subscribe(client, merchant.sk, cid)
    status, inv = await call(client, "POST", "/api/invoices", merchant.sk,
                             {"customer_id": cid, "currency": "TRY", "items": [{"name": "X", "amount": 1005, "quantity": 1}]})
    assert status == 200, inv
    for obj_id, rest in ((sub["id"], sub), (inv["id"], inv)):
        ev = await Event.filter(object_id=obj_id).order_by("created_at").first()
        data = ev.data
        status, got = await call(client, "GET", f"/api/{'subscriptions' if obj_id.startswith('sub_') else 'invoices'}/{obj_id}",
                                 merchant.sk)
        assert ISO_MS.fullmatch(data["created_at"]) and data["created_at"] == got["created_at"], (data, got)
