"""The raw baseline: a bare aiohttp server answering a small JSON document, encoded with orjson,
on the same event loop as `qafila serve` (uvloop where installed).

    python bench/raw_server.py PORT [PROCESSES]

With PROCESSES > 1 it forks that many processes sharing the port (SO_REUSEPORT), as
`qafila serve --workers N` does, so both sides of a ratio run the same number of processes."""
import gc
import os
import sys

import orjson
from aiohttp import web

BODY = orjson.dumps({"id": "pay_baseline", "status": "succeeded", "amount": 10000, "currency": "TRY"})


async def hello(request: web.Request) -> web.Response:
    if request.can_read_body:
        await request.read()
    return web.Response(body=BODY, content_type="application/json")


def serve(app: web.Application, port: int, processes: int) -> None:
    """Run `app` in `processes` processes on one port, on uvloop where installed."""
    for _ in range(processes - 1):
        if os.fork() == 0:
            break
    try:
        import uvloop
        uvloop.install()
    except ImportError:
        pass
    gc.freeze()                 # as `qafila serve` does once started (app/cli.py)
    gc.set_threshold(7000, 10, 10)
    web.run_app(app, host="127.0.0.1", port=port, access_log=None, print=None, reuse_port=processes > 1)


if __name__ == "__main__":
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", hello)
    serve(app, int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 1)
