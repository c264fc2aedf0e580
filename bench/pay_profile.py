"""By hand, not in CI: `POST /api/payments/create` (card, customer by e-mail) against the
yardstick's `/pay` (../shared/perf/yardstick.py), in paired rounds, one serving process each, on the
same PostgreSQL and Redis.

  DATABASE_URL=postgres://... REDIS_URL=redis://.../N PYTHONPATH=$PWD \
      python bench/pay_profile.py [--rounds 3] [--seconds 5] [--key] [--connections 32]

`--key`: every request carries a fresh Idempotency-Key (wrk's Lua makes one per request), on
both servers. `--documented`: the reference server is ../shared/perf/yardstick_documented.py (the yardstick
unchanged plus a documented twin of each path: `/pay-documented`, `/read-documented`, ...), and each
round also measures the twin: its ratio to the yardstick's path, and the service's to it.
Prints each round's req/s, p50, p99 and the ratio, then the median and range of
the ratios. Also the CPU per request of the serving process and of the database's backends (from /proc):
`cpu A+B ms`. Statements per create: bench/pay_count.py.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from bench import twins  # noqa: E402
from bench.run import free_port, wait_http  # noqa: E402

YARDSTICK = os.path.join(os.path.dirname(ROOT), "..", "shared", "perf", "yardstick.py")
BODY = {"amount": 10000, "currency": "TRY", "customer": {"email": "bench@example.com"},
        "payment_method": {"type": "card", "card": {"number": "4242424242424242", "exp_month": 12,
                                                    "exp_year": 2035, "cvc": "123"}}}
INTENT_BODY = {"amount": 10000, "currency": "TRY", "payment_method": "card", "metadata": {"bench": "1"}}
# --path: (the service's method and path, its body, the yardstick's path, the documented twin's path)
PATHS = {"pay": ("POST", "/api/payments/create", BODY, "/pay", twins.ROUTES["pay-documented"][1]),
         "create": ("POST", "/v1/payments/intent", INTENT_BODY, "/create", twins.ROUTES["create-documented"][1]),
         "read": ("GET", "/v1/payments/{intent}", None, "/read", twins.ROUTES["read-documented"][1]),
         "list": ("GET", "/v1/payments?limit=20", None, "/list", twins.ROUTES["list-documented"][1])}


def yardstick_path() -> str:
    for p in ("/work/shared/perf/yardstick.py", os.path.join(ROOT, "..", "shared", "perf", "yardstick.py")):
        if os.path.exists(p):
            return p
    raise SystemExit("yardstick.py not found")


def wrk(url: str, headers: dict, seconds: int, conns: int, key: bool, tmp: str, body=BODY) -> dict:
    """wrk at `url`: a POST of `body`, or a GET when `body` is None."""
    script = os.path.join(tmp, "pay.lua")
    lines = ['wrk.method = "GET"'] if body is None else [
        'wrk.method = "POST"', f"wrk.body = {json.dumps(json.dumps(body))}",
        'wrk.headers["Content-Type"] = "application/json"']
    lines += [f'wrk.headers["{k}"] = "{v}"' for k, v in headers.items()]
    if key:     # a fresh key per request: the thread's number, a counter and the run's random tag
        lines.append('local threads = 0\nfunction setup(thread)\n threads = threads + 1\n thread:set("tid", threads)\nend\n'
                     'local n = 0\nlocal tag = nil\n'
                     'request = function()\n if tag == nil then tag = tostring(tid) .. "-" .. tostring(os.time()) .. '
                     '"-" .. tostring(os.clock()) end\n n = n + 1\n'
                     ' wrk.headers["Idempotency-Key"] = "pp-" .. tag .. "-" .. n\n return wrk.format()\nend')
    lines.append('function done(summary, latency, requests)\n io.write(string.format("JSON %d %d %d %d %d\\n", '
                 'summary.requests, latency:percentile(50), latency:percentile(99), summary.errors.status, '
                 'summary.errors.timeout))\nend')
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    out = subprocess.run(["wrk", "-t2", f"-c{conns}", f"-d{seconds}s", "--latency", "-s", script, url],
                         capture_output=True, text=True).stdout
    line = next(ln for ln in out.splitlines() if ln.startswith("JSON "))
    n, p50, p99, errs, tmo = (int(x) for x in line.split()[1:])
    return {"rps": n / seconds, "p50": p50 / 1000, "p99": p99 / 1000, "errors": errs + tmo}


def _ticks(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as f:
            parts = f.read().rsplit(")", 1)[1].split()
        return int(parts[11]) + int(parts[12])
    except (FileNotFoundError, ProcessLookupError):
        return 0


def _pg_pids() -> list[int]:
    db = os.environ["DATABASE_URL"].rsplit("/", 1)[1]
    out = subprocess.run(["psql", os.environ["DATABASE_URL"], "-Atc",
                          f"SELECT pid FROM pg_stat_activity WHERE datname = '{db}'"], capture_output=True, text=True)
    return [int(x) for x in out.stdout.split()]


def cpu_run(fn, server_pid: int, *a) -> dict:
    """`fn(*a)` with the server's and the database backends' CPU per request (ms)."""
    before = {p: _ticks(p) for p in _pg_pids()}
    s0 = _ticks(server_pid)
    got = fn(*a)
    s1 = _ticks(server_pid)
    after = {p: _ticks(p) for p in set(_pg_pids()) | set(before)}
    p0, p1 = sum(before.values()), sum(after.values())      # a backend that came during the run: all of it
    hz = os.sysconf("SC_CLK_TCK")
    n = max(1.0, got["rps"] * a[2])
    got["cpu_srv"] = (s1 - s0) / hz / n * 1000
    got["cpu_pg"] = (p1 - p0) / hz / n * 1000
    return got


def _prepare(path: str, base: str, auth: dict, merchant_id: str) -> str:
    """The service's URL for `--path` (a read's intent made, a list's 1,000 intents seeded)."""
    method, route, body, _, _ = PATHS[path]
    if path == "read":
        import urllib.request
        req = urllib.request.Request(base + "/v1/payments/intent", data=json.dumps(INTENT_BODY).encode(),
                                     headers={**auth, "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            route = route.format(intent=json.loads(resp.read())["id"])
    elif path == "list":
        import asyncio
        from bench.seed_million import seed_list_rows
        asyncio.run(seed_list_rows(os.environ["DATABASE_URL"], merchant_id, False, 1000, "intents"))
    return base + route


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--path", choices=sorted(PATHS), default="pay")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--connections", type=int, default=32)
    ap.add_argument("--key", action="store_true")
    ap.add_argument("--documented", action="store_true",
                    help="also the path's documented twin (../shared/perf/yardstick_documented.py) in every round")
    args = ap.parse_args()
    _, _, body, ys_route, doc_route = PATHS[args.path]
    tmp = tempfile.mkdtemp(prefix="payprof")
    env = dict(os.environ, PYTHONPATH=ROOT, QAFILA_VAR_DIR=f"{tmp}/var", QAFILA_RATE_LIMIT_SCALE="100000")
    yport, sport, crm = free_port(), free_port(), free_port()
    procs = []
    try:
        reference = twins.REFERENCE if args.documented else yardstick_path()
        procs.append(subprocess.Popen([sys.executable, reference, str(yport)], env=env,
                                      start_new_session=True, stdout=open(f"{tmp}/ys.log", "w"),
                                      stderr=subprocess.STDOUT))
        serve = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", "--port", str(sport), "--crm-port",
                                  str(crm), "--demo"], cwd=ROOT, env=env, start_new_session=True,
                                 stdout=subprocess.PIPE, stderr=open(f"{tmp}/serve.err", "w"), text=True)
        procs.append(serve)
        demo = None
        while demo is None:
            line = serve.stdout.readline()
            if not line:
                raise SystemExit(f"serve ended: see {tmp}/serve.err")
            if line.startswith("{"):
                demo = json.loads(line)
        wait_http(f"http://127.0.0.1:{sport}/health")
        wait_http(f"http://127.0.0.1:{yport}/ready")
        print(f"serve pid {serve.pid} port {sport}; yardstick port {yport}; tmp {tmp}; path {args.path}", flush=True)
        auth = {"Authorization": f"Bearer {demo['secret_key']}"}
        service_url = _prepare(args.path, f"http://127.0.0.1:{sport}", auth, demo["merchant_id"])
        ys_url, doc_url = f"http://127.0.0.1:{yport}{ys_route}", f"http://127.0.0.1:{yport}{doc_route}"
        doc_auth = {"Authorization": f"Bearer {twins.KEY}"}
        # warm both
        wrk(ys_url, {}, 2, args.connections, args.key, tmp, body)
        wrk(service_url, auth, 2, args.connections, args.key, tmp, body)
        if args.documented:
            wrk(doc_url, doc_auth, 2, args.connections, args.key, tmp, body)
        ratios, documented = [], []
        for r in range(args.rounds):
            ref = cpu_run(wrk, procs[0].pid, ys_url, {}, args.seconds, args.connections, args.key, tmp, body)
            got = cpu_run(wrk, serve.pid, service_url, auth, args.seconds, args.connections, args.key, tmp, body)
            ratio = got["rps"] / ref["rps"]
            ratios.append(ratio)
            if args.documented:     # right after the pair: the documented twin, held to the path; the service to it
                doc = cpu_run(wrk, procs[0].pid, doc_url, doc_auth, args.seconds, args.connections, args.key, tmp, body)
                documented.append((doc["rps"] / ref["rps"], got["rps"] / doc["rps"]))
                print(f"round {r + 1}: {doc_route.split('?')[0]} {doc['rps']:.0f} req/s p50 {doc['p50']:.1f} ms p99 "
                      f"{doc['p99']:.1f} ms err {doc['errors']} cpu {doc['cpu_srv']:.2f}+{doc['cpu_pg']:.2f} ms | "
                      f"{documented[-1][0]:.1%} of {ys_route}; the service {documented[-1][1]:.1%} of it", flush=True)
            print(f"round {r + 1}: {ys_route} {ref['rps']:.0f} req/s p50 {ref['p50']:.1f} ms p99 {ref['p99']:.1f} ms "
                  f"err {ref['errors']} cpu {ref['cpu_srv']:.2f}+{ref['cpu_pg']:.2f} ms | service {got['rps']:.0f} req/s "
                  f"p50 {got['p50']:.1f} ms p99 {got['p99']:.1f} ms err {got['errors']} "
                  f"cpu {got['cpu_srv']:.2f}+{got['cpu_pg']:.2f} ms | ratio {ratio:.1%}", flush=True)
        print(f"median ratio {statistics.median(ratios):.1%} (range {min(ratios):.1%} - {max(ratios):.1%}); "
              f"key={'yes' if args.key else 'no'}")
        if documented:
            for i, label in ((0, f"{doc_route.split('?')[0]} of {ys_route}"), (1, f"the service of {doc_route.split('?')[0]}")):
                vals = [d[i] for d in documented]
                print(f"median {label}: {statistics.median(vals):.1%} (range {min(vals):.1%} - {max(vals):.1%})")
        if os.environ.get("PAY_PROFILE_HOLD"):
            print("holding; Ctrl-C to stop", flush=True)
            time.sleep(float(os.environ["PAY_PROFILE_HOLD"]))
    finally:
        for p in procs:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for p in procs:
            p.wait(timeout=20)


if __name__ == "__main__":
    main()
