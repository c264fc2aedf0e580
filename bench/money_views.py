#!/usr/bin/env python3
"""Times the money views' reads (the service calls behind /api/balance, /api/analytics,
/api/analytics/revenue, /api/analytics/providers, /api/settlements) against merchants seeded by
bench/seed_million.py: p50 / p95 in ms over N calls each, on PostgreSQL.

    DATABASE_URL=postgres://... python bench/money_views.py MERCHANT_ID [MERCHANT_ID ...] [--n 300]
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tortoise import Tortoise  # noqa: E402

from models import tortoise_config  # noqa: E402
from services.money import analytics, balance  # noqa: E402
from services.infra.clock import Clock  # noqa: E402
from services.infra.runtime import Runtime, install  # noqa: E402
from services.principal import Principal  # noqa: E402


async def timed(n: int, fn) -> tuple[float, float]:
    for _ in range(10):                      # warm: connections, SQL caches
        await fn()
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        await fn()
        samples.append((time.perf_counter() - t) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.95) - 1]


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("merchants", nargs="+")
    ap.add_argument("--n", type=int, default=300)
    args = ap.parse_args()
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        sys.exit("DATABASE_URL=postgres://... is required")
    install(Runtime(clock=Clock()))
    await Tortoise.init(config=tortoise_config(url))
    conn = Tortoise.get_connection("default")
    print(f"{'payments':>10}  {'read':<34} {'p50 ms':>7} {'p95 ms':>7}")
    for merchant_id in args.merchants:
        _, rows = await conn.execute_query("SELECT count(*) AS n FROM payments WHERE merchant_id = $1", [merchant_id])
        count = rows[0]["n"]
        p = Principal(merchant_id=merchant_id, livemode=True, kind="secret")

        async def window(period: str, currency: str | None = None):
            return await analytics.window(principal=p, period=period, currency=currency)

        reads = {
            "balance": lambda: balance.get_balance(principal=p),
            "analytics overview 30d (default cur)": lambda: _then(window("30d"), analytics.overview, p),
            "analytics revenue 90d TRY": lambda: _then(window("90d", "TRY"), analytics.revenue, p),
            "analytics providers 90d TRY": lambda: _then(window("90d", "TRY"), analytics.providers, p),
            "settlements first page (20)": lambda: balance.list_settlements(principal=p),
        }
        for name, fn in reads.items():
            p50, p95 = await timed(args.n, fn)
            print(f"{count:>10,}  {name:<34} {p50:>7.2f} {p95:>7.2f}")
    await Tortoise.close_connections()


async def _then(window_coro, read, p):
    w = await window_coro
    return await read(principal=p, w=w)


if __name__ == "__main__":
    asyncio.run(main())
