"""The GİB sandbox integrator over HTTP, under /sandbox/gib (set a test unit's integrator to
`{"url": "<public url>/sandbox/gib", "username": ..., "password": ...}` to go through it as
through a live integrator): services.einvoicing.gib.sandbox.dispatch."""
from __future__ import annotations

import orjson
from aiohttp import web

from rest_compat.routing import json_response
from services.einvoicing.gib import sandbox
from services.infra.runtime import runtime

PREFIX = "/sandbox/gib"


async def gib_endpoint(request: web.Request) -> web.Response:
    raw = await request.read()
    try:
        body = orjson.loads(raw) if raw.strip() else {}
    except orjson.JSONDecodeError:
        return json_response({"status": "rejected", "messages": [{"code": "json", "message": "The body is not JSON"}]},
                             status=400)
    status, out = await sandbox.dispatch(request.match_info["path"], authorization=request.headers.get("Authorization"),
                                         body=body if isinstance(body, dict) else {}, now=runtime().clock.now())
    return json_response(out, status=status)


def install(app: web.Application) -> None:
    app.router.add_post(PREFIX + "/{path:.+}", gib_endpoint)
