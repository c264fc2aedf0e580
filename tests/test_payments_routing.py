"""Routing: rules (matching, priority, CRUD), strategies, smart scoring with the sliding window
and exploration, and risk declines before any provider."""
from __future__ import annotations

import random
from datetime import datetime, timezone
from types import SimpleNamespace

import pytest

from models.payments import Payment, PaymentAttempt, RoutingRule
from services.payments import routing
from tests.payments_fixtures import APPROVED, DECLINED, call, card, no_exploration, pay  # noqa: F401

NOW = 1_800_000_000.0


def rule(name, conditions, priority=10, provider=None, strategy="smart", status="active"):
    return SimpleNamespace(id=f"rul_{name}", name=name, conditions=conditions, priority=priority, provider=provider,
                           strategy=strategy, status=status, created_at=datetime(2026, 1, 1, tzinfo=timezone.utc))


@pytest.mark.parametrize("cond,facts,expected", [
    ({"field": "country", "operator": "equals", "value": "sa"}, {"country": "SA"}, True),
    ({"field": "country", "operator": "equals", "value": "SA"}, {"country": None}, False),
    ({"field": "country", "operator": "not_equals", "value": "SA"}, {"country": "TR"}, True),
    ({"field": "currency", "operator": "in", "value": "SAR, AED"}, {"currency": "AED"}, True),
    ({"field": "currency", "operator": "in", "value": ["SAR", "AED"]}, {"currency": "TRY"}, False),
    ({"field": "amount", "operator": "gt", "value": "5000"}, {"amount": 5001}, True),
    ({"field": "amount", "operator": "gt", "value": "5000"}, {"amount": 5000}, False),
    ({"field": "amount", "operator": "lt", "value": "5000"}, {"amount": 4999}, True),
    ({"field": "amount", "operator": "equals", "value": "5000"}, {"amount": 5000}, True),
    ({"field": "card_brand", "operator": "equals", "value": "visa"}, {"card_brand": "visa"}, True),
    ({"field": "card_brand", "operator": "not_in", "value": "visa,troy"}, {"card_brand": "mastercard"}, True),
    ({"field": "payment_method", "operator": "equals", "value": "card"}, {}, True),
])
def test_condition_operators(cond, facts, expected):
    f = routing.Facts(**{"amount": 1000, "currency": "TRY", "card_brand": "visa", **facts})
    assert routing.condition_holds(cond, f) is expected


def test_rules_by_priority_first_match_wins_inactive_skipped():
    facts = routing.Facts(amount=10_000, currency="SAR", country="SA")
    rules = [rule("late", [{"field": "currency", "operator": "equals", "value": "SAR"}], priority=50, provider="atlas"),
             rule("off", [], priority=1, provider="atlas", status="inactive"),
             rule("gulf", [{"field": "country", "operator": "equals", "value": "SA"},
                           {"field": "amount", "operator": "gt", "value": "1000"}], priority=20, provider="gulfnet"),
             rule("big", [{"field": "amount", "operator": "gt", "value": "1000000"}], priority=5, provider="atlas")]
    assert routing.match_rule(rules, facts).name == "gulf"
    d = routing.decide(facts=routing.Facts(amount=10_000, currency="SAR"), rules=rules[:1], now=NOW,
                       stats=routing.ProviderStats())
    assert d.candidates[0].name == "atlas" and "rule 'late' (rul_late)" in d.reason and d.rule.name == "late"


def test_explicit_request_choice_wins_over_rules_and_fixed_does_not_cascade():
    rules = [rule("all", [], provider="atlas")]
    d = routing.decide(facts=routing.Facts(amount=10_000, currency="TRY"), choice=routing.parse_choice("anatolia"),
                       rules=rules, now=NOW, stats=routing.ProviderStats())
    assert [p.name for p in d.candidates] == ["anatolia"] and d.strategy == "fixed"
    assert d.reason == "fixed provider anatolia [requested]"


def test_lowest_cost_and_highest_approval():
    stats = routing.ProviderStats()
    facts = routing.Facts(amount=100_000, currency="SAR")
    d = routing.decide(facts=facts, choice=routing.parse_choice("lowest_cost"), now=NOW, stats=stats)
    assert d.candidates[0].name == "gulfnet" and d.reason.startswith("lowest cost: gulfnet fee 2250")
    d = routing.decide(facts=facts, choice=routing.parse_choice({"strategy": "highest_approval"}), now=NOW, stats=stats)
    assert d.candidates[0].name == "gulfnet" and "highest approval: gulfnet at 91.0%" in d.reason
    for _ in range(30):
        stats.record("gulfnet", approved=False, latency_ms=200, now=NOW)
    d = routing.decide(facts=facts, choice=routing.parse_choice("highest_approval"), now=NOW, stats=stats)
    assert d.candidates[0].name == "atlas"


def test_smart_scores_on_the_sliding_window_and_a_recovered_provider_earns_traffic_back():
    stats = routing.ProviderStats()
    facts = routing.Facts(amount=10_000, currency="TRY")
    assert routing.decide(facts=facts, now=NOW, stats=stats).candidates[0].name == "anatolia"
    for _ in range(40):                       # anatolia fails, atlas keeps approving
        stats.record("anatolia", approved=False, latency_ms=900, now=NOW)
        stats.record("atlas", approved=True, latency_ms=300, now=NOW)
    d = routing.decide(facts=facts, now=NOW + 30, stats=stats)
    assert [p.name for p in d.candidates] == ["atlas", "anatolia"]
    assert d.reason.startswith("smart: atlas score") and "approval 96.0% over 40 recent attempts" in d.reason
    assert "beat anatolia score" in d.reason and "approval 31.0% over 40 recent attempts" in d.reason
    # Fifteen minutes later the failures have left the window: anatolia is judged on its prior again.
    later = NOW + routing.SETTINGS.window_seconds + 60
    assert routing.decide(facts=facts, now=later, stats=stats).candidates[0].name == "anatolia"


def test_exploration_gives_a_small_share_to_the_others():
    stats = routing.ProviderStats()
    settings = routing.RoutingSettings(exploration_rate=0.05)
    rng = random.Random(7)
    facts = routing.Facts(amount=10_000, currency="TRY")
    picks = [routing.decide(facts=facts, now=NOW, stats=stats, rng=rng, settings=settings) for _ in range(2000)]
    explored = [d for d in picks if d.candidates[0].name == "atlas"]
    assert 50 <= len(explored) <= 150
    assert all(d.reason.startswith("smart exploration (5% share): trying atlas") for d in explored)


def test_no_provider_serves_the_currency_in_that_country():
    d = routing.decide(facts=routing.Facts(amount=10_000, currency="EGP", country="EG"), now=NOW,
                       stats=routing.ProviderStats())
    assert {p.name for p in d.eligible} == {"nilepay", "atlas"}


# ---------------------------------------------------------------- over the API

async def test_routing_rules_crud_and_a_matching_rule_routes_the_payment(client, merchant, make_merchant):
    status, r = await call(client, "POST", "/api/routing/rules", merchant.sk,
                           {"name": "Saudi cards to atlas", "strategy": "smart", "provider": "atlas",
                            "conditions": [{"field": "country", "operator": "equals", "value": "SA"}]})
    assert status == 200 and r["id"].startswith("rul_") and r["status"] == "active" and r["strategy"] == "smart"
    assert r["name"] == "Saudi cards to atlas"
    status, listed = await call(client, "GET", "/api/routing/rules", merchant.sk)
    assert [(x["id"], x["name"], x["strategy"], x["priority"]) for x in listed["data"]] == [
        (r["id"], "Saudi cards to atlas", "smart", 10)]
    status, body = await pay(client, merchant.sk, 100_000, "SAR", "4000006820000007")   # a Saudi card
    assert status == 200 and body["provider"] == "atlas"
    assert f"rule 'Saudi cards to atlas' ({r['id']})" in body["routing_decision"]["reason"]
    assert body["routing_decision"]["rule_id"] == r["id"]
    status, body = await pay(client, merchant.sk, 100_000, "SAR")                       # no country: no match
    assert body["provider"] == "gulfnet" and "[default]" in body["routing_decision"]["reason"]
    status, up = await call(client, "PUT", f"/api/routing/rules/{r['id']}", merchant.sk, {"name": "KSA", "priority": 3})
    assert status == 200 and up == {**up, "id": r["id"], "name": "KSA", "strategy": "smart", "priority": 3}
    status, up = await call(client, "PUT", f"/api/routing/rules/{r['id']}", merchant.sk, {"status": "inactive"})
    status, body = await pay(client, merchant.sk, 100_000, "SAR", "4000006820000007")
    assert body["provider"] == "gulfnet"
    other = await make_merchant()
    status, out = await call(client, "PUT", f"/api/routing/rules/{r['id']}", other.sk, {"name": "x"})
    assert status == 404
    _, listed = await call(client, "GET", "/api/routing/rules", other.sk)
    assert listed["data"] == []
    assert (await RoutingRule.get(id=r["id"])).name == "KSA"


@pytest.mark.parametrize("body,param", [
    ({"strategy": "smart"}, "name"),
    ({"name": "x", "strategy": "random"}, "strategy"),
    ({"name": "x", "provider": "paypal"}, "provider"),
    ({"name": "x", "strategy": "fixed"}, "provider"),
    ({"name": "x", "conditions": [{"field": "planet", "operator": "equals", "value": "mars"}]}, "conditions[0].field"),
    ({"name": "x", "conditions": [{"field": "country", "operator": "gt", "value": "SA"}]}, "conditions[0].operator"),
    ({"name": "x", "conditions": [{"field": "amount", "operator": "gt", "value": "lots"}]}, "conditions[0].value"),
    ({"name": "x", "conditions": [{"field": "country", "operator": "equals"}]}, "conditions[0].value"),
])
async def test_bad_rules_are_400(client, merchant, body, param):
    status, out = await call(client, "POST", "/api/routing/rules", merchant.sk, body)
    assert status == 400 and out["error"]["param"] == param
    assert await RoutingRule.filter(merchant_id=merchant.id).count() == 0


async def test_request_strategy_over_the_api(client, merchant):
    status, body = await pay(client, merchant.sk, 100_000, "AED", routing="lowest_cost")
    assert status == 200 and body["routing_decision"]["strategy"] == "lowest_cost" and body["provider"] == "gulfnet"
    status, body = await pay(client, merchant.sk, 100_000, "AED", routing={"strategy": "fixed", "provider": "atlas"})
    assert body["provider"] == "atlas" and body["routing_decision"]["reason"] == "fixed provider atlas [requested]"


# ---------------------------------------------------------------- risk

async def test_risk_above_the_threshold_declines_before_any_provider(client, merchant):
    for _ in range(8):          # card testing: eight declines with the same card
        await pay(client, merchant.sk, 1000, "TRY", DECLINED)
    status, body = await call(client, "POST", "/api/payments/create", merchant.sk, {
        "amount": 1000, "currency": "TRY", "customer": {"email": "x@mailinator.com"},
        "payment_method": card(DECLINED, billing_country="SA")})
    assert status == 402 and body["error"]["message"] == "Payment declined" and "risk_declined" in body["error"]["detail"]
    p = await Payment.filter(merchant_id=merchant.id, decline_code="risk_declined").get()
    assert p.status == "failed" and p.provider is None and p.risk_score == 80     # card_declines 60 + disposable e-mail 20
    assert await PaymentAttempt.filter(payment_id=p.id).count() == 0
    assert {s["signal"] for s in p.risk_signals} >= {"card_declines", "email"}
    assert p.routing_decision["reason"].startswith(f"declined by risk before routing: score {p.risk_score} above 75")


async def test_risk_signals_are_explained(client, merchant):
    status, body = await call(client, "POST", "/api/payments/create", merchant.sk, {
        "amount": 10000, "currency": "TRY", "customer": {"email": "a@mailinator.com"},
        "payment_method": card("4000007920000004", billing_country="SA")})       # Turkish card, Saudi billing
    assert status == 200 and body["risk_score"] == 45
    p = await Payment.get(id=body["id"])
    assert {s["signal"]: s["points"] for s in p.risk_signals} == {"country_mismatch": 25, "email": 20}
    for i in range(5):
        await pay(client, merchant.sk, 1000)
    status, body = await pay(client, merchant.sk, 1_000_000)      # 1000x the usual basket
    p = await Payment.get(id=body["id"])
    assert {s["signal"]: s["points"] for s in p.risk_signals}["amount_vs_history"] == 35


async def test_velocity_signals_per_card_and_per_client_address(client, merchant, clock):
    """Card velocity counts the card's recent payments platform-wide; address velocity counts at
    most 100 (its highest tier), so a busy address costs a bounded read."""
    from services.payments import cards, risk
    from services.principal import Principal

    principal = Principal(merchant_id=merchant.id, livemode=False, kind="secret", key_id=None)
    card_ = cards.parse_card({"number": APPROVED, "exp_month": 12, "exp_year": 2035, "cvc": "123"})
    now = clock.now()
    rows = [Payment(id=f"pay_vel{i:04d}{merchant.id[-8:]}", merchant_id=merchant.id, livemode=False, amount=1000,
                    currency="TRY", status="succeeded", capture_method="automatic", risk_score=0, risk_signals=[],
                    payment_method_type="card", card_fingerprint=card_.fingerprint if i < 12 else "other",
                    client_address="10.9.9.9", routing_decision={}, metadata={}, created_at=now, updated_at=now)
             for i in range(130)]
    await Payment.bulk_create(rows)
    a = await risk.assess(principal=principal, amount=1000, currency="TRY", card=card_, email="a@b.example",
                          client_address="10.9.9.9", billing_country=None)
    signals = {s["signal"]: s for s in a.signals}
    assert signals["card_velocity"]["points"] == 10 and signals["card_velocity"]["detail"].startswith("12 payments")
    assert signals["client_address_velocity"]["points"] == 20
    assert signals["client_address_velocity"]["detail"].startswith("at least 100 payments from this address")
    clock.advance(seconds=601)                      # outside the 10-minute window: no velocity at all
    a = await risk.assess(principal=principal, amount=1000, currency="TRY", card=card_, email="a@b.example",
                          client_address="10.9.9.9", billing_country=None)
    assert not {"card_velocity", "client_address_velocity"} & {s["signal"] for s in a.signals}
