#!/usr/bin/env python3
"""Benchmark: `qafila serve` against the measured ceiling of this machine, in the same run.

    python bench/run.py [--seconds 5] [--concurrency 32] [--workers 1] [--only NAME] [--rows N] [--check]

The ceiling (bench/ceiling_server.py, needs PostgreSQL + Redis: DATABASE_URL / REDIS_URL) is a
bare aiohttp handler doing only what any authenticated read must (one Redis call: Qafila's own
gate script; one PostgreSQL read by primary key) and, for a create, the same plus one
single-row INSERT. It is measured just before each path (below). Beside it, before
`GET /api/payments/:id`, `GET /v1/payments` and `POST /v1/payments/intent`, the floor of that
answer (bench/floor_server.py: the ceiling plus only what the documented answer obliges: a
request id, the rate-limit headers, the scoped read or the documented writes, the documented
objects from the service's own shapers, an access line) shows how much of the ceiling any
implementation of the documented answer can reach on this stack.
Each path prints requests/s, p50, p99, errors and its ratio to its own ceiling (GET: the read
ceiling; POST: the create ceiling); GraphQL paths also print their ratio to the REST path doing
the same, measured just before. Each path's ceiling is measured just before it, and its ratio is
to that measurement: on a shared machine the ceiling itself drifts by a quarter within a run.
Before each measurement the service is left to finish the background work the
previous load left behind (`settle`: the machine quiet again). `--rows N` then loads N more payment intents and payments for the benchmark
merchant (bench/seed_million.py, COPY) and measures the lists again: a page must cost the same.
`--rounds N` measures all the paths N times over (each time after its ceiling) and shows the
medians: the ratio of a path is the median of its rounds' ratios. `--check` exits 1 when a goal of GOALS (issue 16) is missed; for use by hand (the machines are
noisy), not in CI.
Without PostgreSQL + Redis it runs the service on the embedded default and prints no ratios.
Load: wrk (Debian) when present, else a bounded aiohttp client that cannot saturate a fast server.
Each area adds its hot paths in bench/scenarios_<area>.py: `async def prepare(api)` returning
[{"name", "method", "path", "body"}], where `api(method, path, body=None)` -> (status, json)
calls the service with a fresh merchant's secret key.
"""
from __future__ import annotations

import argparse
import asyncio
import glob
import importlib.util
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import aiohttp

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, timeout: float = 60) -> None:
    import urllib.request
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except Exception:  # noqa: BLE001 - not up yet
            time.sleep(0.2)
    raise SystemExit(f"bench: {url} did not answer within {timeout:.0f} s")


def start_service(tmp: str, workers: int) -> tuple[subprocess.Popen, str]:
    port, crm = free_port(), free_port()
    env = dict(os.environ)
    env.setdefault("DATABASE_URL", f"sqlite://{tmp}/bench.sqlite3")
    env.update({"QAFILA_ENV": "test", "QAFILA_VAR_DIR": f"{tmp}/var", "QAFILA_RATE_LIMIT_SCALE": "100000",
                "QAFILA_SECRET_KEY": "b" * 64})
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", "--port", str(port), "--crm-port", str(crm),
                             "--workers", str(workers)],
                            cwd=ROOT, env=env, stdout=open(f"{tmp}/serve.log", "w"), stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    wait_http(base + "/health")
    return proc, base


def _loop_name() -> str:
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return "asyncio"
    return "uvloop"


def _spawn_group(cmd: list[str], log: str | None = None) -> subprocess.Popen:
    """A helper server in its own process group, so all of its processes stop together; its
    output to `log` when given."""
    out = open(log, "w") if log else None
    return subprocess.Popen(cmd, start_new_session=True, stdout=out, stderr=subprocess.STDOUT if out else None)


def create_merchant(tmp: str) -> dict:
    env = dict(os.environ)
    env.setdefault("DATABASE_URL", f"sqlite://{tmp}/bench.sqlite3")
    env.update({"QAFILA_ENV": "test", "QAFILA_VAR_DIR": f"{tmp}/var", "QAFILA_SECRET_KEY": "b" * 64})
    out = subprocess.run([sys.executable, "-m", "app.cli", "create-merchant", "--email",
                          f"bench-{os.urandom(4).hex()}@example.com"], cwd=ROOT, env=env, capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


async def load_aiohttp(url: str, method: str, body: bytes | None, headers: dict, seconds: float,
                       concurrency: int) -> tuple[int, list[float], int]:
    latencies: list[float] = []
    errors = 0
    stop_at = time.monotonic() + seconds
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:
        async def worker():
            nonlocal errors
            while time.monotonic() < stop_at:
                t0 = time.perf_counter()
                async with session.request(method, url, data=body, headers=headers) as r:
                    await r.read()
                    if r.status >= 400:
                        errors += 1
                latencies.append(time.perf_counter() - t0)
        await asyncio.gather(*[worker() for _ in range(concurrency)])
    return len(latencies), latencies, errors


def load_wrk(url: str, method: str, body: bytes | None, headers: dict, seconds: float, concurrency: int, tmp: str):
    script = os.path.join(tmp, "req.lua")
    lines = [f'wrk.method = "{method}"']
    if body is not None:
        lines.append(f"wrk.body = {json.dumps(body.decode())}")
    for k, v in headers.items():
        lines.append(f'wrk.headers["{k}"] = "{v}"')
    lines.append('function done(summary, latency, requests)\n io.write(string.format("JSON %d %d %d %d\\n", '
                 'summary.requests, latency:percentile(50), latency:percentile(99), '
                 'summary.errors.status))\nend')
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    out = subprocess.run(["wrk", "-t2", f"-c{concurrency}", f"-d{int(seconds)}s", "--latency", "-s", script, url],
                         capture_output=True, text=True).stdout
    line = next(ln for ln in out.splitlines() if ln.startswith("JSON "))
    n, p50, p99, errs = (int(x) for x in line.split()[1:])
    return n, p50 / 1e6, p99 / 1e6, errs


def measure(url, method, body, headers, seconds, concurrency, tmp):
    if shutil.which("wrk"):
        n, p50, p99, errs = load_wrk(url, method, body, headers, seconds, concurrency, tmp)
    else:
        n, lat, errs = asyncio.run(load_aiohttp(url, method, body, headers, seconds, concurrency))
        lat.sort()
        p50 = statistics.median(lat) if lat else 0.0
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] if lat else 0.0
    return {"rps": n / seconds, "p50_ms": p50 * 1000, "p99_ms": p99 * 1000, "errors": errs}


def _busy_seconds() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far (/proc/stat)."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    idle = values[3] + values[4]             # idle + iowait
    tick = os.sysconf("SC_CLK_TCK")
    return (sum(values) - idle) / tick, sum(values) / tick


def settle(limit: float = 60.0) -> float:
    """Wait until the machine is quiet (under 10% of its CPUs busy over half a second) and answer
    the seconds waited. A path's load leaves work behind -- the service's background work (the
    webhook fan-out of the events it wrote, the receipts of the payments it made), PostgreSQL's
    autovacuum and checkpoint of what it wrote -- and the next path (or ceiling) is measured
    after it, not during it: each measurement carries only the work it causes itself."""
    if not os.path.exists("/proc/stat"):
        return 0.0          # not Linux: no idle check
    start = time.monotonic()
    while time.monotonic() - start < limit:
        busy, total = _busy_seconds()
        time.sleep(0.5)
        busy2, total2 = _busy_seconds()
        if total2 > total and (busy2 - busy) / (total2 - total) < 0.10:
            break
    return time.monotonic() - start


async def gather_scenarios(base: str, tmp: str) -> list[dict]:
    merchant = create_merchant(tmp)
    sk = merchant["secret_key"]

    async with aiohttp.ClientSession() as session:
        async def api(method: str, path: str, body=None, key: str | None = None):
            fresh = key or sk
            async with session.request(method, base + path, json=body,
                                       headers={"Authorization": f"Bearer {fresh}"}) as r:
                try:
                    return r.status, await r.json()
                except Exception:  # noqa: BLE001
                    return r.status, await r.text()

        scenarios = [
            {"name": "GET /api/api-keys", "method": "GET", "path": "/api/api-keys?limit=10", "body": None},
            {"name": "POST /graphql viewer", "method": "POST", "path": "/graphql",
             "body": {"query": "{ viewer { id email } }"}},
        ]
        for path in sorted(glob.glob(os.path.join(HERE, "scenarios_*.py"))):
            spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            scenarios.extend(await mod.prepare(api))
    for s in scenarios:
        s.setdefault("key", sk)
    return scenarios, merchant


# (scenario, against, goal): `against` is "read" / "create" (the ceilings) or another scenario's
# name (GraphQL against the REST path doing the same). Issue 16.
GOALS = [
    ("GET /api/payments/:id", "read", 0.85),
    ("v1 intent retrieve", "read", 0.85),
    ("v1 intent create", "create", 0.70),
    ("POST /api/payments/create", "create", 0.50),
    ("v1 intent list", "read", 0.50),
    ("GET /api/api-keys", "read", 0.60),
    ("graphql paymentIntentCreate", "v1 intent create", 0.80),
    ("graphql payment(id)", "GET /api/payments/:id", 0.80),
]
TAIL = 3.0            # p99 <= 3 x p50, or
TAIL_VS_CEILING = 1.5  # p99 <= 1.5 x the ceiling's own p99 (where the bare ceiling's tail is wide)
LIST_PATHS = ("v1 intent list", "GET /api/payments/list")
# The paths bench/floor_server.py also answers (the same method, path and body): the documented
# answer's own work with no framework, measured after the path's ceiling and before the path.
FLOOR_PATHS = ("GET /api/payments/:id", "v1 intent list", "v1 intent create")


def _paired_order(chosen: list[dict]) -> list[dict]:
    """The paths in order, each GraphQL path moved to follow the REST path it is held to, so the
    two are measured minutes apart at most (the machine drifts)."""
    follows = {n: a for n, a, _ in GOALS if a not in ("read", "create")}
    names = {s["name"] for s in chosen}
    out = [s for s in chosen if follows.get(s["name"]) not in names]
    for s in chosen:
        if follows.get(s["name"]) in names:
            at = next(i for i, c in enumerate(out) if c["name"] == follows[s["name"]])
            out.insert(at + 1, s)
    return out


def _ceiling_for(scenario: dict) -> str:
    """The ceiling a path is held to: a read (GET, a GraphQL query) or a create (POST, a mutation)."""
    if scenario["method"] == "GET":
        return "read"
    if scenario["path"].startswith("/graphql"):
        query = (scenario.get("body") or {}).get("query", "").lstrip()
        return "create" if query.startswith("mutation") else "read"
    return "create"


async def _vacuum(dsn: str) -> None:
    """VACUUM ANALYZE the loaded tables, as autovacuum would soon after such a load, so that it
    does not run during the measurement instead (it would take a core of a 2-core machine)."""
    import asyncpg
    from seed_million import _dsn
    conn = await asyncpg.connect(_dsn(dsn))
    try:
        for table in ("payment_intents", "payments"):
            await conn.execute(f"VACUUM (ANALYZE) {table}")
    finally:
        await conn.close()


def _list_sizes(base: str, key: str) -> str:
    """How many rows the measured lists page through (their documented totals)."""
    import urllib.request
    out = []
    for path, field in (("/v1/payments?limit=1", "total_count"), ("/api/payments/list?limit=1", "total")):
        req = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {key}"})
        with urllib.request.urlopen(req, timeout=30) as r:
            out.append(f"{path.split('?')[0]}: {json.loads(r.read())[field]:,} rows")
    return ", ".join(out)


def _measure_ceiling(kind: str, port: int, get: dict, post: dict, args, tmp: str) -> dict:
    if kind == "read":
        return measure(f"http://127.0.0.1:{port}{get['path']}", "GET", None, {}, args.seconds, args.concurrency, tmp)
    return measure(f"http://127.0.0.1:{port}{post['path']}", "POST", json.dumps(post["body"]).encode(),
                   {"Content-Type": "application/json"}, args.seconds, args.concurrency, tmp)


def _row(label: str, got: dict, ratio: str = "", note: str = "") -> None:
    print(f"{label:44} {got['rps']:9.0f} {got['p50_ms']:8.2f} {got['p99_ms']:8.2f} {got['errors']:7d} "
          f"{ratio:>8} {note}", flush=True)


def _summarize(per_round: dict[str, list[dict]]) -> dict[str, dict]:
    """Each path's rounds as one result: the medians of its req/s, p50 and p99 and of its ratios
    to the ceiling measured just before it in each round (`ratio`; `ratios`: every round's), and
    for a GraphQL path the median of its ratios to its REST path in the same rounds (`rest_ratio`)."""
    out = {}
    for name, runs in per_round.items():
        got = {"rps": statistics.median(r["rps"] for r in runs), "p50_ms": statistics.median(r["p50_ms"] for r in runs),
               "p99_ms": statistics.median(r["p99_ms"] for r in runs), "errors": sum(r["errors"] for r in runs),
               "ceiling": runs[0]["ceiling"]}
        if all("against" in r for r in runs):
            got["ratios"] = [r["rps"] / r["against"]["rps"] for r in runs]
            got["ratio"] = statistics.median(got["ratios"])
            got["against"] = {"rps": statistics.median(r["against"]["rps"] for r in runs),
                              "p99_ms": statistics.median(r["against"]["p99_ms"] for r in runs)}
        rest = next((a for n, a, _ in GOALS if n == name and a not in ("read", "create")), None)
        if rest in per_round and len(per_round[rest]) == len(runs):
            got["rest"] = rest
            got["rest_ratio"] = statistics.median(g["rps"] / r["rps"] for g, r in zip(runs, per_round[rest]))
        out[name] = got
    return out


def _verdicts(results: dict[str, dict], ceilings: dict[str, dict], at_scale: dict[str, dict],
              partial: bool = False) -> list[str]:
    """What misses a goal (empty: every goal met); `partial` (--only): the goals of what ran."""
    missed = []
    for name, against, goal in GOALS:
        got = results.get(name)
        if partial and got is None:
            continue
        ratio = (got or {}).get("ratio" if against in ("read", "create") else "rest_ratio")
        if ratio is None:
            missed.append(f"{name}: not measured")
            continue
        if ratio < goal:
            missed.append(f"{name}: {ratio:.0%} of {against}, goal {goal:.0%}")
    for name, got in results.items():
        ceiling = got.get("against") or ceilings.get(got["ceiling"])
        if got["errors"]:
            missed.append(f"{name}: {got['errors']} errors")
        if got["p99_ms"] > TAIL * got["p50_ms"] and not (
                ceiling and got["p99_ms"] <= TAIL_VS_CEILING * ceiling["p99_ms"]):
            missed.append(f"{name}: p99 {got['p99_ms']:.1f} ms > {TAIL:g} x p50 and > {TAIL_VS_CEILING:g} x "
                          f"the ceiling's p99")
    for name, got in at_scale.items():
        small = results.get(name)
        if small and _scale_share(got, small) < 0.8:
            missed.append(f"{name}: at scale {_scale_share(got, small):.0%} of the page at the small size "
                          f"(more than 20% slower)")
        if got["errors"]:
            missed.append(f"{name} at scale: {got['errors']} errors")
    return missed


def _scale_share(got: dict, small: dict) -> float:
    """A list page at scale against the same page at the small size: the ratio of their ratios to
    the ceiling measured just before each (minutes apart, the machine's own speed drifts by more
    than the page's cost would change), or of their req/s where there is no ceiling."""
    if "ratio" in got and "ratio" in small:
        return got["ratio"] / small["ratio"]
    return got["rps"] / small["rps"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--only", default="")
    parser.add_argument("--rounds", type=int, default=1,
                        help="measure every path (each after its ceiling) this many times; medians are shown")
    parser.add_argument("--rows", type=int, default=0,
                        help="load 1,000 list rows first, then N more, and measure the lists at both sizes")
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="qafila-bench-")
    service = ceiling = floor = None
    backend = "PostgreSQL + Redis" if (os.environ.get("DATABASE_URL", "").startswith("postgres")
                                       and os.environ.get("REDIS_URL")) else "embedded"
    results: dict[str, dict] = {}
    at_scale: dict[str, dict] = {}
    ceilings: dict[str, dict] = {}
    try:
        service, base = start_service(tmp, args.workers)
        scenarios, merchant = asyncio.run(gather_scenarios(base, tmp))
        chosen = _paired_order([s for s in scenarios if not args.only or args.only in s["name"]])
        get = next(s for s in scenarios if s["name"] == "GET /api/payments/:id")
        post = next(s for s in scenarios if s["name"] == "POST /api/payments/create")
        if backend != "embedded":
            port = free_port()
            ceiling = _spawn_group([sys.executable, os.path.join(HERE, "ceiling_server.py"), str(port),
                                    str(args.workers), get["path"].rsplit("/", 1)[1]])
            wait_http(f"http://127.0.0.1:{port}/")
            floor_port = free_port()          # the read ceiling plus the documented answer's own work
            floor = _spawn_group([sys.executable, os.path.join(HERE, "floor_server.py"), str(floor_port),
                                  str(args.workers), get["path"].rsplit("/", 1)[1]], log=f"{tmp}/floor.log")
            wait_http(f"http://127.0.0.1:{floor_port}{get['path']}")
        print(f"backend: {backend}; load: {'wrk' if shutil.which('wrk') else 'aiohttp client'}, "
              f"{args.concurrency} connections, {args.seconds:.0f} s per path; {args.workers} process(es) "
              f"for the service and for the ceiling; event loop: {_loop_name()}; "
              f"{os.cpu_count()} CPUs: {_cpu_model()}")
        print(f"{'path':44} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7} {'ratio':>8}")
        paired: dict[str, list[dict]] = {"read": [], "create": []}
        floors: dict[str, list[tuple[dict, dict]]] = {}    # per path: (its floor, the ceiling just before it)

        def run(s: dict, against_ceiling: bool = True, with_floor: bool = True) -> dict:
            settle()                # the ceiling shares the CPUs with the service: measured with it idle
            kind = _ceiling_for(s)
            body = json.dumps(s["body"]).encode() if s.get("body") is not None else None
            headers = {"Content-Type": "application/json", "Authorization": f"Bearer {s['key']}"}
            if ceiling and against_ceiling:
                paired[kind].append(_measure_ceiling(kind, port, get, post, args, tmp))
                if s["name"] in FLOOR_PATHS and floor and with_floor:
                    settle()
                    floors.setdefault(s["name"], []).append((measure(
                        f"http://127.0.0.1:{floor_port}{s['path']}", s["method"], body, {"Content-Type": "application/json"},
                        args.seconds, args.concurrency, tmp), paired[kind][-1]))
                    settle()
            got = measure(base + s["path"], s["method"], body, headers, args.seconds, args.concurrency, tmp)
            got["ceiling"] = kind
            if ceiling and against_ceiling:
                got["against"] = paired[kind][-1]
            return got

        if args.rows and backend != "embedded":
            from seed_million import seed_list_rows
            for kind in ("intents", "payments"):        # the small size: at least 1,000 of each
                asyncio.run(seed_list_rows(os.environ["DATABASE_URL"], merchant["merchant_id"], False, 1000, kind))
        sizes = ""
        per_round: dict[str, list[dict]] = {}
        for _ in range(args.rounds):
            for s in chosen:
                if s["name"] in LIST_PATHS and not sizes:
                    sizes = _list_sizes(base, s["key"])
                per_round.setdefault(s["name"], []).append(run(s))
        results.update(_summarize(per_round))
        for kind, runs in paired.items():
            if runs:
                ceilings[kind] = {"rps": statistics.mean(r["rps"] for r in runs),
                                  "p50_ms": statistics.mean(r["p50_ms"] for r in runs),
                                  "p99_ms": max(r["p99_ms"] for r in runs), "errors": sum(r["errors"] for r in runs)}
                _row(f"ceiling: {kind} (mean of {len(runs)}: {min(r['rps'] for r in runs):.0f} to "
                     f"{max(r['rps'] for r in runs):.0f})", ceilings[kind])
        for name, runs in floors.items():
            got = {k: statistics.median(f[k] for f, _ in runs) for k in ("rps", "p50_ms", "p99_ms")}
            got["errors"] = sum(f["errors"] for f, _ in runs)
            ratios = [f["rps"] / c["rps"] for f, c in runs]
            got["ratio"] = statistics.median(ratios)
            results[name]["floor"] = got
            _row(f"floor: {name}'s own work", got, f"{got['ratio']:.1%}",
                 f"of the {results[name]['ceiling']} ceiling measured just before (bench/floor_server.py: what any "
                 f"implementation of the documented answer must do)"
                 + (f" [rounds: {', '.join(f'{r:.0%}' for r in ratios)}]" if len(ratios) > 1 else ""))
        for s in chosen:
            got = results[s["name"]]
            note = ""
            ratio = ""
            if "ratio" in got:
                ratio = f"{got['ratio']:.1%}"
                note = f"of the {got['ceiling']} ceiling measured just before ({got['against']['rps']:.0f})"
                if "rest_ratio" in got:
                    note += f"; {got['rest_ratio']:.1%} of REST {got['rest']}"
                if "floor" in got:
                    note += f"; {got['ratio'] / got['floor']['ratio']:.0%} of its floor (ratio to ratio)"
                if args.rounds > 1:
                    note += f" [rounds: {', '.join(f'{r:.0%}' for r in got['ratios'])}]"
            _row(s["name"], got, ratio, note)
        if sizes:
            print(f"(the lists were measured at {sizes})", flush=True)
        if args.rows:
            if backend == "embedded":
                raise SystemExit("bench: --rows needs PostgreSQL (COPY)")
            for kind in ("intents", "payments"):
                t0 = time.monotonic()
                asyncio.run(seed_list_rows(os.environ["DATABASE_URL"], merchant["merchant_id"], False, args.rows, kind))
                print(f"loaded {args.rows:,} more {kind} for the merchant in {time.monotonic() - t0:.0f} s", flush=True)
            asyncio.run(_vacuum(os.environ["DATABASE_URL"]))
            print(f"(the lists below are measured at {_list_sizes(base, merchant['secret_key'])})", flush=True)
            for s in chosen:
                if s["name"] in LIST_PATHS:
                    got = at_scale[s["name"]] = _summarize({s["name"]: [run(s, with_floor=False)]})[s["name"]]
                    ratio = f"{got['ratio']:.1%}" if "ratio" in got else ""
                    _row(f"{s['name']} at +{args.rows:,} rows", got, ratio,
                         f"{_scale_share(got, results[s['name']]):.0%} of the page at the small size (req/s: "
                         f"{got['rps'] / results[s['name']]['rps']:.0%})")
    finally:
        if service:
            service.terminate()
            service.wait(30)
        for helper in (ceiling, floor):
            if helper:
                os.killpg(helper.pid, signal.SIGTERM)
                helper.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)
    if args.check:
        if not ceilings:
            raise SystemExit("bench --check: the goals are ratios to the ceiling, which needs PostgreSQL + Redis")
        missed = _verdicts(results, ceilings, at_scale, partial=bool(args.only))
        for line in missed:
            print(f"MISSED {line}")
        print("every goal met" if not missed else f"{len(missed)} goal(s) missed")
        raise SystemExit(1 if missed else 0)


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            return next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        return "unknown"


if __name__ == "__main__":
    main()
