"""The ZATCA simulator over HTTP, under /sandbox/zatca (point QAFILA_ZATCA_URL at
`<public url>/sandbox/zatca` to go through it as through ZATCA): the same
services.einvoicing.zatca.api.dispatch that test mode calls in-process."""
from __future__ import annotations

import orjson
from aiohttp import web

from rest_compat.routing import json_response
from services.einvoicing.zatca import api

PREFIX = "/sandbox/zatca"


async def zatca_endpoint(request: web.Request) -> web.Response:
    raw = await request.read()
    try:
        body = orjson.loads(raw) if raw.strip() else {}
    except orjson.JSONDecodeError:
        return json_response({"code": "Invalid-Request", "message": "The body is not JSON"}, status=400)
    headers = {k: request.headers[k] for k in ("OTP", "Authorization") if k in request.headers}
    status, out = api.dispatch(request.match_info["path"], headers=headers, body=body)
    return json_response(out, status=status)


def install(app: web.Application) -> None:
    app.router.add_post(PREFIX + "/{path:.+}", zatca_endpoint)
