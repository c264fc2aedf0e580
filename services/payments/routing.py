"""Routing: which provider handles a card payment, and why. Reused by the `/v1` intents.

The pieces, usable on their own:

- `parse_choice(value, param="routing") -> Choice`: the request's `routing` input: a strategy
  name (`"smart"`, `"lowest_cost"`, `"highest_approval"`), a provider name (fixed), or an object
  `{"strategy": ..., "provider": ...}`. None -> smart (not explicit, so merchant rules apply).
- `Facts(amount, currency, country, card_brand, payment_method)`: what rules and eligibility see.
- `decide(facts=, choice=, rules=, stats=STATS, now=None, rng=None) -> Decision`: pure and fast
  (no I/O; p99 well under 1 ms, see bench/routing_decision.py). An explicit request choice wins;
  otherwise the merchant's active rules are evaluated by ascending `priority`, first match wins;
  otherwise `smart`. `Decision.candidates` is the ordered cascade list (at most MAX_ATTEMPTS).
- `authorize_with_cascade(decision=, request_for=, stats=STATS) -> Cascade`: calls the
  candidates in order; a soft decline or provider error moves to the next (at most 3 attempts);
  approval, a hard decline or `requires_action` stops. Every attempt is recorded in `stats`.
  `Cascade.routing_decision()` is the explainable object the API returns (`strategy`, `reason`,
  `alternatives_considered`, `latency_ms`, plus `rule_id`, `attempts`, `scores`).
- `STATS`: the sliding-window observations (approval rate and latency per provider) that
  `smart` scores on. Per process, in memory, keyed by clock time buckets.
- Rule CRUD for the merchant API: `create_rule`, `list_rules`, `get_rule`, `update_rule` (a
  payment create reads the active rules with its other reads: payments._read_context).

smart score = approval - COST_WEIGHT * fee/amount - LATENCY_WEIGHT * latency_seconds, where
approval is the observed rate over the window smoothed toward the provider's prior (a provider
with few recent observations is judged mostly on its prior, so one that recovered after its
failures left the window earns traffic back), and EXPLORATION_RATE of the decisions try a
provider other than the best, so its observations stay current.
"""
from __future__ import annotations

import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tortoise.transactions import in_transaction

from models.payments import RoutingRule
from services.errors import NotFound, ValidationError
from services.ids import new_id
from services.infra.runtime import runtime
from services.money.currencies import check_currency
from services.pagination import Page
from services.principal import Principal
from services.payments.providers import registry
from services.payments.providers.base import AuthorizationRequest, Provider, ProviderResult
from services.validation import Fields, check_str, one_of

STRATEGIES = ("smart", "fixed", "lowest_cost", "highest_approval")
CONDITION_FIELDS = ("country", "currency", "amount", "card_brand", "payment_method", "installments")
NUMERIC_FIELDS = ("amount", "installments")      # compared as integers (gt, lt)
OPERATORS = ("equals", "not_equals", "in", "not_in", "gt", "lt")
MAX_ATTEMPTS = 3
MAX_RULES = 100


@dataclass
class RoutingSettings:
    window_seconds: int = 900          # the sliding window of observations
    bucket_seconds: int = 60
    prior_weight: float = 20.0         # pseudo-observations of the prior approval rate
    cost_weight: float = 2.0           # 1% of fee costs 0.02 of score
    latency_weight: float = 0.05       # 1 s of latency costs 0.05 of score
    exploration_rate: float = 0.05


SETTINGS = RoutingSettings()


# ---------------------------------------------------------------- observations

class ProviderStats:
    """Approvals, attempts and latency per provider in time buckets; reads sum the buckets
    inside the window. `now` is clock seconds (runtime().clock.time())."""

    def __init__(self, settings: RoutingSettings = SETTINGS):
        self.settings = settings
        self._b: dict[str, dict[int, list[int]]] = {}

    def record(self, provider: str, *, approved: bool, latency_ms: int, now: float) -> None:
        s = self.settings
        idx = int(now // s.bucket_seconds)
        buckets = self._b.setdefault(provider, {})
        cell = buckets.get(idx)
        if cell is None:
            cell = buckets[idx] = [0, 0, 0]
            oldest = idx - s.window_seconds // s.bucket_seconds
            for k in [k for k in buckets if k <= oldest]:
                del buckets[k]
        cell[0] += 1
        cell[1] += 1 if approved else 0
        cell[2] += latency_ms

    def window(self, provider: str, now: float) -> tuple[int, int, int]:
        """(attempts, approvals, latency_sum) inside the window ending now."""
        s = self.settings
        idx = int(now // s.bucket_seconds)
        oldest = idx - s.window_seconds // s.bucket_seconds
        a = ok = lat = 0
        for k, cell in self._b.get(provider, {}).items():
            if oldest < k <= idx:
                a += cell[0]
                ok += cell[1]
                lat += cell[2]
        return a, ok, lat

    def reset(self) -> None:
        self._b.clear()


STATS = ProviderStats()


# ---------------------------------------------------------------- inputs

@dataclass(frozen=True)
class Choice:
    strategy: str = "smart"
    provider: str | None = None
    explicit: bool = False


def parse_choice(value: Any, param: str = "routing") -> Choice:
    if value is None:
        return Choice()
    if isinstance(value, str):
        if value in STRATEGIES and value != "fixed":
            return Choice(value, None, True)
        if registry.find(value) is not None:
            return Choice("fixed", value, True)
        raise one_of(param, (*(s for s in STRATEGIES if s != "fixed"), *registry.names()))
    f = Fields(value, param)
    strategy = f.enum("strategy", STRATEGIES, default=None)
    provider = f.str("provider", max_len=40)
    f.reject_unknown()
    if provider is not None:
        registry.get(provider, f"{param}.provider")
    if strategy is None:
        strategy = "fixed" if provider else "smart"
    if strategy == "fixed" and provider is None:
        raise ValidationError(f"{param}.provider is required with the fixed strategy", param=f"{param}.provider")
    return Choice(strategy, provider, True)


@dataclass(frozen=True)
class Facts:
    amount: int
    currency: str
    country: str | None = None
    card_brand: str | None = None
    payment_method: str = "card"
    installments: int = 1             # the installment count (1: paid in one go)

    def value(self, name: str) -> Any:
        return getattr(self, name)


# ---------------------------------------------------------------- rules

def _values(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v).strip() for v in value]
    return [v.strip() for v in str(value).split(",")]


def condition_holds(cond: dict, facts: Facts) -> bool:
    actual = facts.value(cond["field"])
    op, expected = cond["operator"], cond["value"]
    if actual is None:
        return op in ("not_equals", "not_in")
    if cond["field"] in NUMERIC_FIELDS:
        if op in ("in", "not_in"):
            found = str(actual) in _values(expected)
            return found if op == "in" else not found
        try:
            exp = int(expected)
        except (TypeError, ValueError):
            return False
        return {"equals": actual == exp, "not_equals": actual != exp,
                "gt": actual > exp, "lt": actual < exp}[op]
    a = str(actual).upper()
    if op == "equals":
        return a == str(expected).upper()
    if op == "not_equals":
        return a != str(expected).upper()
    if op in ("in", "not_in"):
        found = a in {v.upper() for v in _values(expected)}
        return found if op == "in" else not found
    return False            # gt/lt on text never match (refused at rule creation)


def match_rule(rules: Sequence[Any], facts: Facts) -> Any | None:
    """First active rule by ascending priority (then creation) whose conditions all hold."""
    for rule in sorted(rules, key=lambda r: (r.priority, r.created_at, r.id)):
        if rule.status == "active" and all(condition_holds(c, facts) for c in rule.conditions):
            return rule
    return None


# ---------------------------------------------------------------- the decision

@dataclass
class Score:
    provider: Provider
    score: float
    approval: float
    observed: int
    fee: int
    latency_ms: int

    def describe(self, facts: Facts) -> str:
        fee_pct = 100.0 * self.fee / facts.amount if facts.amount else 0.0
        return (f"{self.provider.name} score {self.score:.3f} (approval {100 * self.approval:.1f}% over "
                f"{self.observed} recent attempts, fee {fee_pct:.2f}%, latency {self.latency_ms} ms)")

    def as_dict(self) -> dict:
        return {"provider": self.provider.name, "score": round(self.score, 4),
                "approval_rate": round(self.approval, 4), "observed": self.observed, "fee": self.fee,
                "latency_ms": self.latency_ms}


def score(provider: Provider, facts: Facts, stats: ProviderStats, now: float,
          s: RoutingSettings = SETTINGS) -> Score:
    attempts, approvals, lat_sum = stats.window(provider.name, now)
    approval = (approvals + provider.prior_approval * s.prior_weight) / (attempts + s.prior_weight)
    latency = lat_sum // attempts if attempts else provider.latency_ms
    fee = provider.fee(facts.amount, facts.currency)
    value = approval - s.cost_weight * (fee / facts.amount if facts.amount else 0) - s.latency_weight * latency / 1000
    return Score(provider, value, approval, attempts, fee, latency)


@dataclass
class Decision:
    strategy: str
    candidates: list[Provider]
    reason: str
    eligible: list[Provider]
    rule: Any | None = None
    scores: list[Score] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)


def _order(strategy: str, scores: list[Score]) -> list[Score]:
    if strategy == "lowest_cost":
        return sorted(scores, key=lambda x: (x.fee, -x.approval))
    if strategy == "highest_approval":
        return sorted(scores, key=lambda x: (-x.approval, x.fee))
    return sorted(scores, key=lambda x: -x.score)


def decide(*, facts: Facts, choice: Choice = Choice(), rules: Sequence[Any] = (),
           stats: ProviderStats = STATS, now: float | None = None, rng: random.Random | None = None,
           settings: RoutingSettings = SETTINGS) -> Decision:
    """Pick and order providers; raises ValidationError when no provider serves the payment."""
    started = time.perf_counter()
    now = runtime().clock.time() if now is None else now
    method = facts.payment_method
    eligible = registry.eligible(facts.currency, facts.country, method)
    if not eligible:
        where = f" in {facts.country}" if facts.country else ""
        if method != "card":
            raise ValidationError(f"no provider carries {method} payments in {facts.currency}{where}",
                                  param="payment_method")
        raise ValidationError(f"no provider serves {facts.currency}{where}", param="currency")
    rule = None
    strategy, pinned = choice.strategy, choice.provider
    source = "requested"
    if not choice.explicit:
        rule = match_rule(rules, facts)
        if rule is not None:
            strategy, pinned = rule.strategy, rule.provider
            source = f"rule '{rule.name}' ({rule.id})"
        else:
            source = "default"
    scores = [score(p, facts, stats, now, settings) for p in eligible]
    ordered = _order(strategy, scores)
    notes: list[str] = []
    # A local scheme (mada, KNET, ...) reaches its member acquirers only: the reason says so.
    scheme = (f"; {method}: only providers that support {method} ({', '.join(p.name for p in eligible)})"
              if method != "card" else "")
    if pinned is not None:
        head = next((x for x in ordered if x.provider.name == pinned), None)
        if head is None:
            what_ = facts.currency if method == "card" else f"{method} in {facts.currency}"
            if choice.explicit:
                raise ValidationError(f"provider {pinned} does not serve {what_}"
                                      + (f" in {facts.country}" if facts.country else ""),
                                      param="routing.provider", code="provider_unavailable")
            notes.append(f"{pinned} named by the rule does not serve {what_}, so {strategy} ordering applies")
        else:
            ordered = [head] + [x for x in ordered if x is not head]
    if strategy == "fixed":
        ordered = ordered[:1] if pinned is not None and not notes else ordered
        what = f"fixed provider {ordered[0].provider.name}"
    elif strategy == "lowest_cost":
        what = f"lowest cost: {ordered[0].provider.name} fee {ordered[0].fee}"
    elif strategy == "highest_approval":
        what = f"highest approval: {ordered[0].provider.name} at {100 * ordered[0].approval:.1f}%"
    else:
        what = f"smart: {ordered[0].describe(facts)}"
        if len(ordered) > 1:
            what += f" beat {ordered[1].describe(facts)}"
    if pinned is not None and not notes and strategy != "fixed":
        what = f"{pinned} pinned, then {what}"
    if strategy == "smart" and pinned is None and len(ordered) > 1 and settings.exploration_rate > 0:
        r = (rng or random).random()
        if r < settings.exploration_rate:
            pick = ordered[1 + int(r / settings.exploration_rate * (len(ordered) - 1)) % (len(ordered) - 1)]
            ordered = [pick] + [x for x in ordered if x is not pick]
            what = (f"smart exploration ({int(100 * settings.exploration_rate)}% share): trying "
                    f"{pick.describe(facts)} instead of the best, to keep its approval rate current")
    reason = f"{what} [{source}]" + ("; " + "; ".join(notes) if notes else "") + scheme
    return Decision(strategy=strategy, candidates=[x.provider for x in ordered[:MAX_ATTEMPTS]], reason=reason,
                    eligible=eligible, rule=rule, scores=ordered, started=started)


# ---------------------------------------------------------------- the cascade

@dataclass
class Attempt:
    provider: str
    attempt: int
    result: ProviderResult


@dataclass
class Cascade:
    decision: Decision
    attempts: list[Attempt]
    latency_ms: int

    @property
    def final(self) -> Attempt:
        return self.attempts[-1]

    @property
    def approved(self) -> bool:
        return self.final.result.approved

    def routing_decision(self) -> dict:
        d = self.decision
        reason = d.reason
        for a in self.attempts[:-1]:
            reason += (f"; {a.result.decline_code or a.result.outcome} at {a.provider}, "
                       f"cascaded to {self.attempts[self.attempts.index(a) + 1].provider}")
        used = self.final.provider
        return {"strategy": d.strategy, "reason": reason,
                "alternatives_considered": [p.name for p in d.eligible if p.name != used],
                "latency_ms": self.latency_ms,
                "rule_id": d.rule.id if d.rule is not None else None,
                "attempts": [{"provider": a.provider, "outcome": a.result.outcome,
                              "decline_code": a.result.decline_code, "latency_ms": a.result.latency_ms}
                             for a in self.attempts],
                "scores": [x.as_dict() for x in d.scores]}


async def authorize_with_cascade(*, decision: Decision,
                                 request_for: Callable[[Provider, int], AuthorizationRequest],
                                 stats: ProviderStats = STATS) -> Cascade:
    attempts: list[Attempt] = []
    for n, provider in enumerate(decision.candidates[:MAX_ATTEMPTS], start=1):
        result = await provider.authorize(request_for(provider, n))
        stats.record(provider.name, approved=result.approved, latency_ms=result.latency_ms,
                     now=runtime().clock.time())
        attempts.append(Attempt(provider.name, n, result))
        if not result.retryable:
            break
    latency = int((time.perf_counter() - decision.started) * 1000)
    return Cascade(decision=decision, attempts=attempts, latency_ms=latency)


# ---------------------------------------------------------------- rules, stored

def _check_conditions(raw: list, param: str = "conditions") -> list[dict]:
    out = []
    for i, c in enumerate(raw):
        p = f"{param}[{i}]"
        f = Fields(c, p)
        fld = f.enum("field", CONDITION_FIELDS, required=True)
        op = f.enum("operator", OPERATORS, required=True)
        v = f._get("value", True)
        f.reject_unknown()
        if isinstance(v, bool) or not isinstance(v, (str, int, list)):
            raise ValidationError(f"{p}.value must be a string", param=f"{p}.value")
        value: Any = [check_str(x if not isinstance(x, int) else str(x), f"{p}.value") for x in v] \
            if isinstance(v, list) else check_str(str(v), f"{p}.value", max_len=200, min_len=1)
        if op in ("gt", "lt") and fld not in NUMERIC_FIELDS:
            raise one_of(f"{p}.operator", [o for o in OPERATORS if o not in ("gt", "lt")], context=f"for {fld}")
        if fld in NUMERIC_FIELDS:
            for x in (value if isinstance(value, list) else _values(value) if op in ("in", "not_in") else [value]):
                if not x.lstrip("-").isdigit():
                    raise ValidationError(f"{p}.value must be an integer {'amount' if fld == 'amount' else 'count'}",
                                          param=f"{p}.value")
        if fld == "currency" and op in ("equals", "not_equals"):
            value = check_currency(value, f"{p}.value")
        out.append({"field": fld, "operator": op, "value": value})
    return out


async def create_rule(*, principal: Principal, data: dict) -> RoutingRule:
    f = Fields(data)
    name = f.str("name", required=True, min_len=1, max_len=100)
    strategy = f.enum("strategy", STRATEGIES, default="smart")
    provider = f.str("provider", max_len=40)
    priority = f.int("priority", default=None, min=0, max=1_000_000)
    status = f.enum("status", ("active", "inactive"), default="active")
    conditions = _check_conditions(f.list("conditions", max_items=20) or [])
    f.reject_unknown()
    if provider is not None:
        registry.get(provider)
    if strategy == "fixed" and provider is None:
        raise ValidationError("provider is required with the fixed strategy", param="provider")
    async with in_transaction():
        count = await RoutingRule.filter(**principal.scope).count()
        if count >= MAX_RULES:
            raise ValidationError(f"a merchant may have at most {MAX_RULES} routing rules", param="name",
                                  code="too_many_rules")
        if priority is None:      # after the existing rules
            last = await RoutingRule.filter(**principal.scope).order_by("-priority").first()
            priority = (last.priority + 10) if last else 10
        now = runtime().clock.now()
        return await RoutingRule.create(id=new_id("rul"), merchant_id=principal.merchant_id,
                                        livemode=principal.livemode, name=name, strategy=strategy,
                                        provider=provider, priority=priority, status=status,
                                        conditions=conditions, created_at=now, updated_at=now)


async def get_rule(*, principal: Principal, rule_id: str) -> RoutingRule:
    rule = await RoutingRule.get_or_none(id=rule_id, **principal.scope) if isinstance(rule_id, str) else None
    if rule is None:
        raise NotFound()
    return rule


async def update_rule(*, principal: Principal, rule_id: str, data: dict) -> RoutingRule:
    f = Fields(data)
    changes: dict[str, Any] = {}
    if f.has("name"):
        changes["name"] = f.str("name", min_len=1, max_len=100)
    if f.has("priority"):
        changes["priority"] = f.int("priority", min=0, max=1_000_000)
    if f.has("status"):
        changes["status"] = f.enum("status", ("active", "inactive"))
    if f.has("strategy"):
        changes["strategy"] = f.enum("strategy", STRATEGIES)
    if f.has("provider"):
        changes["provider"] = registry.get(f.str("provider", max_len=40)).name
    if f.has("conditions"):
        changes["conditions"] = _check_conditions(f.list("conditions", max_items=20))
    f.reject_unknown()
    rule = await get_rule(principal=principal, rule_id=rule_id)
    if not changes:
        raise ValidationError("give at least one of name, priority, status, strategy, provider, conditions",
                              param=None)
    if changes.get("strategy", rule.strategy) == "fixed" and changes.get("provider", rule.provider) is None:
        raise ValidationError("provider is required with the fixed strategy", param="provider")
    changes["updated_at"] = runtime().clock.now()
    await RoutingRule.filter(id=rule.id).update(**changes)
    for k, v in changes.items():
        setattr(rule, k, v)
    return rule


async def list_rules(*, principal: Principal) -> Page:
    """Every rule of the merchant (at most MAX_RULES), in evaluation order."""
    rows = await RoutingRule.filter(**principal.scope).order_by("priority", "created_at", "id")
    return Page(items=rows, has_more=False, total=len(rows))
