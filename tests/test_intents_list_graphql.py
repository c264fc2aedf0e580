"""GET /v1/payments (cursor + every filter) and GraphQL parity."""
from __future__ import annotations

from tests.helpers import bearer, gql
from tests.intents_fixtures import confirm, create, get


async def _list(client, key, expect=200, **q):
    r = await client.get("/v1/payments", params=q, headers=bearer(key))
    data = await r.json()
    assert r.status == expect, data
    return data


async def test_list_cursor_and_filters(client, merchant, make_merchant, clock):
    stranger = await make_merchant()
    await create(client, stranger.sk)
    t0 = int(clock.time())
    a = await create(client, merchant.sk, amount=1000)
    clock.advance(seconds=10)
    b = await create(client, merchant.sk, amount=2000, currency="SAR")
    await confirm(client, merchant.sk, b["id"], payment_method_id="pm_card_visa")
    clock.advance(seconds=10)
    c = await create(client, merchant.sk, amount=3000, payment_method="qr")
    page = await _list(client, merchant.sk, limit=2)
    assert page["object"] == "list" and page["total_count"] == 3 and page["has_more"] is True
    assert [x["id"] for x in page["data"]] == [c["id"], b["id"]] and page["next_cursor"] == b["id"]
    rest = await _list(client, merchant.sk, limit=2, starting_after=page["next_cursor"])
    assert [x["id"] for x in rest["data"]] == [a["id"]] and rest["has_more"] is False and rest["next_cursor"] is None
    assert [x["id"] for x in (await _list(client, merchant.sk, status="succeeded"))["data"]] == [b["id"]]
    assert [x["id"] for x in (await _list(client, merchant.sk, currency="SAR"))["data"]] == [b["id"]]
    assert [x["id"] for x in (await _list(client, merchant.sk, payment_method="qr"))["data"]] == [c["id"]]
    assert [x["id"] for x in (await _list(client, merchant.sk, **{"created[gte]": t0 + 10}))["data"]] == [c["id"], b["id"]]
    assert [x["id"] for x in (await _list(client, merchant.sk, **{"created[lte]": t0 + 10}))["data"]] == [b["id"], a["id"]]
    both = await _list(client, merchant.sk, **{"created[gte]": t0 + 10, "created[lte]": t0 + 10})
    assert [x["id"] for x in both["data"]] == [b["id"]] and both["total_count"] == 1
    for q, param in [({"limit": 0}, "limit"), ({"limit": 101}, "limit"), ({"status": "paid"}, "status"),
                     ({"currency": "EUR"}, "currency"), ({"payment_method": "cash"}, "payment_method"),
                     ({"created[gte]": "yesterday"}, "created[gte]"), ({"starting_after": "pay_nope"}, "starting_after"),
                     ({"colour": "red"}, "colour")]:
        e = await _list(client, merchant.sk, expect=400, **q)
        assert e["error"]["param"] == param
    assert len((await _list(client, merchant.sk))["data"]) == 3       # default page 20


CREATE = """mutation($input: PaymentIntentCreateInput!) { paymentIntentCreate(input: $input) {
  paymentIntent { id status amount currency amountReceived paymentMethod checkoutUrl clientSecret netAmount
    settlementDate livemode metadata fee { amount currency rate breakdown { processing currencyConversion network } }
    crypto { asset network address amountCrypto } }
  userErrors { code message field } } }"""
CONFIRM = """mutation($input: PaymentIntentConfirmInput!) { paymentIntentConfirm(input: $input) {
  paymentIntent { id status succeededAt receiptUrl nextAction { type redirectToUrl { url returnUrl } } }
  userErrors { code message field } } }"""
CANCEL = """mutation($input: PaymentIntentCancelInput!) { paymentIntentCancel(input: $input) {
  paymentIntent { id status cancellationReason } userErrors { code message field } } }"""
LIST = """query($status: String, $createdGte: Int) { paymentIntents(first: 10, status: $status, createdGte: $createdGte) {
  totalCount edges { node { id status } } pageInfo { hasNextPage } } }"""
ONE = """query($id: ID!) { paymentIntent(id: $id) { id status amount fee { amount } } }"""
NODE = """query($id: ID!) { node(id: $id) { id ... on PaymentIntent { status amount } } }"""


async def test_graphql_parity(client, merchant):
    status, data = await gql(client, CREATE, {"input": {"amount": 10000, "currency": "TRY", "paymentMethod": "card",
                                                         "metadata": {"k": "v"}}}, key=merchant.sk)
    assert status == 200, data
    p = data["data"]["paymentIntentCreate"]
    assert p["userErrors"] == []
    g = p["paymentIntent"]
    rest = await get(client, merchant.sk, g["id"])
    assert (g["status"], g["amount"], g["netAmount"], g["checkoutUrl"], g["clientSecret"], g["settlementDate"],
            g["metadata"]) == (rest["status"], rest["amount"], rest["net_amount"], rest["checkout_url"],
                               rest["client_secret"], rest["settlement_date"], rest["metadata"])
    assert g["fee"] == {"amount": 315, "currency": "TRY", "rate": "0.029",
                        "breakdown": {"processing": 315, "currencyConversion": 0, "network": 0}}
    # the same codes as REST, in userErrors
    _, data = await gql(client, CREATE, {"input": {"amount": 5, "currency": "TRY", "paymentMethod": "card"}},
                        key=merchant.sk)
    assert data["data"]["paymentIntentCreate"]["userErrors"] == [
        {"code": "invalid_amount", "message": "amount must be at least 1.00 TRY (100 in minor units)", "field": "amount"}]
    _, data = await gql(client, CREATE, {"input": {"amount": 500, "currency": "EUR", "paymentMethod": "card"}},
                        key=merchant.sk)
    assert data["data"]["paymentIntentCreate"]["userErrors"][0]["code"] == "invalid_currency"
    _, data = await gql(client, CREATE, {"input": {"amount": 100000, "currency": "TRY", "paymentMethod": "crypto",
                                                   "cryptoAsset": "USDT", "cryptoNetwork": "trc20"}}, key=merchant.sk)
    assert data["data"]["paymentIntentCreate"]["paymentIntent"]["crypto"]["amountCrypto"] == "24.390244"
    # confirm with 3-D Secure, then a plain card
    _, data = await gql(client, CONFIRM, {"input": {"id": g["id"], "paymentMethodId": "pm_card_threeDSecureRequired",
                                                    "returnUrl": "https://shop.example/r"}}, key=merchant.sk)
    na = data["data"]["paymentIntentConfirm"]["paymentIntent"]["nextAction"]
    assert na["type"] == "redirect_to_url" and na["redirectToUrl"]["returnUrl"] == "https://shop.example/r"
    _, data = await gql(client, CANCEL, {"input": {"id": g["id"], "cancellationReason": "abandoned"}}, key=merchant.sk)
    assert data["data"]["paymentIntentCancel"]["paymentIntent"] == {"id": g["id"], "status": "canceled",
                                                                    "cancellationReason": "abandoned"}
    _, data = await gql(client, CONFIRM, {"input": {"id": g["id"], "paymentMethodId": "pm_card_visa"}}, key=merchant.sk)
    assert data["data"]["paymentIntentConfirm"]["userErrors"][0]["code"] == "invalid_state"
    _, data = await gql(client, CREATE, {"input": {"amount": 2000, "currency": "TRY", "paymentMethod": "card"}},
                        key=merchant.sk)
    new_id = data["data"]["paymentIntentCreate"]["paymentIntent"]["id"]
    _, data = await gql(client, CONFIRM, {"input": {"id": new_id, "paymentMethodId": "pm_card_visa"}}, key=merchant.sk)
    c = data["data"]["paymentIntentConfirm"]["paymentIntent"]
    assert c["status"] == "succeeded" and c["receiptUrl"] and c["succeededAt"]
    _, data = await gql(client, LIST, {"status": "succeeded"}, key=merchant.sk)
    conn = data["data"]["paymentIntents"]
    assert conn["totalCount"] == 1 and conn["edges"][0]["node"] == {"id": new_id, "status": "succeeded"}
    rest_list = await _list(client, merchant.sk, status="succeeded")
    assert [x["id"] for x in rest_list["data"]] == [new_id]
    _, data = await gql(client, ONE, {"id": new_id}, key=merchant.sk)
    assert data["data"]["paymentIntent"] == {"id": new_id, "status": "succeeded", "amount": 2000, "fee": {"amount": 83}}
    _, data = await gql(client, NODE, {"id": new_id}, key=merchant.sk)
    assert data["data"]["node"] == {"id": new_id, "status": "succeeded", "amount": 2000}
    _, data = await gql(client, ONE, {"id": "pay_missing"}, key=merchant.sk)
    assert data["errors"][0]["extensions"]["code"] == "resource_not_found"
