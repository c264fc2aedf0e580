"""Issue 22, "CRM reports on a fresh account": the reference rates a new account ships with are
listed; the revenue and pipeline reports answer 200 without any configured rate (what has no
rate is reported per currency under `unconverted` / `missing_rates`); commissions of won deals
are read by deal and owner, paginated, in REST and GraphQL alike, one company never seeing
another's."""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from services.crm import currency
from tests.crm_fixtures import PASSWORD, acct, crm, gql, make_account, new_email  # noqa: F401

REFERENCE = [("USD", "AED", "3.6725"), ("USD", "BHD", "0.376"), ("USD", "JOD", "0.709"), ("USD", "OMR", "0.3845"),
             ("USD", "QAR", "3.64"), ("USD", "SAR", "3.75")]

REPORTS = """
query($cur: String) {
  crm { reports {
    revenue(currency: $cur) { currency total totalDecimal dealCount
      byCurrency { currency amount dealCount rate rateDate inverse convertedDecimal source }
      unconverted { currency dealCount amount weightedAmount } missingRates { base quote } }
    pipeline(currency: $cur) { currency count value weightedValue stages { stage count value weightedValue
        unconverted { currency dealCount amount weightedAmount } }
      unconverted { currency dealCount amount weightedAmount } missingRates { base quote } }
    rates { id base quote rate rateDate updatedAt source }
  } }
}"""
COMMISSIONS = """
query($first: Int, $after: String, $dealId: String, $ownerId: String, $status: String) {
  crm { commissions(first: $first, after: $after, dealId: $dealId, ownerId: $ownerId, status: $status) {
    totalCount pageInfo { hasNextPage endCursor }
    edges { node { id dealId userId cycle amount currency rate status } } } }
}"""


async def customer(crm, a) -> str:
    r = await crm.post("/api/customers", json={"name": "C"}, headers=a.h)
    assert r.status == 201, await r.text()
    return (await r.json())["id"]


async def deal(crm, a, cid, value, cur, stage, probability=None, owner_id=None) -> dict:
    body = {"title": "D", "customer_id": cid, "value": value, "currency": cur, "stage": stage}
    if probability is not None:
        body["probability"] = probability
    if owner_id is not None:
        body["owner_id"] = owner_id
    r = await crm.post("/api/deals", json=body, headers=a.h)
    assert r.status == 201, await r.text()
    return await r.json()


async def get(crm, a, path: str) -> dict:
    r = await crm.get(path, headers=a.h)
    assert r.status == 200, await r.text()
    return await r.json()


def snake(rows: list[dict]) -> list[dict]:
    """GraphQL's camelCase rows with REST's snake_case keys (for a field-by-field comparison)."""
    import re
    return [{re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), k): v for k, v in row.items()} for row in rows]


async def test_a_fresh_account_lists_the_reference_rates_it_ships(crm, make_account):
    a = await make_account()
    body = await get(crm, a, "/api/reports/rates")
    assert [(x["base"], x["quote"], x["rate"]) for x in body["data"]] == REFERENCE
    assert all((x["source"], x["id"], x["rate_date"], x["updated_at"], x["object"]) ==
               ("reference", None, None, None, "exchange_rate") for x in body["data"])
    # no default for KWD (a basket peg), TRY, EGP, IQD: a guessed rate would misstate a report
    assert {x["quote"] for x in body["data"]}.isdisjoint({"KWD", "TRY", "EGP", "IQD"})
    status, g = await gql(crm, REPORTS, {"cur": "USD"}, token=a.access)
    assert status == 200 and "errors" not in g, g
    assert snake(g["data"]["crm"]["reports"]["rates"]) == [{k: x[k] for k in ("id", "base", "quote", "rate",
                                                                                "rate_date", "updated_at", "source")}
                                                           for x in body["data"]]
    # a company's own rate is listed first, with its id and date, and another company never sees it
    r = await crm.put("/api/reports/rates", json={"base": "USD", "quote": "TRY", "rate": "34.5",
                                                  "rate_date": "2026-01-02"}, headers=a.h)
    assert r.status == 200
    first = (await get(crm, a, "/api/reports/rates"))["data"][0]
    assert (first["base"], first["quote"], first["rate"], first["rate_date"], first["source"]) == \
        ("USD", "TRY", "34.5", "2026-01-02", "company") and first["id"].startswith("rate_")
    other = await make_account()
    assert [(x["base"], x["quote"], x["rate"]) for x in (await get(crm, other, "/api/reports/rates"))["data"]] == \
        REFERENCE


async def test_revenue_on_a_fresh_account_converts_what_has_a_rate_and_lists_the_rest(crm, make_account):
    a = await make_account()                                              # report currency USD, no rate set
    cid = await customer(crm, a)
    await deal(crm, a, cid, 100_000, "SAR", "won")                        # 1,000.00 SAR
    await deal(crm, a, cid, 12_350, "BHD", "won")                         # 12.350 BHD
    await deal(crm, a, cid, 250_000, "TRY", "won")                        # no rate: unconverted
    await deal(crm, a, cid, 1_500, "KWD", "won")                          # no rate (basket peg): unconverted
    await deal(crm, a, cid, 2_500, "KWD", "won")
    await deal(crm, a, cid, 99_999, "SAR", "proposal")                    # open: not revenue
    r = await crm.get("/api/reports/revenue?currency=OMR", headers=a.h)   # the target as a query parameter
    assert r.status == 200, await r.text()
    b = await r.json()
    # SAR -> OMR through USD: 1000 x 0.3845 / 3.75 = 102.53333...; BHD -> OMR: 12.350 x 0.3845 / 0.376 =
    # 12.62918882...; together 115.16252216... -> 115.163 OMR, rounded once, half-up (each part rounded
    # first would give 102.533 + 12.629 = 115.162)
    assert (b["currency"], b["total"], b["total_decimal"], b["deal_count"]) == ("OMR", 115_163, "115.163", 2)
    parts = {p["currency"]: p for p in b["by_currency"]}
    assert sorted(parts) == ["BHD", "SAR"]
    assert (parts["SAR"]["amount"], parts["SAR"]["source"], parts["SAR"]["rate_date"]) == (100_000, "reference", None)
    assert Decimal(parts["SAR"]["rate"]) == Decimal("0.3845") / Decimal("3.75")
    assert Decimal(parts["BHD"]["rate"]) == Decimal("0.3845") / Decimal("0.376")
    assert b["unconverted"] == [{"currency": "KWD", "deal_count": 2, "amount": 4_000},
                                {"currency": "TRY", "deal_count": 1, "amount": 250_000}]
    assert b["missing_rates"] == [{"base": "KWD", "quote": "OMR"}, {"base": "TRY", "quote": "OMR"}]
    # the default target is the company's report currency (USD here): SAR 1000 / 3.75 = 266.666... ->
    # 266.67; BHD 12.350 / 0.376 = 32.845744... -> 32.85 -- rounded once: 299.51244... -> 299.51
    b = await get(crm, a, "/api/reports/revenue")
    assert (b["currency"], b["total"], b["total_decimal"]) == ("USD", 29_951, "299.51")
    status, g = await gql(crm, REPORTS, {"cur": "OMR"}, token=a.access)
    assert status == 200 and "errors" not in g, g
    rev = g["data"]["crm"]["reports"]["revenue"]
    rest = await get(crm, a, "/api/reports/revenue?currency=OMR")
    assert (rev["total"], rev["totalDecimal"], rev["dealCount"]) == (rest["total"], rest["total_decimal"], 2)
    assert snake(rev["byCurrency"]) == rest["by_currency"]
    assert snake(rev["missingRates"]) == rest["missing_rates"]
    assert [{k: v for k, v in u.items() if v is not None} for u in snake(rev["unconverted"])] == rest["unconverted"]
    # a company rate fills the gap: TRY now converts, KWD is still listed
    r = await crm.put("/api/reports/rates", json={"base": "USD", "quote": "TRY", "rate": "35"}, headers=a.h)
    assert r.status == 200
    b = await get(crm, a, "/api/reports/revenue?currency=USD")
    assert [p["currency"] for p in b["by_currency"]] == ["BHD", "SAR", "TRY"]
    assert {p["currency"]: p["source"] for p in b["by_currency"]}["TRY"] == "company"
    # 266.666... + 32.845744... + 2500 / 35 = 71.428571... -> 370.94
    assert (b["total"], b["missing_rates"]) == (37_094, [{"base": "KWD", "quote": "USD"}])


async def test_pipeline_on_a_fresh_account_in_a_three_decimal_currency(crm, make_account):
    a = await make_account(country="BH")                                  # report currency BHD
    assert a.body["company"]["currency"] == "BHD"
    cid = await customer(crm, a)
    await deal(crm, a, cid, 375_000, "SAR", "lead", 10)                   # 3,750.00 SAR = 376.000 BHD
    await deal(crm, a, cid, 36_725, "AED", "negotiation", 75)             # 367.25 AED = 37.600 BHD
    await deal(crm, a, cid, 1_000_000, "TRY", "proposal", 33)             # no rate
    await deal(crm, a, cid, 1_001, "KWD", "proposal", 50)                 # no rate; 1.001 x 50% = 0.5005
    await deal(crm, a, cid, 100_000, "USD", "won")                        # not open
    r = await crm.get("/api/reports/pipeline", headers=a.h)
    assert r.status == 200, await r.text()
    b = await r.json()
    assert b["currency"] == "BHD"
    stages = {s["stage"]: (s["count"], s["value"], s["weighted_value"]) for s in b["stages"]}
    assert stages == {"lead": (1, 376_000, 37_600), "qualified": (0, 0, 0), "proposal": (2, 0, 0),
                      "negotiation": (1, 37_600, 28_200)}                 # issue 35: every open deal counted
    assert b["total"] == {"count": 4, "value": 413_600, "weighted_value": 65_800}
    assert b["unconverted"] == [
        {"currency": "KWD", "deal_count": 1, "amount": 1_001, "weighted_amount": 501},     # 0.5005 -> 0.501
        {"currency": "TRY", "deal_count": 1, "amount": 1_000_000, "weighted_amount": 330_000}]
    assert b["missing_rates"] == [{"base": "KWD", "quote": "BHD"}, {"base": "TRY", "quote": "BHD"}]
    assert {(x["base"], x["quote"], x["source"]) for x in b["rates_used"]} == {("SAR", "BHD", "reference"),
                                                                               ("AED", "BHD", "reference")}
    status, g = await gql(crm, REPORTS, {"cur": None}, token=a.access)
    assert status == 200 and "errors" not in g, g
    p = g["data"]["crm"]["reports"]["pipeline"]
    assert (p["currency"], p["count"], p["value"], p["weightedValue"]) == ("BHD", 4, 413_600, 65_800)
    assert snake(p["unconverted"]) == b["unconverted"] and snake(p["missingRates"]) == b["missing_rates"]
    assert [{**row, "unconverted": snake(row["unconverted"])} for row in snake(p["stages"])] == b["stages"]
    # an empty fresh account: 200 with zeros, nothing missing
    empty = await make_account()
    for path in ("/api/reports/pipeline", "/api/reports/revenue?currency=KWD"):
        b = await get(crm, empty, path)
        assert (b["unconverted"], b["missing_rates"]) == ([], []), path


async def test_reports_count_only_the_callers_company(crm, make_account):
    a, other = await make_account(), await make_account()
    await deal(crm, other, await customer(crm, other), 500_000, "TRY", "won")
    await deal(crm, other, await customer(crm, other), 500_000, "SAR", "lead")
    await deal(crm, a, await customer(crm, a), 10_000, "USD", "won")
    b = await get(crm, a, "/api/reports/revenue?currency=USD")
    assert (b["total"], b["deal_count"], b["unconverted"], b["missing_rates"]) == (10_000, 1, [], [])
    b = await get(crm, a, "/api/reports/pipeline?currency=USD")
    assert (b["total"]["count"], b["unconverted"]) == (0, [])


def test_the_reference_rates_are_decimal_pegs_and_the_operator_may_add_one():
    assert currency.reference_rate("SAR", "AED") == Decimal("3.6725") / Decimal("3.75")
    assert currency.reference_rate("KWD", "USD") is None
    try:
        currency.configure_reference_rates({"KWD": Decimal("0.3075")})
        assert currency.reference_rate("USD", "KWD") == Decimal("0.3075")
        assert ("USD", "KWD", Decimal("0.3075")) in currency.reference_rates()
    finally:
        currency.configure_reference_rates(None)
    assert currency.reference_rate("USD", "KWD") is None


# ---------------------------------------------------------------- commissions

async def member(crm, admin) -> tuple[str, dict]:
    email = new_email("member")
    r = await crm.post("/api/users", json={"email": email, "password": PASSWORD, "role": "member"}, headers=admin.h)
    assert r.status == 201, await r.text()
    uid = (await r.json())["id"]
    login = await (await crm.post("/api/auth/login", json={"email": email, "password": PASSWORD})).json()
    return uid, {"Authorization": f"Bearer {login['access_token']}"}


def commission_amount(value: int, rate: str = "0.05") -> int:
    return int((Decimal(value) * Decimal(rate)).quantize(Decimal(1), rounding=ROUND_HALF_UP))


async def test_commissions_of_won_deals_by_deal_and_owner_paginated_in_rest_and_graphql(crm, make_account, clock):
    a = await make_account()
    uid, _ = await member(crm, a)
    cid = await customer(crm, a)
    d1 = await deal(crm, a, cid, 1_250, "KWD", "won")                      # 1.250 KWD x 5% = 62.5 fils -> 63
    clock.advance(seconds=1)
    d2 = await deal(crm, a, cid, 33_330, "TRY", "won", owner_id=uid)       # 1,666.5 kuruş -> 1,667
    d3 = await deal(crm, a, cid, 10_000, "USD", "proposal", owner_id=uid)  # not won: no commission
    r = await crm.put(f"/api/deals/{d2['id']}", json={"stage": "lost"}, headers=a.h)   # reversed
    assert r.status == 200
    clock.advance(seconds=1)
    r = await crm.put(f"/api/deals/{d2['id']}", json={"stage": "won"}, headers=a.h)    # a second cycle
    assert r.status == 200
    assert commission_amount(1_250) == 63 and commission_amount(33_330) == 1_667

    everything = await get(crm, a, "/api/commissions")
    assert everything["object"] == "list" and everything["total_count"] == 3 and not everything["has_more"]
    assert [(c["deal_id"], c["user_id"], c["cycle"], c["amount"], c["currency"], c["status"])
            for c in everything["data"]] == [(d2["id"], uid, 2, 1_667, "TRY", "active"),
                                             (d2["id"], uid, 1, 1_667, "TRY", "reversed"),
                                             (d1["id"], a.user_id, 1, 63, "KWD", "active")]   # newest first
    mine = await get(crm, a, f"/api/commissions?owner_id={a.user_id}")
    assert [c["deal_id"] for c in mine["data"]] == [d1["id"]] and mine["total_count"] == 1
    theirs = await get(crm, a, f"/api/commissions?owner_id={uid}&status=active")
    assert [(c["deal_id"], c["cycle"]) for c in theirs["data"]] == [(d2["id"], 2)]
    assert (await get(crm, a, f"/api/commissions?user_id={uid}"))["total_count"] == 2     # the same filter
    by_deal = await get(crm, a, f"/api/commissions?deal_id={d2['id']}")
    assert [c["cycle"] for c in by_deal["data"]] == [2, 1]
    assert (await get(crm, a, f"/api/commissions?deal_id={d3['id']}"))["data"] == []
    # paginated as the other CRM lists: limit, next_cursor -> starting_after
    p1 = await get(crm, a, "/api/commissions?limit=2")
    assert len(p1["data"]) == 2 and p1["has_more"] and p1["next_cursor"] == p1["data"][-1]["id"]
    p2 = await get(crm, a, f"/api/commissions?limit=2&starting_after={p1['next_cursor']}")
    assert [c["id"] for c in p1["data"] + p2["data"]] == [c["id"] for c in everything["data"]]
    assert not p2["has_more"] and p2["next_cursor"] is None
    for query, param in (("owner_id=" + "x" * 41, "owner_id"), ("limit=0", "limit"), ("status=paid", "status"),
                         ("starting_after=com_nope", "starting_after")):
        r = await crm.get(f"/api/commissions?{query}", headers=a.h)
        assert r.status == 400 and (await r.json())["error"]["param"] == param, query

    # GraphQL: the same rows, filters and pages
    status, g = await gql(crm, COMMISSIONS, {"first": 10}, token=a.access)
    assert status == 200 and "errors" not in g, g
    conn = g["data"]["crm"]["commissions"]
    assert conn["totalCount"] == 3
    assert [n["node"]["id"] for n in conn["edges"]] == [c["id"] for c in everything["data"]]
    assert [{k: v for k, v in snake([n["node"]])[0].items()} for n in conn["edges"]] == \
        [{k: c[k] for k in ("id", "deal_id", "user_id", "cycle", "amount", "currency", "rate", "status")}
         for c in everything["data"]]
    status, g = await gql(crm, COMMISSIONS, {"ownerId": uid, "status": "active"}, token=a.access)
    assert [n["node"]["cycle"] for n in g["data"]["crm"]["commissions"]["edges"]] == [2]
    status, g = await gql(crm, COMMISSIONS, {"first": 2}, token=a.access)
    page = g["data"]["crm"]["commissions"]
    assert page["pageInfo"]["hasNextPage"] and len(page["edges"]) == 2
    status, g = await gql(crm, COMMISSIONS, {"first": 2, "after": page["pageInfo"]["endCursor"]}, token=a.access)
    assert [n["node"]["id"] for n in g["data"]["crm"]["commissions"]["edges"]] == [everything["data"][2]["id"]]
    status, g = await gql(crm, COMMISSIONS, {"dealId": d1["id"]}, token=a.access)
    assert [n["node"]["amount"] for n in g["data"]["crm"]["commissions"]["edges"]] == [63]


async def test_another_companys_commissions_are_never_visible(crm, make_account):
    a, other = await make_account(), await make_account()
    theirs = await deal(crm, other, await customer(crm, other), 10_000, "USD", "won")
    assert (await get(crm, other, "/api/commissions"))["total_count"] == 1
    for path in ("/api/commissions", f"/api/commissions?deal_id={theirs['id']}",
                 f"/api/commissions?owner_id={other.user_id}"):
        b = await get(crm, a, path)
        assert (b["data"], b["total_count"]) == ([], 0), path
    status, g = await gql(crm, COMMISSIONS, {"dealId": theirs["id"]}, token=a.access)
    assert status == 200 and g["data"]["crm"]["commissions"] == {"totalCount": 0, "edges": [],
                                                                 "pageInfo": {"hasNextPage": False,
                                                                              "endCursor": None}}
    # their commission id is no cursor of this company's list
    their_id = (await get(crm, other, "/api/commissions"))["data"][0]["id"]
    r = await crm.get(f"/api/commissions?starting_after={their_id}", headers=a.h)
    assert r.status == 400 and (await r.json())["error"]["param"] == "starting_after"
    # without a token: 401
    assert (await crm.get("/api/commissions")).status == 401
