"""The floors of three documented answers: the ceiling (bench/ceiling_server.py) plus only what
the documented answer itself obliges any implementation to do, with none of Qafila's framework
(no middleware, no route table, no ORM, no row view, no service layer). For
`GET /api/payments/:id`:

- an `X-Request-Id` made for the request (rest_compat.routing.new_request_id);
- the rate-limit verdict and its `X-RateLimit-Limit` / `X-RateLimit-Remaining` headers from the
  gate script's count, and the caller's merchant and mode from its key entry;
- the payment read scoped to that merchant and mode, with its receipt (one statement, as the
  ceiling's one read);
- the documented object (rest_compat.merchant_payments.payment_shape, the service's own shaper,
  on the row's values with its JSON columns decoded) and its receipt;
- one access line (app.logs.TextFormatter.access_text, queued on the batched handler).

`GET /v1/payments?limit=20` (a page of the documented list): the same request id, gate and
headers; the page read with the list's total from its counter rows, in one statement as the
ceiling's read; each intent as the documented object (services.payments.intents.intent_object,
the service's own shaper) in the documented envelope; an access line.

`POST /v1/payments/intent`: the body parsed and each field the benchmark sends checked as the
documented create checks it (the service's own checks: currency, amount, method, metadata, no
unknown field), the fee and settlement date (the service's own functions; the merchant's market
read once, as the service keeps it), then the documented writes in one statement -- the intent,
its list counter, its `payment.created` event (marked fanned out, as the ceiling's event: the
floor does no webhook fan-out, which the service does in the same process) -- and the documented
object, 201.

    DATABASE_URL=postgres://... REDIS_URL=redis://... python bench/floor_server.py PORT PROCESSES PAYMENT_ID

bench/run.py measures each floor beside its ceiling: a floor's ratio to the ceiling is the most
any implementation of the documented answer can reach on this stack, whatever its framework
costs (the create's floor, which leaves out the fan-out, a little more)."""
import gc
import logging
import os
import sys
import time
from datetime import datetime, timezone
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
from services.ids import new_id  # noqa: E402
from services.money import settlement  # noqa: E402
from services.money.markets import market  # noqa: E402
from services.payments import intents, pricing  # noqa: E402
from services.payments.intents import intent_object  # noqa: E402
from models._rows import counter_slot  # noqa: E402
from services.infra import runtime as runtime_module  # noqa: E402
from services.infra.kv import _GET_INCR_MARK_SCRIPT  # noqa: E402
from services.validation import Fields  # noqa: E402

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
    app["market"] = market(await app["pool"].fetchval("SELECT country FROM merchants WHERE id = $1", merchant))
    gc.collect()
    gc.freeze()         # as `qafila serve` does once started


async def stop(app: web.Application) -> None:
    await app["pool"].close()
    await app["redis"].aclose()


async def read(request: web.Request) -> web.Response:
    started = time.perf_counter()
    app = request.app
    merchant, mode, headers = await _gate(request)
    row = await app["pool"].fetchrow(READ, request.match_info["id"], merchant, mode == "live")
    values = dict(row)
    for column in ("routing_decision", "metadata", "risk_signals"):
        if values[column] is not None:
            values[column] = orjson.loads(values[column])
    receipt = {"channel": values["__r_channel"], "sent_to": values["__r_sent_to"], "status": values["__r_status"]}
    body = {**payment_shape(SimpleNamespace(**values)), "receipt": receipt if receipt["channel"] else None}
    response = web.Response(body=orjson.dumps(body), headers=headers, content_type="application/json")
    logs.access_line(request, 200, started, headers["X-Request-Id"])
    return response


LIST = ('SELECT i.*, (SELECT COALESCE(sum(n), 0)::bigint FROM list_counts WHERE merchant_id = $1 AND livemode = $2 '
        "AND kind = 'intents') AS __total FROM payment_intents i WHERE i.merchant_id = $1 AND i.livemode = $2 "
        'ORDER BY i.created_at DESC, i.id DESC LIMIT $3')
INTENT_JSON = ("metadata", "crypto", "cod_address", "split", "next_action")


async def _gate(request: web.Request) -> tuple[str, str, dict]:
    rid = new_request_id()
    now = time.time()
    entry, count, _ = await request.app["gate"](keys=["floor:entry", f"floor:count:{int(now // WINDOW)}", "floor:mark"],
                                                args=[65000, 120000])
    _, merchant, _, mode = entry.split("|")
    return merchant, mode, {"X-RateLimit-Limit": str(LIMIT), "X-RateLimit-Remaining": str(max(0, LIMIT - int(count))),
                            "X-Request-Id": rid}


async def intent_list(request: web.Request) -> web.Response:
    started = time.perf_counter()
    merchant, mode, headers = await _gate(request)
    limit = int(request.query.get("limit", "10"))
    if not 1 <= limit <= 100:
        raise web.HTTPBadRequest()
    rows = await request.app["pool"].fetch(LIST, merchant, mode == "live", limit + 1)
    data = []
    for row in rows[:limit]:
        values = dict(row)
        for column in INTENT_JSON:
            if values[column] is not None:
                values[column] = orjson.loads(values[column])
        data.append(intent_object(SimpleNamespace(**values)))
    has_more = len(rows) > limit
    body = {"object": "list", "data": data, "has_more": has_more,
            "next_cursor": data[-1]["id"] if has_more else None, "total_count": rows[0]["__total"] if rows else 0}
    response = web.Response(body=orjson.dumps(body), headers=headers, content_type="application/json")
    logs.access_line(request, 200, started, headers["X-Request-Id"])
    return response


INTENT_COLUMNS = ("id", "merchant_id", "livemode", "status", "amount", "currency", "amount_received", "payment_method",
                  "metadata", "locale", "fee_amount", "fee_rate", "fee_processing", "fee_conversion", "fee_network",
                  "net_amount", "settlement_date", "created_at", "expires_at", "version")
CREATE = (
    f"WITH w0 AS (INSERT INTO payment_intents ({', '.join(INTENT_COLUMNS)}) "
    f"VALUES ({', '.join(f'${i}' for i in range(1, len(INTENT_COLUMNS) + 1))})), "
    f"w1 AS (INSERT INTO list_counts (merchant_id, livemode, kind, slot, n) VALUES ($2, $3, 'intents', $21, 1) "
    f"ON CONFLICT (merchant_id, livemode, kind, slot) DO UPDATE SET n = list_counts.n + EXCLUDED.n), "
    f"w2 AS (INSERT INTO events (id, merchant_id, livemode, type, object_id, data, created_at, fanned_out) "
    f"VALUES ($22, $2, $3, 'payment.created', $1, $23, $18, TRUE)) SELECT 1")
NO_VALUE = {c: None for c in ("payment_method_ref", "customer_id", "order_id", "description", "statement_descriptor",
                              "crypto", "cod_address", "cod_status", "split", "next_action", "return_url", "receipt_url", "receipt_token",
                              "failure_code", "failure_message", "provider", "provider_ref", "cancellation_reason",
                              "succeeded_at", "canceled_at")}


async def intent_create(request: web.Request) -> web.Response:
    started = time.perf_counter()
    raw = await request.read()
    merchant, mode, headers = await _gate(request)
    app = request.app
    data = orjson.loads(raw)
    f = Fields(data)                  # the service's own checks of the fields the benchmark sends
    f.seen.update(("currency", "metadata"))
    currency = pricing.check_currency(data.get("currency"))
    amount = intents._amount(f, currency)
    method = f.enum("payment_method", intents.METHODS, required=True)
    metadata = intents._check_metadata(data.get("metadata"))
    f.reject_unknown()
    now = datetime.now(timezone.utc)
    fee = pricing.compute_fee(amount=amount, currency=currency, method=method,
                              home_currency=pricing.MARKET_CURRENCY[app["market"]])
    values = {"id": new_id("pay"), "merchant_id": merchant, "livemode": mode == "live",
              "status": "requires_payment_method", "amount": amount, "currency": currency, "amount_received": 0,
              "payment_method": method, "metadata": metadata, "locale": None,
              "fee_amount": fee.amount, "fee_rate": f"{fee.rate:f}", "fee_processing": fee.processing,
              "fee_conversion": fee.currency_conversion, "fee_network": fee.network, "net_amount": amount - fee.amount,
              "settlement_date": settlement.settlement_date(app["market"], now), "created_at": now,
              "expires_at": now + intents.EXPIRY, "version": 0}
    shaped = intent_object(SimpleNamespace(**values, **NO_VALUE))
    body = orjson.dumps(shaped)
    args = [values[c] for c in INTENT_COLUMNS]
    args[8] = orjson.dumps(metadata).decode() if metadata is not None else None
    await app["pool"].execute(CREATE, *args, counter_slot(values["id"]), new_id("evt"), body.decode())
    response = web.Response(status=201, body=body, headers=headers, content_type="application/json")
    logs.access_line(request, 201, started, headers["X-Request-Id"])
    return response


if __name__ == "__main__":
    runtime_module.install(SimpleNamespace(config=SimpleNamespace(
        pay_url=os.environ.get("QAFILA_PAY_URL", "http://127.0.0.1:8000/pay"),
        public_url=os.environ.get("QAFILA_PUBLIC_URL", "http://127.0.0.1:8000"),
        secret_key=os.environ.get("QAFILA_SECRET_KEY", "b" * 64))))
    app = web.Application()
    app["payment_id"] = sys.argv[3]
    app.on_startup.append(start)
    app.on_cleanup.append(stop)
    app.router.add_get("/api/payments/{id}", read)
    app.router.add_get("/v1/payments", intent_list)
    app.router.add_post("/v1/payments/intent", intent_create)
    serve(app, int(sys.argv[1]), int(sys.argv[2]))
