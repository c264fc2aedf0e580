"""Balance, settlements and payouts from the ledger: pending until T+1 of the market's calendar,
then available, gathered into a settlement at the end of the day, paid the next business day."""
from __future__ import annotations

import csv
import io

from models.events import Event
from models.money import Settlement
from models.payments import Payment
from tests.helpers import bearer, gql
from tests.money_fixtures import advance, amounts, at, check_invariants, get, pay_ok, run_until
from tests.payments_fixtures import call


async def test_a_payment_is_pending_then_available_then_settled_and_paid(client, merchant, clock):
    # given a Turkish merchant (weekend Sat/Sun) and a payment on Wednesday 4 February 2026, 12:00 Istanbul
    clock.set(at(2026, 2, 4, 9, 0))
    p = await pay_ok(client, merchant.sk, amount=10000)
    fee = (await Payment.get(id=p["id"])).fee
    net = 10000 - fee
    bal = await get(client, "/api/balance", merchant.sk)
    assert amounts(bal["pending"]) == {"TRY": net} and amounts(bal["available"]) == {"TRY": 0}

    # Thursday: its settlement date (T+1) -- available, not yet settled
    await advance(client, merchant.sk, days=1)
    bal = await get(client, "/api/balance", merchant.sk)
    assert amounts(bal["pending"]) == {"TRY": 0} and amounts(bal["available"]) == {"TRY": net}
    assert await get(client, "/api/settlements", merchant.sk) == {"data": [], "has_more": False}

    # Friday: settled at the start of the day (the lines available on Thursday), paid the same day
    ran = await advance(client, merchant.sk, days=1)
    assert [r["kind"] for r in ran["ran"]] == ["settlement.settle", "settlement.payout"]
    page = await get(client, "/api/settlements", merchant.sk)
    assert len(page["data"]) == 1 and page["has_more"] is False
    s = page["data"][0]
    assert (s["amount"], s["currency"], s["status"], s["arrival_date"], s["settled_on"]) == \
        (net, "TRY", "paid", "2026-02-06", "2026-02-05")
    one = await get(client, f"/api/settlements/{s['id']}", merchant.sk)
    assert one["transactions"] == 1 and one["amount"] == net
    bal = await get(client, "/api/balance", merchant.sk)
    assert amounts(bal["pending"]) == {"TRY": 0} and amounts(bal["available"]) == {"TRY": 0}
    paid = await Event.filter(merchant_id=merchant.id, type="payout.paid")
    assert len(paid) == 1 and paid[0].data["id"] == s["id"] and paid[0].data["status"] == "paid"

    lines = await get(client, f"/api/settlements/{s['id']}/transactions", merchant.sk)
    assert [(line["type"], line["payment_id"], line["gross"], line["fee"], line["net"]) for line in lines["data"]] == \
        [("capture", p["id"], 10000, fee, net)]
    await check_invariants(client, merchant.sk, merchant.id)


async def test_weekend_lines_settle_on_monday_and_a_negative_day_carries_over(client, merchant, clock):
    # Friday 6 February 2026 payment and Saturday refund in Turkey: both available Monday the 9th
    clock.set(at(2026, 2, 6, 10, 0))
    p = await pay_ok(client, merchant.sk, amount=20000)
    net = 20000 - (await Payment.get(id=p["id"])).fee
    await run_until(clock, merchant.id, at(2026, 2, 7, 10, 0))
    status, r = await call(client, "POST", f"/api/payments/{p['id']}/refund", merchant.sk, {"amount": 5000})
    assert status == 200, r
    await run_until(clock, merchant.id, at(2026, 2, 9, 10, 0))            # Monday
    bal = await get(client, "/api/balance", merchant.sk)
    assert amounts(bal["available"]) == {"TRY": net - 5000} and amounts(bal["pending"]) == {"TRY": 0}
    assert (await get(client, "/api/settlements", merchant.sk))["data"] == []

    # Tuesday: Monday's lines are paid out; the rest of the payment is refunded
    await run_until(clock, merchant.id, at(2026, 2, 10, 10, 0))
    page = await get(client, "/api/settlements", merchant.sk)
    assert [(s["settled_on"], s["arrival_date"], s["amount"], s["status"], s["transactions"]) for s in page["data"]] \
        == [("2026-02-09", "2026-02-10", net - 5000, "paid", 2)]
    status, r = await call(client, "POST", f"/api/payments/{p['id']}/refund", merchant.sk, {})
    assert status == 200, r
    # Thursday: Wednesday's only line is -15000 -- nothing to pay out, it stays available (negative)
    await run_until(clock, merchant.id, at(2026, 2, 12, 10, 0))
    assert len((await get(client, "/api/settlements", merchant.sk))["data"]) == 1
    bal = await get(client, "/api/balance", merchant.sk)
    assert amounts(bal["available"]) == {"TRY": -15000} and amounts(bal["pending"]) == {"TRY": 0}
    await check_invariants(client, merchant.sk, merchant.id)
    # a new payment on Thursday covers it: Friday's settlement takes both lines
    q = await pay_ok(client, merchant.sk, amount=40000)
    net_q = 40000 - (await Payment.get(id=q["id"])).fee
    await run_until(clock, merchant.id, at(2026, 2, 14, 10, 0))
    page = await get(client, "/api/settlements", merchant.sk)
    assert [(s["settled_on"], s["amount"], s["transactions"]) for s in page["data"]][0] == \
        ("2026-02-13", net_q - 15000, 2)
    bal = await get(client, "/api/balance", merchant.sk)
    assert amounts(bal["available"]) == {"TRY": 0} and amounts(bal["pending"]) == {"TRY": 0}
    await check_invariants(client, merchant.sk, merchant.id)


async def test_settlement_filters_csv_and_tenancy(client, merchant, make_merchant, clock):
    clock.set(at(2026, 2, 2, 9, 0))                       # Monday
    p1 = await pay_ok(client, merchant.sk, amount=10000)
    p2 = await pay_ok(client, merchant.sk, amount=3000, currency="KWD")
    await run_until(clock, merchant.id, at(2026, 2, 3, 9, 0))
    status, r = await call(client, "POST", f"/api/payments/{p1['id']}/refund", merchant.sk, {"amount": 1000})
    assert status == 200
    await run_until(clock, merchant.id, at(2026, 2, 4, 9, 0))
    await pay_ok(client, merchant.sk, amount=5000)
    await run_until(clock, merchant.id, at(2026, 2, 6, 9, 0))
    page = await get(client, "/api/settlements?limit=2", merchant.sk)
    assert len(page["data"]) == 2 and page["has_more"] is True
    everything = await get(client, "/api/settlements?limit=100", merchant.sk)
    kwd = await get(client, "/api/settlements?currency=kwd", merchant.sk)
    assert [s["currency"] for s in kwd["data"]] == ["KWD"]
    assert kwd["data"][0]["amount"] == 3000 - (await Payment.get(id=p2["id"])).fee      # KWD: 3 decimals
    ranged = await get(client, "/api/settlements?arrival_date_gte=2026-02-05&arrival_date_lte=2026-02-06",
                       merchant.sk)
    assert [(s["arrival_date"], s["transactions"]) for s in ranged["data"]] == [("2026-02-06", 2)]
    assert len(everything["data"]) == 3
    assert all(s["status"] == "paid" for s in everything["data"])

    # CSV of the TRY settlement with the payment
    fee1 = (await Payment.get(id=p1["id"])).fee
    first_try = [s for s in everything["data"] if s["currency"] == "TRY" and s["settled_on"] == "2026-02-03"][0]
    resp = await client.get(f"/api/settlements/{first_try['id']}/transactions?format=csv", headers=bearer(merchant.sk))
    assert resp.status == 200 and resp.content_type == "text/csv"
    rows = list(csv.reader(io.StringIO(await resp.text())))
    assert rows[0] == ["line_id", "type", "payment_id", "refund_id", "source_id", "created_at", "currency", "gross",
                       "fee", "net"]
    assert [(r[1], r[2], int(r[7]), int(r[8]), int(r[9])) for r in rows[1:]] == [
        ("capture", p1["id"], 10000, fee1, 10000 - fee1)]
    assert sum(int(r[9]) for r in rows[1:]) == first_try["amount"]
    status, bad = await call(client, "GET", f"/api/settlements/{first_try['id']}/transactions?format=xml", merchant.sk)
    assert status == 400 and bad["error"]["param"] == "format"
    # paging parameters given with the CSV (which holds every line) are checked as for JSON
    for query, param in (("limit=-5", "limit"), ("starting_after=set_" + "x" * 24, "starting_after")):
        status, bad = await call(client, "GET", f"/api/settlements/{first_try['id']}/transactions?format=csv&{query}",
                                 merchant.sk)
        assert status == 400 and bad["error"]["param"] == param, bad
    resp = await client.get(f"/api/settlements/{first_try['id']}/transactions?format=csv&limit=1",
                            headers=bearer(merchant.sk))
    assert resp.status == 200 and len(list(csv.reader(io.StringIO(await resp.text())))) == len(rows)   # still every line

    # another merchant sees none of it: 404 on the id, an empty list
    other = await make_merchant("Other")
    for path in (f"/api/settlements/{first_try['id']}", f"/api/settlements/{first_try['id']}/transactions"):
        status, body = await call(client, "GET", path, other.sk)
        assert status == 404 and body["error"]["message"] == "Resource not found"
    assert (await get(client, "/api/settlements", other.sk))["data"] == []
    # live mode does not see test settlements either
    assert p2["id"]
    await check_invariants(client, merchant.sk, merchant.id)


async def test_bad_settlement_filters_are_400_naming_the_parameter(client, merchant):
    for query, param in (("status=lost", "status"), ("currency=XXX", "currency"), ("arrival_date_gte=2026-13-01",
                         "arrival_date_gte"), ("arrival_date_lte=yesterday", "arrival_date_lte"), ("limit=0", "limit")):
        status, body = await call(client, "GET", f"/api/settlements?{query}", merchant.sk)
        assert status == 400 and body["error"]["param"] == param, query
    status, body = await call(client, "GET", "/api/balance", "sk_test_nope")
    assert status == 401 and body["error"]["message"] == "Invalid API key"


async def test_two_schedulers_never_settle_twice(client, merchant, clock):
    from services import scheduler

    clock.set(at(2026, 2, 4, 9, 0))
    await pay_ok(client, merchant.sk, amount=10000)
    until = at(2026, 2, 7, 0, 0)
    scope = scheduler.Scope(livemode=False, merchant_id=merchant.id)
    import asyncio
    await asyncio.gather(scheduler.run_due(scope, until), scheduler.run_due(scope, until))
    sets = await Settlement.filter(merchant_id=merchant.id)
    assert len(sets) == 1 and sets[0].status == "paid"
    assert await Event.filter(merchant_id=merchant.id, type="payout.paid").count() == 1
SETTLEMENTS_Q = """
query($first: Int) {
  balance { available { amount currency } pending { amount currency } }
  settlements(first: $first) { totalCount edges { node { id amount currency status arrivalDate transactions
    lines(first: 10) { edges { node { type paymentId gross fee net } } } } } }
  reports { balance { available { amount currency } } settlements(first: 1) { edges { node { id } } } }
}"""


async def test_graphql_twins_agree_with_rest(client, merchant, make_merchant, clock):
    clock.set(at(2026, 2, 4, 9, 0))
    p = await pay_ok(client, merchant.sk, amount=10000)
    await run_until(clock, merchant.id, at(2026, 2, 6, 9, 0))
    await pay_ok(client, merchant.sk, amount=7000)
    status, body = await gql(client, SETTLEMENTS_Q, {"first": 5}, key=merchant.sk)
    assert status == 200 and "errors" not in body, body
    data = body["data"]
    rest_bal = await get(client, "/api/balance", merchant.sk)
    assert data["balance"] == {"available": rest_bal["available"], "pending": rest_bal["pending"]}
    rest = (await get(client, "/api/settlements", merchant.sk))["data"]
    node = data["settlements"]["edges"][0]["node"]
    assert data["settlements"]["totalCount"] == 1 and node["id"] == rest[0]["id"]
    assert (node["amount"], node["status"], node["arrivalDate"], node["transactions"]) == \
        (rest[0]["amount"], "paid", "2026-02-06", 1)
    assert [e["node"]["paymentId"] for e in node["lines"]["edges"]] == [p["id"]]
    assert data["reports"]["settlements"]["edges"][0]["node"]["id"] == rest[0]["id"]
    # node(id:) and tenancy
    status, body = await gql(client, '{ node(id: "%s") { ... on Settlement { amount } } }' % rest[0]["id"],
                             key=merchant.sk)
    assert body["data"]["node"]["amount"] == rest[0]["amount"]
    other = await make_merchant("Other")
    status, body = await gql(client, '{ settlement(id: "%s") { id } }' % rest[0]["id"], key=other.sk)
    assert body["data"] is None and body["errors"][0]["extensions"]["status"] == 404


LIST_WITH_LINES = """{ settlements(first: 10) { edges { node { id transactions
  lines(first: 5) { totalCount pageInfo { hasNextPage } edges { node { paymentId net } } } } } } }"""


async def test_settlement_lines_of_a_list_load_in_one_query(client, merchant, clock):
    from tests.payments_fixtures import count_statements

    async def statements() -> tuple[int, list]:
        with count_statements() as seen:
            status, body = await gql(client, LIST_WITH_LINES, key=merchant.sk)
        assert status == 200 and "errors" not in body, body
        return len(seen), body["data"]["settlements"]["edges"]

    clock.set(at(2026, 2, 2, 9, 0))                                   # Monday
    await pay_ok(client, merchant.sk, amount=10000)
    await run_until(clock, merchant.id, at(2026, 2, 4, 9, 0))
    one, edges = await statements()
    assert len(edges) == 1
    for day in (4, 5):                                               # Wednesday, Thursday: two more
        await run_until(clock, merchant.id, at(2026, 2, day, 9, 0))
        for _ in range(3):
            await pay_ok(client, merchant.sk, amount=5000)
    await run_until(clock, merchant.id, at(2026, 2, 7, 9, 0))
    three, edges = await statements()
    assert len(edges) == 3 and three == one
    assert [len(e["node"]["lines"]["edges"]) for e in edges] == [3, 3, 1]
    assert [e["node"]["lines"]["totalCount"] for e in edges] == [3, 3, 1]


async def test_the_balance_splits_on_the_merchants_market_read_with_it(client, merchant, clock):
    # Issue 26: the balance is one statement, which reads the merchant's country with the lines.
    # given a Saudi merchant (weekend Fri/Sat) paid on Thursday 5 February 2026, 12:00 Riyadh,
    # in a 2-decimal and a 3-decimal currency
    status, _ = await call(client, "PUT", "/api/merchant", merchant.sk, {"country": "SA"})
    assert status == 200
    clock.set(at(2026, 2, 5, 9, 0))
    nets = {}
    for currency, amount in (("TRY", 10000), ("KWD", 12345)):
        p = await pay_ok(client, merchant.sk, amount=amount, currency=currency)
        nets[currency] = amount - (await Payment.get(id=p["id"])).fee
    # when Friday comes: T+1 in Saudi Arabia is Sunday, so the lines are still pending
    await advance(client, merchant.sk, days=1)
    bal = await get(client, "/api/balance", merchant.sk)
    assert amounts(bal["pending"]) == nets and amounts(bal["available"]) == {"KWD": 0, "TRY": 0}
    # then the merchant moves to Turkey (weekend Sat/Sun): Friday is its T+1, and the next read
    # says so at once
    status, _ = await call(client, "PUT", "/api/merchant", merchant.sk, {"country": "TR"})
    assert status == 200
    bal = await get(client, "/api/balance", merchant.sk)
    assert amounts(bal["available"]) == nets and amounts(bal["pending"]) == {"KWD": 0, "TRY": 0}
    assert [e["currency"] for e in bal["available"]] == ["KWD", "TRY"]
    await check_invariants(client, merchant.sk, merchant.id)
