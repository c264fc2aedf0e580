#!/usr/bin/env python3
"""Benchmark: `qafila serve` against the documented twins, in the same run.

    python bench/run.py [--seconds 5] [--rounds 3] [--rows 1000000] [--money 1000000] [--workers 2]
                        [--only NAME] [--check]

THE reference is ../shared/perf/yardstick_documented.py (issue 40): the yardstick
(../shared/perf/yardstick.py, a bare aiohttp server on the same PostgreSQL and Redis: the Redis
gate, a request id, the rate-limit headers and an access line on every answer) plus, for each of
its paths, a twin doing what the documented answer obliges and the yardstick's path leaves out,
done as barely. It runs beside the README's production deployment -- one `qafila serve
--no-background` process and one `qafila worker` (webhook fan-out and delivery, receipts, the
scheduler) -- on the same PostgreSQL and Redis: the reference in DATABASE_URL's database (its
perf_ceiling* and perf_documented_* tables made afresh at the start of a run), the service in a
database made afresh beside it (`<name>_service`, migrated; `--keep-database` runs it on DATABASE_URL's
database as earlier runs left it); on the embedded default the serving process runs its
background work itself. Each
service path is measured right after its reference: `/read` before `GET /api/payments/:id` and
`GET /api/api-keys`; `/read-documented` before `GET /v1/payments/:id`; `/list-documented` before
`GET /v1/payments?limit=20` (1,000 intents each) and `GET /api/payments/list?limit=20` (shown, no
goal); `/create-documented` before `POST /v1/payments/intent` (the same body); `/pay-documented`
before `POST /api/payments/create` (the same card body with `customer.email`). The keyed twins
answer their own bearer key (bench/twins.py reads it from the reference). GraphQL `payment(id)` and
`paymentIntentCreate` are held to the REST path measured just before them. A path's ratio is its
req/s over its reference's; `--rounds N` repeats everything N times and a path's ratio is the
median of its rounds' ratios (the range is shown: the machine is shared and noisy).
`--rows N` then grows both lists alike (the reference's `--grow N`: the yardstick's and the twins'
lists; bench/seed_million.py's seed_list_rows for the service's intents and payments, COPY) and
measures the pages again, N rounds. `--money N` seeds a live merchant with N payments
(bench/seed_million.py, with their ledger, balance lines, settlements and rollups; `--money-merchant
mer_...` reuses one seeded before) and measures the p50 of `GET /api/balance`, `/api/analytics`,
`/api/analytics/revenue` and `/api/analytics/providers` at 4 connections. `--workers N` then
measures the intent create and the intent read with N serving processes (`qafila serve --workers N`,
SO_REUSEPORT) against the one, in paired rounds on the same database. The table printed is issue
40's (path, reference, ratio median and range, goal, met?) with req/s, p50/p99 and errors, then the
tail check: every p99 within 3 x its p50 or 1.5 x its reference's p99. `--check` exits 1 when a goal
is missed: for use by hand, never in CI.
Before each pair the machine is left to finish the background work the previous load left behind
(`settle`, at most --settle seconds); a path follows its yardstick path at once (the yardstick leaves
no work behind, and a shared machine drifts within seconds). Load: wrk at 32 connections (installed from Debian
when missing, as .ci/run does for chromium), else a bounded aiohttp client (it cannot saturate a
fast server, so its ratios understate). Without PostgreSQL + Redis it runs the service on the
embedded default and prints no ratios.
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

try:                                    # imported as bench.run (bench/pay_profile.py)
    from bench import twins as twins_
except ImportError:                     # run as a script, or imported from bench/ (bench/ab_trees.py)
    import twins as twins_

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


def _service_env(tmp: str) -> dict:
    env = dict(os.environ)
    env.setdefault("DATABASE_URL", f"sqlite://{tmp}/bench.sqlite3")
    env.update({"QAFILA_ENV": "test", "QAFILA_VAR_DIR": f"{tmp}/var", "QAFILA_RATE_LIMIT_SCALE": "100000",
                "QAFILA_SECRET_KEY": "b" * 64})
    return env


def production_layout() -> bool:
    """The README's production deployment (serving processes with --no-background, and the
    background work in `qafila worker`) needs PostgreSQL and Redis; the embedded default runs
    its workers in the serving process, as in development."""
    return os.environ.get("DATABASE_URL", "").startswith("postgres") and bool(os.environ.get("REDIS_URL"))


def start_service(tmp: str, workers: int, name: str = "serve") -> tuple[subprocess.Popen, str]:
    port, crm = free_port(), free_port()
    cmd = [sys.executable, "-m", "app.cli", "serve", "--port", str(port), "--crm-port", str(crm),
           "--workers", str(workers)]
    if production_layout():
        cmd.append("--no-background")
    proc = subprocess.Popen(cmd, cwd=ROOT, env=_service_env(tmp), stdout=open(f"{tmp}/{name}.log", "w"),
                            stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    wait_http(base + "/health")
    return proc, base


def start_worker(tmp: str) -> subprocess.Popen:
    """One `qafila worker`: the webhook fan-out and delivery, receipts and the scheduler, beside
    the serving process (its own process group, stopped with the run)."""
    return subprocess.Popen([sys.executable, "-m", "app.cli", "worker"], cwd=ROOT, env=_service_env(tmp),
                            stdout=open(f"{tmp}/worker.log", "w"), stderr=subprocess.STDOUT,
                            start_new_session=True)


def _loop_name() -> str:
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return "asyncio"
    return "uvloop"


def _spawn_group(cmd: list[str], log: str | None = None, env: dict | None = None) -> subprocess.Popen:
    """A helper server in its own process group, so all of its processes stop together; its
    output to `log` when given."""
    out = open(log, "w") if log else None
    return subprocess.Popen(cmd, start_new_session=True, stdout=out, stderr=subprocess.STDOUT if out else None,
                            env=env)


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


def _cpu_ticks(pid: int | None) -> int:
    """utime + stime of a process so far, in clock ticks (/proc/<pid>/stat)."""
    if not pid:
        return 0
    try:
        with open(f"/proc/{pid}/stat") as f:
            parts = f.read().rsplit(")", 1)[1].split()
        return int(parts[11]) + int(parts[12])
    except OSError:
        return 0


def measure(url, method, body, headers, seconds, concurrency, tmp, pid=None):
    """req/s, p50, p99, errors, and the CPU per request (us) of the serving process `pid`."""
    ticks = _cpu_ticks(pid)
    n = 0
    if shutil.which("wrk"):
        n, p50, p99, errs = load_wrk(url, method, body, headers, seconds, concurrency, tmp)
    else:
        n, lat, errs = asyncio.run(load_aiohttp(url, method, body, headers, seconds, concurrency))
        lat.sort()
        p50 = statistics.median(lat) if lat else 0.0
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] if lat else 0.0
    cpu_us = (_cpu_ticks(pid) - ticks) / os.sysconf("SC_CLK_TCK") / max(n, 1) * 1e6 if pid else 0.0
    return {"rps": n / seconds, "p50_ms": p50 * 1000, "p99_ms": p99 * 1000, "errors": errs, "cpu_us": cpu_us}


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



YARDSTICK = twins_.REFERENCE       # ../shared/perf/yardstick_documented.py: the yardstick and its twins
# The reference's paths: name -> (method, path as called, the bearer key it answers: None for any)
REFERENCES = twins_.ROUTES
# (scenario, against, goal), issue 40: `against` is a reference path or another scenario's name
# (a GraphQL operation against the REST path doing the same, measured just before it).
GOALS = [
    ("GET /api/payments/:id", "read", 0.90),
    ("v1 intent retrieve", "read-documented", 0.90),
    ("GET /api/api-keys", "read", 0.85),
    ("v1 intent list", "list-documented", 0.85),
    ("v1 intent create", "create-documented", 0.80),
    ("POST /api/payments/create", "pay-documented", 0.75),
    ("graphql payment(id)", "GET /api/payments/:id", 0.90),
    ("graphql paymentIntentCreate", "v1 intent create", 0.90),
]
# Measured and shown, held to no goal: the nearest yardstick path.
SHOWN = {"GET /api/payments/list": "list-documented", "POST /graphql viewer": "read"}
SCALE_GOAL = 0.85           # a page at scale: >= 85% of /list-documented grown alike, and
SCALE_SHARE = 0.90          # >= 90% of the small page's ratio
LIST_PATHS = ("v1 intent list", "GET /api/payments/list")
MONEY_PATHS = ("/api/balance", "/api/analytics", "/api/analytics/revenue", "/api/analytics/providers")
MONEY_GOAL_MS = 5.0
MONEY_CONNECTIONS = 4
TAIL = 3.0                  # p99 <= 3 x p50, or
TAIL_VS_REFERENCE = 1.5     # p99 <= 1.5 x its reference's p99
# The scenario names of bench/scenarios_*.py differ from the table: the table's words.
LABELS = {"GET /api/payments/:id": "`GET /api/payments/:id`", "v1 intent retrieve": "`GET /v1/payments/:id`",
          "GET /api/api-keys": "`GET /api/api-keys`", "v1 intent list": "`GET /v1/payments?limit=20`",
          "v1 intent create": "`POST /v1/payments/intent`",
          "POST /api/payments/create": "`POST /api/payments/create` (card, customer by e-mail)",
          "graphql payment(id)": "GraphQL `payment(id)`", "graphql paymentIntentCreate": "GraphQL `paymentIntentCreate`",
          "GET /api/payments/list": "`GET /api/payments/list?limit=20`", "POST /graphql viewer": "GraphQL `viewer`"}


def ensure_wrk() -> None:
    """wrk from Debian when it is missing (as .ci/run installs chromium); the aiohttp client otherwise."""
    if shutil.which("wrk"):
        return
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(sudo + ["apt-get", "update", "-qq"], env=env, check=False)
    subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "wrk"], env=env, check=False,
                   stdout=subprocess.DEVNULL)
    if not shutil.which("wrk"):
        print("bench: wrk could not be installed; the aiohttp client measures instead (it understates)", flush=True)


def _against(name: str) -> str | None:
    return next((a for n, a, _ in GOALS if n == name), SHOWN.get(name))


def _order(chosen: list[dict]) -> list[dict]:
    """The paths in order, each GraphQL path moved to follow the REST path it is held to, so the
    two are measured one after the other (the machine drifts)."""
    names = {s["name"] for s in chosen}
    # the reads and the lists first: a round's creates add to the lists (the yardstick's and the
    # service's alike), so the first round pages through the 1,000 rows each started with
    rank = {"read": 0, "read-documented": 0, "list": 1, "list-documented": 1, "create": 2,
            "create-documented": 2, "pay": 3, "pay-documented": 3}
    chosen = sorted(chosen, key=lambda s: rank.get(_against(s["name"]), 0))
    out = [s for s in chosen if _against(s["name"]) not in names]
    for s in chosen:
        if _against(s["name"]) in names:
            at = next(i for i, c in enumerate(out) if c["name"] == _against(s["name"]))
            out.insert(at + 1, s)
    return out


async def _reset_yardstick(dsn: str) -> None:
    """The yardstick makes its tables and its 1,000 intents when they are missing: a run starts
    from them, not from a list grown (or created into) by an earlier run."""
    import asyncpg
    from seed_million import _dsn
    conn = await asyncpg.connect(_dsn(dsn))
    try:
        await conn.execute("DROP TABLE IF EXISTS perf_ceiling, perf_ceiling_intents, perf_ceiling_counts, "
                           "perf_ceiling_customers, perf_ceiling_payments, perf_ceiling_ledger, perf_ceiling_events, "
                           "perf_ceiling_keys")
    finally:
        await conn.close()


def service_database(dsn: str) -> str:
    """The service's own database for this run, made afresh beside DATABASE_URL's (named after it
    with `_service`) and migrated, as the reference makes its tables afresh: the service starts
    from its schema, not from the millions of rows earlier runs left (each run seeds 3,000,000),
    which the reference never carries. The reference stays in DATABASE_URL's database."""
    import asyncpg
    from seed_million import _dsn
    head, _, tail = dsn.rpartition("/")
    name, sep, query = tail.partition("?")
    own = f"{name}_service"

    async def remake() -> None:
        conn = await asyncpg.connect(_dsn(dsn))
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{own}" WITH (FORCE)')
            await conn.execute(f'CREATE DATABASE "{own}"')
        finally:
            await conn.close()
    asyncio.run(remake())
    out = f"{head}/{own}{sep}{query}"
    subprocess.run([sys.executable, "-m", "app.cli", "migrate"], cwd=ROOT, env={**os.environ, "DATABASE_URL": out},
                   check=True, capture_output=True)
    return out


async def _vacuum(dsn: str, tables: tuple[str, ...]) -> None:
    """VACUUM ANALYZE the loaded tables, as autovacuum would soon after such a load, so that it
    does not run during the measurement instead (it would take a core of a 2-core machine)."""
    import asyncpg
    from seed_million import _dsn
    conn = await asyncpg.connect(_dsn(dsn))
    try:
        for table in tables:
            await conn.execute(f"VACUUM (ANALYZE) {table}")
    finally:
        await conn.close()


async def _live_key(dsn: str, merchant_id: str) -> str:
    """A live secret key for a merchant seeded by bench/seed_million.py (which makes none)."""
    import asyncpg
    from seed_million import _dsn
    from services.identity.api_keys import key_hash
    from services.ids import new_id, random_token
    full = f"sk_live_{random_token(32)}"
    conn = await asyncpg.connect(_dsn(dsn))
    try:
        await conn.execute("INSERT INTO api_keys (id, merchant_id, name, kind, livemode, prefix, key_hash, status, "
                           "created_at) VALUES ($1, $2, 'bench', 'secret', TRUE, $3, $4, 'active', now())",
                           new_id("key"), merchant_id, full[:12], key_hash(full))
    finally:
        await conn.close()
    return full


def _list_sizes(base: str, key: str, yardstick: str | None) -> str:
    """How many rows the measured lists page through (their documented totals)."""
    import urllib.request
    out = []
    for path, field in (("/v1/payments?limit=1", "total_count"), ("/api/payments/list?limit=1", "total")):
        req = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {key}"})
        with urllib.request.urlopen(req, timeout=30) as r:
            out.append(f"{path.split('?')[0]}: {json.loads(r.read())[field]:,} rows")
    if yardstick:
        with urllib.request.urlopen(yardstick + "/list", timeout=30) as r:
            out.append(f"/list: {json.loads(r.read())['total_count']:,} rows")
        req = urllib.request.Request(yardstick + "/list-documented?limit=1",
                                     headers={"Authorization": f"Bearer {twins_.KEY}"})
        with urllib.request.urlopen(req, timeout=30) as r:
            out.append(f"/list-documented: {json.loads(r.read())['total_count']:,} rows")
    return ", ".join(out)


def _median_of(runs: list[dict]) -> dict:
    return {"rps": statistics.median(r["rps"] for r in runs), "p50_ms": statistics.median(r["p50_ms"] for r in runs),
            "p99_ms": statistics.median(r["p99_ms"] for r in runs), "errors": sum(r["errors"] for r in runs),
            "cpu_us": statistics.median(r.get("cpu_us", 0.0) for r in runs)}


def summarize(pairs: list[tuple[dict, dict | None]]) -> dict:
    """A path's rounds, each (its measurement, its reference's just before), as one result: medians
    of req/s, p50, p99; the median and range of the rounds' ratios; the reference's medians."""
    got = _median_of([g for g, _ in pairs])
    got["p50s"] = [g["p50_ms"] for g, _ in pairs]
    if all(r for _, r in pairs):
        got["ratios"] = [g["rps"] / r["rps"] for g, r in pairs]
        got["ratio"] = statistics.median(got["ratios"])
        got["reference"] = _median_of([r for _, r in pairs])
    return got


def _pct(x: float) -> str:
    return f"{x:.0%}"


def _range(values: list[float]) -> str:
    return f"{min(values):.0%}-{max(values):.0%}" if len(values) > 1 else ""


def table(results: dict, at_scale: dict, money: dict, rows: int, money_rows: int) -> list[str]:
    """Issue 26's table (markdown) and the list of what misses a goal."""
    missed: list[str] = []
    print("\n| path | reference | ratio: median (rounds' range) | goal | met? | req/s (reference's) "
          "| p50 / p99 ms (reference's) | errors |")
    print("|---|---|---|---|---|---|---|---|")

    def line(label, name, got, against, goal, extra_ok=True, goal_text=None):
        ratio = got.get("ratio")
        if ratio is None:
            ok = ""
        else:
            ok = "yes" if goal is None or (ratio >= goal and extra_ok) else "**no**"
            if ok == "**no**":
                missed.append(f"{label}: {ratio:.0%} of {against}, goal {goal_text or _pct(goal)}")
        ref = got.get("reference") or {}
        cell = f"{_pct(ratio)} ({_range(got['ratios'])})" if ratio is not None else "-"
        ref_rps = f" ({ref['rps']:,.0f})" if ref else ""
        ref_lat = f" ({ref['p50_ms']:.1f} / {ref['p99_ms']:.1f})" if ref else ""
        print(f"| {label} | {against} | {cell} | {goal_text or (_pct(goal) if goal else '')} | "
              f"{ok if goal is not None else ''} | {got['rps']:,.0f}{ref_rps} | "
              f"{got['p50_ms']:.1f} / {got['p99_ms']:.1f}{ref_lat} | {got['errors']} |")

    for name, got in results.items():
        against = _against(name)
        goal = next((g for n, _, g in GOALS if n == name), None)
        shown = f"`/{against}`" if against in REFERENCES else f"the REST path just before ({LABELS.get(against, against)})"
        line(LABELS.get(name, name), name, got, shown, goal)
    for name, got in at_scale.items():
        small = results.get(name)
        share = got["ratio"] / small["ratio"] if small and "ratio" in got and "ratio" in small else None
        goal = SCALE_GOAL if name == "v1 intent list" else None
        label = f"{LABELS.get(name, name)} at {rows:,} more rows"
        if share is not None:
            label += f" ({share:.0%} of the small page's ratio)"
        line(label, name, got, f"`/{_against(name)}` grown alike", goal,
             extra_ok=share is not None and share >= SCALE_SHARE,
             goal_text=f">= {SCALE_GOAL:.0%} and >= {SCALE_SHARE:.0%} of the small page's" if goal else None)
    for path, got in money.items():
        p50 = got["p50_ms"]
        ok = p50 < MONEY_GOAL_MS
        if not ok:
            missed.append(f"{path} at {money_rows:,} payments: p50 {p50:.1f} ms, goal < {MONEY_GOAL_MS:g} ms")
        spread = f" ({min(got['p50s']):.1f}-{max(got['p50s']):.1f})" if len(got["p50s"]) > 1 else ""
        print(f"| `GET {path}` at {money_rows:,} payments | p50, {MONEY_CONNECTIONS} connections | "
              f"{p50:.1f} ms{spread} | < {MONEY_GOAL_MS:g} ms | {'yes' if ok else '**no**'} | {got['rps']:,.0f} | "
              f"{got['p50_ms']:.1f} / {got['p99_ms']:.1f} | {got['errors']} |")
    # no errors anywhere; every p99 within 3 x its p50 or 1.5 x its reference's p99
    tails = []
    everything = list(results.items()) + [(f"{n} at scale", g) for n, g in at_scale.items()] + list(money.items())
    for name, got in everything:
        if got["errors"]:
            missed.append(f"{name}: {got['errors']} errors")
        ref = got.get("reference")
        if "reference" not in got and name in results and _against(name) in results:
            ref = results[_against(name)]
        if got["p99_ms"] > TAIL * got["p50_ms"] and not (ref and got["p99_ms"] <= TAIL_VS_REFERENCE * ref["p99_ms"]):
            tails.append(f"{name} (p99 {got['p99_ms']:.1f} ms, p50 {got['p50_ms']:.1f} ms"
                         + (f", its reference's p99 {ref['p99_ms']:.1f} ms)" if ref else ")"))
    print(f"\nevery p99 within {TAIL:g} x its p50 or {TAIL_VS_REFERENCE:g} x its reference's p99: "
          + ("yes" if not tails else "no: " + "; ".join(tails)))
    missed += [f"tail: {t}" for t in tails]
    return missed


WORKER_PATHS = ("v1 intent create", "v1 intent retrieve")


def workers_table(workers: dict, n: int) -> None:
    """--workers N: each path with N serving processes against one, in the same rounds."""
    print(f"\n| path | one serving process: req/s | {n} serving processes: req/s | gain: median (rounds' range) "
          f"| p50 / p99 ms ({n}) | errors |")
    print("|---|---|---|---|---|---|")
    for name, got in workers.items():
        print(f"| {LABELS.get(name, name)} | {got['reference']['rps']:,.0f} | {got['rps']:,.0f} | "
              f"{got['ratio']:.2f}x ({min(got['ratios']):.2f}-{max(got['ratios']):.2f}) | "
              f"{got['p50_ms']:.1f} / {got['p99_ms']:.1f} | {got['errors']} |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--only", default="", help="only the paths whose names contain one of these "
                                                     "comma-separated words")
    parser.add_argument("--rounds", type=int, default=3,
                        help="measure every path (each after its reference) this many times; medians are shown")
    parser.add_argument("--rows", type=int, default=0,
                        help="then grow both lists alike by N rows and measure the pages again")
    parser.add_argument("--money", type=int, default=0,
                        help="seed a live merchant with N payments and measure balance and analytics p50")
    parser.add_argument("--money-merchant", default="", help="a merchant seeded by bench/seed_million.py before")
    parser.add_argument("--settle", type=float, default=20.0,
                        help="at most this many seconds to wait for a quiet machine before each measurement")
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    parser.add_argument("--keep-database", action="store_true",
                        help="run the service on DATABASE_URL's database as it is (with what earlier runs left), "
                             "not on a fresh one beside it")
    args = parser.parse_args()
    # stopped with SIGTERM: still stop the service and the yardstick (the `finally` below)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    ensure_wrk()
    tmp = tempfile.mkdtemp(prefix="qafila-bench-")
    service = yardstick = None
    dsn = ys_dsn = os.environ.get("DATABASE_URL", "")
    backend = "PostgreSQL + Redis" if dsn.startswith("postgres") and os.environ.get("REDIS_URL") else "embedded"
    if backend != "embedded" and not args.keep_database:
        dsn = os.environ["DATABASE_URL"] = service_database(ys_dsn)     # the service's, its seeds' and workers'
    ys_env = {**os.environ, "DATABASE_URL": ys_dsn}
    results: dict[str, dict] = {}
    at_scale: dict[str, dict] = {}
    money: dict[str, dict] = {}
    missed: list[str] = []
    workers: dict[str, dict] = {}
    extra: list[subprocess.Popen] = []
    try:
        service, base = start_service(tmp, 1)
        if production_layout():
            extra.append(start_worker(tmp))
        scenarios, merchant = asyncio.run(gather_scenarios(base, tmp))
        only = [w for w in args.only.split(",") if w]
        chosen = _order([s for s in scenarios if not only or any(w in s["name"] for w in only)])
        ys_base = None
        if backend != "embedded":
            if not os.path.exists(YARDSTICK):
                raise SystemExit(f"bench: the yardstick is missing ({YARDSTICK})")
            asyncio.run(_reset_yardstick(ys_dsn))
            ys_port = free_port()
            yardstick = _spawn_group([sys.executable, YARDSTICK, str(ys_port)], log=f"{tmp}/yardstick.log",
                                     env=ys_env)
            ys_base = f"http://127.0.0.1:{ys_port}"
            wait_http(ys_base + "/ready")
            wait_http(ys_base + "/read")
            from seed_million import seed_list_rows
            for kind in ("intents", "payments"):        # the small size: 1,000 of each, as the yardstick's
                asyncio.run(seed_list_rows(dsn, merchant["merchant_id"], False, 1000, kind))
            # analyzed, as after growing them below: the service's connections run generic plans, and
            # one made before autovacuum's first pass (every minute) on these tables costs them as
            # empty until it comes, within the first round; the reference's lists, seeded as it
            # starts, alike
            asyncio.run(_vacuum(dsn, ("payment_intents", "payments")))
            asyncio.run(_vacuum(ys_dsn, ("perf_ceiling_intents", "perf_documented_intents")))
        print(f"backend: {backend}; load: {'wrk' if shutil.which('wrk') else 'aiohttp client'}, "
              f"{args.concurrency} connections, {args.seconds:.0f} s per path, {args.rounds} round(s); "
              + ("the README's production deployment: one serving process (`qafila serve --no-background`) "
                 "and one `qafila worker`; " if production_layout() else
                 "one serving process running its own background work (the embedded default); ")
              + ("on a database made afresh for the run (`--keep-database`: on DATABASE_URL's as it is); "
                 if dsn != ys_dsn else "")
              + f"the reference ({YARDSTICK}); event loop: {_loop_name()}; "
              f"{os.cpu_count()} CPUs: {_cpu_model()}", flush=True)
        if ys_base:
            print(f"(the lists start at {_list_sizes(base, merchant['secret_key'], ys_base)})", flush=True)

        def one(url, s, concurrency=None, quiet=True) -> dict:
            if quiet:
                settle(args.settle)
            body = json.dumps(s["body"]).encode() if s.get("body") is not None else None
            headers = {"Content-Type": "application/json", "Authorization": f"Bearer {s['key']}"}
            pid = yardstick.pid if ys_base and url.startswith(ys_base) else (
                service.pid if url.startswith(base) else None)
            return measure(url, s["method"], body, headers, args.seconds, concurrency or args.concurrency, tmp, pid)

        def paired(s: dict, done: dict) -> tuple[dict, dict | None]:
            """The path after its reference: the yardstick's path (the same body), or the REST
            path measured just before (`done`: this round's measurements)."""
            against = _against(s["name"])
            ref = None
            if against in REFERENCES and ys_base:
                method, path, key = REFERENCES[against]
                ref = one(ys_base + path, {**s, "method": method, "key": key or s["key"],
                                           "body": s.get("body") if method == "POST" else None})
            elif against in done:
                ref = done[against]
            # straight after a yardstick path (it leaves no background work to wait for): the
            # machine drifts within seconds when it is shared
            got = one(base + s["path"], s, quiet=ref is None or against not in REFERENCES)
            done[s["name"]] = got
            mark = f"{got['rps'] / ref['rps']:.0%} of {against}" if ref else ""
            print(f"  {s['name']:36} {got['rps']:8.0f}/s p50 {got['p50_ms']:6.1f} p99 {got['p99_ms']:6.1f} "
                  f"cpu {got['cpu_us']:5.0f} us/req err {got['errors']}"
                  + (f"  reference {ref['rps']:8.0f}/s p99 {ref['p99_ms']:6.1f} cpu {ref['cpu_us']:5.0f} us/req: {mark}"
                     if ref else ""), flush=True)
            return got, ref

        per_round: dict[str, list[tuple[dict, dict | None]]] = {}
        for r in range(args.rounds):
            print(f"round {r + 1}", flush=True)
            done: dict[str, dict] = {}
            for s in chosen:
                per_round.setdefault(s["name"], []).append(paired(s, done))
        results.update({n: summarize(p) for n, p in per_round.items()})
        if args.rows and ys_base:
            t0 = time.monotonic()
            subprocess.run([sys.executable, YARDSTICK, "--grow", str(args.rows)], check=True,   # both its lists
                           env=ys_env)
            for kind in ("intents", "payments"):
                asyncio.run(seed_list_rows(dsn, merchant["merchant_id"], False, args.rows, kind))
            asyncio.run(_vacuum(dsn, ("payment_intents", "payments")))
            asyncio.run(_vacuum(ys_dsn, ("perf_ceiling_intents",)))
            print(f"grew the yardstick's list and the service's intents and payments by {args.rows:,} rows in "
                  f"{time.monotonic() - t0:.0f} s; the lists: {_list_sizes(base, merchant['secret_key'], ys_base)}",
                  flush=True)
            lists = [s for s in chosen if s["name"] in LIST_PATHS]
            scale_rounds: dict[str, list] = {}
            for r in range(args.rounds):
                print(f"round {r + 1} at scale", flush=True)
                for s in lists:
                    scale_rounds.setdefault(s["name"], []).append(paired(s, {}))
            at_scale.update({n: summarize(p) for n, p in scale_rounds.items()})
        money_rows = 0
        if (args.money or args.money_merchant) and ys_base:
            merchant_id = args.money_merchant
            if not merchant_id:
                t0 = time.monotonic()
                merchant_id = subprocess.run([sys.executable, os.path.join(HERE, "seed_million.py"), "--payments",
                                              str(args.money)], check=True, capture_output=True,
                                             text=True).stdout.strip().splitlines()[-1]
                print(f"seeded {merchant_id} with {args.money:,} payments in {time.monotonic() - t0:.0f} s", flush=True)
            key = asyncio.run(_live_key(dsn, merchant_id))
            money_rows = args.money or 0
            runs: dict[str, list] = {}
            for r in range(args.rounds):
                for path in MONEY_PATHS:
                    runs.setdefault(path, []).append((one(base + path, {"method": "GET", "key": key},
                                                          MONEY_CONNECTIONS), None))
            for path, pairs in runs.items():
                money[path] = summarize(pairs)
            if not money_rows:
                import urllib.request
                req = urllib.request.Request(base + "/api/payments/list?limit=1",
                                             headers={"Authorization": f"Bearer {key}"})
                with urllib.request.urlopen(req, timeout=60) as resp:
                    money_rows = json.loads(resp.read())["total"]
        if args.workers > 1:
            # the same paths, the same database: one serving process, then N beside it (SO_REUSEPORT)
            many, many_base = start_service(tmp, args.workers, "serve-workers")
            extra.append(many)
            picked = [s for s in chosen if s["name"] in WORKER_PATHS]
            pairs: dict[str, list] = {}
            for r in range(args.rounds):
                print(f"round {r + 1}: {args.workers} serving processes against one", flush=True)
                for s in picked:
                    single = one(base + s["path"], s)
                    several = one(many_base + s["path"], s)
                    print(f"  {s['name']:36} one {single['rps']:8.0f}/s, {args.workers}: {several['rps']:8.0f}/s "
                          f"({several['rps'] / single['rps']:.2f}x) p50 {several['p50_ms']:.1f} "
                          f"p99 {several['p99_ms']:.1f} err {several['errors']}", flush=True)
                    pairs.setdefault(s["name"], []).append((several, single))
            workers = {n: summarize(p) for n, p in pairs.items()}
        missed = table(results, at_scale, money, args.rows, money_rows)
        if workers:
            workers_table(workers, args.workers)
    finally:
        for proc in [service, *extra]:
            if proc:
                proc.terminate()
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
        if yardstick:
            os.killpg(yardstick.pid, signal.SIGTERM)
            yardstick.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)
    if args.check:
        if not results or not any("ratio" in g for g in results.values()):
            raise SystemExit("bench --check: the goals are ratios to the yardstick, which needs PostgreSQL + Redis")
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
