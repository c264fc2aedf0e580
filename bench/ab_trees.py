#!/usr/bin/env python3
"""By hand: two source trees of the service (e.g. a `git archive` of the base commit and the
worktree) served side by side on the same PostgreSQL and Redis, one process each, and the same
requests loaded on each in turn (A, B, A, B, ...: paired rounds), with req/s and the serving
process's CPU per request (utime + stime from /proc/<pid>/stat over the run, divided by the
requests). On a shared machine the CPU per request moves less than req/s; the pairs show the drift.

  DATABASE_URL=postgres://... REDIS_URL=redis://... python bench/ab_trees.py TREE_A TREE_B \
      [--rounds 5] [--seconds 5] [--connections 32] [--paths create,list,gql]

Paths: `create` POST /v1/payments/intent, `gql` GraphQL paymentIntentCreate, `list` GET
/v1/payments?limit=20 (of the intents the creates made, at least 1,000: made first), `read`
GET /v1/payments/:id (the first of those intents).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from run import _cpu_ticks, create_merchant, free_port, load_wrk, wait_http  # noqa: E402
from scenarios_intents import CREATE_MUTATION  # noqa: E402

BODY = {"amount": 10000, "currency": "TRY", "payment_method": "card", "metadata": {"bench": "1"}}
PATHS = {
    "create": ("POST", "/v1/payments/intent", BODY),
    "gql": ("POST", "/graphql", {"query": CREATE_MUTATION, "variables": {"input": {
        "amount": 10000, "currency": "TRY", "paymentMethod": "card", "metadata": {"bench": "1"}}}}),
    "list": ("GET", "/v1/payments?limit=20", None),
    "read": ("GET", "/v1/payments/{intent}", None),
}


def serve(tree: str, tmp: str) -> tuple[subprocess.Popen, str]:
    port, crm = free_port(), free_port()
    env = {**os.environ, "PYTHONPATH": tree, "QAFILA_ENV": "test", "QAFILA_VAR_DIR": f"{tmp}/var-{port}",
           "QAFILA_RATE_LIMIT_SCALE": "100000", "QAFILA_SECRET_KEY": "b" * 64}
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", "--port", str(port), "--crm-port", str(crm)],
                            cwd=tree, env=env, stdout=open(f"{tmp}/serve-{port}.log", "w"), stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    wait_http(base + "/health")
    return proc, base


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seconds", type=float, default=5)
    p.add_argument("--connections", type=int, default=32)
    p.add_argument("--paths", default="create,list,gql")
    args = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="qafila-ab-")
    procs = []
    try:
        servers = {}
        for label, tree in (("A", args.a), ("B", args.b)):
            proc, base = serve(os.path.abspath(tree), tmp)
            procs.append(proc)
            servers[label] = (proc, base)
        merchant = create_merchant(tmp)
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {merchant['secret_key']}"}
        made = []
        for _ in range(1000):          # a full list page for both (they share the database)
            req = urllib.request.Request(servers["A"][1] + "/v1/payments/intent", data=json.dumps(BODY).encode(),
                                         headers=headers, method="POST")
            made.append(json.loads(urllib.request.urlopen(req).read())["id"])
        got: dict[str, dict[str, list]] = {}
        for r in range(args.rounds):
            for name in args.paths.split(","):
                method, path, body = PATHS[name]
                path = path.format(intent=made[0])
                raw = json.dumps(body).encode() if body is not None else None
                for label in (("A", "B") if r % 2 == 0 else ("B", "A")):
                    proc, base = servers[label]
                    time.sleep(1)
                    t0 = _cpu_ticks(proc.pid)
                    n, p50, p99, errs = load_wrk(base + path, method, raw, headers, args.seconds,
                                                 args.connections, tmp)
                    cpu = (_cpu_ticks(proc.pid) - t0) / os.sysconf("SC_CLK_TCK") / max(n, 1) * 1e6
                    got.setdefault(name, {}).setdefault(label, []).append((n / args.seconds, cpu, errs))
                    print(f"round {r + 1} {name:6} {label}: {n / args.seconds:7.0f}/s cpu {cpu:5.0f} us/req "
                          f"p50 {p50 * 1000:5.1f} ms err {errs}", flush=True)
        print("\npath: A then B, medians over the rounds (range): req/s; CPU us per request; B/A req/s ratio per pair")
        for name, by in got.items():
            a, b = by["A"], by["B"]
            ratios = [y[0] / x[0] for x, y in zip(a, b)]
            cpus = [y[1] / x[1] for x, y in zip(a, b)]
            print(f"{name:6} A {statistics.median(x[0] for x in a):6.0f}/s {statistics.median(x[1] for x in a):5.0f} us  "
                  f"B {statistics.median(x[0] for x in b):6.0f}/s {statistics.median(x[1] for x in b):5.0f} us  "
                  f"B/A req/s {statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f}), "
                  f"B/A CPU {statistics.median(cpus):.2f} ({min(cpus):.2f}-{max(cpus):.2f}); errors "
                  f"{sum(x[2] for x in a)}/{sum(y[2] for y in b)}")
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(30)


if __name__ == "__main__":
    main()
