#!/usr/bin/env python3
"""Benchmark: `qafila serve` against a raw aiohttp "hello JSON" server, measured in the same run.

    python bench/run.py [--seconds 5] [--concurrency 32] [--workers 1] [--only NAME]

Uses PostgreSQL + Redis when DATABASE_URL / REDIS_URL are set, else the embedded default. The
same load generator drives both servers: wrk (Debian) when present, else a bounded aiohttp
client. Prints requests/s, p50 and p99 per path and the ratio to the raw baseline.
`--workers N` runs `qafila serve --workers N` and the raw baseline in N processes too, so a ratio
always compares the same number of processes on the same event loop. On PostgreSQL + Redis it
also measures bench/ceiling_server.py: a bare handler doing one Redis call and one PostgreSQL
read, the most any authenticated read can do on this machine.
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


def _spawn_group(cmd: list[str]) -> subprocess.Popen:
    """A helper server in its own process group, so all of its processes stop together."""
    return subprocess.Popen(cmd, start_new_session=True)


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
    return scenarios


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="qafila-bench-")
    raw_port = free_port()
    raw = _spawn_group([sys.executable, os.path.join(HERE, "raw_server.py"), str(raw_port), str(args.workers)])
    service = ceiling = None
    baselines: dict[str, dict] = {}
    try:
        wait_http(f"http://127.0.0.1:{raw_port}/")
        service, base = start_service(tmp, args.workers)
        scenarios = asyncio.run(gather_scenarios(base, tmp))
        backend = "PostgreSQL + Redis" if os.environ.get("DATABASE_URL", "").startswith("postgres") else "embedded"
        print(f"backend: {backend}; load: {'wrk' if shutil.which('wrk') else 'aiohttp client'}, "
              f"{args.concurrency} connections, {args.seconds:.0f} s per path; {args.workers} process(es) "
              f"for the service and for the baseline; event loop: {_loop_name()}")
        print(f"{'path':44} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7} {'ratio':>7}")
        for s in scenarios:
            if args.only and args.only not in s["name"]:
                continue
            body = json.dumps(s["body"]).encode() if s.get("body") is not None else None
            headers = {"Content-Type": "application/json", "Authorization": f"Bearer {s['key']}"}
            baseline = measure(f"http://127.0.0.1:{raw_port}{s['path']}", s["method"], body, headers,
                               args.seconds, args.concurrency, tmp)
            got = measure(base + s["path"], s["method"], body, headers, args.seconds, args.concurrency, tmp)
            baselines[s["name"]] = baseline
            ratio = got["rps"] / baseline["rps"] if baseline["rps"] else 0
            print(f"{'raw baseline for ' + s['name']:44} {baseline['rps']:9.0f} {baseline['p50_ms']:8.2f} "
                  f"{baseline['p99_ms']:8.2f} {baseline['errors']:7d}")
            print(f"{s['name']:44} {got['rps']:9.0f} {got['p50_ms']:8.2f} {got['p99_ms']:8.2f} "
                  f"{got['errors']:7d} {ratio:6.1%}", flush=True)
        get = next((s for s in scenarios if s["name"] == "GET /api/payments/:id"), None)
        if backend != "embedded" and os.environ.get("REDIS_URL") and get and get["name"] in baselines:
            port = free_port()
            ceiling = _spawn_group([sys.executable, os.path.join(HERE, "ceiling_server.py"), str(port),
                                    str(args.workers), get["path"].rsplit("/", 1)[1]])
            wait_http(f"http://127.0.0.1:{port}/")
            for s in scenarios:
                if s["name"] not in baselines or s["name"] not in ("GET /api/payments/:id", "POST /api/payments/create"):
                    continue
                label = ("ceiling: bare 1 Redis + 1 PostgreSQL read" if s["method"] == "GET"
                         else "ceiling: bare 1 Redis + 1 read + 1 INSERT")
                body = json.dumps(s["body"]).encode() if s.get("body") is not None else None
                got = measure(f"http://127.0.0.1:{port}{s['path']}", s["method"], body,
                              {"Content-Type": "application/json"}, args.seconds, args.concurrency, tmp)
                ratio = got["rps"] / baselines[s["name"]]["rps"]
                print(f"{label:44} {got['rps']:9.0f} {got['p50_ms']:8.2f} {got['p99_ms']:8.2f} "
                      f"{got['errors']:7d} {ratio:6.1%}", flush=True)
    finally:
        if service:
            service.terminate()
            service.wait(30)
        for group in (raw, ceiling):
            if group:
                os.killpg(group.pid, signal.SIGTERM)
                group.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
