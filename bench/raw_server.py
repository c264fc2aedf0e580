"""The raw baseline: a bare aiohttp server answering a small JSON document, encoded with orjson,
on the same event loop as `qafila serve` (uvloop where installed)."""
import sys

import orjson
from aiohttp import web

BODY = orjson.dumps({"id": "pay_baseline", "status": "succeeded", "amount": 10000, "currency": "TRY"})


async def hello(request: web.Request) -> web.Response:
    if request.can_read_body:
        await request.read()
    return web.Response(body=BODY, content_type="application/json")


try:
    import uvloop
    uvloop.install()
except ImportError:
    pass

app = web.Application()
app.router.add_route("*", "/{tail:.*}", hello)
web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), access_log=None, print=None)
