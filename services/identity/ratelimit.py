"""Fixed-window rate limits in the key-value store: one atomic INCR per request (a Lua script
on Redis), so several processes sharing one Redis count together."""
from __future__ import annotations

import math
from dataclasses import dataclass

from services.errors import RateLimited
from services.infra.runtime import runtime


@dataclass(frozen=True)
class Rule:
    name: str
    limit: int
    window: int = 60          # seconds
    message: str = ""         # the 429 message; by default the documented form, e.g. "Rate limit exceeded (5/min)"

    def __post_init__(self):
        if not self.message:
            object.__setattr__(self, "message", f"Rate limit exceeded ({self.limit}/{_per(self.window)})")


@dataclass(frozen=True)
class RateState:
    limit: int
    remaining: int
    retry_after: int
    allowed: bool

    def headers(self) -> dict[str, str]:
        h = {"X-RateLimit-Limit": str(self.limit), "X-RateLimit-Remaining": str(self.remaining)}
        if not self.allowed:
            h["Retry-After"] = str(self.retry_after)
        return h


def _per(window: int) -> str:
    """A window as the documented 429 message writes it: min, hour, or 10min."""
    if window == 60:
        return "min"
    if window == 3600:
        return "hour"
    return f"{window // 60}min" if window % 60 == 0 else f"{window}s"


# The fixed rules of each interface (the spec names 100/min for /api and 120/min per key for /v1).
# Each 429 names the rule that applied, in the documented form "Rate limit exceeded (N/min)".
MERCHANT_API = Rule("api", 100, 60)
INTENTS_V1 = Rule("v1", 120, 60)
OTP_PER_EMAIL = Rule("otp-email", 5, 60)
OTP_PER_ADDRESS = Rule("otp-ip", 30, 3600)


def counter(rule: Rule, subject: str) -> tuple[str, float, float]:
    """The counter key of the subject's current window, its time to live, and the time now."""
    now = runtime().clock.time()
    return f"rl:{rule.name}:{subject}:{int(now // rule.window)}", rule.window + 5, now


def state(rule: Rule, count: int, now: float) -> RateState:
    """The verdict once the counter reads `count` (this request included)."""
    retry_after = max(1, math.ceil((int(now // rule.window) + 1) * rule.window - now))
    limit = rule.limit * runtime().config.rate_limit_scale
    return RateState(limit, max(0, limit - count), retry_after, count <= limit)


async def hit(rule: Rule, subject: str, *, count: int = 1) -> RateState:
    """Count `count` requests (an operation of several aliased mutations counts each)."""
    key, ttl, now = counter(rule, subject)
    return state(rule, await runtime().kv.incr(key, ttl=ttl, by=count), now)


def describe(rule: Rule) -> str:
    """'5 per 10 minutes': the rule's real limit (scaled as enforced) in words."""
    limit = rule.limit * runtime().config.rate_limit_scale
    w = rule.window
    if w % 3600 == 0:
        span = "hour" if w == 3600 else f"{w // 3600} hours"
    elif w % 60 == 0:
        span = "minute" if w == 60 else f"{w // 60} minutes"
    else:
        span = f"{w} seconds"
    return f"{limit} per {span}"


async def enforce(rule: Rule, subject: str) -> RateState:
    """Count a request against a rule of its own (e.g. one-time passwords per e-mail); over
    the limit: 429 whose message names the real limit and the wait, with the rule's
    X-RateLimit-Limit / X-RateLimit-Remaining / Retry-After headers."""
    state = await hit(rule, subject)
    if not state.allowed:
        raise RateLimited(rule.message, headers=state.headers(),
                          detail=f"{rule.message}: limit {describe(rule)}; retry after {state.retry_after} s")
    return state
