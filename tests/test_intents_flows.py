"""Confirm, 3-D Secure, crypto, cash on delivery, expiry, cancel, splits, keys, idempotency."""
from __future__ import annotations

import asyncio
import re
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

from models.events import Event
from models.intents import PaymentIntent, PaymentMethod
from services.money import ledger
from services.payments.intents import expire_intents
from tests.helpers import bearer
from tests.intents_fixtures import RETURN_URL, confirm, create, err, get, post


class Bag(list):
    """Events of one transaction share a timestamp: compare them regardless of order."""
    def __eq__(self, other):
        return sorted(self) == sorted(other)


async def _events(intent_id: str) -> Bag:
    return Bag(await Event.filter(object_id=intent_id).values_list("type", flat=True))


async def test_card_succeeds_and_moves_money_through_the_ledger(client, merchant, clock):
    i = await create(client, merchant.sk, amount=10000)
    c = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_visa", return_url=RETURN_URL)
    assert c["status"] == "succeeded" and c["next_action"] is None
    assert c["succeeded_at"] == clock.now().isoformat(timespec="milliseconds").replace("+00:00", "Z")
    # Issue 22: the receipt_url carries a random token of its own, not derivable from the id.
    token = (await PaymentIntent.get(id=i["id"])).receipt_token
    assert c["receipt_url"] == f"https://pay.qafila.test/{i['id']}/receipt/{token}" and len(token) == 32
    assert c["amount_received"] == 10000 and c["payment_method_id"] == "pm_card_visa"
    assert await _events(i["id"]) == ["payment.created", "payment.succeeded"]
    bal = await ledger.merchant_balance(merchant_id=merchant.id, livemode=False)
    assert bal == {"TRY": 10000 - 315}
    r = await client.get(c["receipt_url"].replace("https://pay.qafila.test", ""), headers={"Accept": "text/plain"})
    text = await r.text()
    assert r.status == 200 and "Tutar: 100,00 ₺" in text     # nobody named a language: the TR merchant's, tr
    r = await client.get(f"/v1/payments/{i['id']}/receipt", headers={"Accept": "text/plain"})
    assert r.status == 404                                   # the id alone opens no receipt


async def test_decline_fails_the_intent_and_allows_another_card(client, merchant):
    i = await create(client, merchant.sk)
    # Issue 12: a confirm decline is a 402 carrying the provider's reason; the intent is stored failed.
    e = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_chargeDeclined", expect=402)
    assert e["error"]["code"] == "payment_declined" and e["error"]["decline_code"] == "card_declined"
    c = await get(client, merchant.sk, i["id"])
    assert c["status"] == "failed" and c["failure_code"] == "card_declined" and c["succeeded_at"] is None
    assert await ledger.merchant_balance(merchant_id=merchant.id, livemode=False) == {}
    c = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_visa")
    assert c["status"] == "succeeded"
    assert await _events(i["id"]) == ["payment.created", "payment.failed", "payment.succeeded"]
    e = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_visa", expect=400)
    assert e["error"]["code"] == "invalid_state"
    assert e["error"]["message"] == "A payment intent with status succeeded cannot be confirmed"


async def _three_ds(client, merchant):
    i = await create(client, merchant.sk)
    c = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_threeDSecureRequired",
                      return_url=RETURN_URL)
    assert c["status"] == "requires_action"
    na = c["next_action"]
    assert na["type"] == "redirect_to_url" and na["redirect_to_url"]["return_url"] == RETURN_URL
    url = na["redirect_to_url"]["url"]
    assert url.startswith(f"http://api.qafila.test/v1/payments/{i['id']}/3ds?token=")
    assert (await get(client, merchant.sk, i["id"]))["status"] == "requires_action"
    page = await client.get(url.replace("http://api.qafila.test", ""))
    assert page.status == 200 and "Complete authentication" in await page.text()
    return i, parse_qs(urlsplit(url).query)["token"][0]


async def test_three_d_secure_round_trip_succeeds(client, merchant):
    i, token = await _three_ds(client, merchant)
    r = await client.post(f"/v1/payments/{i['id']}/3ds", data={"token": token, "outcome": "succeed"},
                          allow_redirects=False)
    assert r.status == 303
    assert r.headers["Location"] == f"{RETURN_URL}?payment_intent={i['id']}&redirect_status=succeeded"
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == "succeeded" and got["next_action"] is None
    # the link is single use
    again = await client.post(f"/v1/payments/{i['id']}/3ds", data={"token": token, "outcome": "succeed"},
                              allow_redirects=False)
    assert again.status == 404


async def test_three_d_secure_failure(client, merchant):
    i, token = await _three_ds(client, merchant)
    bad = await client.post(f"/v1/payments/{i['id']}/3ds", data={"token": "x" * 32, "outcome": "succeed"},
                            allow_redirects=False)
    assert bad.status == 404
    assert (await get(client, merchant.sk, i["id"]))["status"] == "requires_action"
    r = await client.post(f"/v1/payments/{i['id']}/3ds", data={"token": token, "outcome": "fail"},
                          allow_redirects=False)
    assert r.status == 303 and r.headers["Location"].endswith("redirect_status=failed")
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == "failed" and got["failure_code"] == "authentication_failed"


async def test_three_d_secure_needs_return_url(client, merchant):
    i = await create(client, merchant.sk)
    e = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_threeDSecureRequired", expect=400)
    assert err(e) == ("return_url_required", "return_url")
    assert (await get(client, merchant.sk, i["id"]))["status"] == "requires_payment_method"


async def test_tap_to_pay_skips_the_redirect(client, merchant):
    i = await create(client, merchant.sk, payment_method="tap_to_pay")
    c = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_threeDSecureRequired")
    assert c["status"] == "succeeded"


async def test_qr_payment_has_a_qr_of_its_checkout_page(client, merchant):
    i = await create(client, merchant.sk, payment_method="qr")
    assert i["qr_code_url"] == f"http://api.qafila.test/v1/payments/{i['id']}/qr.png"
    r = await client.get(f"/v1/payments/{i['id']}/qr.png")
    assert r.status == 200 and r.content_type == "image/png" and (await r.read())[:8] == b"\x89PNG\r\n\x1a\n"
    c = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_visa")
    assert c["status"] == "succeeded"


async def test_payment_methods_tokenize_cards(client, merchant):
    r = await client.post("/v1/payment_methods", headers=bearer(merchant.pk),
                          json={"type": "card", "card": {"number": "4242 4242 4242 4242", "exp_month": 12,
                                                         "exp_year": 2030, "cvc": "123"}})
    pm = await r.json()
    assert r.status == 200, pm
    assert pm["id"].startswith("pm_") and pm["object"] == "payment_method"
    assert pm["card"]["brand"] == "visa" and pm["card"]["last4"] == "4242" and len(pm["card"]["fingerprint"]) == 32
    row = await PaymentMethod.get(id=pm["id"])
    assert "4242424242424242" not in str(row.__dict__) and "123" != row.last4
    i = await create(client, merchant.sk)
    assert (await confirm(client, merchant.sk, i["id"], payment_method_id=pm["id"]))["status"] == "succeeded"
    for card, param in [({"number": "4242424242424241", "exp_month": 1, "exp_year": 2030}, "card.number"),
                        ({"number": "4242424242424242", "exp_month": 1, "exp_year": 2020}, "card.exp_year")]:
        r = await client.post("/v1/payment_methods", headers=bearer(merchant.sk), json={"card": card})
        assert r.status == 400 and (await r.json())["error"]["param"] == param


async def test_unknown_or_foreign_payment_method(client, merchant, make_merchant):
    other = await make_merchant()
    r = await client.post("/v1/payment_methods", headers=bearer(other.sk),
                          json={"card": {"number": "4242424242424242", "exp_month": 12, "exp_year": 2030}})
    foreign = (await r.json())["id"]
    i = await create(client, merchant.sk)
    for pm in (foreign, "pm_nope"):
        e = await confirm(client, merchant.sk, i["id"], payment_method_id=pm, expect=404)
        assert err(e) == ("resource_not_found", "payment_method_id")
    e = await confirm(client, merchant.sk, i["id"], expect=400)
    assert err(e) == ("payment_method_required", "payment_method_id")     # a card intent needs one


async def test_crypto_flow_with_the_deposit_helper(client, merchant, clock):
    i = await create(client, merchant.sk, amount=2460000, currency="TRY", payment_method="crypto",
                     crypto_asset="BTC", crypto_network="bitcoin")
    c = i["crypto"]
    # 24,600.00 TRY at 60,000 USD/BTC and 41 TRY/USD = exactly 0.01 BTC
    assert c["amount_crypto"] == "0.01000000" and c["asset"] == "BTC" and c["network"] == "bitcoin"
    assert re.fullmatch(r"tb1q[02-9ac-hj-np-z]{38}", c["address"])
    assert c["rate_locked_until"] == (clock.now() + timedelta(minutes=15)).isoformat(
        timespec="milliseconds").replace("+00:00", "Z")
    assert i["fee"]["breakdown"]["network"] == 8200      # 2 USD at 41 TRY/USD
    assert i["fee"]["amount"] == 24600 + 8200
    r = await client.get(f"/v1/payments/{i['id']}/qr.png")
    assert r.status == 200 and (await r.read())[:4] == b"\x89PNG"
    assert (await confirm(client, merchant.sk, i["id"]))["status"] == "processing"
    d = await post(client, merchant.sk, f"/v1/test_helpers/payments/{i['id']}/crypto_deposit", {"stage": "detected"})
    assert d["status"] == "processing" and d["crypto"]["detected_at"]
    d = await post(client, merchant.sk, f"/v1/test_helpers/payments/{i['id']}/crypto_deposit")
    assert d["status"] == "succeeded" and d["amount_received"] == 2460000
    assert await _events(i["id"]) == ["payment.created", "payment.processing", "crypto.detected",
                                      "crypto.confirmed", "payment.succeeded"]


async def test_crypto_addresses_per_network(client, merchant):
    patterns = {("USDT", "trc20"): r"T[1-9A-HJ-NP-Za-km-z]{33}", ("USDT", "erc20"): r"0x[0-9a-f]{40}",
                ("USDT", "bep20"): r"0x[0-9a-f]{40}", ("ETH", "ethereum"): r"0x[0-9a-f]{40}",
                ("ETH", "erc20"): r"0x[0-9a-f]{40}"}
    for (asset, network), pattern in patterns.items():
        i = await create(client, merchant.sk, amount=100000, payment_method="crypto", crypto_asset=asset,
                         crypto_network=network)
        assert re.fullmatch(pattern, i["crypto"]["address"]), (network, i["crypto"]["address"])
    usdt = await create(client, merchant.sk, amount=100000, payment_method="crypto", crypto_asset="USDT",
                        crypto_network="trc20")
    assert usdt["crypto"]["amount_crypto"] == "24.390244"       # 1000 TRY / 41, 6 decimals half-up


async def test_crypto_rate_lock_lapses_into_a_new_quote(client, merchant, clock):
    i = await create(client, merchant.sk, amount=100000, payment_method="crypto", crypto_asset="USDT",
                     crypto_network="trc20")
    clock.advance(minutes=16)
    c = await confirm(client, merchant.sk, i["id"])
    assert c["crypto"]["rate_locked_until"] == (clock.now() + timedelta(minutes=15)).isoformat(
        timespec="milliseconds").replace("+00:00", "Z")


async def test_cod_flow_delivered_and_returned(client, merchant):
    addr = {"line1": "Istiklal Cd. 1", "city": "Istanbul", "country": "TR", "postal_code": "34430"}
    i = await create(client, merchant.sk, payment_method="cod", cod_address=addr)
    assert i["cod_address"] == addr
    e = await post(client, merchant.sk, f"/v1/test_helpers/payments/{i['id']}/cod_delivered", expect=400)
    assert e["error"]["code"] == "invalid_state"
    c = await confirm(client, merchant.sk, i["id"])
    assert c["status"] == "processing" and c["cod_status"] == "assigned"
    d = await post(client, merchant.sk, f"/v1/test_helpers/payments/{i['id']}/cod_delivered")
    assert d["status"] == "succeeded" and d["cod_status"] == "delivered"
    assert await _events(i["id"]) == ["payment.created", "payment.processing", "cod.assigned", "cod.delivered",
                                      "payment.succeeded"]
    j = await create(client, merchant.sk, payment_method="cod", cod_address=addr)
    await confirm(client, merchant.sk, j["id"])
    r = await post(client, merchant.sk, f"/v1/test_helpers/payments/{j['id']}/cod_returned")
    assert r["status"] == "failed" and r["cod_status"] == "returned" and r["failure_code"] == "cod_returned"
    assert await _events(j["id"]) == ["payment.created", "payment.processing", "cod.assigned", "cod.returned",
                                      "payment.failed"]


async def test_expiry_cancels_unpaid_intents(client, merchant, clock):
    i = await create(client, merchant.sk)
    paid = await create(client, merchant.sk)
    await confirm(client, merchant.sk, paid["id"], payment_method_id="pm_card_visa")
    clock.advance(minutes=59, seconds=59)
    await expire_intents(clock.now())          # the table is shared with other tests: check ours
    assert (await get(client, merchant.sk, i["id"]))["status"] == "requires_payment_method"
    clock.advance(seconds=1)
    assert await expire_intents(clock.now()) >= 1
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == "canceled" and got["cancellation_reason"] == "expired"
    assert (await get(client, merchant.sk, paid["id"]))["status"] == "succeeded"
    e = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_visa", expect=400)
    assert e["error"]["code"] == "invalid_state"


async def test_confirm_after_expiry_without_the_worker(client, merchant, clock):
    i = await create(client, merchant.sk, payment_method="crypto", crypto_asset="USDT", crypto_network="trc20")
    clock.advance(hours=1)
    e = await confirm(client, merchant.sk, i["id"], expect=400)
    assert e["error"]["code"] == "payment_intent_expired"
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == "canceled"
    assert await _events(i["id"]) == ["payment.created", "crypto.expired"]


async def test_cancel(client, merchant):
    i = await create(client, merchant.sk)
    c = await post(client, merchant.sk, f"/v1/payments/{i['id']}/cancel", {"cancellation_reason": "duplicate"})
    assert c["status"] == "canceled" and c["cancellation_reason"] == "duplicate"
    e = await post(client, merchant.sk, f"/v1/payments/{i['id']}/cancel", expect=400)
    assert e["error"]["code"] == "invalid_state"
    paid = await create(client, merchant.sk)
    await confirm(client, merchant.sk, paid["id"], payment_method_id="pm_card_visa")
    e = await post(client, merchant.sk, f"/v1/payments/{paid['id']}/cancel", expect=400)
    assert e["error"]["message"] == "A payment intent with status succeeded cannot be canceled"


async def test_split_pays_other_merchants_and_refuses_without_funds(client, merchant, make_merchant):
    other = await make_merchant()
    e = await create(client, merchant.sk, amount=1000,
                     split=[{"merchant_id": other.id, "amount": 5000, "currency": "TRY"}], expect=402)
    assert err(e) == ("insufficient_funds", "split")
    assert await PaymentIntent.filter(merchant_id=merchant.id).count() == 0
    # within the net amount: no balance needed
    i = await create(client, merchant.sk, amount=10000,
                     split=[{"merchant_id": other.id, "amount": 3000, "currency": "TRY"}])
    assert i["split"] == [{"merchant_id": other.id, "amount": 3000, "currency": "TRY"}]
    await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_visa")
    assert await ledger.merchant_balance(merchant_id=other.id, livemode=False) == {"TRY": 3000}
    assert await ledger.merchant_balance(merchant_id=merchant.id, livemode=False) == {"TRY": 10000 - 315 - 3000}
    # beyond the net amount, funded by the available balance (6685)
    j = await create(client, merchant.sk, amount=1000,
                      split=[{"merchant_id": other.id, "amount": 5000, "currency": "TRY"}])
    await confirm(client, merchant.sk, j["id"], payment_method_id="pm_card_visa")
    assert await ledger.merchant_balance(merchant_id=other.id, livemode=False) == {"TRY": 8000}
    assert await ledger.merchant_balance(merchant_id=merchant.id, livemode=False) == {"TRY": 6685 + 1000 - 54 - 5000}


async def test_publishable_key_confirms_only_with_the_client_secret(client, merchant, make_merchant):
    i = await create(client, merchant.sk)
    e = await create(client, merchant.pk, expect=401)
    assert e["error"]["code"] == "invalid_api_key"
    r = await client.get("/v1/payments", headers=bearer(merchant.pk))
    assert r.status == 401
    e = await confirm(client, merchant.pk, i["id"], payment_method_id="pm_card_visa", expect=400)
    assert err(e) == ("invalid_request", "client_secret")
    other = await create(client, merchant.sk)
    e = await confirm(client, merchant.pk, i["id"], payment_method_id="pm_card_visa",
                      client_secret=other["client_secret"], expect=404)
    assert e["error"]["code"] == "resource_not_found"
    assert (await get(client, merchant.sk, i["id"]))["status"] == "requires_payment_method"
    c = await confirm(client, merchant.pk, i["id"], payment_method_id="pm_card_visa", client_secret=i["client_secret"])
    assert c["status"] == "succeeded"
    assert (await get(client, merchant.pk, i["id"], client_secret=i["client_secret"]))["status"] == "succeeded"
    stranger = await make_merchant()
    await get(client, stranger.sk, i["id"], expect=404)


async def test_invalid_key_and_livemode_follows_the_key(client, merchant):
    r = await client.post("/v1/payments/intent", json={"amount": 100, "currency": "TRY", "payment_method": "card"},
                          headers=bearer("sk_test_nope"))
    assert r.status == 401 and (await r.json())["error"]["code"] == "invalid_api_key"
    r = await client.post("/v1/payments/intent", json={})
    assert r.status == 401
    from services.identity.api_keys import issue_key
    _, live = await issue_key(merchant_id=merchant.id, kind="secret", livemode=True, name="live")
    i = await create(client, live)
    assert i["livemode"] is True
    e = await confirm(client, live, i["id"], payment_method_id="pm_card_visa", expect=400)
    assert err(e) == ("invalid_request", "payment_method_id")
    await get(client, merchant.sk, i["id"], expect=404)            # a test key does not see live data
    e = await post(client, live, f"/v1/test_helpers/payments/{i['id']}/cod_delivered", expect=400)
    assert e["error"]["code"] == "test_mode_only"


async def test_rate_limit_120_per_minute_per_key(client, merchant, clock):
    for _ in range(120):
        r = await client.get("/v1/payments?limit=1", headers=bearer(merchant.sk))
        assert r.status == 200
    r = await client.get("/v1/payments?limit=1", headers=bearer(merchant.sk))
    data = await r.json()
    assert r.status == 429 and data["error"]["code"] == "rate_limit_exceeded"
    assert data["error"]["message"] == "Rate limit exceeded (120/min)"
    clock.advance(seconds=60)
    assert (await client.get("/v1/payments?limit=1", headers=bearer(merchant.sk))).status == 200


async def test_idempotency_replay_conflict_and_body_key(client, merchant):
    h = {"X-Idempotency-Key": "order-77"}
    a = await create(client, merchant.sk, headers=h, amount=5000)
    b = await create(client, merchant.sk, headers=h, amount=5000)
    assert a == b
    e = await create(client, merchant.sk, headers=h, amount=5001, expect=409)
    assert e["error"]["code"] == "idempotency_conflict"
    assert e["error"]["message"] == "This idempotency key was already used with different parameters"
    c = await create(client, merchant.sk, amount=5000, idempotency_key="order-78")
    d = await create(client, merchant.sk, amount=5000, idempotency_key="order-78")
    assert c["id"] == d["id"]
    # the header and the body field name the same key space
    e = await create(client, merchant.sk, headers={"X-Idempotency-Key": "order-78"}, amount=6000, expect=409)
    assert await PaymentIntent.filter(merchant_id=merchant.id).count() == 2
    # a replayed refusal is the same refusal
    bad1 = await create(client, merchant.sk, headers={"X-Idempotency-Key": "k3"}, amount=1, expect=400)
    bad2 = await create(client, merchant.sk, headers={"X-Idempotency-Key": "k3"}, amount=1, expect=400)
    assert err(bad1) == err(bad2) == ("invalid_amount", "amount")
    # confirm is idempotent too
    i = await create(client, merchant.sk)
    h = {"X-Idempotency-Key": "confirm-1"}
    c1 = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_visa", headers=h)
    c2 = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_visa", headers=h)
    assert c1 == c2 and c1["status"] == "succeeded"


async def test_idempotency_concurrent_requests_create_one_intent(client, merchant):
    h = {**bearer(merchant.sk), "X-Idempotency-Key": "burst"}
    body = {"amount": 7000, "currency": "TRY", "payment_method": "card"}
    rs = await asyncio.gather(*[client.post("/v1/payments/intent", json=body, headers=h) for _ in range(8)])
    statuses = [r.status for r in rs]
    bodies = [await r.json() for r in rs]
    assert set(statuses) <= {201, 409} and 201 in statuses
    assert len({b["id"] for b, s in zip(bodies, statuses) if s == 201}) == 1
    assert all(b["error"]["code"] == "idempotency_conflict" for b, s in zip(bodies, statuses) if s == 409)
    assert await PaymentIntent.filter(merchant_id=merchant.id).count() == 1


async def test_concurrent_confirms_authorize_once(client, merchant):
    i = await create(client, merchant.sk)
    rs = await asyncio.gather(*[client.post(f"/v1/payments/{i['id']}/confirm", json={"payment_method_id": "pm_card_visa"},
                                            headers=bearer(merchant.sk)) for _ in range(5)])
    ok = [r for r in rs if r.status == 200]
    assert len(ok) >= 1 and all(r.status in (200, 400, 409) for r in rs)
    assert await Event.filter(object_id=i["id"], type="payment.succeeded").count() == 1
    assert await ledger.merchant_balance(merchant_id=merchant.id, livemode=False) == {"TRY": 10000 - 315}
