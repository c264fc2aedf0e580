"""The marketplace over GraphQL (issue 47): the same services as REST; inputs are the REST fields in
camelCase; expected failures are userErrors naming the field; splits on payments and intents;
webhooks events and Idempotency-Key on the REST POSTs."""
from __future__ import annotations

from models.events import Event
from models.marketplace import SubMerchant
from tests.helpers import gql
from tests.marketplace_fixtures import IBANS, seller_body
from tests.money_fixtures import at
from tests.payments_fixtures import call, card

CREATE = """
mutation($input: SubMerchantCreateInput!) {
  subMerchantCreate(input: $input) {
    subMerchant { id status payoutsEnabled currency payout { iban purpose holdUntil } taxId { type value }
                  payoutSchedule { interval minimum } requirements { currentlyDue } }
    userErrors { code message field }
  }
}"""

READ = """
query($id: ID!, $pay: ID!, $split: ID!) {
  subMerchant(id: $id) { legalName balance { pending { amount currency } available { amount } } }
  payment(id: $pay) { splits { id amount fee lineAmount status subMerchant } }
  split(id: $split) { id status release }
  marketplace { disputePolicy commissionInvoices payoutAccount { iban } }
  subMerchants(first: 10) { totalCount edges { node { id balance { pending { amount } } } } }
}"""

HOLD = """
mutation($id: ID!) { splitHold(input: {id: $id}) { split { id status } userErrors { code field } } }"""

BATCH = """
mutation($cur: String!) { payoutBatchCreate(input: {currency: $cur}) { payoutBatch { id count total }
  userErrors { code message field } } }"""

SETTINGS = """
mutation($input: MarketplaceUpdateInput!) { marketplaceUpdate(input: $input) {
  marketplace { disputePolicy payoutAccount { iban name } } userErrors { code field } } }"""


def gql_input(body: dict) -> dict:
    def camel(k: str) -> str:
        head, *rest = k.split("_")
        return head + "".join(w.title() for w in rest)

    def conv(v):
        if isinstance(v, dict):
            return {camel(k): conv(x) for k, x in v.items()}
        return v
    return conv(body)


async def test_sub_merchant_create_read_and_splits_over_graphql(client, merchant, clock):
    clock.set(at(2026, 3, 2, 9, 0))
    status, body = await gql(client, CREATE, {"input": gql_input(seller_body("SA"))}, key=merchant.sk)
    assert status == 200 and body["data"]["subMerchantCreate"]["userErrors"] == [], body
    s = body["data"]["subMerchantCreate"]["subMerchant"]
    assert (s["status"], s["payoutsEnabled"], s["currency"], s["payout"]["iban"], s["taxId"]["type"]) == \
        ("active", True, "SAR", IBANS["SA"], "sa_vat")
    bad = gql_input(seller_body("SA", payout=False))
    bad["payout"] = {"iban": "SA0380000000608010167518", "holderName": bad["legalName"]}
    status, body = await gql(client, CREATE, {"input": bad}, key=merchant.sk)
    assert body["data"]["subMerchantCreate"]["subMerchant"] is None
    err = body["data"]["subMerchantCreate"]["userErrors"][0]
    assert (err["code"], err["field"]) == ("invalid_iban", "payout.iban")
    assert await SubMerchant.filter(merchant_id=merchant.id).count() == 1

    status, p = await call(client, "POST", "/api/payments/create", merchant.sk,
                           {"amount": 10000, "currency": "SAR", "payment_method": card(),
                            "splits": [{"sub_merchant": s["id"], "line_amount": 4000, "fee_percent": "5"}]})
    assert status == 200, p
    sid = p["splits"][0]["id"]
    status, body = await gql(client, READ, {"id": s["id"], "pay": p["id"], "split": sid}, key=merchant.sk)
    assert status == 200 and "errors" not in body, body
    d = body["data"]
    assert d["subMerchant"]["balance"]["pending"] == [{"amount": 3800, "currency": "SAR"}]
    assert d["payment"]["splits"] == [{"id": sid, "amount": 3800, "fee": 200, "lineAmount": 4000,
                                       "status": "released", "subMerchant": s["id"]}]
    assert d["split"] == {"id": sid, "status": "released", "release": "on_capture"}
    assert d["marketplace"] == {"disputePolicy": "platform", "commissionInvoices": True, "payoutAccount": None}
    assert d["subMerchants"]["totalCount"] == 1
    assert d["subMerchants"]["edges"][0]["node"]["balance"] == {"pending": [{"amount": 3800}]}

    status, body = await gql(client, HOLD, {"id": sid}, key=merchant.sk)
    assert body["data"]["splitHold"] == {"split": {"id": sid, "status": "held"}, "userErrors": []}
    status, body = await gql(client, BATCH, {"cur": "SAR"}, key=merchant.sk)
    assert body["data"]["payoutBatchCreate"]["userErrors"][0]["code"] == "nothing_to_pay"
    status, body = await gql(client, SETTINGS, {"input": {"disputePolicy": "seller",
                                                          "payoutAccount": {"iban": IBANS["SA"], "name": "Souq"}}},
                             key=merchant.sk)
    assert body["data"]["marketplaceUpdate"] == {"marketplace": {"disputePolicy": "seller", "payoutAccount": {
        "iban": IBANS["SA"], "name": "Souq"}}, "userErrors": []}
    status, body = await gql(client, SETTINGS, {"input": {"disputePolicy": "buyer"}}, key=merchant.sk)
    assert body["data"]["marketplaceUpdate"]["userErrors"] == [{"code": "invalid_request", "field": "disputePolicy"}]


async def test_intent_splits_over_graphql_and_others_objects_are_not_found(client, merchant, make_merchant):
    status, s = await call(client, "POST", "/api/sub-merchants", merchant.sk, seller_body("SA"))
    r = await client.post("/v1/payments/intent", json={"amount": 5000, "currency": "SAR", "payment_method": "card",
                                                       "splits": [{"sub_merchant": s["id"], "amount": 1000}]},
                          headers={"Authorization": f"Bearer {merchant.sk}"})
    i = await r.json()
    assert r.status == 201, i
    q = "query($id: ID!) { paymentIntent(id: $id) { splits { amount status } } }"
    status, body = await gql(client, q, {"id": i["id"]}, key=merchant.sk)
    assert body["data"]["paymentIntent"]["splits"] == [{"amount": 1000, "status": "pending"}]
    other = await make_merchant()
    status, body = await gql(client, "query($id: ID!) { subMerchant(id: $id) { id } }", {"id": s["id"]},
                             key=other.sk)
    assert body["errors"][0]["extensions"]["code"] == "resource_not_found"


async def test_new_posts_take_an_idempotency_key_and_changes_are_webhook_events(client, merchant):
    headers = {"Idempotency-Key": "smr-create-1"}
    status, a = await call(client, "POST", "/api/sub-merchants", merchant.sk, seller_body("AE"), headers=headers)
    status2, b = await call(client, "POST", "/api/sub-merchants", merchant.sk, seller_body("AE"), headers=headers)
    assert (status, status2) == (201, 201) and a["id"] == b["id"]
    assert await SubMerchant.filter(merchant_id=merchant.id).count() == 1
    assert await Event.filter(merchant_id=merchant.id, type="sub_merchant.updated").count() == 1


REFUND = """
mutation($id: ID!, $split: ID!) { paymentRefund(input: {id: $id, amount: 1000, split: $split, reverseSplit: true}) {
  amount splitReversals { split amount amountReversed feeRefunded } userErrors { code field } } }"""


async def test_a_refund_over_graphql_reverses_a_split(client, merchant):
    status, s = await call(client, "POST", "/api/sub-merchants", merchant.sk, seller_body("SA"))
    status, p = await call(client, "POST", "/api/payments/create", merchant.sk,
                           {"amount": 10000, "currency": "SAR", "payment_method": card(),
                            "splits": [{"sub_merchant": s["id"], "line_amount": 4000, "fee_percent": "5"}]})
    sid = p["splits"][0]["id"]
    status, body = await gql(client, REFUND, {"id": p["id"], "split": sid}, key=merchant.sk)
    assert body["data"]["paymentRefund"] == {"amount": 1000, "splitReversals": [
        {"split": sid, "amount": 1000, "amountReversed": 1000, "feeRefunded": 50}], "userErrors": []}, body
