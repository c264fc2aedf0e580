"""Subscriptions through the test clock: renewals on anchor dates across month ends and leap
years, dunning to unpaid, pause/resume skipping periods, one bill per period with two
schedulers, bad input, live keys refused, GraphQL parity and the events' objects."""
from __future__ import annotations

import asyncio
from datetime import datetime, timezone

import pytest

from models.billing import Invoice, Subscription
from models.events import Event
from models.payments import Payment
from services import scheduler
from services.money import ledger
from tests.billing_fixtures import DUNNING, advance, call, customer, subscribe
from tests.conftest import bearer, gql
from tests.payments_fixtures import card


async def _next_billings(client, key, sub_id, steps: list[int]) -> list[str]:
    out = []
    for days in steps:
        await advance(client, key, days=days)
        status, s = await call(client, "GET", f"/api/subscriptions/{sub_id}", key)
        out.append(s["next_billing"])
    return out


async def test_monthly_renewals_keep_the_anchor_day_across_month_ends_and_a_leap_year(client, merchant, clock):
    clock.set(datetime(2028, 1, 31, 10, 0, tzinfo=timezone.utc))        # 2028 is a leap year
    cid = await customer(client, merchant.sk)
    s = await subscribe(client, merchant.sk, cid, amount=9900)
    assert s["status"] == "active" and s["next_billing"] == "2028-02-29"
    assert s["current_period_start"] == "2028-01-31T10:00:00.000Z" and s["latest_invoice"].startswith("inv_")
    # Feb 29 -> Mar 31 -> Apr 30 -> May 31: the day comes back where the month has it.
    nexts = await _next_billings(client, merchant.sk, s["id"], [29, 31, 30])
    assert nexts == ["2028-03-31", "2028-04-30", "2028-05-31"]
    invs = await Invoice.filter(subscription_id=s["id"]).order_by("sequence")
    assert [i.period_start.date().isoformat() for i in invs] == ["2028-01-31", "2028-02-29", "2028-03-31",
                                                                  "2028-04-30"]
    assert {i.status for i in invs} == {"paid"} and {i.total for i in invs} == {9900}
    # each period charged once through the payment service, in the ledger
    paid = await Payment.filter(id__in=[i.payment_id for i in invs]).values_list("status", "amount")
    assert sorted(paid) == [("succeeded", 9900)] * 4
    renewed = await Event.filter(merchant_id=merchant.id, type="subscription.renewed").order_by("created_at")
    assert len(renewed) == 4 and renewed[1].data["id"] == s["id"]
    assert renewed[1].data["invoice"]["status"] == "paid" and renewed[1].data["next_billing"] == "2028-03-31"
    assert renewed[1].created_at == datetime(2028, 2, 29, 10, 0, tzinfo=timezone.utc)   # dated when it fell due


async def test_yearly_renewal_from_february_29(client, merchant, clock):
    clock.set(datetime(2028, 2, 29, 8, 0, tzinfo=timezone.utc))
    cid = await customer(client, merchant.sk)
    s = await subscribe(client, merchant.sk, cid, interval="year")
    assert s["next_billing"] == "2029-02-28"
    out = await advance(client, merchant.sk, to="2032-03-01T00:00:00Z")
    assert [r["at"][:10] for r in out["ran"]] == ["2029-02-28", "2030-02-28", "2031-02-28", "2032-02-29"]
    status, s = await call(client, "GET", f"/api/subscriptions/{s['id']}", merchant.sk)
    assert s["next_billing"] == "2033-02-28"


async def test_a_declined_renewal_goes_through_dunning_to_unpaid(client, merchant, clock):
    cid = await customer(client, merchant.sk)                              # an approved saved card
    s = await subscribe(client, merchant.sk, cid, amount=5000)
    # The customer then pays with the dunning card: it becomes the saved card, and declines later.
    clock.advance(seconds=1)                                               # a later payment, a newer card
    status, p = await call(client, "POST", "/api/payments/create", merchant.sk,
                           {"amount": 1000, "currency": "TRY", "payment_method": card(DUNNING), "customer_id": cid})
    assert status == 200 and p["status"] == "succeeded"
    out = await advance(client, merchant.sk, to=s["current_period_end"])     # exactly the renewal's time
    assert "declined" in out["ran"][0]["outcome"]
    _, sub = await call(client, "GET", f"/api/subscriptions/{s['id']}", merchant.sk)
    assert sub["status"] == "past_due"
    # retries 1, 3 and 5 days after the declined renewal, then unpaid
    for days, expect in ((1, "past_due"), (2, "past_due"), (2, "unpaid")):
        out = await advance(client, merchant.sk, days=days)
        assert [r["kind"] for r in out["ran"]] == ["subscription.dunning_retry"], out
        _, sub = await call(client, "GET", f"/api/subscriptions/{s['id']}", merchant.sk)
        assert sub["status"] == expect
    assert sub["next_billing"] is None
    out = await advance(client, merchant.sk, days=90)
    assert out["ran"] == []                                                 # no further charges
    failed = await Event.filter(merchant_id=merchant.id, type="subscription.payment_failed").order_by("created_at")
    assert len(failed) == 4
    assert [e.data["failure"]["code"] for e in failed] == ["card_declined"] * 4
    assert [e.data["status"] for e in failed] == ["past_due", "past_due", "past_due", "unpaid"]
    declined = await Payment.filter(merchant_id=merchant.id, status="failed").values_list("decline_code", flat=True)
    assert list(declined) == ["card_declined"] * 4
    inv = await Invoice.get(id=sub["latest_invoice"])
    assert inv.status != "paid"


async def test_a_retry_that_succeeds_makes_it_active_again(client, merchant, clock):
    cid = await customer(client, merchant.sk)
    s = await subscribe(client, merchant.sk, cid)
    clock.advance(seconds=1)                                               # each payment later: a newer card
    await call(client, "POST", "/api/payments/create", merchant.sk,
               {"amount": 1000, "currency": "TRY", "payment_method": card(DUNNING), "customer_id": cid})
    out = await advance(client, merchant.sk, to=s["current_period_end"])
    assert "declined" in out["ran"][0]["outcome"]
    # the customer pays with a good card again: the next retry charges it
    clock.advance(seconds=1)
    await call(client, "POST", "/api/payments/create", merchant.sk,
               {"amount": 1000, "currency": "TRY", "payment_method": card(), "customer_id": cid})
    out = await advance(client, merchant.sk, days=1)
    assert "active" in out["ran"][0]["outcome"]
    _, sub = await call(client, "GET", f"/api/subscriptions/{s['id']}", merchant.sk)
    assert sub["status"] == "active"
    assert (await Invoice.get(id=sub["latest_invoice"])).status == "paid"


async def test_pause_stops_billing_and_resume_skips_the_missed_periods(client, merchant, clock):
    clock.set(datetime(2027, 3, 10, 12, 0, tzinfo=timezone.utc))
    cid = await customer(client, merchant.sk)
    s = await subscribe(client, merchant.sk, cid, interval="week")
    assert s["next_billing"] == "2027-03-17"
    status, paused = await call(client, "PUT", f"/api/subscriptions/{s['id']}/pause", merchant.sk)
    assert status == 200 and paused["status"] == "paused" and paused["next_billing"] is None
    out = await advance(client, merchant.sk, days=30)                      # four weeks missed
    assert out["ran"] == []
    status, resumed = await call(client, "PUT", f"/api/subscriptions/{s['id']}/resume", merchant.sk)
    assert status == 200 and resumed["status"] == "active"
    assert resumed["next_billing"] == "2027-04-14"                         # the next anchor day after now
    assert await Invoice.filter(subscription_id=s["id"]).count() == 1      # the missed periods not billed
    out = await advance(client, merchant.sk, days=5)
    assert [r["at"] for r in out["ran"]] == ["2027-04-14T12:00:00.000Z"]
    # moves from the wrong state name the status
    status, e = await call(client, "PUT", f"/api/subscriptions/{s['id']}/resume", merchant.sk)
    assert status == 400 and e["error"]["message"] == "Invalid request body" and "its status is active" in e["error"]["detail"]
    status, c = await call(client, "PUT", f"/api/subscriptions/{s['id']}/cancel", merchant.sk)
    assert status == 200 and c["status"] == "cancelled" and c["next_billing"] is None
    status, e = await call(client, "PUT", f"/api/subscriptions/{s['id']}/cancel", merchant.sk)
    assert status == 400 and "cancelled" in e["error"]["detail"]
    status, e = await call(client, "PUT", f"/api/subscriptions/{s['id']}/pause", merchant.sk)
    assert status == 400 and e["error"]["code"] == "invalid_state"
    assert (await advance(client, merchant.sk, days=60))["ran"] == []


async def test_without_a_saved_card_the_invoice_is_sent_instead(client, merchant, mailer):
    cid = await customer(client, merchant.sk, email="nocard@example.com", saved_card=None)
    s = await subscribe(client, merchant.sk, cid)
    inv = await Invoice.get(id=s["latest_invoice"])
    assert inv.status == "sent" and inv.sent_to == "nocard@example.com" and inv.payment_id is None
    assert mailer.sent[-1].to == "nocard@example.com" and inv.number in mailer.sent[-1].subject
    assert await Payment.filter(merchant_id=merchant.id).count() == 0


async def test_two_schedulers_never_bill_one_period_twice(client, merchant, make_merchant):
    subs = []
    for _ in range(8):
        cid = await customer(client, merchant.sk, email=None, phone=None, name="Twin")
        subs.append((await subscribe(client, merchant.sk, cid, interval="day"))["id"])
    before = await Payment.filter(merchant_id=merchant.id, status="succeeded").count()
    until = (await Subscription.get(id=subs[0])).next_billing_at.replace(hour=23)
    scope = scheduler.Scope(livemode=False, merchant_id=merchant.id)
    # Two schedulers at once (two connections, real row locks on PostgreSQL), twice over.
    for _ in range(2):
        runs = await asyncio.gather(scheduler.run_due(scope, until), scheduler.run_due(scope, until))
    assert sum(len(r) for r in runs) == 0                                  # the second round finds nothing due
    for sid in subs:
        periods = await Invoice.filter(subscription_id=sid).values_list("period_start", flat=True)
        assert len(periods) == len(set(periods)) == 2, sid                 # the first period and one renewal
    after = await Payment.filter(merchant_id=merchant.id, status="succeeded").count()
    assert after - before == len(subs)
    balance = await ledger.merchant_balance(merchant_id=merchant.id, livemode=False)
    assert balance["TRY"] > 0


@pytest.mark.parametrize("body, param", [
    ({"interval": "fortnight"}, "interval"),
    ({"interval": None}, "interval"),
    ({"amount": 0}, "amount"),
    ({"amount": "99"}, "amount"),
    ({"currency": "EUR"}, "currency"),
    ({"plan": ""}, "plan"),
    ({"interval_count": 0}, "interval_count"),
    ({"interval": "year", "interval_count": 4}, "interval_count"),
    ({"customer_id": "cus_doesnotexist"}, "customer_id"),
    ({"colour": "red"}, "colour"),
])
async def test_bad_input_is_a_400_naming_the_field(client, merchant, body, param):
    cid = await customer(client, merchant.sk, saved_card=None)
    status, e = await call(client, "POST", "/api/subscriptions", merchant.sk,
                           {"customer_id": cid, "plan": "Pro", "amount": 9900, "currency": "TRY", "interval": "month",
                            **body})
    assert status == 400 and e["error"]["param"] == param, e
    assert e["error"]["message"] == "Invalid request body"
    assert await Subscription.filter(merchant_id=merchant.id).count() == 0


async def test_another_merchants_customer_and_subscription_are_out_of_reach(client, merchant, make_merchant):
    other = await make_merchant()
    theirs = await customer(client, other.sk)
    status, e = await call(client, "POST", "/api/subscriptions", merchant.sk,
                           {"customer_id": theirs, "plan": "P", "amount": 100, "currency": "TRY", "interval": "month"})
    assert status == 400 and e["error"]["param"] == "customer_id"
    s = await subscribe(client, other.sk, theirs)
    for method, path in (("GET", f"/api/subscriptions/{s['id']}"), ("PUT", f"/api/subscriptions/{s['id']}/pause")):
        status, e = await call(client, method, path, merchant.sk)
        assert status == 404 and e["error"]["message"] == "Resource not found"
    status, lst = await call(client, "GET", "/api/subscriptions", merchant.sk)
    assert lst["data"] == []


async def test_list_is_newest_first_with_filters_and_cursor(client, merchant, clock):
    cid = await customer(client, merchant.sk)
    ids = []
    for _ in range(3):
        ids.append((await subscribe(client, merchant.sk, cid))["id"])
        clock.advance(seconds=1)
    await call(client, "PUT", f"/api/subscriptions/{ids[0]}/pause", merchant.sk)
    status, p1 = await call(client, "GET", "/api/subscriptions?limit=2", merchant.sk)
    assert [s["id"] for s in p1["data"]] == ids[::-1][:2] and p1["has_more"] is True
    status, p2 = await call(client, "GET", f"/api/subscriptions?limit=2&starting_after={ids[1]}", merchant.sk)
    assert [s["id"] for s in p2["data"]] == [ids[0]] and p2["has_more"] is False
    status, paused = await call(client, "GET", "/api/subscriptions?status=paused", merchant.sk)
    assert [s["id"] for s in paused["data"]] == [ids[0]]
    status, e = await call(client, "GET", "/api/subscriptions?status=sleeping", merchant.sk)
    assert status == 400 and e["error"]["param"] == "status"


async def test_the_test_clock_is_test_mode_only_and_never_goes_back(client, merchant, make_merchant):
    status, c = await call(client, "GET", "/api/test-helpers/clock", merchant.sk)
    assert status == 200 and c["offset_seconds"] == 0
    await advance(client, merchant.sk, days=2)
    status, c2 = await call(client, "GET", "/api/test-helpers/clock", merchant.sk)
    assert c2["offset_seconds"] == 2 * 86400
    e = await advance(client, merchant.sk, expect=400, to=c["now"])
    assert e["error"]["param"] == "to" and "never goes back" in e["error"]["detail"]
    e = await advance(client, merchant.sk, expect=400, days=1, to=c2["now"])
    assert e["error"]["param"] in ("days", "to")
    e = await advance(client, merchant.sk, expect=400, days=0)
    assert e["error"]["param"] == "days"
    # another merchant's clock did not move
    other = await make_merchant()
    status, oc = await call(client, "GET", "/api/test-helpers/clock", other.sk)
    assert oc["offset_seconds"] == 0
    # a live key: 403 with a clear message, for reading and for advancing
    from services.identity.api_keys import issue_key
    _, live = await issue_key(merchant_id=merchant.id, kind="secret", livemode=True, name="live")
    for method, path, body in (("POST", "/api/test-helpers/advance-clock", {"days": 1}),
                               ("GET", "/api/test-helpers/clock", None)):
        status, e = await call(client, method, path, live, body)
        assert status == 403 and "test mode only" in e["error"]["detail"], e
        assert e["error"]["code"] == "test_mode_only"


SUB_QUERY = """query($id: ID!) { subscription(id: $id) { id status plan amount currency interval intervalCount
  nextBilling currentPeriodStart latestInvoice { id number status total } customer { id } } }"""


async def test_graphql_twins_agree_with_rest(client, merchant):
    cid = await customer(client, merchant.sk)
    status, body = await gql(client, """mutation($i: SubscriptionCreateInput!) { subscriptionCreate(input: $i) {
        subscription { id } userErrors { code field } } }""",
                             {"i": {"customerId": cid, "plan": "Gold", "amount": 12345, "currency": "KWD",
                                    "interval": "month"}}, merchant.sk)
    sid = body["data"]["subscriptionCreate"]["subscription"]["id"]
    status, rest = await call(client, "GET", f"/api/subscriptions/{sid}", merchant.sk)
    _, body = await gql(client, SUB_QUERY, {"id": sid}, merchant.sk)
    g = body["data"]["subscription"]
    assert (g["status"], g["plan"], g["amount"], g["currency"], g["interval"], g["nextBilling"]) == \
        (rest["status"], rest["plan"], rest["amount"], rest["currency"], rest["interval"], rest["next_billing"])
    assert g["latestInvoice"]["id"] == rest["latest_invoice"] and g["customer"]["id"] == cid
    assert g["currentPeriodStart"] == rest["current_period_start"] or \
        g["currentPeriodStart"].startswith(rest["current_period_start"][:19])
    # moves and userErrors
    for op in ("subscriptionPause", "subscriptionResume", "subscriptionCancel"):
        _, body = await gql(client, f"mutation($i: SubscriptionIdInput!) {{ {op}(input: $i) {{ subscription {{ status }} "
                                    "userErrors { code message } } }", {"i": {"id": sid}}, merchant.sk)
        assert body["data"][op]["userErrors"] == []
    _, body = await gql(client, "mutation($i: SubscriptionIdInput!) { subscriptionPause(input: $i) { subscription "
                                "{ id } userErrors { code message } } }", {"i": {"id": sid}}, merchant.sk)
    assert body["data"]["subscriptionPause"]["userErrors"][0]["code"] == "invalid_state"
    _, lst = await gql(client, "{ subscriptions(first: 5) { edges { node { id status } } } }", None, merchant.sk)
    assert lst["data"]["subscriptions"]["edges"] == [{"node": {"id": sid, "status": "cancelled"}}]
    _, adv = await gql(client, "mutation { testClockAdvance(input: {days: 3}) { testClock { offsetSeconds } "
                               "userErrors { code } } }", None, merchant.sk)
    assert adv["data"]["testClockAdvance"]["testClock"]["offsetSeconds"] == 3 * 86400
