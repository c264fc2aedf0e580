"""The ceiling of a read and of a create on this machine: bare aiohttp handlers doing only what
any authenticated, rate-limited request must. GET: one Redis call (Qafila's own gate script:
key lookup, counter, marker) and one PostgreSQL read by primary key (asyncpg, no ORM), then
orjson. POST: the same plus one single-row INSERT (an event row) -- fewer statements and rows
than a payment create writes, so a real create is slower still.

    DATABASE_URL=postgres://... REDIS_URL=redis://... python bench/ceiling_server.py PORT PROCESSES PAYMENT_ID

No service can serve GET /api/payments/:id (or create a payment) faster than this with these
round trips; bench/run.py prints it next to the service so a ratio goal can be judged against
what the machine allows."""
import gc
import os
import sys

import asyncpg
import orjson
import redis.asyncio as redis
from aiohttp import web

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from raw_server import serve  # noqa: E402  (this directory is on the path)
from app.backend import _PooledConnection  # noqa: E402  (the service's pooled connection)
from services.infra.kv import _GET_INCR_MARK_SCRIPT  # noqa: E402


async def start(app: web.Application) -> None:
    app["pool"] = await asyncpg.create_pool(os.environ["DATABASE_URL"], min_size=2, max_size=20,
                                            connection_class=_PooledConnection)
    app["redis"] = redis.from_url(os.environ["REDIS_URL"], decode_responses=True)
    await app["redis"].set("ceiling:entry", "key_x|mer_x|secret|test")
    app["gate"] = app["redis"].register_script(_GET_INCR_MARK_SCRIPT)
    gc.collect()
    gc.freeze()         # as `qafila serve` does once started (app.cli.settle_heap): no trick withheld


async def stop(app: web.Application) -> None:
    await app["pool"].close()
    await app["redis"].aclose()


async def read(request: web.Request) -> web.Response:
    app = request.app
    await app["gate"](keys=["ceiling:entry", "ceiling:count", "ceiling:mark"], args=[65000, 120000])
    row = await app["pool"].fetchrow("SELECT * FROM payments WHERE id = $1", app["payment_id"])
    return web.Response(body=orjson.dumps(dict(row), default=str), content_type="application/json")


async def create(request: web.Request) -> web.Response:
    app = request.app
    await request.read()
    await app["gate"](keys=["ceiling:entry", "ceiling:count", "ceiling:mark"], args=[65000, 120000])
    row = await app["pool"].fetchrow("SELECT * FROM payments WHERE id = $1", app["payment_id"])
    event_id = "evt_ceiling_" + os.urandom(12).hex()
    await app["pool"].execute(
        "INSERT INTO events (id, merchant_id, livemode, type, object_id, data, created_at, fanned_out) "
        "VALUES ($1, $2, $3, 'payment.created', $4, $5, now(), TRUE)",
        event_id, row["merchant_id"], row["livemode"], row["id"], orjson.dumps({"id": row["id"]}).decode())
    return web.Response(body=orjson.dumps({"id": event_id}), content_type="application/json")


if __name__ == "__main__":
    app = web.Application()
    app["payment_id"] = sys.argv[3]
    app.on_startup.append(start)
    app.on_cleanup.append(stop)
    app.router.add_get("/{tail:.*}", read)
    app.router.add_post("/{tail:.*}", create)
    serve(app, int(sys.argv[1]), int(sys.argv[2]))
