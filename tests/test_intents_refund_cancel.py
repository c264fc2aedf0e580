"""`/v1` intents reach `refunded` and `canceled`: POST /v1/payments/{id}/refund (full, partial,
idempotent, ledger and balance as `/api` refunds, `payment.refunded` delivered, never more than
received under concurrent refunds), POST /v1/payments/{id}/cancel, expiry on the test clock,
and the GraphQL twins."""
from __future__ import annotations

import asyncio
import json
from datetime import datetime, timedelta

import pytest
from tortoise import Tortoise

from models.events import Event
from models.intents import IntentRefund, PaymentIntent
from models.money import BalanceLine
from models.payments import LedgerEntry
from services import webhooks
from services.money import ledger
from tests.helpers import bearer, gql
from tests.intents_fixtures import confirm, create, get, post
from tests.money_fixtures import amounts, check_invariants
from tests.money_fixtures import get as money_get
from tests.payments_fixtures import call, pay
from tests.webhooks_fixtures import receiver  # noqa: F401

AMOUNTS = {"TRY": 10000, "SAR": 10000, "AED": 10000, "KWD": 12345, "QAR": 10000, "EGP": 10000, "IQD": 1234567}


def _postgres() -> bool:
    return Tortoise.get_connection("default").capabilities.dialect == "postgres"


async def paid(client, key, **body) -> dict:
    i = await create(client, key, **body)
    if i["payment_method"] in ("card", "qr", "tap_to_pay"):
        c = await confirm(client, key, i["id"], payment_method_id="pm_card_visa")
    elif i["payment_method"] == "crypto":
        await confirm(client, key, i["id"])
        c = await post(client, key, f"/v1/test_helpers/payments/{i['id']}/crypto_deposit")
    else:
        await confirm(client, key, i["id"])
        c = await post(client, key, f"/v1/test_helpers/payments/{i['id']}/cod_delivered")
    assert c["status"] == "succeeded", c
    return c


async def refund(client, key, intent_id, body=None, *, expect=200, headers=None):
    r = await client.post(f"/v1/payments/{intent_id}/refund", json=body if body is not None else {},
                          headers={**bearer(key), **(headers or {})})
    data = await r.json()
    assert r.status == expect, data
    return data


async def cancel(client, key, intent_id, body=None, *, expect=200, headers=None):
    r = await client.post(f"/v1/payments/{intent_id}/cancel", json=body if body is not None else {},
                          headers={**bearer(key), **(headers or {})})
    data = await r.json()
    assert r.status == expect, data
    return data


async def _events(intent_id: str) -> list[str]:
    """The intent's event types, sorted (several share the frozen clock's instant)."""
    return sorted(await Event.filter(object_id=intent_id).values_list("type", flat=True))


async def _refund_lines(merchant_id: str, source_id: str) -> list[BalanceLine]:
    return list(await BalanceLine.filter(merchant_id=merchant_id, kind="refund", source_id=source_id)
                .order_by("created_at", "id"))


async def _balance(merchant_id: str) -> dict[str, int]:
    return await ledger.merchant_balance(merchant_id=merchant_id, livemode=False)


# ---------------------------------------------------------------- refund over HTTP

async def test_partial_then_full_refund(client, merchant):
    i = await paid(client, merchant.sk)
    assert i["amount_refunded"] == 0 and i["amount_received"] == 10000

    r = await refund(client, merchant.sk, i["id"], {"amount": 3000, "reason": "damaged"})

    # A partial refund keeps the intent succeeded; amount_refunded grows.
    assert r["status"] == "succeeded" and r["amount_refunded"] == 3000 and r["amount_received"] == 10000
    assert r["refund"]["id"].startswith("ref_") and r["refund"]["amount"] == 3000
    assert r["refund"]["reason"] == "damaged" and r["refund"]["payment_intent"] == i["id"]
    assert r["refund"]["object"] == "refund" and r["refund"]["currency"] == "TRY"
    got = await get(client, merchant.sk, i["id"])
    assert got["status"] == "succeeded" and got["amount_refunded"] == 3000

    rest = await refund(client, merchant.sk, i["id"])           # no amount: all that is left

    assert rest["status"] == "refunded" and rest["amount_refunded"] == 10000 and rest["refund"]["amount"] == 7000
    assert (await get(client, merchant.sk, i["id"]))["status"] == "refunded"
    e = await refund(client, merchant.sk, i["id"], {"amount": 1}, expect=400)
    assert e["error"]["code"] == "invalid_state" and "already fully refunded (10000 of 10000)" in e["error"]["message"]
    assert await _events(i["id"]) == sorted(["payment.created", "payment.succeeded", "payment.refunded",
                                                     "payment.refunded"])
    assert await IntentRefund.filter(intent_id=i["id"]).count() == 2
    listed = await client.get("/v1/payments", params={"status": "refunded"}, headers=bearer(merchant.sk))
    assert [x["id"] for x in (await listed.json())["data"]] == [i["id"]]


async def test_refund_refusals_change_nothing(client, merchant, make_merchant):
    unpaid = await create(client, merchant.sk)
    e = await refund(client, merchant.sk, unpaid["id"], expect=400)
    assert e["error"]["code"] == "invalid_state" and e["error"]["type"] == "invalid_request_error"
    assert e["error"]["message"] == (f"Payment intent {unpaid['id']} cannot be refunded: its status is "
                                     "requires_payment_method; only a succeeded payment intent can be refunded")
    i = await paid(client, merchant.sk)
    e = await refund(client, merchant.sk, i["id"], {"amount": 10001}, expect=400)
    assert (e["error"]["code"], e["error"]["param"]) == ("amount_too_large", "amount")
    assert "must not exceed the refundable 10000" in e["error"]["message"]
    for bad in (0, -5, "100", 1.5, True, [1]):
        e = await refund(client, merchant.sk, i["id"], {"amount": bad}, expect=400)
        assert (e["error"]["code"], e["error"]["param"]) == ("invalid_amount", "amount"), (bad, e)
    e = await refund(client, merchant.sk, i["id"], {"reason": "x" * 201}, expect=400)
    assert e["error"]["param"] == "reason"
    e = await refund(client, merchant.sk, i["id"], {"amount": 5, "colour": "red"}, expect=400)
    assert e["error"]["param"] == "colour"
    stranger = await make_merchant()
    e = await refund(client, stranger.sk, i["id"], expect=404)
    assert e["error"]["code"] == "resource_missing" or e["error"]["param"] == "id"
    r = await client.post(f"/v1/payments/{i['id']}/refund", json={}, headers=bearer(merchant.pk))
    assert r.status == 401
    # Nothing moved.
    assert (await get(client, merchant.sk, i["id"]))["amount_refunded"] == 0
    assert not await _refund_lines(merchant.id, i["id"])
    assert await _events(i["id"]) == ["payment.created", "payment.succeeded"]


@pytest.mark.parametrize("currency", list(AMOUNTS))
async def test_refund_ledger_and_balance_as_api_refunds(client, merchant, clock, currency):
    """Per currency: the /v1 refund writes the ledger transaction an /api refund of the same
    amount writes (legs, balance line), and the balance drops by exactly the refund."""
    amount = AMOUNTS[currency]
    i = await paid(client, merchant.sk, amount=amount, currency=currency)
    before = (await _balance(merchant.id)).get(currency, 0)
    part = amount // 3

    await refund(client, merchant.sk, i["id"], {"amount": part})
    after_part = (await _balance(merchant.id)).get(currency, 0)
    clock.advance(seconds=1)
    await refund(client, merchant.sk, i["id"])
    after_all = (await _balance(merchant.id)).get(currency, 0)

    assert before - after_part == part and after_part - after_all == amount - part
    lines = await _refund_lines(merchant.id, i["id"])
    assert [(ln.gross, ln.fee, ln.net, ln.currency) for ln in lines] == [
        (-part, 0, -part, currency), (-(amount - part), 0, -(amount - part), currency)]
    refunds = await IntentRefund.filter(intent_id=i["id"]).order_by("created_at", "id")
    for ln, rf in zip(lines, refunds):
        assert ln.refund_id == rf.id
        legs = await LedgerEntry.filter(txn_id=ln.id).order_by("account").values_list("account", "amount")
        assert sorted(legs) == sorted((leg.account, leg.amount) for leg in ledger.refund_legs(rf.amount))

    # The same amount refunded on /api: the same legs and the same balance line.
    status, p = await pay(client, merchant.sk, amount=amount, currency=currency)
    assert status == 200, p
    status, r = await call(client, "POST", f"/api/payments/{p['id']}/refund", merchant.sk, {"amount": part})
    assert status == 200, r
    api_line = await BalanceLine.get(merchant_id=merchant.id, kind="refund", payment_id=p["id"])
    assert (api_line.gross, api_line.fee, api_line.net) == (lines[0].gross, lines[0].fee, lines[0].net)
    api_legs = await LedgerEntry.filter(txn_id=api_line.id).values_list("account", "amount")
    v1_legs = await LedgerEntry.filter(txn_id=lines[0].id).values_list("account", "amount")
    assert sorted(api_legs) == sorted(v1_legs)


async def test_refund_shows_in_the_balance(client, merchant):
    """GET /api/balance: pending drops by the refund; the ledger's invariants hold."""
    i = await paid(client, merchant.sk, amount=20000)
    before = amounts((await money_get(client, "/api/balance", merchant.sk))["pending"])["TRY"]
    await refund(client, merchant.sk, i["id"], {"amount": 5000})
    after = amounts((await money_get(client, "/api/balance", merchant.sk))["pending"])["TRY"]
    assert before - after == 5000 and before == 20000 - i["fee"]["amount"]
    await check_invariants(client, merchant.sk, merchant.id)


@pytest.mark.parametrize("method", ["crypto", "cod", "qr"])
async def test_refund_of_other_methods(client, merchant, method):
    body = {"payment_method": method}
    if method == "crypto":
        body.update(crypto_asset="USDT", crypto_network="trc20")
    if method == "cod":
        body.update(cod_address={"line1": "Istiklal 1", "city": "Istanbul", "country": "TR"})
    i = await paid(client, merchant.sk, **body)
    r = await refund(client, merchant.sk, i["id"])
    assert r["status"] == "refunded" and r["amount_refunded"] == i["amount_received"]
    assert len(await _refund_lines(merchant.id, i["id"])) == 1


async def test_refund_idempotency(client, merchant):
    i = await paid(client, merchant.sk)
    first = await refund(client, merchant.sk, i["id"], {"amount": 1000}, headers={"X-Idempotency-Key": "rf-1"})
    again = await refund(client, merchant.sk, i["id"], {"amount": 1000}, headers={"X-Idempotency-Key": "rf-1"})
    assert again["refund"]["id"] == first["refund"]["id"] and again["amount_refunded"] == 1000
    body_key = await refund(client, merchant.sk, i["id"], {"amount": 1000, "idempotency_key": "rf-1"})
    assert body_key["refund"]["id"] == first["refund"]["id"]
    plain = await refund(client, merchant.sk, i["id"], {"amount": 1000}, headers={"Idempotency-Key": "rf-1"})
    assert plain["refund"]["id"] == first["refund"]["id"]
    e = await refund(client, merchant.sk, i["id"], {"amount": 2000}, headers={"X-Idempotency-Key": "rf-1"},
                     expect=409)
    assert e["error"]["code"] == "idempotency_conflict"
    assert len(await _refund_lines(merchant.id, i["id"])) == 1
    assert await _events(i["id"]) == sorted(["payment.created", "payment.succeeded", "payment.refunded"])
    # Another key refunds again.
    other = await refund(client, merchant.sk, i["id"], {"amount": 1000}, headers={"X-Idempotency-Key": "rf-2"})
    assert other["refund"]["id"] != first["refund"]["id"] and other["amount_refunded"] == 2000


async def test_payment_refunded_webhook_is_delivered(client, merchant, receiver):
    status, hook = await call(client, "POST", "/api/webhooks/configure", merchant.sk,
                              {"url": receiver.url(), "events": ["payment.refunded"]})
    assert status == 200, hook
    i = await paid(client, merchant.sk)
    r = await refund(client, merchant.sk, i["id"], {"amount": 2500, "reason": "requested_by_customer"})

    stats = await webhooks.run_once(owner="refund-test", merchant_id=merchant.id)

    assert stats.delivered == 1
    (got,) = receiver.got
    body = json.loads(got.body)
    assert body["type"] == "payment.refunded" and body["merchant_id"] == merchant.id and body["livemode"] is False
    obj = body["data"]["object"]
    assert obj["id"] == i["id"] and obj["object"] == "payment_intent" and obj["status"] == "succeeded"
    assert obj["amount_refunded"] == 2500
    assert obj["refund"] == {"id": r["refund"]["id"], "amount": 2500, "reason": "requested_by_customer"}


async def test_concurrent_refunds_never_refund_more_than_received(client, merchant):
    """Four refunds of 3000 on 10000 at once: exactly three pass. On PostgreSQL the row lock
    serializes them, so the fourth sees what is left (400 amount_too_large); without row locks
    (SQLite) a loser of the version check answers 409 conflict instead. Either way never more."""
    i = await paid(client, merchant.sk)
    outs = await asyncio.gather(*(client.post(f"/v1/payments/{i['id']}/refund", json={"amount": 3000},
                                              headers=bearer(merchant.sk)) for _ in range(4)))
    statuses = sorted(r.status for r in outs)
    bodies = [await r.json() for r in outs]
    ok = [b for r, b in zip(outs, bodies) if r.status == 200]
    intent = await PaymentIntent.get(id=i["id"])
    assert intent.amount_refunded == 3000 * len(ok) <= 10000
    assert sum(ln.net for ln in await _refund_lines(merchant.id, i["id"])) == -3000 * len(ok)
    assert await IntentRefund.filter(intent_id=i["id"]).count() == len(ok)
    if _postgres():
        assert statuses == [200, 200, 200, 400]
        (loser,) = [b for r, b in zip(outs, bodies) if r.status == 400]
        assert loser["error"]["code"] == "amount_too_large"
        assert "refundable 1000" in loser["error"]["message"]
    else:
        assert set(statuses) <= {200, 400, 409} and len(ok) >= 1


async def test_concurrent_full_refunds_refund_once(client, merchant):
    i = await paid(client, merchant.sk)
    outs = await asyncio.gather(*(client.post(f"/v1/payments/{i['id']}/refund", json={},
                                              headers=bearer(merchant.sk)) for _ in range(3)))
    statuses = sorted(r.status for r in outs)
    assert statuses.count(200) == 1
    if _postgres():
        assert statuses == [200, 400, 400]
    assert (await PaymentIntent.get(id=i["id"])).amount_refunded == 10000
    assert len(await _refund_lines(merchant.id, i["id"])) == 1


# ---------------------------------------------------------------- cancel over HTTP

async def test_cancel_an_unpaid_intent_with_a_reason(client, merchant):
    i = await create(client, merchant.sk)
    c = await cancel(client, merchant.sk, i["id"])
    assert c["status"] == "canceled" and c["cancellation_reason"] == "requested_by_customer"
    assert c["canceled_at"] is not None and c["amount_refunded"] == 0
    for reason in ("duplicate", "fraudulent", "abandoned"):
        j = await create(client, merchant.sk)
        got = await cancel(client, merchant.sk, j["id"], {"cancellation_reason": reason})
        assert (got["status"], got["cancellation_reason"]) == ("canceled", reason)
        assert (await get(client, merchant.sk, j["id"]))["cancellation_reason"] == reason
    k = await create(client, merchant.sk)
    e = await cancel(client, merchant.sk, k["id"], {"cancellation_reason": "bored"}, expect=400)
    assert e["error"]["param"] == "cancellation_reason" and "requested_by_customer" in e["error"]["message"]
    assert (await get(client, merchant.sk, k["id"]))["status"] == "requires_payment_method"


async def test_cancel_refuses_paid_and_canceled_intents(client, merchant):
    p = await paid(client, merchant.sk)
    e = await cancel(client, merchant.sk, p["id"], expect=400)
    assert e["error"]["code"] == "invalid_state"
    assert e["error"]["message"] == "A payment intent with status succeeded cannot be canceled"
    assert (await get(client, merchant.sk, p["id"]))["status"] == "succeeded"
    i = await create(client, merchant.sk)
    await cancel(client, merchant.sk, i["id"])
    e = await cancel(client, merchant.sk, i["id"], expect=400)
    assert e["error"]["message"] == "A payment intent with status canceled cannot be canceled"
    e = await refund(client, merchant.sk, i["id"], expect=400)
    assert e["error"]["code"] == "invalid_state"


async def test_cancel_is_idempotent_with_a_key(client, merchant):
    i = await create(client, merchant.sk)
    key = {"X-Idempotency-Key": "cancel-1"}
    first = await cancel(client, merchant.sk, i["id"], {"cancellation_reason": "duplicate"}, headers=key)
    again = await cancel(client, merchant.sk, i["id"], {"cancellation_reason": "duplicate"}, headers=key)
    assert first == again and again["status"] == "canceled"         # the first outcome, not "already canceled"
    e = await cancel(client, merchant.sk, i["id"], {"cancellation_reason": "fraudulent"}, headers=key, expect=409)
    assert e["error"]["code"] == "idempotency_conflict"
    e = await cancel(client, merchant.sk, i["id"], expect=400)        # without a key: a clear 400
    assert e["error"]["code"] == "invalid_state"


# ---------------------------------------------------------------- expiry

async def _advance_to(client, key, when: str) -> dict:
    status, c = await call(client, "POST", "/api/test-helpers/advance-clock", key, {"to": when})
    assert status == 200, c
    return c


def _iso(when: datetime) -> str:
    return when.isoformat().replace("+00:00", "Z")


def _dt(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


async def test_expiry_on_the_merchants_test_clock(client, merchant):
    i = await create(client, merchant.sk)
    p = await paid(client, merchant.sk)
    expires = _dt(i["expires_at"])
    assert expires - _dt(i["created_at"]) == timedelta(hours=1)

    c = await _advance_to(client, merchant.sk, _iso(expires - timedelta(seconds=1)))
    assert not [r for r in c["ran"] if r["kind"] == "intent.expire"]
    assert (await get(client, merchant.sk, i["id"]))["status"] == "requires_payment_method"

    c = await _advance_to(client, merchant.sk, _iso(expires + timedelta(minutes=5)))

    ran = [r for r in c["ran"] if r["kind"] == "intent.expire"]
    assert [r["id"] for r in ran] == [i["id"]] and _dt(ran[0]["at"]) == expires
    got = await get(client, merchant.sk, i["id"])
    assert (got["status"], got["cancellation_reason"]) == ("canceled", "expired")
    assert _dt(got["canceled_at"]) == expires                      # canceled when it fell due
    assert (await get(client, merchant.sk, p["id"]))["status"] == "succeeded"
    e = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_visa", expect=400)
    assert e["error"]["code"] == "invalid_state"
    assert await _events(i["id"]) == ["payment.created"]            # card intents: no event for a cancel


async def test_an_intent_made_after_an_advance_lives_on_the_test_clock(client, merchant, clock):
    from app.workers.scheduler import step_once

    c = await _advance_to(client, merchant.sk, _iso(clock.now() + timedelta(days=3)))
    i = await create(client, merchant.sk)
    assert _dt(i["created_at"]) == _dt(c["now"])                    # dated on the merchant's clock
    assert _dt(i["expires_at"]) == _dt(c["now"]) + timedelta(hours=1)
    await step_once(clock.now())                                     # the worker's pass: nothing due yet
    assert (await get(client, merchant.sk, i["id"]))["status"] == "requires_payment_method"
    c = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_visa")
    assert _dt(c["succeeded_at"]) == _dt(i["created_at"])
    j = await create(client, merchant.sk)
    clock.advance(minutes=61)                                        # real time passes the expiry
    await step_once(clock.now())                                     # the worker, on the test clock
    got = await get(client, merchant.sk, j["id"])
    assert (got["status"], got["cancellation_reason"]) == ("canceled", "expired")
    assert _dt(got["canceled_at"]) == _dt(j["expires_at"])


async def test_reads_never_show_an_expired_intent_as_payable(client, merchant, clock):
    """No worker runs here: retrieve, list and GraphQL cancel what is past expires_at on the spot."""
    a = await create(client, merchant.sk)
    clock.advance(seconds=1)
    b = await create(client, merchant.sk, payment_method="crypto", crypto_asset="USDT", crypto_network="trc20")
    clock.advance(hours=1)
    got = await get(client, merchant.sk, a["id"])
    assert (got["status"], got["cancellation_reason"]) == ("canceled", "expired")
    r = await client.get("/v1/payments", headers=bearer(merchant.sk))
    listed = {x["id"]: x for x in (await r.json())["data"]}
    assert (listed[b["id"]]["status"], listed[b["id"]]["cancellation_reason"]) == ("canceled", "expired")
    assert sorted(await Event.filter(object_id=b["id"]).values_list("type", flat=True)) == [
        "crypto.expired", "payment.created"]
    status, body = await gql(client, ONE, {"id": b["id"]}, merchant.sk)
    assert body["data"]["paymentIntent"]["status"] == "canceled"


async def test_a_read_that_loses_the_expiry_race_still_shows_the_intent_expired(client, merchant, clock, monkeypatch):
    """Two reads (or a read and the worker) find the same intent past expires_at: the one that
    gets to cancel it second must still answer it canceled, not as the payable row it read."""
    from services.payments import intents as intents_
    expire_one = intents_._expire_one

    async def beaten(intent_id, now):
        assert await expire_one(intent_id, now)            # the other one gets there first
        return await expire_one(intent_id, now)            # and this one finds nothing left to do
    monkeypatch.setattr(intents_, "_expire_one", beaten)
    retrieved, listed, queried = [await create(client, merchant.sk) for _ in range(3)]

    clock.advance(hours=1, seconds=1)
    got = await get(client, merchant.sk, retrieved["id"])
    assert (got["status"], got["cancellation_reason"]) == ("canceled", "expired")
    status, body = await gql(client, ONE, {"id": queried["id"]}, merchant.sk)
    assert body["data"]["paymentIntent"]["status"] == "canceled"
    r = await client.get("/v1/payments", headers=bearer(merchant.sk))
    page = {x["id"]: x for x in (await r.json())["data"]}
    assert (page[listed["id"]]["status"], page[listed["id"]]["cancellation_reason"]) == ("canceled", "expired")


# ---------------------------------------------------------------- GraphQL twins

REFUND = """mutation($input: PaymentIntentRefundInput!) { paymentIntentRefund(input: $input) {
  paymentIntent { id status amountReceived amountRefunded }
  refund { id amount currency reason status createdAt }
  userErrors { code message field } } }"""
CANCEL = """mutation($input: PaymentIntentCancelInput!) { paymentIntentCancel(input: $input) {
  paymentIntent { id status cancellationReason canceledAt amountRefunded } userErrors { code message field } } }"""
ONE = """query($id: ID!) { paymentIntent(id: $id) { id status amountRefunded cancellationReason } }"""


async def _gql_refund(client, key, **input_):
    status, body = await gql(client, REFUND, {"input": input_}, key)
    assert status == 200 and "errors" not in body, body
    return body["data"]["paymentIntentRefund"]


async def test_graphql_refund_partial_then_full(client, merchant):
    i = await paid(client, merchant.sk, currency="KWD", amount=12345)
    out = await _gql_refund(client, merchant.sk, id=i["id"], amount=345, reason="late")
    assert out["userErrors"] == [] and out["paymentIntent"] == {
        "id": i["id"], "status": "succeeded", "amountReceived": 12345, "amountRefunded": 345}
    assert out["refund"]["amount"] == 345 and out["refund"]["currency"] == "KWD" and out["refund"]["reason"] == "late"
    rest = await _gql_refund(client, merchant.sk, id=i["id"], idempotencyKey="g-1")
    assert rest["paymentIntent"]["status"] == "refunded" and rest["refund"]["amount"] == 12000
    again = await _gql_refund(client, merchant.sk, id=i["id"], idempotencyKey="g-1")
    assert again["refund"]["id"] == rest["refund"]["id"]
    status, body = await gql(client, ONE, {"id": i["id"]}, merchant.sk)
    assert body["data"]["paymentIntent"]["amountRefunded"] == 12345
    assert len(await _refund_lines(merchant.id, i["id"])) == 2


async def test_graphql_refund_errors_match_rest(client, merchant):
    unpaid = await create(client, merchant.sk)
    i = await paid(client, merchant.sk)
    cases = [({"id": unpaid["id"]}, {}), ({"id": i["id"], "amount": 10001}, {"amount": 10001}),
             ({"id": i["id"], "amount": 0}, {"amount": 0}), ({"id": i["id"], "amount": -1}, {"amount": -1})]
    for gq, rest in cases:
        out = await _gql_refund(client, merchant.sk, **gq)
        r = await refund(client, merchant.sk, gq["id"], rest, expect=400)
        assert out["paymentIntent"] is None and out["refund"] is None
        (ue,) = out["userErrors"]
        assert ue["code"] == r["error"]["code"] and ue["message"] == r["error"]["message"]
        assert ue["field"] == r["error"]["param"]
    assert (await get(client, merchant.sk, i["id"]))["amount_refunded"] == 0


async def test_graphql_cancel_with_reason_and_refusal(client, merchant):
    i = await create(client, merchant.sk)
    status, body = await gql(client, CANCEL, {"input": {"id": i["id"], "cancellationReason": "abandoned"}},
                             merchant.sk)
    out = body["data"]["paymentIntentCancel"]
    assert out["userErrors"] == [] and out["paymentIntent"]["status"] == "canceled"
    assert out["paymentIntent"]["cancellationReason"] == "abandoned"
    p = await paid(client, merchant.sk)
    status, body = await gql(client, CANCEL, {"input": {"id": p["id"]}}, merchant.sk)
    out = body["data"]["paymentIntentCancel"]
    r = await cancel(client, merchant.sk, p["id"], expect=400)
    assert out["paymentIntent"] is None
    assert [(e["code"], e["message"]) for e in out["userErrors"]] == [(r["error"]["code"], r["error"]["message"])]
