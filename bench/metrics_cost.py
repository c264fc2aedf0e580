#!/usr/bin/env python3
"""The server CPU a request costs with /metrics on and off (issue 22), measured alternately.

    DATABASE_URL=postgres://... REDIS_URL=redis://... python bench/metrics_cost.py [--requests 3000] [--rounds 3]

Starts `qafila serve` (one process, development, rate limits scaled away, access log off) with QAFILA_METRICS=1 and =0 in turn, sends
the same authenticated read (GET /api/payments/{id}) from 16 concurrent aiohttp connections, and
reads the server process's CPU time (/proc/<pid>/stat) before and after: microseconds of server CPU
per request, medians over the rounds."""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import aiohttp

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def load(url: str, headers: dict, n: int, concurrency: int = 16) -> None:
    async with aiohttp.ClientSession(headers=headers) as session:
        left = iter(range(n))

        async def worker():
            for _ in left:
                async with session.get(url) as r:
                    await r.read()
                    assert r.status == 200, r.status
        await asyncio.gather(*(worker() for _ in range(concurrency)))


def start(env: dict) -> tuple[subprocess.Popen, int]:
    """`qafila serve` on free ports, once it accepts connections."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", "--port", str(port), "--crm-port",
                             str(free_port())], env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 90
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, port
        except OSError:
            if time.monotonic() > deadline:
                proc.kill()
                raise
            time.sleep(0.2)


def measure(metrics: str, sk: str, pay_id: str, env: dict, n: int) -> float:
    proc, port = start({**env, "QAFILA_METRICS": metrics})
    try:
        url = f"http://127.0.0.1:{port}/api/payments/{pay_id}"
        headers = {"Authorization": f"Bearer {sk}"}
        asyncio.run(load(url, headers, 300))                  # warm up
        before = cpu_seconds(proc.pid)
        asyncio.run(load(url, headers, n))
        return (cpu_seconds(proc.pid) - before) / n * 1e6
    finally:
        proc.terminate()
        proc.wait(30)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    env = {**os.environ, "QAFILA_ENV": "development", "QAFILA_SECRET_KEY": "b" * 48, "QAFILA_ACCESS_LOG": "0",
           "QAFILA_RATE_LIMIT_SCALE": "100000", "QAFILA_VAR_DIR": tempfile.mkdtemp(), "PYTHONPATH": ROOT}
    made = subprocess.run([sys.executable, "-m", "app.cli", "create-merchant", "--email",
                           f"bench-{os.urandom(4).hex()}@example.com"], env=env, cwd=ROOT, capture_output=True,
                          text=True, check=True)
    sk = json.loads(made.stdout.strip().splitlines()[-1])["secret_key"]
    proc, port = start(env)
    try:
        async def pay() -> str:
            async with aiohttp.ClientSession() as s:
                async with s.post(f"http://127.0.0.1:{port}/api/payments/create", headers={"Authorization": f"Bearer {sk}"},
                                  json={"amount": 1000, "currency": "TRY", "payment_method": {
                                      "type": "card", "card": {"number": "4242424242424242", "exp_month": 12,
                                                               "exp_year": 2030, "cvc": "123"}}}) as r:
                    return (await r.json())["id"]
        pay_id = asyncio.run(pay())
    finally:
        proc.terminate()
        proc.wait(30)
    on, off = [], []
    for _ in range(args.rounds):
        off.append(measure("0", sk, pay_id, env, args.requests))
        on.append(measure("1", sk, pay_id, env, args.requests))
        print(f"round: metrics off {off[-1]:.0f} us, on {on[-1]:.0f} us of server CPU per request", flush=True)
    print(f"median: off {statistics.median(off):.0f} us, on {statistics.median(on):.0f} us "
          f"(+{statistics.median(on) - statistics.median(off):.0f} us)")


if __name__ == "__main__":
    main()
