"""Issue 16, lists: keyset pages in one statement, totals from the rows' counters, filtered
totals counted up to a bound (services.pagination, models._keyset)."""
from __future__ import annotations

from models.core import ListCount
from models.intents import PaymentIntent
from models.payments import Payment
from services import pagination
from tests.helpers import bearer, gql
from tests.intents_fixtures import create
from tests.payments_fixtures import DECLINED, call, no_exploration, pay  # noqa: F401


async def _v1(client, key, **q):
    r = await client.get("/v1/payments", params=q, headers=bearer(key))
    return r.status, await r.json()


async def _walk(fetch, limit: int) -> list[str]:
    """Every id of a list, page after page."""
    ids: list[str] = []
    after = None
    while True:
        page = await fetch(limit, after)
        ids += [x["id"] for x in page["data"]]
        if not page["has_more"]:
            return ids
        after = page["data"][-1]["id"]


async def test_pages_walk_ties_in_created_at_without_skipping_or_repeating(client, merchant, make_merchant, clock):
    # The frozen clock gives several rows the same created_at: the id breaks the tie.
    other = await make_merchant()
    made = []
    for i in range(7):
        made.append((await create(client, merchant.sk, amount=1000 + i))["id"])
        await create(client, other.sk)
        if i % 3 == 2:
            clock.advance(seconds=1)
    expected = [i.id for i in await PaymentIntent.filter(merchant_id=merchant.id).order_by("-created_at", "-id")]
    assert sorted(expected) == sorted(made)

    async def v1(limit, after):
        status, body = await _v1(client, merchant.sk, limit=limit, **({"starting_after": after} if after else {}))
        assert status == 200 and body["total_count"] == 7, body
        return body
    for limit in (1, 2, 3, 7, 20):
        assert await _walk(v1, limit) == expected

    pays = []
    for i in range(5):
        pays.append((await pay(client, merchant.sk, 1000 + i))[1]["id"])

    async def api(limit, after):
        path = f"/api/payments/list?limit={limit}" + (f"&starting_after={after}" if after else "")
        status, body = await call(client, "GET", path, merchant.sk)
        assert status == 200 and body["total"] == 5, body
        return body
    expected = [p.id for p in await Payment.filter(merchant_id=merchant.id).order_by("-created_at", "-id")]
    for limit in (1, 2, 5):
        assert await _walk(api, limit) == expected


async def test_cursor_of_another_tenant_or_outside_the_filter_is_400(client, merchant, make_merchant, clock):
    other = await make_merchant()
    theirs = await create(client, other.sk)
    mine = await create(client, merchant.sk, currency="SAR", amount=5000)
    clock.advance(seconds=1)
    await create(client, merchant.sk)
    for q in ({"starting_after": theirs["id"]}, {"starting_after": mine["id"], "currency": "TRY"},
              {"starting_after": "pay_" + "x" * 24}):
        status, body = await _v1(client, merchant.sk, **q)
        assert status == 400 and body["error"]["param"] == "starting_after", (q, body)
    status, body = await _v1(client, merchant.sk, starting_after=mine["id"])
    assert status == 200 and body["data"] == [] and body["has_more"] is False and body["total_count"] == 2
    _, p = await pay(client, other.sk)
    status, body = await call(client, "GET", f"/api/payments/list?starting_after={p['id']}", merchant.sk)
    assert status == 400 and body["error"]["param"] == "starting_after"


async def test_totals_come_from_the_counter_and_filtered_totals_are_bounded(client, merchant, monkeypatch):
    for _ in range(3):
        await pay(client, merchant.sk)
    await pay(client, merchant.sk, number=DECLINED)
    counted = sum(c.n for c in await ListCount.filter(merchant_id=merchant.id, livemode=False, kind="payments"))
    assert counted == 4 == await Payment.filter(merchant_id=merchant.id).count()
    monkeypatch.setattr(pagination, "TOTAL_CAP", 2)
    _, body = await call(client, "GET", "/api/payments/list", merchant.sk)
    assert body["total"] == 4 and "total_capped" not in body          # the counter: exact, never capped
    _, body = await call(client, "GET", "/api/payments/list?status=succeeded", merchant.sk)
    assert body["total"] == 2 and body["total_capped"] is True and len(body["data"]) == 3
    _, body = await call(client, "GET", "/api/payments/list?status=failed", merchant.sk)
    assert body["total"] == 1 and "total_capped" not in body
    for _ in range(3):
        await create(client, merchant.sk)
    _, body = await _v1(client, merchant.sk, currency="TRY")
    assert body["total_count"] == 2 and body["total_capped"] is True
    _, body = await _v1(client, merchant.sk)
    assert body["total_count"] == 3 and "total_capped" not in body
    _, out = await gql(client, "{ payments(first: 1) { totalCount } paymentIntents(first: 1) { totalCount } }",
                       key=merchant.sk)
    assert out["data"] == {"payments": {"totalCount": 4}, "paymentIntents": {"totalCount": 3}}


async def test_counters_are_per_mode(client, merchant):
    # (No path deletes a merchant: the counters no longer cascade from one on PostgreSQL, where the
    # write tables carry no foreign key to the merchant's row; tests/test_schema_agrees.py.)
    await create(client, merchant.sk)
    await pay(client, merchant.sk)
    rows = await ListCount.filter(merchant_id=merchant.id).values_list("livemode", "kind", "n")
    assert sorted(rows) == [(False, "intents", 1), (False, "payments", 1)]
