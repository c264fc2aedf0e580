"""Refunds of split payments (issue 47): one line or spread by largest remainder, reversals and
fee shares (the refund finishing a line takes the fee's rest), on `/api` and `/v1`; disputes debit
the sellers by the platform's policy and a won dispute credits them back."""
from __future__ import annotations

import pytest

from tests.intents_fixtures import confirm, create
from tests.marketplace_fixtures import make_seller
from tests.money_fixtures import DISPUTE_CARD, at, get, run_until
from tests.payments_fixtures import call, card


async def available(client, key, smr) -> int:
    b = await get(client, f"/api/sub-merchants/{smr}/balance", key)
    return b["available"][0]["amount"] + b["pending"][0]["amount"]


async def split_payment(client, key, a, b, currency="SAR", number=None):
    status, p = await call(client, "POST", "/api/payments/create", key, {
        "amount": 10000, "currency": currency, "payment_method": card(number) if number else card(),
        "splits": [{"sub_merchant": a, "line_amount": 6000, "fee_percent": "10"},      # fee 600, seller 5400
                   {"sub_merchant": b, "amount": 3000}]})                              # the platform's rest: 1000
    assert status == 200, p
    return p


async def test_a_refund_spreads_by_largest_remainder_then_one_line_takes_the_fees_rest(client, merchant):
    a = await make_seller(client, merchant.sk, "SA")
    b = await make_seller(client, merchant.sk, "SA", name="Dar Al Kutub")
    p = await split_payment(client, merchant.sk, a["id"], b["id"])
    sa, sb = (s["id"] for s in p["splits"])
    status, r = await call(client, "POST", f"/api/payments/{p['id']}/refund", merchant.sk,
                           {"amount": 1001, "reverse_split": True})
    assert status == 200, r
    # 600.6 / 300.3 / 100.1: the one unit left goes to the largest remainder (line a)
    assert r["split_reversals"] == [{"split": sa, "amount": 601, "amount_reversed": 601, "fee_refunded": 60},
                                    {"split": sb, "amount": 300, "amount_reversed": 300, "fee_refunded": 0}]
    assert await available(client, merchant.sk, a["id"]) == 5400 - 601 + 60
    status, err = await call(client, "POST", f"/api/payments/{p['id']}/refund", merchant.sk,
                             {"amount": 5400, "split": sa, "reverse_split": True})
    assert status == 400 and err["error"]["param"] == "amount"
    status, r = await call(client, "POST", f"/api/payments/{p['id']}/refund", merchant.sk,
                           {"amount": 5399, "split": sa, "reverse_split": True})
    assert status == 200, r
    assert r["split_reversals"] == [{"split": sa, "amount": 5399, "amount_reversed": 5399, "fee_refunded": 540}]
    assert await available(client, merchant.sk, a["id"]) == 0
    line = await get(client, f"/api/splits/{sa}", merchant.sk)
    assert (line["amount_refunded"], line["amount_reversed"], line["fee_refunded"]) == (6000, 6000, 600)
    # without reverse_split the platform bears the refund; a line of another payment is refused
    status, r = await call(client, "POST", f"/api/payments/{p['id']}/refund", merchant.sk, {"amount": 100})
    # (what is left: line b 2700, the platform's rest 900: 75 / 25)
    assert status == 200 and r["split_reversals"] == [{"split": sb, "amount": 75, "amount_reversed": 0,
                                                        "fee_refunded": 0}]
    assert await available(client, merchant.sk, b["id"]) == 2700
    status, err = await call(client, "POST", f"/api/payments/{p['id']}/refund", merchant.sk,
                             {"amount": 1, "split": "spl_000000000000000000000000"})
    assert status == 400 and err["error"]["param"] == "split"
    status, err = await call(client, "POST", f"/api/payments/{p['id']}/refund", merchant.sk,
                             {"amount": 1, "reverse_split": "yes"})
    assert status == 400 and err["error"]["param"] == "reverse_split"


async def test_a_kwd_refund_on_v1_without_the_platform_fee(client, merchant, clock):
    k = await make_seller(client, merchant.sk, "KW")
    i = await create(client, merchant.sk, amount=10000, currency="KWD",
                     splits=[{"sub_merchant": k["id"], "line_amount": 7777, "fee_percent": "2.5"}])   # 194.425 -> 194
    await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_visa")
    sid = i["splits"][0]["id"]
    r = await client.post(f"/v1/payments/{i['id']}/refund", json={"amount": 3333, "split": sid, "reverse_split": True,
                                                                  "refund_platform_fee": False},
                          headers={"Authorization": f"Bearer {merchant.sk}"})
    body = await r.json()
    assert r.status == 200, body
    assert body["split_reversals"] == [{"split": sid, "amount": 3333, "amount_reversed": 3333, "fee_refunded": 0}]
    assert body["refund"]["amount"] == 3333
    assert await available(client, merchant.sk, k["id"]) == 7777 - 194 - 3333


@pytest.mark.parametrize("policy, debits", [("platform", (0, 0)), ("seller", (6000, 3000)), ("ratio", (5400, 3000))])
async def test_a_dispute_debits_the_sellers_by_the_policy_and_a_won_one_credits_back(client, merchant, clock,
                                                                                     policy, debits):
    status, _ = await call(client, "PUT", "/api/marketplace", merchant.sk, {"dispute_policy": policy})
    assert status == 200
    clock.set(at(2026, 2, 4, 9, 0))
    manual = {"interval": "manual"}          # nothing paid out while the dispute runs
    a = await make_seller(client, merchant.sk, "SA", payout_schedule=manual)
    b = await make_seller(client, merchant.sk, "SA", name="Dar Al Kutub", payout_schedule=manual)
    p = await split_payment(client, merchant.sk, a["id"], b["id"], number=DISPUTE_CARD)
    await run_until(clock, merchant.id, at(2026, 2, 5, 9, 0))
    assert await available(client, merchant.sk, a["id"]) == 5400 - debits[0]
    assert await available(client, merchant.sk, b["id"]) == 3000 - debits[1]
    line = await get(client, f"/api/splits/{p['splits'][0]['id']}", merchant.sk)
    assert line["amount_disputed"] == debits[0]
    d = (await get(client, "/api/disputes", merchant.sk))["data"][0]
    status, _ = await call(client, "POST", f"/api/disputes/{d['id']}/evidence", merchant.sk,
                           {"uncategorized_text": "Signed delivery receipt"})
    assert status == 200
    await run_until(clock, merchant.id, at(2026, 2, 12, 12, 0))
    assert (await get(client, f"/api/disputes/{d['id']}", merchant.sk))["status"] == "won"
    assert await available(client, merchant.sk, a["id"]) == 5400
    assert await available(client, merchant.sk, b["id"]) == 3000
