"""CRM reports (conversions checked by hand, KWD's 3 decimals), rates set by admins only,
per-plan rate limits (free 60/min, paid 600/min) on REST and GraphQL alike."""
from __future__ import annotations

from models.crm import Company, ExchangeRate
from tests.crm_fixtures import PASSWORD, acct, crm, gql, make_account, new_email  # noqa: F401


async def put_rate(crm, a, base, quote, rate, rate_date):
    r = await crm.put("/api/reports/rates", json={"base": base, "quote": quote, "rate": rate, "rate_date": rate_date},
                      headers=a.h)
    assert r.status == 200, await r.text()
    return await r.json()


async def deal(crm, a, cid, value, currency, stage, probability=None):
    body = {"title": "D", "customer_id": cid, "value": value, "currency": currency, "stage": stage}
    if probability is not None:
        body["probability"] = probability
    r = await crm.post("/api/deals", json=body, headers=a.h)
    assert r.status == 201, await r.text()
    return await r.json()


async def customer(crm, a):
    r = await crm.post("/api/customers", json={"name": "C"}, headers=a.h)
    return (await r.json())["id"]


async def test_revenue_in_kwd_checked_by_hand(crm, acct):
    cid = await customer(crm, acct)
    await put_rate(crm, acct, "USD", "KWD", "0.30", "2026-01-01")
    await put_rate(crm, acct, "USD", "KWD", "0.3075", "2026-01-05")        # the newer one is used
    await put_rate(crm, acct, "KWD", "TRY", "140", "2026-01-05")           # used inverted for TRY -> KWD
    await deal(crm, acct, cid, 1_000_000, "TRY", "won")                    # 10,000.00 TRY
    await deal(crm, acct, cid, 123_420, "USD", "won")                      # 1,234.20 USD
    await deal(crm, acct, cid, 5_000, "KWD", "won")                        # 5.000 KWD
    await deal(crm, acct, cid, 999_999, "USD", "lost")                     # not revenue
    await deal(crm, acct, cid, 888_888, "USD", "proposal")                 # not revenue
    r = await crm.get("/api/reports/revenue?currency=KWD", headers=acct.h)
    assert r.status == 200, await r.text()
    b = await r.json()
    # 10000 / 140 = 71.428571428571...; 1234.20 * 0.3075 = 379.5165; + 5.000
    # = 455.945071428571... -> 455.945 KWD (3 decimals) = 455945 fils
    assert (b["currency"], b["total"], b["total_decimal"], b["deal_count"]) == ("KWD", 455945, "455.945", 3)
    parts = {p["currency"]: p for p in b["by_currency"]}
    assert (parts["USD"]["amount"], parts["USD"]["rate"], parts["USD"]["rate_date"], parts["USD"]["inverse"]) == (
        123420, "0.3075", "2026-01-05", False)
    assert parts["USD"]["converted_decimal"] == "379.5165"
    assert (parts["TRY"]["rate"], parts["TRY"]["inverse"], parts["TRY"]["rate_date"]) == ("140", True, "2026-01-05")
    assert (parts["KWD"]["rate"], parts["KWD"]["rate_date"]) == ("1", None)


async def test_revenue_rounds_once_half_up(crm, acct):
    cid = await customer(crm, acct)
    await put_rate(crm, acct, "USD", "KWD", "0.3075", "2026-01-05")
    await deal(crm, acct, cid, 123_420, "USD", "won")                      # 379.5165 KWD
    b = await (await crm.get("/api/reports/revenue?currency=KWD", headers=acct.h)).json()
    assert (b["total"], b["total_decimal"]) == (379517, "379.517")         # half-up (half-even would be .516)
    b = await (await crm.get("/api/reports/revenue?currency=USD", headers=acct.h)).json()
    assert (b["total"], b["total_decimal"]) == (123420, "1234.20")
    r = await crm.get("/api/reports/revenue?currency=EUR", headers=acct.h)   # no USD-EUR rate (issue 22:
    assert r.status == 200                                                     # reported, never a 400)
    b = await r.json()
    assert (b["total"], b["deal_count"], b["by_currency"]) == (0, 0, [])
    assert b["unconverted"] == [{"currency": "USD", "deal_count": 1, "amount": 123420}]
    assert b["missing_rates"] == [{"base": "USD", "quote": "EUR"}]
    r = await crm.get("/api/reports/revenue?currency=XYZ", headers=acct.h)
    assert r.status == 400 and (await r.json())["error"]["param"] == "currency"


async def test_pipeline_weighted_by_probability(crm, acct):
    cid = await customer(crm, acct)
    await put_rate(crm, acct, "TRY", "USD", "0.0285", "2026-01-05")
    await deal(crm, acct, cid, 1_000_000, "TRY", "lead", 10)              # 285.00 USD, weighted 28.50
    await deal(crm, acct, cid, 100_000, "USD", "proposal", 50)            # 1000.00 USD, weighted 500.00
    await deal(crm, acct, cid, 33_333, "USD", "proposal", 33)             # 333.33, weighted 109.9989
    await deal(crm, acct, cid, 100_000, "USD", "won")                     # not open
    await deal(crm, acct, cid, 100_000, "USD", "lost")                    # not open
    r = await crm.get("/api/reports/pipeline?currency=USD", headers=acct.h)
    assert r.status == 200
    b = await r.json()
    stages = {s["stage"]: (s["count"], s["value"], s["weighted_value"]) for s in b["stages"]}
    assert stages == {"lead": (1, 28500, 2850), "qualified": (0, 0, 0),
                      "proposal": (2, 133333, 61000), "negotiation": (0, 0, 0)}   # 609.9989 -> 610.00
    assert b["total"] == {"count": 3, "value": 161833, "weighted_value": 63850}   # 638.4989 -> 638.50
    assert b["rates_used"] == [{"base": "TRY", "quote": "USD", "rate": "0.0285", "rate_date": "2026-01-05",
                                "inverse": False, "source": "company"}]    # issue 12: source added


async def test_rates_listed_and_set_by_admins_only(crm, acct):
    row = await put_rate(crm, acct, "usd", "try", 34.25, "2026-01-05")
    assert (row["base"], row["quote"], row["rate"], row["rate_date"]) == ("USD", "TRY", "34.25", "2026-01-05")
    again = await put_rate(crm, acct, "USD", "TRY", "34.5", "2026-01-05")   # same pair and date: replaced
    assert again["id"] == row["id"] and again["rate"] == "34.5"
    r = await crm.get("/api/reports/rates", headers=acct.h)
    assert [(x["base"], x["quote"], x["rate"]) for x in (await r.json())["data"]
            if x["source"] == "company"] == [("USD", "TRY", "34.5")]
    for body, param in (({"base": "USD", "quote": "USD", "rate": "1"}, "quote"),
                        ({"base": "USD", "quote": "TRY", "rate": "-1"}, "rate"),
                        ({"base": "USD", "quote": "TRY", "rate": "abc"}, "rate"),
                        ({"base": "USD", "quote": "TRY"}, "rate"),
                        ({"base": "USD", "quote": "TRY", "rate": "1", "rate_date": "05/01/2026"}, "rate_date")):
        r = await crm.put("/api/reports/rates", json=body, headers=acct.h)
        assert r.status == 400 and (await r.json())["error"]["param"] == param, body
    email = new_email("member")
    r = await crm.post("/api/users", json={"email": email, "password": PASSWORD, "role": "member"}, headers=acct.h)
    assert r.status == 201
    login = await (await crm.post("/api/auth/login", json={"email": email, "password": PASSWORD})).json()
    mh = {"Authorization": f"Bearer {login['access_token']}"}
    r = await crm.put("/api/reports/rates", json={"base": "USD", "quote": "TRY", "rate": "99"}, headers=mh)
    assert r.status == 403 and (await r.json())["error"]["code"] == "permission_denied"
    assert (await crm.get("/api/reports/rates", headers=mh)).status == 200
    assert (await ExchangeRate.get(id=row["id"])).rate == "34.5"
    r = await crm.post("/api/users", json={"email": new_email(), "password": PASSWORD}, headers=mh)
    assert r.status == 403


async def test_free_plan_allows_60_requests_a_minute(crm, acct, clock):
    for i in range(60):
        r = await crm.get("/api/customers", headers=acct.h)
        assert r.status == 200, i
    assert r.headers["X-RateLimit-Limit"] == "60" and r.headers["X-RateLimit-Remaining"] == "0"
    r = await crm.get("/api/customers", headers=acct.h)
    assert r.status == 429
    err = (await r.json())["error"]
    assert (err["code"], err["message"]) == ("rate_limit_exceeded", "Rate limit exceeded (60/min on the free plan)")
    assert int(r.headers["Retry-After"]) >= 1
    # GraphQL counts against the same company bucket
    status, body = await gql(crm, "{ crm { customers { totalCount } } }", token=acct.access)
    assert status == 429 and body["errors"][0]["extensions"]["code"] == "rate_limit_exceeded"
    clock.advance(seconds=60)
    assert (await crm.get("/api/customers", headers=acct.h)).status == 200


async def test_limit_is_per_company_and_paid_allows_600(crm, make_account, clock):
    free, paid = await make_account(), await make_account()
    await Company.filter(id=paid.company_id).update(plan="paid")
    for _ in range(60):
        await crm.get("/api/customers", headers=free.h)
    assert (await crm.get("/api/customers", headers=free.h)).status == 429
    # another user of the same company shares the allowance
    email = new_email()
    assert (await crm.post("/api/users", json={"email": email, "password": PASSWORD}, headers=paid.h)).status == 201
    for i in range(120):
        r = await crm.get("/api/customers", headers=paid.h)
        assert r.status == 200, i
    assert r.headers["X-RateLimit-Limit"] == "600"
    assert r.headers["X-RateLimit-Remaining"] == str(600 - 121)          # 1 users call + 120 lists so far
    login = await (await crm.post("/api/auth/login", json={"email": email, "password": PASSWORD})).json()
    r = await crm.get("/api/customers", headers={"Authorization": f"Bearer {login['access_token']}"})
    assert r.headers["X-RateLimit-Remaining"] == str(600 - 122)
