"""The ETA simulator over HTTP, under /sandbox/eta (not in production): ETA's identity endpoint
(`/connect/token`, form-encoded client credentials) and the invoicing API paths (document and
receipt submissions, a document's state, its cancellation), answering as the simulator that test
mode calls in-process (services.einvoicing.eta.simulator), on the real clock."""
from __future__ import annotations

from aiohttp import web

from rest_compat.routing import json_response
from services.einvoicing.eta import canonical, simulator
from services.infra.runtime import runtime

PREFIX = "/sandbox/eta"


def _headers(request: web.Request) -> dict:
    return {"Authorization": request.headers.get("Authorization", "")}


async def _json(request: web.Request) -> dict | None:
    raw = await request.read()
    try:            # numbers kept as written: ETA serializes (and so verifies) their text
        body = canonical.loads(raw) if raw.strip() else {}
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def _bad() -> web.Response:
    return json_response({"error": {"code": "BadRequest", "message": "The body is not a JSON object"}}, status=400)


async def token(request: web.Request) -> web.Response:
    form = dict(await request.post())
    status, out = await simulator.token({k: str(v) for k, v in form.items()})
    return json_response(out, status=status)


async def documents(request: web.Request) -> web.Response:
    body = await _json(request)
    if body is None:
        return _bad()
    status, out = await simulator.submit_documents(_headers(request), body, runtime().clock.now())
    return json_response(out, status=status)


async def receipts(request: web.Request) -> web.Response:
    body = await _json(request)
    if body is None:
        return _bad()
    status, out = await simulator.submit_receipts(_headers(request), body, runtime().clock.now())
    return json_response(out, status=status)


async def document(request: web.Request) -> web.Response:
    status, out = await simulator.document_status(_headers(request), request.match_info["uuid"])
    return json_response(out, status=status)


async def state(request: web.Request) -> web.Response:
    body = await _json(request)
    if body is None:
        return _bad()
    status, out = await simulator.cancel(_headers(request), request.match_info["uuid"], body, runtime().clock.now())
    return json_response(out, status=status)


def install(app: web.Application) -> None:
    app.router.add_post(PREFIX + "/connect/token", token)
    app.router.add_post(PREFIX + "/api/v1/documentsubmissions", documents)
    app.router.add_post(PREFIX + "/api/v1/receiptsubmissions", receipts)
    app.router.add_get(PREFIX + "/api/v1/documents/{uuid}/raw", document)
    app.router.add_put(PREFIX + "/api/v1.0/documents/state/{uuid}/state", state)
