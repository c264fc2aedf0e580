#!/usr/bin/env python3
"""By hand: the receipts worker's CPU per receipt (issue 48), two source trees in turn (A, B, A,
B, ...: the baseline is tree A, measured in the same run), each in a process of its own.

    DATABASE_URL=postgres://... REDIS_URL=redis://... python bench/receipts_step.py TREE_A TREE_B \
        [--receipts 3000] [--rounds 2]

Each turn makes a merchant and `--receipts` paid card payments with a customer's e-mail (the
payment create's own function, no HTTP), so as many receipts wait; then runs
`receipts.run_once` until none is left, and reads the process's CPU time (user + system) and the
wall time over those steps alone: microseconds per receipt. Mail goes to the log, as in the
benchmark's `qafila worker`. Prints each turn, the medians and B / A.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

BODY = (b'{"amount": 10000, "currency": "TRY", "customer": {"email": "receipt@example.com"}, "payment_method": '
        b'{"type": "card", "card": {"number": "4242424242424242", "exp_month": 12, "exp_year": 2035, "cvc": "123"}}}')


async def turn(receipts_wanted: int) -> dict:
    """In the tree on sys.path: the receipts of `receipts_wanted` new payments, sent step by step."""
    import logging

    from app.backend import Backend
    from app.settings import load_settings
    from services.identity.merchants import create_merchant
    from services.payments import payment_create_hot, receipts
    from services.principal import Principal

    logging.getLogger("qafila.mail").setLevel(logging.WARNING)     # the sends, not the terminal's cost
    settings = load_settings(dict(os.environ, QAFILA_VAR_DIR=tempfile.mkdtemp(prefix="receipts-step"),
                                  QAFILA_RATE_LIMIT_SCALE="100000"))
    backend = Backend(settings)
    await backend.start()
    try:
        m, _ = await create_merchant(email=f"receipts-{os.urandom(4).hex()}@example.com", name="receipts bench")
        principal = Principal(m.id, False, "secret")
        gate = asyncio.Semaphore(16)

        async def pay() -> None:
            async with gate:
                await payment_create_hot.create(principal, BODY, None, "127.0.0.1")
        await asyncio.gather(*(pay() for _ in range(receipts_wanted)))
        sent, steps = 0, 0
        cpu, wall = time.process_time(), time.perf_counter()
        while True:
            stats = await receipts.run_once(owner="bench", merchant_id=m.id)
            if not stats.claimed:
                break
            sent, steps = sent + stats.sent, steps + 1
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        return {"sent": sent, "steps": steps, "cpu_us": cpu / max(sent, 1) * 1e6, "wall_us": wall / max(sent, 1) * 1e6}
    finally:
        await backend.stop()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--receipts", type=int, default=3000)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(turn(args.receipts))))
        return
    got: dict[str, list[dict]] = {"A": [], "B": []}
    for _ in range(args.rounds):
        for label, tree in (("A", args.a), ("B", args.b)):
            tree = os.path.abspath(tree)
            out = subprocess.run([sys.executable, os.path.abspath(__file__), tree, tree, "--child",
                                  "--receipts", str(args.receipts)], cwd=tree, env={**os.environ, "PYTHONPATH": tree},
                                 capture_output=True, text=True)
            if out.returncode:
                raise SystemExit(f"tree {label} ({tree}) failed:\n{out.stderr[-3000:]}")
            r = json.loads(out.stdout.strip().splitlines()[-1])
            got[label].append(r)
            print(f"{label}: {r['sent']} receipts in {r['steps']} steps, CPU {r['cpu_us']:.0f} us, "
                  f"wall {r['wall_us']:.0f} us per receipt", flush=True)
    med = {k: (statistics.median(r["cpu_us"] for r in v), statistics.median(r["wall_us"] for r in v))
           for k, v in got.items()}
    print(f"\nmedian CPU per receipt: A {med['A'][0]:.0f} us, B {med['B'][0]:.0f} us: B / A = {med['B'][0] / med['A'][0]:.2f}")
    print(f"median wall per receipt: A {med['A'][1]:.0f} us, B {med['B'][1]:.0f} us: B / A = {med['B'][1] / med['A'][1]:.2f}")


if __name__ == "__main__":
    main()
