"""The composition root: `create_app()` builds the main or the CRM aiohttp application."""
from __future__ import annotations

import asyncio
import logging
import re
import time
from pathlib import Path

import aiohttp_cors
from aiohttp import hdrs, web

from app.backend import Backend
from app import health, logs, metrics, webhook_sender
from app.graphql_view import QafilaGraphQLView
from app.settings import Settings, load_settings
from rest_compat import intents_v1, merchant_api
from rest_compat import openapi as openapi_document
from rest_compat.routing import (MAX_BODY, Interface, add_routes, error_response, json_response, new_request_id,
                                 outage_error)
from schema import build_schema
from services.identity import auth
from services.infra.clock import Clock
from services.infra.mail import Mailer

log = logging.getLogger("qafila")

BACKEND = web.AppKey("backend", Backend)
INTERFACES = web.AppKey("interfaces", tuple)
SETTINGS = web.AppKey("settings", Settings)
_SAFE_REQUEST_ID = re.compile(r"[A-Za-z0-9_.:-]{1,64}")


def edge_middleware(access_log: bool, observe=None):
    """The one root middleware: the request id (the caller's X-Request-Id if it is safe to echo,
    else `req_` + 24 base62 characters; the header and every error body carry the same value),
    the JSON answer to anything unanswered (404/405 outside a REST interface, or with the
    interface's renderer under its prefix; 500; 503 for an outage), and the access line
    (app/logs.py) when `access_log`. One layer instead of two per request."""
    line = logs.access_line if access_log else None

    @web.middleware
    async def edge(request: web.Request, handler):
        started = time.perf_counter()
        incoming = request.headers.get("X-Request-Id")
        rid = incoming if incoming and _SAFE_REQUEST_ID.fullmatch(incoming) else new_request_id()
        request["request_id"] = rid
        status = 500
        try:
            try:
                response = await handler(request)
            except (web.HTTPNotFound, web.HTTPMethodNotAllowed) as exc:
                response = _unrouted(request, exc, rid)
            except web.HTTPException as exc:
                exc.headers["X-Request-Id"] = rid
                raise
            except Exception as exc:
                response = _unanswered(request, exc, rid)
            else:
                response.headers["X-Request-Id"] = rid
            status = response.status
            return response
        except web.HTTPException as exc:
            status = exc.status
            raise
        finally:
            if line is not None:
                line(request, status, started, rid)
            if observe is not None:         # app/metrics.py: requests by route template and status
                observe(request, status, started)
    return edge


def interface_of(request: web.Request) -> Interface | None:
    """The REST interface whose prefix the request's path is under, if any."""
    path = request.path
    for iface in request.app.get(INTERFACES, ()):
        if path == iface.prefix or path.startswith(iface.prefix + "/"):
            return iface
    return None


def _unrouted(request: web.Request, exc: web.HTTPException, rid: str) -> web.Response:
    """The router's 404/405: in a REST interface's shape under its prefix, else the JSON error body
    (not aiohttp's text)."""
    iface = interface_of(request)
    if iface is not None:
        response = error_response(iface, request, exc)
        response.headers["X-Request-Id"] = rid
        return response
    headers = {"X-Request-Id": rid}
    if isinstance(exc, web.HTTPMethodNotAllowed):
        headers["Allow"] = ",".join(sorted(exc.allowed_methods))
    code = "resource_not_found" if exc.status == 404 else "method_not_allowed"
    message = "Resource not found" if exc.status == 404 else f"Method {request.method} is not allowed here"
    return json_response({"error": {"type": "invalid_request_error", "code": code, "message": message,
                                    "param": None, "request_id": rid}}, status=exc.status, headers=headers)


def _unanswered(request: web.Request, exc: Exception, rid: str) -> web.Response:
    """An exception no handler answered: 503 for an outage, else 500 (logged)."""
    outage = outage_error(request, exc)
    if outage is not None:
        return json_response({"error": {**outage.as_dict(), "request_id": rid}}, status=outage.status,
                             headers={**outage.headers, "X-Request-Id": rid})
    log.error("unexpected error request_id=%s %s %s", rid, request.method, request.path, exc_info=exc)
    return json_response({"error": {"type": "api_error", "code": "internal_error",
                                    "message": "Internal server error", "param": None, "request_id": rid}},
                         status=500, headers={"X-Request-Id": rid})


def _cors(app: web.Application, settings: Settings):
    if settings.env == "production":
        origins = [o for o in settings.cors_origins if o != "*"]
    else:
        origins = settings.cors_origins or ["*"]
    options = aiohttp_cors.ResourceOptions(allow_credentials=False, expose_headers=(
        "X-Request-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining", "Retry-After"),
        allow_headers=("Authorization", "Content-Type", "X-Idempotency-Key", "X-Request-Id"),
        allow_methods=["GET", "POST", "PUT", "DELETE", "OPTIONS"], max_age=600)
    cors = aiohttp_cors.setup(app, defaults={o: options for o in origins})
    # aiohttp_cors looks at every response of the app: it resolves the route's CORS config before
    # it reads the Origin header, and a request without one (every server-side call) gets nothing
    # from it. Such a request now skips it (issue 26: 1.5-2% of the CPU of a /v1 read).
    impl, handlers = getattr(cors, "_cors_impl", None), app.on_response_prepare
    for i, handler in enumerate(handlers):
        if impl is not None and getattr(handler, "__self__", None) is impl:
            handlers[i] = _only_with_origin(handler)
    return cors


def _only_with_origin(prepare):
    async def prepare_cors(request: web.Request, response: web.StreamResponse) -> None:
        if hdrs.ORIGIN in request.headers:
            await prepare(request, response)
    return prepare_cors


STATIC_DIR = Path(__file__).parent / "static"
OPENAPI_DOC = web.AppKey("openapi_document", dict)


def _openapi(app: web.Application, interfaces: list[Interface], kind: str, settings: Settings) -> dict:
    """The OpenAPI document (rest_compat/openapi.py) of the interfaces and of the app's own
    routes, built once, after every route is added."""
    if OPENAPI_DOC not in app:
        own = [(route.method, route.resource.canonical) for route in app.router.routes()
               if route.resource is not None and not isinstance(route.resource, web.PrefixedSubAppResource)
               and not any(route.resource.canonical.startswith(i.prefix + "/") for i in interfaces)
               and not (route.name or "").startswith("page:")]     # HTML pages: app/checkout
        crm = kind == "crm"
        app[OPENAPI_DOC] = openapi_document.document(
            interfaces, title="Qafila CRM API" if crm else "Qafila API",
            servers=[settings.crm_public_url if crm else settings.public_url], app_routes=own,
            description=(("The CRM interface (its own port). " if crm else
                          "The merchant interface (/api) and payment intents (/v1). ") +
                         "GraphQL: /graphql. Errors: {\"error\": {type, code, message, param, request_id}}."))
    return app[OPENAPI_DOC]


async def docs_page(request: web.Request) -> web.FileResponse:
    return web.FileResponse(STATIC_DIR / "docs" / "index.html")


def _mount(app: web.Application, iface: Interface, cors) -> None:
    """The interface's routes on the application itself, under its prefix (not a sub-application:
    one router lookup and no per-application middleware step per request); the edge middleware
    answers an unknown path under the prefix in the interface's error shape."""
    for route in add_routes(app, iface):
        if cors is not None:
            cors.add(route)
    app[INTERFACES] = (*app.get(INTERFACES, ()), iface)


def interfaces(kind: str) -> list[Interface]:
    if kind == "crm":
        from rest_compat import crm_api
        return [crm_api.interface()]
    return [merchant_api.interface(), intents_v1.interface()]


def _graphql_auth(kind: str) -> dict:
    """The CRM's /graphql authenticates CRM access tokens and limits per company plan."""
    if kind != "crm":
        return {"admit": auth.admit}
    from rest_compat import crm_api
    iface = crm_api.interface()
    return {"authenticate": iface.authenticate, "rate_rule": iface.rate_rule, "rate_rule_for": iface.rate_rule_for}


def create_app(settings: Settings | None = None, *, kind: str = "main", backend: Backend | None = None,
               clock: Clock | None = None, mailer: Mailer | None = None,
               workers: bool = False) -> web.Application:
    """The main application (kind="main": /graphql, /api, /v1, /health, /openapi.json) or the CRM
    one (kind="crm": its own /api, /graphql, /health). Without a shared `backend` the app
    owns one and starts/stops it with its cleanup context."""
    settings = settings or (backend.settings if backend else load_settings())
    observed = metrics.metrics() if metrics.enabled(settings) else None
    app = web.Application(middlewares=[edge_middleware(settings.access_log, observed and observed.observe_request)],
                          client_max_size=MAX_BODY)
    app[SETTINGS] = settings
    webhook_sender.install()           # services deliver webhooks through aiohttp
    owned = backend is None
    app[BACKEND] = backend = backend or Backend(settings, clock=clock, mailer=mailer)

    if owned:
        async def lifecycle(app: web.Application):
            await backend.start()
            yield
            await backend.stop()
        app.cleanup_ctx.append(lifecycle)

    if workers:
        async def run_workers(app: web.Application):
            from app.workers import run_all
            stop = asyncio.Event()
            task = asyncio.create_task(run_all(backend, stop))
            yield
            stop.set()
            try:
                await asyncio.wait_for(task, 10)
            except (asyncio.TimeoutError, Exception):  # noqa: BLE001 - shutting down
                task.cancel()
        app.cleanup_ctx.append(run_workers)

    ifaces = interfaces(kind)

    async def openapi(request: web.Request) -> web.Response:
        return json_response(_openapi(request.app, ifaces, kind, settings))

    health.install(app, lambda a: a[BACKEND])     # /health, /health/live, /health/ready
    if observed is not None:
        metrics.install(app, lambda a: a[BACKEND])
    app.router.add_get("/openapi.json", openapi)
    app.router.add_get("/docs", docs_page)          # Swagger UI on /openapi.json, assets served below
    app.router.add_static("/static/", STATIC_DIR)   # vendored Swagger UI and GraphiQL: no CDN
    if kind == "main":
        from app import checkout, dashboard, documents, eta_sandbox, gib_sandbox, zatca_sandbox
        documents.install(app)
        dashboard.install(app)                 # the merchant dashboard, /dashboard (React over /graphql)
        if settings.env != "production":
            zatca_sandbox.install(app)         # the ZATCA simulator, /sandbox/zatca
            gib_sandbox.install(app)           # the GİB sandbox integrator, /sandbox/gib
            eta_sandbox.install(app)           # the ETA simulator, /sandbox/eta
        checkout.install(app, settings)        # hosted checkout, receipts, the browser script

    view = QafilaGraphQLView(build_schema(production=settings.env == "production"),
                             graphiql=settings.env != "production", kind=kind, **_graphql_auth(kind))
    cors = _cors(app, settings)
    gql = app.router.add_resource("/graphql")
    for method in ("GET", "POST"):
        cors.add(gql.add_route(method, view))
    for iface in ifaces:
        # CORS on /graphql and /v1 only: browser checkouts and frontend teams; /api is server-side.
        _mount(app, iface, cors if iface.prefix == "/v1" else None)
    return app
