"""By hand, not in CI: `POST /api/payments/create` (card, customer by e-mail) against the
yardstick's `/pay` (../shared/perf/yardstick.py), in paired rounds, one serving process each, on the
same PostgreSQL and Redis.

  DATABASE_URL=postgres://... REDIS_URL=redis://.../N PYTHONPATH=$PWD \
      python bench/pay_profile.py [--rounds 3] [--seconds 5] [--key] [--connections 32]

`--key`: every request carries a fresh Idempotency-Key (wrk's Lua makes one per request), on
both servers. `--documented`: the reference server is bench/yardstick_documented.py (the yardstick
unchanged plus `/pay-documented`, `/pay` with the documented obligations it leaves out), and each
round also measures `/pay-documented`: its ratio to `/pay`, and the create's to it.
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
from bench.run import free_port, wait_http  # noqa: E402

YARDSTICK = os.path.join(os.path.dirname(ROOT), "..", "shared", "perf", "yardstick.py")
BODY = {"amount": 10000, "currency": "TRY", "customer": {"email": "bench@example.com"},
        "payment_method": {"type": "card", "card": {"number": "4242424242424242", "exp_month": 12,
                                                    "exp_year": 2035, "cvc": "123"}}}


def yardstick_path() -> str:
    for p in ("/work/shared/perf/yardstick.py", os.path.join(ROOT, "..", "shared", "perf", "yardstick.py")):
        if os.path.exists(p):
            return p
    raise SystemExit("yardstick.py not found")


def wrk(url: str, headers: dict, seconds: int, conns: int, key: bool, tmp: str) -> dict:
    script = os.path.join(tmp, "pay.lua")
    lines = ['wrk.method = "POST"', f"wrk.body = {json.dumps(json.dumps(BODY))}",
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--connections", type=int, default=32)
    ap.add_argument("--key", action="store_true")
    ap.add_argument("--documented", action="store_true",
                    help="also /pay-documented (bench/yardstick_documented.py) in every round")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="payprof")
    env = dict(os.environ, PYTHONPATH=ROOT, QAFILA_VAR_DIR=f"{tmp}/var", QAFILA_RATE_LIMIT_SCALE="100000")
    yport, sport, crm = free_port(), free_port(), free_port()
    procs = []
    try:
        reference = os.path.join(ROOT, "bench", "yardstick_documented.py") if args.documented else yardstick_path()
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
        print(f"serve pid {serve.pid} port {sport}; yardstick port {yport}; tmp {tmp}", flush=True)
        auth = {"Authorization": f"Bearer {demo['secret_key']}"}
        # warm both
        wrk(f"http://127.0.0.1:{yport}/pay", {}, 2, args.connections, args.key, tmp)
        wrk(f"http://127.0.0.1:{sport}/api/payments/create", auth, 2, args.connections, args.key, tmp)
        if args.documented:
            wrk(f"http://127.0.0.1:{yport}/pay-documented", {}, 2, args.connections, args.key, tmp)
        ratios, documented = [], []
        for r in range(args.rounds):
            ref = cpu_run(wrk, procs[0].pid, f"http://127.0.0.1:{yport}/pay", {}, args.seconds, args.connections,
                          args.key, tmp)
            got = cpu_run(wrk, serve.pid, f"http://127.0.0.1:{sport}/api/payments/create", auth, args.seconds,
                          args.connections, args.key, tmp)
            ratio = got["rps"] / ref["rps"]
            ratios.append(ratio)
            if args.documented:     # right after the pair: the documented /pay, held to /pay; the create to it
                doc = cpu_run(wrk, procs[0].pid, f"http://127.0.0.1:{yport}/pay-documented", {}, args.seconds,
                              args.connections, args.key, tmp)
                documented.append((doc["rps"] / ref["rps"], got["rps"] / doc["rps"]))
                print(f"round {r + 1}: /pay-documented {doc['rps']:.0f} req/s p50 {doc['p50']:.1f} ms p99 "
                      f"{doc['p99']:.1f} ms err {doc['errors']} cpu {doc['cpu_srv']:.2f}+{doc['cpu_pg']:.2f} ms | "
                      f"{documented[-1][0]:.1%} of /pay; the create {documented[-1][1]:.1%} of it", flush=True)
            print(f"round {r + 1}: /pay {ref['rps']:.0f} req/s p50 {ref['p50']:.1f} ms p99 {ref['p99']:.1f} ms "
                  f"err {ref['errors']} cpu {ref['cpu_srv']:.2f}+{ref['cpu_pg']:.2f} ms | create {got['rps']:.0f} req/s p50 {got['p50']:.1f} ms "
                  f"p99 {got['p99']:.1f} ms err {got['errors']} cpu {got['cpu_srv']:.2f}+{got['cpu_pg']:.2f} ms | ratio {ratio:.1%}", flush=True)
        print(f"median ratio {statistics.median(ratios):.1%} (range {min(ratios):.1%} - {max(ratios):.1%}); "
              f"key={'yes' if args.key else 'no'}")
        if documented:
            for i, label in ((0, "/pay-documented of /pay"), (1, "the create of /pay-documented")):
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
