"""Issue 35, "CRM reports that drop nothing": the pipeline report counts every open deal in its
stage even when its currency has no rate to the report's currency; such deals appear per stage
and currency (deal_count, amount, weighted_amount in the deal currency's own minor units), with
the missing rates named, as the revenue report's `unconverted` does."""
from __future__ import annotations

from tests.crm_fixtures import crm, gql, make_account  # noqa: F401
from tests.test_crm_reports_fresh import customer, deal, get, snake

PIPELINE = """query($cur: String) { crm { reports { pipeline(currency: $cur) {
  currency count value weightedValue
  stages { stage count value weightedValue unconverted { currency dealCount amount weightedAmount } }
  unconverted { currency dealCount amount weightedAmount } missingRates { base quote } } } } }"""


def u(currency, deal_count, amount, weighted_amount):
    return {"currency": currency, "deal_count": deal_count, "amount": amount, "weighted_amount": weighted_amount}


async def test_a_fresh_kuwaiti_company_sees_every_open_deal_in_its_stage(crm, make_account):
    a = await make_account(country="KW")                                  # report currency KWD: no reference rate
    assert a.body["company"]["currency"] == "KWD"
    cid = await customer(crm, a)
    await deal(crm, a, cid, 100_000, "SAR", "lead", 10)                   # 1,000.00 SAR x 10% = 100.00
    await deal(crm, a, cid, 50_000, "SAR", "lead", 25)                    # 500.00 SAR x 25% = 125.00
    await deal(crm, a, cid, 1_000_000, "TRY", "lead", 33)                 # 10,000.00 TRY x 33% = 3,300.00
    await deal(crm, a, cid, 1_234, "KWD", "qualified", 50)                # 1.234 KWD x 50% = 0.617
    await deal(crm, a, cid, 33_333, "SAR", "proposal", 33)                # 333.33 x 33% = 109.9989 -> 110.00
    await deal(crm, a, cid, 70_000, "SAR", "won")                         # not open
    await deal(crm, a, cid, 80_000, "TRY", "lost")                        # not open
    b = await get(crm, a, "/api/reports/pipeline")
    assert b["currency"] == "KWD"
    assert b["stages"] == [
        {"stage": "lead", "count": 3, "value": 0, "weighted_value": 0,
         "unconverted": [u("SAR", 2, 150_000, 22_500), u("TRY", 1, 1_000_000, 330_000)]},
        {"stage": "qualified", "count": 1, "value": 1_234, "weighted_value": 617, "unconverted": []},
        {"stage": "proposal", "count": 1, "value": 0, "weighted_value": 0,
         "unconverted": [u("SAR", 1, 33_333, 11_000)]},
        {"stage": "negotiation", "count": 0, "value": 0, "weighted_value": 0, "unconverted": []}]
    assert b["total"] == {"count": 5, "value": 1_234, "weighted_value": 617}
    # the report's own lines: the stages' per currency, weighted values summed exactly, rounded once
    assert b["unconverted"] == [u("SAR", 3, 183_333, 33_500), u("TRY", 1, 1_000_000, 330_000)]
    assert b["missing_rates"] == [{"base": "SAR", "quote": "KWD"}, {"base": "TRY", "quote": "KWD"}]
    # the per-stage counts add up to every open deal; GraphQL says the same
    assert sum(s["count"] for s in b["stages"]) == 5
    status, g = await gql(crm, PIPELINE, {"cur": None}, token=a.access)
    assert status == 200 and "errors" not in g, g
    p = g["data"]["crm"]["reports"]["pipeline"]
    assert (p["currency"], p["count"], p["value"], p["weightedValue"]) == ("KWD", 5, 1_234, 617)
    assert [{**row, "unconverted": snake(row["unconverted"])} for row in snake(p["stages"])] == b["stages"]
    assert snake(p["unconverted"]) == b["unconverted"] and snake(p["missingRates"]) == b["missing_rates"]


async def test_a_rate_set_later_moves_the_deals_into_the_values(crm, make_account):
    a = await make_account(country="KW")
    cid = await customer(crm, a)
    await deal(crm, a, cid, 1_000_000, "TRY", "negotiation", 50)          # 10,000.00 TRY
    r = await crm.put("/api/reports/rates", json={"base": "KWD", "quote": "TRY", "rate": "100",
                                                  "rate_date": "2026-01-02"}, headers=a.h)
    assert r.status in (200, 201), await r.text()
    b = await get(crm, a, "/api/reports/pipeline")                        # 10,000 TRY / 100 = 100.000 KWD
    assert b["stages"][3] == {"stage": "negotiation", "count": 1, "value": 100_000, "weighted_value": 50_000,
                              "unconverted": []}
    assert (b["unconverted"], b["missing_rates"]) == ([], [])


async def test_another_companys_deals_are_not_counted(crm, make_account):
    a, other = await make_account(country="KW"), await make_account(country="KW")
    await deal(crm, other, await customer(crm, other), 500_000, "TRY", "lead", 10)
    b = await get(crm, a, "/api/reports/pipeline")
    assert [s["count"] for s in b["stages"]] == [0, 0, 0, 0]
    assert (b["total"]["count"], b["unconverted"], b["missing_rates"]) == (0, [], [])
