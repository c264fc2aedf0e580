"""Issue 38 on the `/v1` payment intents and the rest of the platform: a wallet token on create
or confirm, PAN_ONLY tokens through the sandbox 3-D Secure challenge, `payment_method_details`,
refunds, analytics by method, the method registry, and GraphQL."""
from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

from models.events import Event
from models.intents import PaymentIntent
from models.wallets import WalletTransaction
from tests.conftest import bearer, gql
from tests.intents_fixtures import RETURN_URL, confirm, create, get, post, set_country
from tests.test_wallets import (
    APPLE,
    DPAN,
    GOOGLE,
    MADA_DPAN,
    MERCHANT_IDENTIFIER,
    THREEDS_DPAN,
    _apple_cert,
    _google_key,
    _no_secret,
    settings,
    wallet_roots,
)

_ = (settings, wallet_roots)


async def test_apple_pay_token_on_create_pays_at_once(client, merchant, clock):
    pem = await _apple_cert(client, merchant.sk)
    token = APPLE.token(pem, MERCHANT_IDENTIFIER, amount=25_000, currency="SAR", number=DPAN, signed_at=clock.now())
    i = await create(client, merchant.sk, amount=25_000, currency="SAR", payment_method="apple_pay",
                     apple_pay={"token": token})
    assert i["status"] == "succeeded" and i["payment_method"] == "apple_pay"
    assert i["payment_method_details"] == {
        "type": "apple_pay", "card": {"brand": "visa", "last4": "4242", "exp_month": 12, "exp_year": 2030,
                                      "networks": ["visa"]},
        "wallet": {"type": "apple_pay", "dynamic_last4": "4242", "auth_method": "CRYPTOGRAM_3DS"}}
    got = await get(client, merchant.sk, i["id"])
    assert got["payment_method_details"] == i["payment_method_details"]
    receipt = await client.get(i["receipt_url"].replace("https://pay.qafila.test", ""),
                               headers={"Accept": "text/plain", "Accept-Language": "en"})
    text = await receipt.text()
    assert receipt.status == 200 and "Visa ending 4242" in text, text
    # Refunded as a card is.
    r = await post(client, merchant.sk, f"/v1/payments/{i['id']}/refund", {"amount": 5_000})
    assert r["amount_refunded"] == 5_000
    row = await PaymentIntent.get(id=i["id"])
    events = await Event.filter(object_id=i["id"]).values_list("data", flat=True)
    _no_secret(json.dumps(events, default=str) + json.dumps(row.method_details), DPAN)


async def test_google_pay_token_on_confirm_with_the_publishable_key(client, merchant, clock):
    pub = await _google_key(client, merchant.pk)
    i = await create(client, merchant.sk, amount=3_750, currency="KWD", payment_method="google_pay")
    assert i["status"] == "requires_payment_method"
    token = GOOGLE.token(pub, gateway_merchant_id=merchant.id, now=clock.now(), number=DPAN)
    c = await confirm(client, merchant.pk, i["id"], client_secret=i["client_secret"], google_pay={"token": token})
    assert c["status"] == "succeeded" and c["amount_received"] == 3_750
    assert c["payment_method_details"]["wallet"] == {"type": "google_pay", "dynamic_last4": "4242",
                                                     "auth_method": "CRYPTOGRAM_3DS"}
    # Confirming again with the same token: the intent is paid (its state), and a fresh intent
    # refuses the used token.
    j = await create(client, merchant.sk, amount=3_750, currency="KWD", payment_method="google_pay")
    r = await client.post(f"/v1/payments/{j['id']}/confirm", json={"google_pay": {"token": token}},
                          headers=bearer(merchant.sk))
    body = await r.json()
    assert r.status == 400 and body["error"]["code"] == "wallet_token_reused"
    assert body["error"]["param"] == "google_pay.token"
    assert (await get(client, merchant.sk, j["id"]))["status"] == "requires_payment_method"


async def test_pan_only_token_takes_the_sandbox_challenge_on_v1(client, merchant, clock):
    pub = await _google_key(client, merchant.sk)
    token = GOOGLE.token(pub, gateway_merchant_id=merchant.id, now=clock.now(), number=THREEDS_DPAN,
                         auth_method="PAN_ONLY")
    i = await create(client, merchant.sk, amount=8_000, currency="AED", payment_method="google_pay")
    r = await client.post(f"/v1/payments/{i['id']}/confirm", json={"google_pay": {"token": token}},
                          headers=bearer(merchant.sk))
    body = await r.json()
    assert r.status == 400 and body["error"]["param"] == "return_url"
    assert await WalletTransaction.filter(merchant_id=merchant.id).count() == 0      # not used up
    c = await confirm(client, merchant.sk, i["id"], google_pay={"token": token}, return_url=RETURN_URL)
    assert c["status"] == "requires_action"
    url = c["next_action"]["redirect_to_url"]["url"]
    ch = parse_qs(urlsplit(url).query)["token"][0]
    r = await client.post(f"/v1/payments/{i['id']}/3ds", data={"token": ch, "outcome": "succeed"},
                          allow_redirects=False)
    assert r.status == 303 and r.headers["Location"].endswith("redirect_status=succeeded")
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == "succeeded"
    assert got["payment_method_details"]["wallet"] == {"type": "google_pay", "dynamic_last4": "3155",
                                                       "auth_method": "PAN_ONLY"}
    assert got["payment_method_details"]["card"]["last4"] == "3155"


async def test_mada_apple_pay_intent_has_madas_fee(client, merchant, clock):
    await set_country(merchant.id, "SA")
    pem = await _apple_cert(client, merchant.sk)
    token = APPLE.token(pem, MERCHANT_IDENTIFIER, amount=100_000, currency="SAR", number=MADA_DPAN, network="mada",
                        signed_at=clock.now())
    i = await create(client, merchant.sk, amount=100_000, currency="SAR", payment_method="apple_pay")
    assert i["fee"]["amount"] == 2_925                       # shown upfront as a card's: 2.90 % + 0.25
    c = await confirm(client, merchant.sk, i["id"], apple_pay={"token": token})
    assert c["status"] == "succeeded"                        # a cryptogram: no challenge, even for mada
    assert c["payment_method_details"]["card"]["brand"] == "mada"
    assert c["fee"]["amount"] == 800 and c["net_amount"] == 99_200     # charged mada's: 0.80 %


async def test_v1_wallet_refusals_store_nothing(client, merchant, clock):
    pem = await _apple_cert(client, merchant.sk)
    token = APPLE.token(pem, MERCHANT_IDENTIFIER, amount=9_999, currency="SAR", signed_at=clock.now())
    before = await PaymentIntent.filter(merchant_id=merchant.id).count()
    r = await client.post("/v1/payments/intent", headers=bearer(merchant.sk), json={
        "amount": 10_000, "currency": "SAR", "payment_method": "apple_pay", "apple_pay": {"token": token}})
    body = await r.json()
    assert r.status == 400 and body["error"]["code"] == "wallet_token_mismatch"
    assert body["error"]["param"] == "apple_pay.token"
    assert await PaymentIntent.filter(merchant_id=merchant.id).count() == before
    # An intent whose amount changed needs a new token: the old one does not match.
    i = await create(client, merchant.sk, amount=10_000, currency="SAR", payment_method="apple_pay")
    r = await client.post(f"/v1/payments/{i['id']}/confirm", json={"apple_pay": {"token": token}},
                          headers=bearer(merchant.sk))
    assert (await r.json())["error"]["code"] == "wallet_token_mismatch"
    # The wallet field of another method, and a confirm without the token, name their field.
    r = await client.post("/v1/payments/intent", headers=bearer(merchant.sk), json={
        "amount": 10_000, "currency": "SAR", "payment_method": "card", "apple_pay": {"token": token}})
    body = await r.json()
    assert r.status == 400 and body["error"]["param"] == "apple_pay"
    r = await client.post(f"/v1/payments/{i['id']}/confirm", json={}, headers=bearer(merchant.sk))
    body = await r.json()
    assert r.status == 400 and (body["error"]["code"], body["error"]["param"]) == ("payment_method_required",
                                                                                   "apple_pay")
    r = await client.post(f"/v1/payments/{i['id']}/confirm", json={"payment_method_id": "pm_card_visa"},
                          headers=bearer(merchant.sk))
    assert (await r.json())["error"]["param"] == "payment_method_id"


async def test_payment_method_types_list_wallets_except_in_iqd(client, merchant):
    for currency in ("SAR", "AED", "KWD", "BHD", "OMR", "JOD", "QAR", "EGP", "TRY"):
        r = await client.get(f"/v1/payment_method_types?currency={currency}", headers=bearer(merchant.pk))
        types = [m["type"] for m in (await r.json())["data"]]
        assert "apple_pay" in types and "google_pay" in types, currency
    r = await client.get("/v1/payment_method_types?currency=IQD", headers=bearer(merchant.pk))
    types = [m["type"] for m in (await r.json())["data"]]
    assert "apple_pay" not in types and "google_pay" not in types
    r = await client.post("/v1/payments/intent", headers=bearer(merchant.sk), json={
        "amount": 300_000, "currency": "IQD", "payment_method": "apple_pay"})
    body = await r.json()
    assert r.status == 400 and body["error"]["code"] == "payment_method_unavailable"


async def test_analytics_by_method_count_wallets(client, merchant, clock):
    pem = await _apple_cert(client, merchant.sk)
    pub = await _google_key(client, merchant.sk)
    t = APPLE.token(pem, MERCHANT_IDENTIFIER, amount=4_000, currency="SAR", signed_at=clock.now())
    await create(client, merchant.sk, amount=4_000, currency="SAR", payment_method="apple_pay", apple_pay={"token": t})
    t = APPLE.token(pem, MERCHANT_IDENTIFIER, amount=1_500, currency="SAR", signed_at=clock.now())
    r = await client.post("/api/payments/create", headers=bearer(merchant.sk), json={
        "amount": 1_500, "currency": "SAR", "payment_method": {"type": "apple_pay", "apple_pay": {"token": t}}})
    assert r.status == 200
    t = GOOGLE.token(pub, gateway_merchant_id=merchant.id, now=clock.now())
    r = await client.post("/api/payments/create", headers=bearer(merchant.sk), json={
        "amount": 2_000, "currency": "SAR", "payment_method": {"type": "google_pay", "google_pay": {"token": t}}})
    assert r.status == 200
    r = await client.get("/api/analytics/methods?period=7d&currency=SAR", headers=bearer(merchant.sk))
    assert (await r.json())["data"] == [{"method": "apple_pay", "payments": 2, "volume": 5_500},
                                        {"method": "google_pay", "payments": 1, "volume": 2_000}]


PAY = """mutation($input: PaymentCreateInput!) { paymentCreate(input: $input) {
  payment { id status paymentMethodType wallet { type dynamicLast4 authMethod } }
  userErrors { code message field } } }"""


async def test_graphql_takes_wallet_tokens_and_shows_the_wallet(client, merchant, clock):
    pub = await _google_key(client, merchant.sk)
    token = GOOGLE.token(pub, gateway_merchant_id=merchant.id, now=clock.now(), number=DPAN)
    status, out = await gql(client, PAY, {"input": {"amount": 7_500, "currency": "AED", "paymentMethod": {
        "type": "google_pay", "googlePay": {"token": token}}}}, key=merchant.sk)
    assert status == 200 and "errors" not in out, out
    p = out["data"]["paymentCreate"]
    assert p["userErrors"] == [] and p["payment"]["status"] == "succeeded"
    assert p["payment"]["paymentMethodType"] == "google_pay"
    assert p["payment"]["wallet"] == {"type": "google_pay", "dynamicLast4": "4242", "authMethod": "CRYPTOGRAM_3DS"}
    # The same token again: the REST code, in userErrors, naming the field.
    status, out = await gql(client, PAY, {"input": {"amount": 7_500, "currency": "AED", "paymentMethod": {
        "type": "google_pay", "googlePay": {"token": token}}}}, key=merchant.sk)
    assert out["data"]["paymentCreate"]["userErrors"] == [{
        "code": "wallet_token_reused", "message": "The wallet token was already used: this token has already paid",
        "field": "paymentMethod.googlePay.token"}]
    # A /v1 intent confirmed with an Apple Pay token.
    pem = await _apple_cert(client, merchant.sk)
    i = await create(client, merchant.sk, amount=6_000, currency="SAR", payment_method="apple_pay")
    t = APPLE.token(pem, MERCHANT_IDENTIFIER, amount=6_000, currency="SAR", signed_at=clock.now())
    status, out = await gql(client, CONFIRM, {"input": {"id": i["id"], "applePay": {"token": t}}}, key=merchant.sk)
    assert status == 200 and "errors" not in out, out
    c = out["data"]["paymentIntentConfirm"]
    assert c["userErrors"] == [] and c["paymentIntent"]["status"] == "succeeded"
    assert c["paymentIntent"]["paymentMethodDetails"]["wallet"]["type"] == "apple_pay"


CONFIRM = """mutation($input: PaymentIntentConfirmInput!) { paymentIntentConfirm(input: $input) {
  paymentIntent { id status paymentMethodDetails } userErrors { code message field } } }"""
