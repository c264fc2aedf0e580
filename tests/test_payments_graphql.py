"""Payments over GraphQL: the same flows as REST (parity of the stored rows), userErrors,
node(id:), and a fixed number of SQL statements for a page of payments with customers."""
from __future__ import annotations

from models.payments import Customer, Payment, Refund
from services.payments import payments, routing
from services.principal import Principal
from tests.helpers import gql
from tests.payments_fixtures import APPROVED, DECLINED, call, count_statements, no_exploration  # noqa: F401

CREATE = """mutation($input: PaymentCreateInput!) { paymentCreate(input: $input) {
  payment { id status amount currency provider riskScore amountCaptured
            routingDecision { strategy reason alternativesConsidered latencyMs attempts { provider outcome } }
            card { brand last4 } customer { id email } }
  userErrors { code message field } } }"""
CAPTURE = """mutation($input: PaymentCaptureInput!) { paymentCapture(input: $input) {
  payment { id status amountCaptured } userErrors { code message field } } }"""
VOID = """mutation($input: PaymentVoidInput!) { paymentVoid(input: $input) {
  payment { id status } userErrors { code message field } } }"""
REFUND = """mutation($input: PaymentRefundInput!) { paymentRefund(input: $input) {
  payment { id status amountRefunded } refundId amount userErrors { code message field } } }"""
CUSTOMER_CREATE = """mutation($input: CustomerCreateInput!) { customerCreate(input: $input) {
  customer { id email name phone metadata } userErrors { code message field } } }"""
CUSTOMER_UPDATE = """mutation($input: CustomerUpdateInput!) { customerUpdate(input: $input) {
  customer { id name phone } userErrors { code message field } } }"""
RULE_CREATE = """mutation($input: RoutingRuleCreateInput!) { routingRuleCreate(input: $input) {
  routingRule { id name strategy priority status provider conditions { field operator value } }
  userErrors { code message field } } }"""
RULE_UPDATE = """mutation($input: RoutingRuleUpdateInput!) { routingRuleUpdate(input: $input) {
  routingRule { id name priority } userErrors { code message field } } }"""
PAYMENTS = """query($first: Int, $after: String, $status: String) {
  payments(first: $first, after: $after, status: $status) {
    totalCount pageInfo { hasNextPage endCursor }
    edges { node { id amount customer { id email name } } } } }"""


def card_input(number=APPROVED):
    return {"card": {"number": number, "expMonth": 12, "expYear": 2030, "cvc": "123"}}


COMPARED = ("status", "amount", "currency", "amount_captured", "amount_refunded", "fee", "provider",
            "capture_method", "card_brand", "card_last4", "card_fingerprint", "decline_code", "metadata")


async def _rows(merchant_id):
    pays = await Payment.filter(merchant_id=merchant_id).order_by("created_at", "id")
    refunds = await Refund.filter(merchant_id=merchant_id).order_by("created_at", "id")
    custs = await Customer.filter(merchant_id=merchant_id).order_by("created_at", "id")
    return ([{k: getattr(p, k) for k in COMPARED} | {"has_customer": p.customer_id is not None} for p in pays],
            [(r.amount, r.currency, r.reason) for r in refunds],
            [(c.email, c.name, c.phone) for c in custs])


async def test_rest_and_graphql_flows_store_the_same_rows(client, make_merchant, clock):
    rest, graph = await make_merchant(), await make_merchant()
    # REST
    _, c = await call(client, "POST", "/api/customers", rest.sk, {"email": "nour@example.com", "name": "Nour"})
    await call(client, "PUT", f"/api/customers/{c['id']}", rest.sk, {"phone": "+971501234567"})
    clock.advance(seconds=1)
    _, p1 = await call(client, "POST", "/api/payments/create", rest.sk, {
        "amount": 25_000, "currency": "AED", "customer_id": c["id"], "metadata": {"order": "A1"}, "capture": False,
        "payment_method": {"type": "card", "card": {"number": APPROVED, "exp_month": 12, "exp_year": 2030,
                                                    "cvc": "123"}}})
    await call(client, "POST", f"/api/payments/{p1['id']}/capture", rest.sk, {"amount": 20_000})
    await call(client, "POST", f"/api/payments/{p1['id']}/refund", rest.sk, {"amount": 5_000, "reason": "damaged"})
    clock.advance(seconds=1)
    _, p2 = await call(client, "POST", "/api/payments/create", rest.sk, {
        "amount": 7_000, "currency": "KWD", "capture": False,
        "payment_method": {"card": {"number": APPROVED, "exp_month": 12, "exp_year": 2030}}})
    await call(client, "POST", f"/api/payments/{p2['id']}/void", rest.sk)
    clock.advance(seconds=1)
    await call(client, "POST", "/api/payments/create", rest.sk, {
        "amount": 7_000, "currency": "TRY", "payment_method": {"card": {"number": DECLINED, "exp_month": 12,
                                                                         "exp_year": 2030}}})
    # GraphQL, from the same routing observations
    routing.STATS.reset()
    _, out = await gql(client, CUSTOMER_CREATE, {"input": {"email": "nour@example.com", "name": "Nour"}}, graph.sk)
    cid = out["data"]["customerCreate"]["customer"]["id"]
    _, out = await gql(client, CUSTOMER_UPDATE, {"input": {"id": cid, "phone": "+971501234567"}}, graph.sk)
    assert out["data"]["customerUpdate"]["customer"]["phone"] == "+971501234567"
    clock.advance(seconds=1)
    _, out = await gql(client, CREATE, {"input": {"amount": 25_000, "currency": "AED", "customerId": cid,
                                                  "metadata": {"order": "A1"}, "capture": False,
                                                  "paymentMethod": {**card_input(), "type": "card"}}}, graph.sk)
    g1 = out["data"]["paymentCreate"]["payment"]
    assert g1["status"] == "authorized" and g1["customer"] == {"id": cid, "email": "nour@example.com"}
    _, out = await gql(client, CAPTURE, {"input": {"id": g1["id"], "amount": 20_000}}, graph.sk)
    assert out["data"]["paymentCapture"]["payment"] == {"id": g1["id"], "status": "captured", "amountCaptured": 20_000}
    _, out = await gql(client, REFUND, {"input": {"id": g1["id"], "amount": 5_000, "reason": "damaged"}}, graph.sk)
    assert out["data"]["paymentRefund"]["refundId"].startswith("ref_") and out["data"]["paymentRefund"]["amount"] == 5000
    clock.advance(seconds=1)
    _, out = await gql(client, CREATE, {"input": {"amount": 7_000, "currency": "KWD", "capture": False,
                                                  "paymentMethod": {"card": {"number": APPROVED, "expMonth": 12,
                                                                             "expYear": 2030}}}}, graph.sk)
    g2 = out["data"]["paymentCreate"]["payment"]
    _, out = await gql(client, VOID, {"input": {"id": g2["id"]}}, graph.sk)
    assert out["data"]["paymentVoid"]["payment"]["status"] == "voided"
    clock.advance(seconds=1)
    _, out = await gql(client, CREATE, {"input": {"amount": 7_000, "currency": "TRY",
                                                  "paymentMethod": card_input(DECLINED)}}, graph.sk)
    assert out["data"]["paymentCreate"]["payment"] is None
    err = out["data"]["paymentCreate"]["userErrors"][0]
    assert err["code"] == "payment_declined" and "card_declined" in err["message"]
    assert await _rows(rest.id) == await _rows(graph.id)


async def test_refused_transition_and_bad_input_are_user_errors(client, merchant):
    _, out = await gql(client, CREATE, {"input": {"amount": 5_000, "currency": "TRY", "paymentMethod": card_input()}},
                       merchant.sk)
    pid = out["data"]["paymentCreate"]["payment"]["id"]
    assert out["data"]["paymentCreate"]["payment"]["routingDecision"]["strategy"] == "smart"
    _, out = await gql(client, VOID, {"input": {"id": pid}}, merchant.sk)
    assert out["data"]["paymentVoid"] == {"payment": None, "userErrors": [{
        "code": "invalid_state", "field": None,
        "message": f"Payment {pid} cannot be voided: its status is succeeded; only an authorized payment can be "
                   "voided, before capture"}]}
    _, out = await gql(client, CREATE, {"input": {"amount": 5_000, "currency": "TRY",
                                                  "paymentMethod": card_input("4242424242424241")}}, merchant.sk)
    assert out["data"]["paymentCreate"]["userErrors"][0]["field"] == "paymentMethod.card.number"
    _, out = await gql(client, RULE_CREATE, {"input": {"name": "x", "strategy": "random"}}, merchant.sk)
    assert out["data"]["routingRuleCreate"]["userErrors"][0]["field"] == "strategy"
    assert (await Payment.get(id=pid)).status == "succeeded"


async def test_rules_queries_and_node(client, merchant, make_merchant):
    _, out = await gql(client, RULE_CREATE, {"input": {"name": "TR", "provider": "anatolia", "conditions": [
        {"field": "currency", "operator": "equals", "value": "TRY"}]}}, merchant.sk)
    r = out["data"]["routingRuleCreate"]["routingRule"]
    assert r["status"] == "active" and r["strategy"] == "smart" and r["conditions"][0]["value"] == "TRY"
    _, out = await gql(client, RULE_UPDATE, {"input": {"id": r["id"], "priority": 1}}, merchant.sk)
    assert out["data"]["routingRuleUpdate"]["routingRule"]["priority"] == 1
    _, out = await gql(client, "{ routingRules { totalCount edges { node { id name priority } } } }", None, merchant.sk)
    assert out["data"]["routingRules"]["edges"] == [{"node": {"id": r["id"], "name": "TR", "priority": 1}}]
    _, out = await gql(client, CREATE, {"input": {"amount": 5_000, "currency": "TRY", "paymentMethod": card_input(),
                                                  "customer": {"email": "x@example.com"}}}, merchant.sk)
    p = out["data"]["paymentCreate"]["payment"]
    cid = p["customer"]["id"]
    q = """query($p: ID!, $c: ID!, $r: ID!) { p: node(id: $p) { id ... on Payment { amount } }
             c: node(id: $c) { id ... on Customer { email } } r: node(id: $r) { id ... on RoutingRule { name } }
             payment(id: $p) { status } customer(id: $c) { email } customers(first: 5) { totalCount } }"""
    _, out = await gql(client, q, {"p": p["id"], "c": cid, "r": r["id"]}, merchant.sk)
    assert out["data"]["p"] == {"id": p["id"], "amount": 5000} and out["data"]["c"]["email"] == "x@example.com"
    assert out["data"]["r"]["name"] == "TR" and out["data"]["customers"]["totalCount"] == 1
    other = await make_merchant()
    _, out = await gql(client, "query($id: ID!) { payment(id: $id) { id } }", {"id": p["id"]}, other.sk)
    assert out["data"] is None and out["errors"][0]["extensions"]["status"] == 404


async def test_a_page_of_payments_with_customers_costs_a_fixed_number_of_statements(client, merchant):
    principal = Principal(merchant_id=merchant.id, livemode=False, kind="secret")
    for i in range(100):
        await payments.create_payment(principal=principal, data={
            "amount": 10_000 + i, "currency": "TRY", "customer": {"email": f"c{i % 40}@example.com"},
            "payment_method": {"card": {"number": APPROVED, "exp_month": 12, "exp_year": 2030}}})
    await gql(client, PAYMENTS, {"first": 1}, merchant.sk)     # the key's last_used is written once a minute
    counts = {}
    for first in (5, 20, 100):
        with count_statements() as statements:
            status, out = await gql(client, PAYMENTS, {"first": first}, merchant.sk)
        assert status == 200 and len(out["data"]["payments"]["edges"]) == first
        assert all(e["node"]["customer"]["email"].startswith("c") for e in out["data"]["payments"]["edges"])
        counts[first] = len(statements)
    assert counts[5] == counts[20] == counts[100], counts
    assert counts[100] <= 4, counts     # key lookup, count, page, customers (one batched query)
