"""Analytics against hand-computed figures: attempts (declined ones too), approved volume,
approval rate, revenue (captured minus refunded) by the merchant's local day, zero-filled and
oldest first, providers' volume, approval rate and median latency; per currency (KWD, IQD with
3 decimals), never summed across currencies."""
from __future__ import annotations

from models.payments import Payment, PaymentAttempt
from services.money import analytics
from tests.crm_fixtures import crm, signup  # noqa: F401
from tests.helpers import gql
from tests.money_fixtures import at, get
from tests.payments_fixtures import APPROVED, DECLINED, PROCESSING_ERROR, call, card
from tests.payments_fixtures import no_exploration  # noqa: F401 -- autouse: routing without random exploration


async def create(client, key, amount, currency="TRY", number=APPROVED, expect=200, **body):
    status, p = await call(client, "POST", "/api/payments/create", key,
                           {"amount": amount, "currency": currency, "payment_method": card(number), **body})
    assert status == expect, p
    return p


async def fixture(client, merchant, clock) -> dict:
    """A Turkish merchant (Istanbul, UTC+3). Local days: 2 March, 3 March, 4 March 2026."""
    ids = {}
    clock.set(at(2026, 3, 2, 9, 0))                                      # 2 March, 12:00 local
    ids["p1"] = (await create(client, merchant.sk, 10000, routing="anatolia"))["id"]
    await create(client, merchant.sk, 5000, number=DECLINED, routing="anatolia", expect=402)
    clock.set(at(2026, 3, 2, 22, 30))                                    # 3 March, 01:30 local
    ids["p3"] = (await create(client, merchant.sk, 20000, routing="atlas"))["id"]
    clock.set(at(2026, 3, 3, 10, 0))                                     # 3 March
    status, _ = await call(client, "POST", f"/api/payments/{ids['p1']}/refund", merchant.sk, {"amount": 3000})
    assert status == 200
    await create(client, merchant.sk, 3000, currency="KWD")              # 3.000 KWD
    await create(client, merchant.sk, 300000, currency="IQD")            # 300.000 IQD
    ids["p5"] = (await create(client, merchant.sk, 8000, capture=False, routing="anatolia"))["id"]
    clock.set(at(2026, 3, 4, 8, 0))                                      # 4 March
    status, _ = await call(client, "POST", f"/api/payments/{ids['p5']}/capture", merchant.sk, {"amount": 6000})
    assert status == 200
    ids["p6"] = (await create(client, merchant.sk, 4000, number=PROCESSING_ERROR))["id"]   # error, then approved
    clock.set(at(2026, 3, 5, 12, 0))                                     # today: 5 March
    return ids


async def test_overview_and_revenue_match_hand_computed_figures(client, merchant, clock):
    await fixture(client, merchant, clock)
    q = "from=2026-03-01&to=2026-03-05"
    over = await get(client, f"/api/analytics?{q}", merchant.sk)
    # TRY attempts: p1, the declined one, p3, p5 (authorized), p6 = 5; approved 4
    assert (over["transactions"], over["volume"], over["approval_rate"], over["currency"], over["period"]) == \
        (5, 10000 + 20000 + 8000 + 4000, 80.0, "TRY", "2026-03-01..2026-03-05")
    rev = await get(client, f"/api/analytics/revenue?{q}", merchant.sk)
    assert rev["currency"] == "TRY"
    assert rev["by_day"] == [{"date": "2026-03-01", "amount": 0}, {"date": "2026-03-02", "amount": 10000},
                             {"date": "2026-03-03", "amount": 20000 - 3000},
                             {"date": "2026-03-04", "amount": 6000 + 4000}, {"date": "2026-03-05", "amount": 0}]
    assert rev["total"] == 37000

    kwd = await get(client, f"/api/analytics?{q}&currency=KWD", merchant.sk)
    assert (kwd["transactions"], kwd["volume"], kwd["approval_rate"]) == (1, 3000, 100.0)
    kwd_rev = await get(client, f"/api/analytics/revenue?{q}&currency=kwd", merchant.sk)
    assert kwd_rev["total"] == 3000 and kwd_rev["currency"] == "KWD"
    assert [d["amount"] for d in kwd_rev["by_day"]] == [0, 0, 3000, 0, 0]
    iqd_rev = await get(client, f"/api/analytics/revenue?{q}&currency=IQD", merchant.sk)
    assert iqd_rev["total"] == 300000 and [d["amount"] for d in iqd_rev["by_day"]] == [0, 0, 300000, 0, 0]
    sar = await get(client, f"/api/analytics?{q}&currency=SAR", merchant.sk)
    assert (sar["transactions"], sar["volume"], sar["approval_rate"]) == (0, 0, 0.0)


async def test_default_window_is_thirty_local_days_oldest_first_in_the_most_used_currency(client, merchant, clock):
    await fixture(client, merchant, clock)
    rev = await get(client, "/api/analytics/revenue", merchant.sk)
    assert rev["period"] == "30d" and rev["currency"] == "TRY" and len(rev["by_day"]) == 30
    assert rev["by_day"][0]["date"] == "2026-02-04" and rev["by_day"][-1]["date"] == "2026-03-05"
    assert rev["total"] == 37000
    week = await get(client, "/api/analytics?period=7d", merchant.sk)
    assert week["period"] == "7d" and week["transactions"] == 5
    # the local day: at 22:00 UTC on 5 March it is already 6 March in Istanbul
    clock.set(at(2026, 3, 5, 22, 0))
    rev = await get(client, "/api/analytics/revenue?period=7d", merchant.sk)
    assert rev["by_day"][-1]["date"] == "2026-03-06" and len(rev["by_day"]) == 7


async def test_providers_volume_approval_rate_and_median_latency(client, merchant, clock):
    ids = await fixture(client, merchant, clock)
    data = (await get(client, "/api/analytics/providers?from=2026-03-01&to=2026-03-05", merchant.sk))["data"]
    by = {d["provider"]: d for d in data}
    # hand-computed from the stored attempts of the TRY payments
    expected: dict[str, dict] = {}
    for a in await PaymentAttempt.filter(merchant_id=merchant.id, currency="TRY"):
        e = expected.setdefault(a.provider, {"tries": 0, "ok": 0, "lat": [], "volume": 0})
        e["tries"] += 1
        e["ok"] += a.outcome == "approved"
        e["lat"].append(a.latency_ms)
    for p in await Payment.filter(merchant_id=merchant.id, currency="TRY", status__not="failed"):
        expected[p.provider]["volume"] += p.amount
    assert set(by) == set(expected)
    for name, e in expected.items():
        lat = sorted(e["lat"])
        mid = (lat[(len(lat) - 1) // 2] + lat[len(lat) // 2] + 1) // 2
        assert by[name]["volume"] == e["volume"], name
        assert by[name]["authorizations"] == e["tries"], name
        assert by[name]["approval_rate"] == round(e["ok"] * 100 / e["tries"], 2), name
        assert by[name]["latency"] == mid, name
    # the fixed facts: anatolia approved p1 and p5, declined the declined card and failed p6's first
    # try (a processing error, 3 x 180 ms; p6 cascaded to the next provider): 2 of 4, median 180 ms
    assert by["anatolia"]["approval_rate"] == 50.0 and by["anatolia"]["latency"] == 180
    assert by["anatolia"]["authorizations"] == 4
    assert by["anatolia"]["volume"] == 10000 + 8000
    assert data == sorted(data, key=lambda d: (-d["volume"], d["provider"]))
    assert ids["p6"]


def test_median_of_buckets():
    assert analytics.median({}) == 0
    assert analytics.median({180: 3}) == 180
    assert analytics.median({180: 1, 320: 1}) == 250
    assert analytics.median({100: 1, 200: 1, 301: 1, 900: 5}) == 900
    assert analytics.median({1: 1, 2: 1}) == 2                 # 1.5 rounds half-up
    assert [analytics.bucket(x) for x in (0, 99, 180, 1999, 2050, 12345)] == [0, 99, 180, 1990, 2000, 12000]


async def test_bad_windows_are_400_naming_the_parameter(client, merchant):
    for path, param in (("/api/analytics?period=1y", "period"), ("/api/analytics/revenue?from=2026-02-30", "from"),
                        ("/api/analytics?from=2026-03-05&to=2026-03-01", "to"),
                        ("/api/analytics/providers?currency=EUR", "currency"),
                        ("/api/analytics?period=7d&from=2026-03-01", "period"),
                        ("/api/analytics?to=2026-03-01", "from"),
                        ("/api/analytics/revenue?from=2024-01-01&to=2026-01-01", "from")):
        status, body = await call(client, "GET", path, merchant.sk)
        assert status == 400 and body["error"]["param"] == param, (path, body)
    status, body = await call(client, "GET", "/api/analytics", "sk_test_wrong")
    assert status == 401


REPORTS = """
query($from: Date, $to: Date) {
  reports {
    overview(from: $from, to: $to) { volume transactions approvalRate period currency }
    revenue(from: $from, to: $to, currency: "TRY") { total currency byDay { date amount } }
    providers(from: $from, to: $to) { provider volume approvalRate latency }
    balance { available { amount currency } pending { amount currency } }
    settlements(first: 5) { totalCount }
  }
}"""


async def test_reports_root_is_the_rest_figures_in_one_query(client, merchant, clock):
    await fixture(client, merchant, clock)
    status, body = await gql(client, REPORTS, {"from": "2026-03-01", "to": "2026-03-05"}, key=merchant.sk)
    assert status == 200 and "errors" not in body, body
    r = body["data"]["reports"]
    q = "from=2026-03-01&to=2026-03-05"
    over = await get(client, f"/api/analytics?{q}", merchant.sk)
    assert r["overview"] == {"volume": over["volume"], "transactions": over["transactions"],
                             "approvalRate": over["approval_rate"], "period": over["period"], "currency": "TRY"}
    rev = await get(client, f"/api/analytics/revenue?{q}", merchant.sk)
    assert r["revenue"] == {"total": rev["total"], "currency": "TRY", "byDay": rev["by_day"]}
    prov = (await get(client, f"/api/analytics/providers?{q}", merchant.sk))["data"]
    assert r["providers"] == [{"provider": d["provider"], "volume": d["volume"], "approvalRate": d["approval_rate"],
                               "latency": d["latency"]} for d in prov]
    bal = await get(client, "/api/balance", merchant.sk)
    assert r["balance"] == {"available": bal["available"], "pending": bal["pending"]}
    assert r["settlements"]["totalCount"] == 0
    status, body = await gql(client, '{ reports { overview(period: "1y") { volume } } }', key=merchant.sk)
    assert body["errors"][0]["extensions"]["param"] == "period"
    status, body = await gql(client, "{ reports { balance { pending { amount } } } }")
    assert body["errors"][0]["extensions"]["status"] == 401


async def test_reports_crm_reports_for_a_crm_token_and_401_for_a_merchant_key(client, crm, merchant):  # noqa: F811
    account = await signup(crm)
    q = '{ reports { crm { pipeline(currency: "TRY") { count value } revenue(currency: "TRY") { total } } } }'
    status, body = await gql(crm, q, key=account.access)
    assert status == 200 and "errors" not in body, body
    assert body["data"]["reports"]["crm"] == {"pipeline": {"count": 0, "value": 0}, "revenue": {"total": 0}}
    status, body = await gql(client, q, key=merchant.sk)
    assert body["errors"][0]["extensions"]["status"] == 401


async def test_v1_intents_count_like_payments(client, merchant, clock):
    """An intent confirmed (approved or declined) and a cash-on-delivery one delivered or returned
    are attempts to pay in the same figures; an intent never confirmed is not."""
    from tests.intents_fixtures import confirm, create as create_intent, post
    clock.set(at(2026, 3, 2, 9, 0))
    ok = await create_intent(client, merchant.sk, amount=10000, currency="SAR")
    await confirm(client, merchant.sk, ok["id"], payment_method_id="pm_card_visa")
    bad = await create_intent(client, merchant.sk, amount=7000, currency="SAR")
    await confirm(client, merchant.sk, bad["id"], payment_method_id="pm_card_chargeDeclined", expect=402)
    cod = await create_intent(client, merchant.sk, amount=5000, currency="SAR", payment_method="cod",
                              cod_address={"line1": "King Fahd Rd 1", "city": "Riyadh", "country": "SA"})
    await confirm(client, merchant.sk, cod["id"])
    await post(client, merchant.sk, f"/v1/test_helpers/payments/{cod['id']}/cod_delivered")
    await create_intent(client, merchant.sk, amount=9999, currency="SAR")          # never confirmed
    clock.set(at(2026, 3, 3, 12, 0))
    o = await get(client, "/api/analytics?period=7d&currency=SAR", merchant.sk)
    assert (o["transactions"], o["volume"], o["approval_rate"]) == (3, 15000, 66.67)
    r = await get(client, "/api/analytics/revenue?period=7d&currency=SAR", merchant.sk)
    assert r["total"] == 15000


async def _rollups(merchant_id: str, rows: list[tuple]) -> None:
    """Rollup rows as the payment write adds them: (model, day, currency, provider, counts)."""
    from models import _lookup as lookup
    from models._rows import new
    await lookup.insert_all([new(model, merchant_id=merchant_id, livemode=False, day=day, currency=currency,
                                 provider=provider, **{**{c: 0 for c in model.UPSERT_ADD}, **counts})
                             for model, day, currency, provider, counts in rows])


async def test_the_providers_median_is_the_histograms_median_summed_over_days_and_slots(client, merchant):
    """The statement takes each provider's median itself; it must be `median` of the histogram the
    rows add up to, whatever the days, slots and counts (odd and even totals, one bucket, ties)."""
    import random
    from datetime import date

    from models.money import LatencyRollup, PaymentRollup
    rnd = random.Random(48)
    days = [date(2026, 3, d) for d in (2, 3, 4)]
    hists: dict[str, dict[int, int]] = {}
    rows: list[tuple] = []
    for i in range(10):
        provider = f"p{i}"
        buckets = [180] if i == 0 else [180, 320] if i == 1 else rnd.sample(range(0, 2000, 10), rnd.randint(2, 12))
        hist = hists[provider] = {}
        for b in buckets:
            for _ in range(2 if i == 1 else rnd.randint(1, 4)):     # spread over days and slots, as writes spread it
                n = 1 if i == 1 else rnd.randint(1, 9)
                hist[b] = hist.get(b, 0) + n
                rows.append((LatencyRollup, rnd.choice(days), "TRY", provider,
                             {"bucket": b, "count": n, "slot": rnd.randrange(16)}))
        rows.append((PaymentRollup, days[0], "TRY", provider, {"tries": 1, "payments": 1, "slot": 0}))
    rows.append((LatencyRollup, days[0], "SAR", "p2", {"bucket": 5, "count": 1000, "slot": 0}))  # not TRY
    rows.append((LatencyRollup, date(2026, 2, 27), "TRY", "p2", {"bucket": 5, "count": 1000, "slot": 0}))  # before
    await _rollups(merchant.id, rows)
    data = (await get(client, "/api/analytics/providers?from=2026-03-01&to=2026-03-05&currency=TRY",
                      merchant.sk))["data"]
    assert {d["provider"]: d["latency"] for d in data} == {p: analytics.median(h) for p, h in hists.items()}
    assert {d["provider"]: d["latency"] for d in data}["p1"] == 250        # 180 and 320 twice each: the two middle ones


async def test_a_report_names_the_currency_its_statement_chose(client, merchant):
    """Without `currency`, each report reads the window's most used currency in its own statement and
    names it, even when none of its rows is in the answer (payments without a provider: a risk
    decline); with none in the window, the market's home currency; a given one as given."""
    from datetime import date

    from models.money import PaymentRollup
    from services.principal import Principal
    await _rollups(merchant.id, [(PaymentRollup, date(2026, 3, 3), "KWD", "", {"payments": 3, "slot": 1}),
                                 (PaymentRollup, date(2026, 3, 3), "TRY", "atlas",
                                  {"payments": 2, "approved": 2, "volume": 5000, "captured": 5000, "tries": 2,
                                   "tries_approved": 2, "slot": 2}),
                                 (PaymentRollup, date(2026, 3, 4), "BHD", "", {"payments": 3, "slot": 3})])
    q = "from=2026-03-01&to=2026-03-05"
    over = await get(client, f"/api/analytics?{q}", merchant.sk)
    assert (over["currency"], over["transactions"], over["volume"]) == ("BHD", 3, 0)       # 3 = 3: BHD before KWD
    principal = Principal(merchant.id, False, "secret")       # the other reports' choice, made before their read
    assert await analytics._most_used(principal, date(2026, 3, 1), date(2026, 3, 5)) == "BHD"
    assert await analytics._most_used(principal, date(2026, 1, 1), date(2026, 1, 31)) is None
    rev = await get(client, f"/api/analytics/revenue?{q}", merchant.sk)
    assert (rev["currency"], rev["total"]) == ("BHD", 0)
    prov = await get(client, f"/api/analytics/providers?{q}", merchant.sk)
    assert (prov["currency"], prov["data"]) == ("BHD", [])
    prov = await get(client, f"/api/analytics/providers?{q}&currency=try", merchant.sk)
    assert prov["currency"] == "TRY" and [d["provider"] for d in prov["data"]] == ["atlas"]
    for path in ("/api/analytics", "/api/analytics/revenue", "/api/analytics/providers"):
        empty = await get(client, f"{path}?from=2026-01-01&to=2026-01-31", merchant.sk)
        assert empty["currency"] == "TRY", path                      # the Turkish market's home currency
        assert (await get(client, f"{path}?{q}&currency=SAR", merchant.sk))["currency"] == "SAR", path
    status, body = await gql(client, '{ reports { overview(from: "2026-03-01", to: "2026-03-05") { currency '
                                     'transactions } revenue(from: "2026-03-01", to: "2026-03-05") { currency } } }',
                             key=merchant.sk)
    assert status == 200 and body["data"]["reports"] == {"overview": {"currency": "BHD", "transactions": 3},
                                                         "revenue": {"currency": "BHD"}}, body
