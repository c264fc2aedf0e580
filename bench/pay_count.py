"""By hand: how many PostgreSQL statements / round trips and Redis commands one
`POST /api/payments/create` (card, customer by e-mail, with and without an Idempotency-Key) costs,
counted in-process at asyncpg's and redis-py's level, and the Python profile of N creates.

  DATABASE_URL=postgres://... REDIS_URL=redis://... PYTHONPATH=$PWD python bench/pay_count.py [--profile N]

FULL=1 prints whole statements; EXPLAIN=1 runs EXPLAIN (ANALYZE, BUFFERS) of the create's read and
write (in a rolled-back transaction, before each real one); PLANS=1 shows whether PostgreSQL keeps
generic or custom plans for them (pg_prepared_statements on one pooled connection).
"""
from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import asyncpg  # noqa: E402
import redis.asyncio.client as rclient  # noqa: E402

LOG: list[str] = []
EXPLAIN: list[str] = [""] if os.environ.get("EXPLAIN") else []


def _patch() -> None:
    conn = asyncpg.connection.Connection
    orig_execute, orig_exec, orig_many = conn.execute, conn._execute, conn._executemany

    async def execute(self, query, *args, **kw):
        if not args:
            LOG.append("pg simple: " + query[:140].replace("\n", " "))
        return await orig_execute(self, query, *args, **kw)

    async def _execute(self, query, args, *a, **kw):
        LOG.append("pg: " + (query if os.environ.get("FULL") else query[:140]).replace("\n", " "))
        if EXPLAIN and (query.startswith("WITH w0") or query.startswith("SELECT h.n")):
            tr = self.transaction()
            await tr.start()
            try:
                plan = await orig_exec(self, "EXPLAIN (ANALYZE, BUFFERS, SETTINGS) " + query, args, *a, **kw)
                EXPLAIN.append("\n".join(r[0] for r in plan[0]))
            finally:
                await tr.rollback()
        return await orig_exec(self, query, args, *a, **kw)

    async def _executemany(self, query, args, *a, **kw):
        LOG.append("pg many: " + query[:140].replace("\n", " "))
        return await orig_many(self, query, args, *a, **kw)

    conn.execute, conn._execute, conn._executemany = execute, _execute, _executemany
    orig_tx_start, orig_tx_commit = asyncpg.transaction.Transaction.start, asyncpg.transaction.Transaction.commit

    async def start(self):
        pass
        return await orig_tx_start(self)

    async def commit(self):
        pass
        return await orig_tx_commit(self)

    asyncpg.transaction.Transaction.start, asyncpg.transaction.Transaction.commit = start, commit
    orig_cmd = rclient.Redis.execute_command

    async def execute_command(self, *args, **kw):
        LOG.append("redis: " + " ".join(str(a) for a in args[:2]))
        return await orig_cmd(self, *args, **kw)

    rclient.Redis.execute_command = execute_command
    orig_pipe = rclient.Pipeline.execute

    async def pipe_execute(self, *a, **kw):
        LOG.append(f"redis pipeline: {len(self.command_stack)} commands")
        return await orig_pipe(self, *a, **kw)

    rclient.Pipeline.execute = pipe_execute


BODY = {"amount": 10000, "currency": "TRY", "customer": {"email": "count@example.com"},
        "payment_method": {"type": "card", "card": {"number": "4242424242424242", "exp_month": 12,
                                                    "exp_year": 2035, "cvc": "123"}}}


async def main(profile: int, sequential: int = 0) -> None:
    import aiohttp

    from app.backend import Backend
    from app.cli import _demo
    from app.serving import start_servers
    from app.settings import load_settings
    from bench.run import free_port

    _patch()
    tmp = tempfile.mkdtemp(prefix="paycount")
    settings = load_settings(dict(os.environ, QAFILA_VAR_DIR=tmp, QAFILA_RATE_LIMIT_SCALE="100000"))
    backend = Backend(settings)
    await backend.start()
    port, crm = free_port(), free_port()
    servers = await start_servers(settings, backend, host="127.0.0.1", port=port, crm_port=crm, workers=False,
                                  reuse_port=False)
    demo = await _demo(backend)
    url = f"http://127.0.0.1:{port}/api/payments/create"
    async with aiohttp.ClientSession() as s:
        for key in (None, "k"):
            for i in range(3):
                headers = {"Authorization": f"Bearer {demo['secret_key']}"}
                if key:
                    headers["Idempotency-Key"] = f"count-{os.urandom(6).hex()}"
                LOG.clear()
                async with s.post(url, json=BODY, headers=headers) as r:
                    body = await r.json()
                    assert r.status == 200, body
                if i == 2:
                    pg = [x for x in LOG if x.startswith("pg")]
                    rd = [x for x in LOG if x.startswith("redis")]
                    print(f"--- key={'yes' if key else 'no'}: {len(pg)} PostgreSQL round trips, "
                          f"{len(rd)} Redis round trips")
                    for x in LOG:
                        print("   ", x)
        if os.environ.get("PLANS"):        # generic or custom plans of the create's statements, per pooled connection
            from tortoise import connections
            pool = connections.get("default")._pool
            for _ in range(40):
                async with s.post(url, json=BODY, headers={"Authorization": f"Bearer {demo['secret_key']}"}) as r:
                    await r.read()
            c = await pool.acquire()
            try:
                for row in await c.fetch("SELECT left(statement, 60) AS s, generic_plans, custom_plans "
                                         "FROM pg_prepared_statements WHERE generic_plans + custom_plans > 0"):
                    print("plans:", dict(row))
            finally:
                await pool.release(c)
        for x in EXPLAIN[-4:]:
            print(x)
        if sequential:      # one at a time: the latency of a create, without and with a key (medians)
            import statistics
            import time
            from bench.pay_profile import _pg_pids, _ticks
            hz = os.sysconf("SC_CLK_TCK")
            for key in (False, True):
                lat = []
                pg0 = {p: _ticks(p) for p in _pg_pids()}
                cpu0 = time.process_time()
                for _ in range(sequential):
                    headers = {"Authorization": f"Bearer {demo['secret_key']}"}
                    if key:
                        headers["Idempotency-Key"] = f"seq-{os.urandom(8).hex()}"
                    t0 = time.perf_counter()
                    async with s.post(url, json=BODY, headers=headers) as r:
                        await r.read()
                    lat.append((time.perf_counter() - t0) * 1000)
                cpu = (time.process_time() - cpu0) / sequential * 1000
                pg1 = {p: _ticks(p) for p in set(_pg_pids()) | set(pg0)}
                pg = (sum(pg1.values()) - sum(pg0.values())) / hz / sequential * 1000
                lat.sort()
                print(f"sequential, key={'yes' if key else 'no'}: median {statistics.median(lat):.2f} ms, "
                      f"p10 {lat[len(lat) // 10]:.2f} ms, p90 {lat[len(lat) * 9 // 10]:.2f} ms over {sequential}; "
                      f"CPU per create: this process (service + client) {cpu:.2f} ms, PostgreSQL {pg:.2f} ms")
        if profile:
            import cProfile
            import pstats
            headers = {"Authorization": f"Bearer {demo['secret_key']}"}
            import time
            prof = cProfile.Profile(time.process_time)      # CPU time: waits on PostgreSQL count for nothing
            prof.enable()
            sem = asyncio.Semaphore(16)

            async def one():
                async with sem, s.post(url, json=BODY, headers=headers) as r:
                    await r.read()
            await asyncio.gather(*[one() for _ in range(profile)])
            prof.disable()
            st = pstats.Stats(prof)
            st.sort_stats("cumulative").print_stats(60)
            st.sort_stats("tottime").print_stats(40)
    for runner in servers.runners:
        await runner.cleanup()
    await backend.stop()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--profile", type=int, default=0)
    ap.add_argument("--sequential", type=int, default=0, help="N creates one at a time: their latency")
    args = ap.parse_args()
    asyncio.run(main(args.profile, args.sequential))
