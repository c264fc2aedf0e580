"""The floor of `GET /api/payments/:id`: the read ceiling (bench/ceiling_server.py) plus only what
the documented answer itself obliges any implementation to do, with none of Qafila's framework
(no middleware, no route table, no ORM, no row view, no service layer):

- an `X-Request-Id` made for the request (rest_compat.routing.new_request_id);
- the rate-limit verdict and its `X-RateLimit-Limit` / `X-RateLimit-Remaining` headers from the
  gate script's count, and the caller's merchant and mode from its key entry;
- the payment read scoped to that merchant and mode, with its receipt (one statement, as the
  ceiling's one read);
- the documented object (rest_compat.merchant_payments.payment_shape, the service's own shaper,
  on the row's values with its JSON columns decoded) and its receipt;
- one access line (app.logs.TextFormatter.access_text, queued on the batched handler).

    DATABASE_URL=postgres://... REDIS_URL=redis://... python bench/floor_server.py PORT PROCESSES PAYMENT_ID

bench/run.py measures it beside the ceiling: the floor's ratio to the ceiling is the most any
implementation of the documented read can reach on this stack, whatever its framework costs."""
import gc
import logging
import os
import sys
import time
from types import SimpleNamespace

import asyncpg
import orjson
import redis.asyncio as redis
from aiohttp import web

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from raw_server import serve  # noqa: E402  (this directory is on the path)
from app import logs  # noqa: E402
from app.backend import _PooledConnection  # noqa: E402  (the service's pooled connection)
from rest_compat.merchant_payments import payment_shape  # noqa: E402
from rest_compat.routing import new_request_id  # noqa: E402
from services.infra import runtime as runtime_module  # noqa: E402
from services.infra.kv import _GET_INCR_MARK_SCRIPT  # noqa: E402

READ = ('SELECT p.*, r.channel AS "__r_channel", r.sent_to AS "__r_sent_to", r.status AS "__r_status" '
        'FROM payments p LEFT JOIN receipts r ON r.payment_id = p.id '
        'WHERE p.id = $1 AND p.merchant_id = $2 AND p.livemode = $3 LIMIT 1')
LIMIT, WINDOW = 100 * 100000, 60


async def start(app: web.Application) -> None:
    app["pool"] = await asyncpg.create_pool(os.environ["DATABASE_URL"], min_size=2, max_size=20,
                                            connection_class=_PooledConnection)
    merchant, livemode = await app["pool"].fetchrow("SELECT merchant_id, livemode FROM payments WHERE id = $1",
                                                    app["payment_id"])
    app["redis"] = redis.from_url(os.environ["REDIS_URL"], decode_responses=True)
    await app["redis"].set("floor:entry", f"key_x|{merchant}|secret|{'live' if livemode else 'test'}")
    app["gate"] = app["redis"].register_script(_GET_INCR_MARK_SCRIPT)
    logs.configure()
    gc.collect()
    gc.freeze()         # as `qafila serve` does once started


async def stop(app: web.Application) -> None:
    await app["pool"].close()
    await app["redis"].aclose()


async def read(request: web.Request) -> web.Response:
    started = time.perf_counter()
    rid = new_request_id()
    app = request.app
    now = time.time()
    entry, count, _ = await app["gate"](keys=["floor:entry", f"floor:count:{int(now // WINDOW)}", "floor:mark"],
                                        args=[65000, 120000])
    _, merchant, _, mode = entry.split("|")
    headers = {"X-RateLimit-Limit": str(LIMIT), "X-RateLimit-Remaining": str(max(0, LIMIT - int(count))),
               "X-Request-Id": rid}
    row = await app["pool"].fetchrow(READ, request.match_info["id"], merchant, mode == "live")
    values = dict(row)
    for column in ("routing_decision", "metadata", "risk_signals"):
        if values[column] is not None:
            values[column] = orjson.loads(values[column])
    receipt = {"channel": values["__r_channel"], "sent_to": values["__r_sent_to"], "status": values["__r_status"]}
    body = {**payment_shape(SimpleNamespace(**values)), "receipt": receipt if receipt["channel"] else None}
    response = web.Response(body=orjson.dumps(body), headers=headers, content_type="application/json")
    logs.access_line(request, 200, started, rid)
    return response


if __name__ == "__main__":
    runtime_module.install(SimpleNamespace(config=SimpleNamespace(pay_url="http://127.0.0.1:8000/pay")))
    app = web.Application()
    app["payment_id"] = sys.argv[3]
    app.on_startup.append(start)
    app.on_cleanup.append(stop)
    app.router.add_get("/api/payments/{id}", read)
    serve(app, int(sys.argv[1]), int(sys.argv[2]))
