#!/usr/bin/env python3
"""Times the in-process routing decision (services.routing.decide) with a merchant's rules and
live observations: p50 / p99 over N decisions.   python bench/routing_decision.py [N]"""
from __future__ import annotations

import os
import random
import statistics
import sys
import time
from datetime import datetime, timezone
from types import SimpleNamespace

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from services.payments import routing  # noqa: E402
from services.infra.clock import FrozenClock  # noqa: E402
from services.infra.runtime import Runtime, install  # noqa: E402


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    clock = FrozenClock(datetime(2026, 11, 21, 12, 0, tzinfo=timezone.utc))
    install(Runtime(clock=clock))
    rng = random.Random(1)
    created = clock.now()
    rules = [SimpleNamespace(id=f"rul_{i}", name=f"rule {i}", priority=i * 10, status="active", strategy="smart",
                             provider="atlas", created_at=created,
                             conditions=[{"field": "country", "operator": "equals", "value": "ZZ"},
                                         {"field": "amount", "operator": "gt", "value": "100"}])
             for i in range(10)]          # ten rules that do not match: the worst case, all evaluated
    stats = routing.STATS
    for p in ("anatolia", "gulfnet", "nilepay", "atlas"):
        for _ in range(500):
            stats.record(p, approved=rng.random() < 0.9, latency_ms=rng.randint(100, 500),
                         now=clock.time() - rng.randint(0, 800))
    currencies = ["TRY", "SAR", "AED", "KWD", "QAR", "EGP", "IQD"]
    facts = [routing.Facts(amount=rng.randint(1_000, 1_000_000), currency=rng.choice(currencies),
                           card_brand="visa") for _ in range(1000)]
    times = []
    for i in range(n):
        f = facts[i % len(facts)]
        t0 = time.perf_counter()
        routing.decide(facts=f, rules=rules, rng=rng)
        times.append(time.perf_counter() - t0)
    times.sort()
    p50 = statistics.median(times) * 1000
    p99 = times[int(len(times) * 0.99)] * 1000
    print(f"routing decision: {n} decisions, 10 rules evaluated, 4 providers scored: "
          f"p50 {p50:.3f} ms, p99 {p99:.3f} ms, max {times[-1] * 1000:.3f} ms")


if __name__ == "__main__":
    main()
