"""Marketplace splits (issue 47) on `/api/payments/create` and `/v1/payments/intent`: the fee rounds
half-up and the seller gets exactly line_amount - fee (SAR, KWD); a bad split charges nothing;
release on capture, manual release and auto-release on the clock, hold; the seller's balance
(held, pending until the settlement date, then available) and the platform's untouched."""
from __future__ import annotations

from models.events import Event
from models.intents import PaymentIntent
from models.marketplace import SellerEntry
from models.payments import Payment
from tests.intents_fixtures import confirm, create
from tests.marketplace_fixtures import make_seller
from tests.money_fixtures import amounts, at, get, run_until
from tests.payments_fixtures import call, card


async def pay(client, key, amount, currency, splits, **extra):
    return await call(client, "POST", "/api/payments/create", key,
                      {"amount": amount, "currency": currency, "payment_method": card(), "splits": splits, **extra})


async def balance(client, key, smr) -> dict:
    b = await get(client, f"/api/sub-merchants/{smr}/balance", key)
    return {k: b[k][0]["amount"] for k in ("held", "pending", "available", "reserve", "in_payout", "paid_out")}


async def test_sar_splits_round_half_up_and_the_seller_gets_line_amount_less_fee(client, merchant, clock):
    clock.set(at(2026, 3, 2, 9, 0))                                  # Monday (TR market: T+1 is Tuesday)
    a = await make_seller(client, merchant.sk, "SA", default_fee={"percent": "2.5", "fixed": 0})
    b = await make_seller(client, merchant.sk, "SA", name="Dar Al Kutub")
    status, p = await pay(client, merchant.sk, 10000, "SAR", [
        {"sub_merchant": a["id"], "line_amount": 4999, "reference": "order-1/a"},     # 124.975 -> 125
        {"sub_merchant": b["id"], "amount": 3000},
        {"sub_merchant": a["id"], "line_amount": 1001, "fee_percent": "10", "fee_fixed": 50}])   # 100.1 -> 100 + 50
    assert status == 200, p
    assert [(s["line_amount"], s["fee"], s["amount"], s["status"]) for s in p["splits"]] == \
        [(4999, 125, 4874, "released"), (3000, 0, 3000, "released"), (1001, 150, 851, "released")]
    s0 = p["splits"][0]
    assert s0["id"].startswith("spl_") and s0["object"] == "split" and s0["payment"] == p["id"]
    assert (s0["sub_merchant"], s0["reference"], s0["currency"], s0["release"]) == \
        (a["id"], "order-1/a", "SAR", "on_capture")
    assert await balance(client, merchant.sk, a["id"]) == {"held": 0, "pending": 4874 + 851, "available": 0,
                                                          "reserve": 0, "in_payout": 0, "paid_out": 0}
    # the platform's own balance is the payment's, untouched by the sellers' shares
    bal = await get(client, "/api/balance", merchant.sk)
    assert amounts(bal["pending"]) == {"SAR": 10000 - (await Payment.get(id=p["id"])).fee}
    clock.set(at(2026, 3, 3, 9, 0))                                   # the settlement date: available
    assert (await balance(client, merchant.sk, a["id"]))["available"] == 4874 + 851
    assert await Event.filter(merchant_id=merchant.id, type="split.released").count() == 3
    listed = await get(client, f"/api/splits?payment={p['id']}", merchant.sk)
    assert sorted(s["id"] for s in listed["data"]) == sorted(s["id"] for s in p["splits"])
    assert await get(client, f"/api/splits/{s0['id']}", merchant.sk) == {**s0}
    # each ledger transaction balances
    txns: dict[str, int] = {}
    for e in await SellerEntry.filter(merchant_id=merchant.id):
        txns[e.txn_id] = txns.get(e.txn_id, 0) + e.amount
    assert txns and set(txns.values()) == {0}


async def test_kwd_splits_in_fils(client, merchant, clock):
    clock.set(at(2026, 3, 2, 9, 0))
    k = await make_seller(client, merchant.sk, "KW")
    status, p = await pay(client, merchant.sk, 10000, "KWD", [         # 10.000 KWD
        {"sub_merchant": k["id"], "line_amount": 3333, "fee_percent": "1.5", "fee_fixed": 5},   # 49.995 -> 50, + 5
        {"sub_merchant": k["id"], "line_amount": 6667, "fee_percent": "0.75"}])                 # 50.0025 -> 50
    assert status == 200, p
    assert [(s["fee"], s["amount"]) for s in p["splits"]] == [(55, 3278), (50, 6617)]


async def test_a_bad_split_is_a_400_naming_the_line_and_charges_nothing(client, merchant, make_merchant, clock):
    s = await make_seller(client, merchant.sk, "SA")
    other = await make_merchant()
    theirs = await make_seller(client, other.sk, "SA")
    kw = await make_seller(client, merchant.sk, "KW")
    cases = [
        ([{"sub_merchant": s["id"], "amount": 6000}, {"sub_merchant": s["id"], "line_amount": 4001}],
         "splits", "splits_exceed_amount"),
        ([{"sub_merchant": s["id"], "amount": 10}, {"sub_merchant": theirs["id"], "amount": 10}],
         "splits[1].sub_merchant", "resource_missing"),
        ([{"sub_merchant": "smr_000000000000000000000000", "amount": 10}], "splits[0].sub_merchant",
         "resource_missing"),
        ([{"sub_merchant": kw["id"], "amount": 10}], "splits[0].sub_merchant", "sub_merchant_currency"),
        ([{"sub_merchant": s["id"], "amount": 10, "fee_percent": "1"}], "splits[0].fee_percent", "invalid_request"),
        ([{"sub_merchant": s["id"], "line_amount": 100, "fee_fixed": 101}], "splits[0].fee_fixed", "invalid_request"),
        ([{"sub_merchant": s["id"]}], "splits[0].amount", "invalid_request"),
        ([{"sub_merchant": s["id"], "amount": 1}] * 21, "splits", "invalid_request"),
    ]
    for lines, param, code in cases:
        status, err = await pay(client, merchant.sk, 10000, "SAR", lines)
        assert status == 400 and (err["error"]["param"], err["error"]["code"]) == (param, code), (lines, err)
        r = await client.post("/v1/payments/intent", json={"amount": 10000, "currency": "SAR",
                                                           "payment_method": "card", "splits": lines},
                              headers={"Authorization": f"Bearer {merchant.sk}"})
        err = await r.json()
        assert r.status == 400 and err["error"]["param"] == param, (lines, err)
    assert await Payment.filter(merchant_id=merchant.id).count() == 0
    assert await PaymentIntent.filter(merchant_id=merchant.id).count() == 0
    # a seller whose payout details are 30 days past due is disabled: new splits are refused
    late = await make_seller(client, merchant.sk, "SA", payout=False)
    clock.advance(days=30)
    status, err = await pay(client, merchant.sk, 10000, "SAR", [{"sub_merchant": late["id"], "amount": 10}])
    assert status == 400 and err["error"]["code"] == "sub_merchant_disabled"


async def test_v1_intent_splits_are_pending_until_paid_then_released(client, merchant, clock):
    clock.set(at(2026, 3, 2, 9, 0))
    s = await make_seller(client, merchant.sk, "SA", default_fee={"percent": "12.5", "fixed": 10})
    i = await create(client, merchant.sk, amount=2000, currency="SAR",
                     splits=[{"sub_merchant": s["id"], "line_amount": 1999}])        # 249.875 -> 250, + 10
    assert [(x["fee"], x["amount"], x["status"]) for x in i["splits"]] == [(260, 1739, "pending")]
    assert (await balance(client, merchant.sk, s["id"]))["pending"] == 0
    await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_visa")
    split = (await get(client, f"/api/splits?payment={i['id']}", merchant.sk))["data"][0]
    assert split["status"] == "released" and split["released_at"] is not None
    assert (await balance(client, merchant.sk, s["id"]))["pending"] == 1739


async def test_manual_release_auto_release_on_the_clock_and_hold(client, merchant, clock):
    clock.set(at(2026, 3, 2, 9, 0))
    s = await make_seller(client, merchant.sk, "SA", auto_release_days=3, payout_schedule={"interval": "manual"})
    status, p = await pay(client, merchant.sk, 10000, "SAR", [{"sub_merchant": s["id"], "amount": 4000,
                                                               "release": "manual"},
                                                              {"sub_merchant": s["id"], "amount": 1000,
                                                               "release": "manual"}])
    assert status == 200, p
    first, second = p["splits"]
    assert first["status"] == "held" and first["auto_release_at"] == "2026-03-05T09:00:00.000Z"
    assert (await balance(client, merchant.sk, s["id"]))["held"] == 5000
    status, r = await call(client, "POST", f"/api/splits/{second['id']}/release", merchant.sk, {})
    assert status == 200 and r["status"] == "released"
    assert (await balance(client, merchant.sk, s["id"]))["held"] == 4000
    status, err = await call(client, "POST", f"/api/splits/{second['id']}/release", merchant.sk, {})
    assert status == 400 and err["error"]["code"] == "invalid_state"
    # hold takes a released split back, and stops auto-release of a held one
    status, h = await call(client, "POST", f"/api/splits/{second['id']}/hold", merchant.sk, {})
    assert status == 200 and h["status"] == "held" and h["released_at"] is None
    assert await balance(client, merchant.sk, s["id"]) == {"held": 5000, "pending": 0, "available": 0,
                                                          "reserve": 0, "in_payout": 0, "paid_out": 0}
    ran = await run_until(clock, merchant.id, at(2026, 3, 5, 9, 0))
    assert [r.kind for r in ran if r.kind == "marketplace.split_release"] == ["marketplace.split_release"]
    first = await get(client, f"/api/splits/{first['id']}", merchant.sk)
    assert first["status"] == "released" and first["released_at"] == "2026-03-05T09:00:00.000Z"
    b = await balance(client, merchant.sk, s["id"])
    assert (b["held"], b["available"]) == (1000, 4000)          # released after its settlement date: available
    # others' splits: 404
    status, _ = await call(client, "GET", "/api/splits/spl_000000000000000000000000", merchant.sk)
    assert status == 404


async def test_an_authorized_payment_captures_its_splits_and_a_void_cancels_them(client, merchant, clock):
    s = await make_seller(client, merchant.sk, "SA")
    status, p = await pay(client, merchant.sk, 10000, "SAR", [{"sub_merchant": s["id"], "amount": 4000}],
                          capture=False)
    assert status == 200 and p["splits"][0]["status"] == "pending"
    status, err = await call(client, "POST", f"/api/payments/{p['id']}/capture", merchant.sk, {"amount": 3000})
    assert status == 400 and err["error"]["code"] == "splits_exceed_amount"
    status, c = await call(client, "POST", f"/api/payments/{p['id']}/capture", merchant.sk, {})
    assert status == 200, c
    assert (await get(client, f"/api/splits/{p['splits'][0]['id']}", merchant.sk))["status"] == "released"
    status, q = await pay(client, merchant.sk, 10000, "SAR", [{"sub_merchant": s["id"], "amount": 4000}],
                          capture=False)
    status, _ = await call(client, "POST", f"/api/payments/{q['id']}/void", merchant.sk, {})
    assert status == 200
    assert (await get(client, f"/api/splits/{q['splits'][0]['id']}", merchant.sk))["status"] == "canceled"


async def test_a_canceled_intent_cancels_its_pending_splits(client, merchant):
    s = await make_seller(client, merchant.sk, "SA")
    i = await create(client, merchant.sk, amount=2000, currency="SAR", splits=[{"sub_merchant": s["id"], "amount": 500}])
    r = await client.post(f"/v1/payments/{i['id']}/cancel", json={},
                          headers={"Authorization": f"Bearer {merchant.sk}"})
    assert r.status == 200, await r.text()
    assert (await get(client, f"/api/splits/{i['splits'][0]['id']}", merchant.sk))["status"] == "canceled"
