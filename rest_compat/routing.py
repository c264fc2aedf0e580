"""Declarative REST route tables, mounted as aiohttp sub-applications with their own error
middleware. A row: method, path, auth kind, handler (parse -> call a service -> shape), status.
The same rows, with the schemas of rest_compat/openapi.py, generate the OpenAPI document."""
from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web

from services import idempotency
from services.identity import audit, auth, permissions, ratelimit, sessions
from services.errors import DomainError, NotFound, ServiceUnavailable, ValidationError
from services.ids import check_id, new_id
from services.infra import faults
from services.principal import Principal
from services.validation import reject_nul

log = logging.getLogger("qafila.http")

MAX_BODY = 1024 * 1024
REQUEST_ID = web.AppKey("request_id_header", str)
_SAFE_REQUEST_ID = re.compile(r"[A-Za-z0-9_.:-]{1,64}")


def dumps(data: Any) -> bytes:
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)


def json_response(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(body=dumps(data), status=status, headers=headers, content_type="application/json")


def new_request_id() -> str:
    """A request id: `req_` + 24 base62 characters, the format of every Qafila id."""
    return new_id("req")


def request_id(request: web.Request) -> str:
    """The request's id (app/server.py edge_middleware sets it and the X-Request-Id
    header); one is made and kept on the request if no middleware ran, so a body and its
    header never disagree."""
    rid = request.get("request_id")
    if not rid:
        rid = request["request_id"] = new_request_id()
    return rid


def client_address(request: web.Request) -> str:
    return request.remote or "unknown"


def outage_error(request: web.Request, exc: BaseException) -> ServiceUnavailable | None:
    """The 503 (with Retry-After) to answer when `exc` means PostgreSQL or Redis is unreachable
    or saturated (services.infra.faults); None for any other exception."""
    if not faults.is_outage(exc):
        return None
    transport = request.transport
    if transport is None or transport.is_closing():
        # The client hung up (its body read failed): there is no one to answer, nothing to report.
        log.debug("client went away request_id=%s %s %s", request_id(request), request.method, request.path)
        return ServiceUnavailable(faults.MESSAGE)
    return faults.unavailable(exc, where=f"request_id={request_id(request)} {request.method} {request.path}")


@dataclass
class Call:
    """What a handler sees: the principal, path and query parameters, and the parsed body."""

    request: web.Request
    principal: Principal | None
    _body: Any = None
    _parsed: bool = False

    @property
    def params(self) -> dict[str, str]:
        return dict(self.request.match_info)

    @property
    def query(self):
        return self.request.query

    @property
    def client_address(self) -> str:
        return client_address(self.request)

    @property
    def idempotency_key(self) -> str | None:
        """`Idempotency-Key` (the common name) or `X-Idempotency-Key` (the documented one); both
        given and different is a 400."""
        return idempotency_header(self.request)

    async def body(self) -> dict:
        """The JSON object sent; an empty body is {}; anything else is 400 with no param."""
        if not self._parsed:
            raw = await self.request.read()
            self._parsed = True
            if not raw.strip():
                self._body = {}
            else:
                try:
                    self._body = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    raise ValidationError("Request body is not valid JSON", code="invalid_json") from None
                if not isinstance(self._body, dict):
                    raise ValidationError("Request body must be a JSON object", code="invalid_json")
                if b"\\u0000" in raw:          # JSON can carry NUL only escaped; PostgreSQL text cannot
                    reject_nul(self._body)
        return self._body

    async def form(self) -> dict[str, str]:
        """An HTML form (application/x-www-form-urlencoded; the route's content_type) as text
        fields, first value of each; a NUL in a name or value is a 400 naming it."""
        out: dict[str, str] = {}
        for k, v in (await self.request.post()).items():
            if not isinstance(v, str):
                raise ValidationError(f"{k} must be a text field", param=k)
            out.setdefault(k, v)
        reject_nul(out)
        return out


def idempotency_header(request: web.Request) -> str | None:
    plain = request.headers.get("Idempotency-Key") or None
    x = request.headers.get("X-Idempotency-Key") or None
    if plain and x and plain != x:
        raise ValidationError("Idempotency-Key and X-Idempotency-Key differ", param="idempotency_key")
    return idempotency.check_key(x or plain, "Idempotency-Key")


_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def check_request(route: Route, request: web.Request) -> None:
    """Hostile input refused in one place, before any handler runs: a path parameter `id` or
    `*_id` is an id (services.ids.check_id: malformed -> 400 naming it; any other is printable
    and short), no query parameter is empty or holds a NUL, and a body has the route's media
    type (415 otherwise)."""
    for name, value in request.match_info.items():
        if name == "id" or name.endswith("_id"):
            check_id(value, name)
        elif len(value) > 200 or not value.isprintable():       # another kind of path parameter
            raise ValidationError(f"{name} is malformed", param=name)
    for name, value in request.query.items():
        if "\x00" in name or "\x00" in value:
            reject_nul({name: value})
        if not value:       # `?to=`: a parameter given without a value is a mistake, not "no filter"
            raise ValidationError(f"{name} must not be empty (leave the parameter out instead)", param=name)
    if route.content_type is None or request.method not in _BODY_METHODS or not request.body_exists:
        return
    if "Content-Type" not in request.headers:
        return
    media = request.content_type
    if media == route.content_type or (route.content_type == "application/json" and media.endswith("+json")):
        return
    raise ValidationError(f"Content-Type {media or '(empty)'} is not supported: send {route.content_type}",
                          code="unsupported_media_type", status=415, param="Content-Type")


Handler = Callable[[Call], Awaitable[Any]]


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    handler: Handler
    auth: str = "key"               # public | key | key_or_publishable
    status: int = 200
    summary: str = ""
    request_fields: tuple[str, ...] = ()
    response_fields: tuple[str, ...] = ()
    tags: tuple[str, ...] = field(default_factory=tuple)
    # POSTs honour an idempotency key: "route" stores the answer with the route's writes (one
    # transaction); "service" when the service function guards itself (payments, intents).
    idempotency: str = "route"
    # The media type a request body must have (a body of any other type is a 415; no body, or
    # no Content-Type, is read as JSON); None: the handler reads the raw bytes whatever they are.
    content_type: str | None = "application/json"


ErrorRenderer = Callable[[DomainError, str], dict]


@dataclass(frozen=True)
class Interface:
    """One REST interface: its routes, how it renders errors, and its rate-limit rule."""

    name: str
    prefix: str
    routes: list[Route]
    render_error: ErrorRenderer
    rate_rule: ratelimit.Rule
    authenticate: Callable[..., Awaitable[Principal]] = auth.authenticate
    # Optional: the rule for an authenticated caller (e.g. per CRM plan); rate_rule otherwise.
    rate_rule_for: Callable[[Any], ratelimit.Rule] | None = None
    # Optional: authenticate and count the request in one step (auth.admit); else the two above.
    admit: Callable[..., Awaitable[tuple[Any, ratelimit.RateState]]] | None = None
    # A member's `qafila_session` cookie is a credential here (its writes need X-CSRF-Token).
    cookies: bool = False


def _error_response(iface: Interface, err: DomainError, rid: str) -> web.Response:
    headers = dict(err.headers)
    headers["X-Request-Id"] = rid
    return json_response(iface.render_error(err, rid), status=err.status, headers=headers)


def error_response(iface: Interface, request: web.Request, exc: Exception) -> web.Response | None:
    """The interface's answer to what a route (or the router, for 404/405) raised; None for an
    HTTPException to pass on as it is (a redirect)."""
    rid = request_id(request)
    if isinstance(exc, DomainError):
        return _error_response(iface, exc, rid)
    if isinstance(exc, web.HTTPNotFound):
        return _error_response(iface, NotFound(param=None), rid)
    if isinstance(exc, web.HTTPMethodNotAllowed):
        # A fixed path (`/payments/create`) also matches its sibling `/payments/{id}`, whose
        # methods the router adds; they do not apply to it (see _method_not_allowed).
        allowed = _fixed_paths(iface).get(request.path[len(iface.prefix):]) or exc.allowed_methods
        err = DomainError(f"Method {request.method} is not allowed here", code="method_not_allowed",
                          status=405, headers={"Allow": ",".join(sorted(allowed))})
        return _error_response(iface, err, rid)
    if isinstance(exc, web.HTTPRequestEntityTooLarge):
        return _error_response(iface, ValidationError("Request body is too large", code="body_too_large",
                                                      status=413), rid)
    if isinstance(exc, web.HTTPException):
        return None
    outage = outage_error(request, exc)
    if outage is not None:
        return _error_response(iface, outage, rid)
    log.error("unexpected error request_id=%s %s %s", rid, request.method, request.path, exc_info=exc)
    err = DomainError("Internal server error", code="internal_error", status=500)
    err.type = "api_error"
    return _error_response(iface, err, rid)


def add_routes(app: web.Application, iface: Interface) -> list[web.AbstractRoute]:
    """The interface's routes on `app`, under its prefix. Each route answers its own errors
    (`_wrap`) in the interface's shape; what the router itself refuses under the prefix (404,
    405) is answered by the root middleware with `error_response`."""
    return [app.router.add_route(route.method, iface.prefix + route.path, _wrap(iface, route))
            for route in iface.routes]


def _fixed_paths(iface: Interface) -> dict[str, set[str]]:
    """The methods of each path of the interface that has no parameter (`/payments/intent`)."""
    out: dict[str, set[str]] = {}
    for r in iface.routes:
        if "{" not in r.path:
            out.setdefault(r.path, set()).add(r.method)
    return out


def _method_not_allowed(fixed: dict[str, set[str]], prefix: str, request: web.Request) -> None:
    """`GET /v1/payments/intent` reaches the route `GET /v1/payments/{id}` with the id "intent";
    it is the fixed path `/payments/intent` asked with a method it does not take: 405, as the
    router answers for any other fixed path, not a malformed id."""
    allowed = fixed.get(request.path[len(prefix):])
    if allowed and request.method not in allowed:
        raise DomainError(f"Method {request.method} is not allowed here", code="method_not_allowed", status=405,
                          headers={"Allow": ",".join(sorted(allowed))})


def cookie_credentials(request: web.Request) -> dict:
    """The session cookie, the CSRF header and whether the request writes: for auth.admit."""
    cookie = request.cookies.get(sessions.COOKIE)
    if not cookie:
        return {}
    return {"cookie": cookie, "csrf": request.headers.get("X-CSRF-Token"), "unsafe": request.method not in _SAFE}


_SAFE = frozenset({"GET", "HEAD", "OPTIONS"})


def _wrap(iface: Interface, route: Route):
    public = route.auth == "public"
    fixed = _fixed_paths(iface) if "{" in route.path else {}
    allow_publishable = route.auth == "key_or_publishable"
    keyed = route.method in ("POST", "PUT")       # a PUT's key is kept and replayed like a POST's
    needed = None if public else permissions.for_route(iface.name, route.method, route.path)
    # /me, /me/... and /auth/... (not /merchant): open to a member still to enrol in 2FA
    own_account = route.path == "/me" or route.path.startswith(("/me/", "/auth/"))

    async def handle(request: web.Request) -> web.StreamResponse:
        audit.set_request(ip=client_address(request), user_agent=request.headers.get("User-Agent"))
        try:
            principal = None
            if public:
                rule = iface.rate_rule
                state = await ratelimit.hit(rule, f"ip:{client_address(request)}")
            elif iface.admit is not None:
                rule = iface.rate_rule
                principal, state = await iface.admit(request.headers.get("Authorization"), rule=rule,
                                                     allow_publishable=allow_publishable,
                                                     client_address=client_address(request),
                                                     **(cookie_credentials(request) if iface.cookies else {}))
            else:
                principal = await iface.authenticate(request.headers.get("Authorization"),
                                                     allow_publishable=allow_publishable,
                                                     client_address=client_address(request),
                                                     **(cookie_credentials(request) if iface.cookies else {}))
                rule = iface.rate_rule_for(principal) if iface.rate_rule_for else iface.rate_rule
                state = await ratelimit.hit(rule, principal.credential_id)
            if not state.allowed:
                raise DomainError(rule.message, code="rate_limit_exceeded", status=429,
                                  headers=state.headers())
            if getattr(principal, "member_id", None) is not None:        # a member's session (any port)
                if principal.two_factor_pending and not own_account:
                    raise DomainError("Your merchant requires two-factor sign-in: enrol at /api/me/two-factor/enroll",
                                      code="two_factor_enrollment_required", status=403)
                if needed is not None:
                    permissions.require(principal.permissions, needed)
            try:
                check_request(route, request)
            except ValidationError as exc:
                if exc.code == "invalid_id" and fixed:
                    _method_not_allowed(fixed, iface.prefix, request)
                raise
            call = Call(request, principal)
            key = call.idempotency_key if keyed else None
            if key and isinstance(principal, Principal) and route.idempotency == "route":
                result = await _idempotent(iface, route, call, key)
            else:
                result = await route.handler(call)
            if isinstance(result, web.StreamResponse):
                result.headers.update(state.headers())
                return result
            return json_response(result, status=route.status, headers=state.headers())
        except Exception as exc:       # answered in the interface's shape (one frame, not two)
            answer = error_response(iface, request, exc)
            if answer is None:
                raise
            return answer

    handle.__name__ = route.handler.__name__
    return handle


async def _idempotent(iface: Interface, route: Route, call: Call, key: str) -> Any:
    """A keyed POST or PUT of a route whose service does not guard itself: the shaped answer is
    stored (secrets removed) in the same transaction as the route's writes and replayed."""
    body = await call.body()

    async def execute():
        result = await route.handler(call)
        if isinstance(result, web.StreamResponse):
            raise ValidationError("This operation does not take an idempotency key", param="idempotency_key")
        return result

    async def decode(stored):
        return stored
    return await idempotency.run(
        principal=call.principal, operation=f"{iface.name}:{route.method} {route.path}", key=key,
        params={"path": call.params, "body": body}, execute=execute,
        encode=idempotency.redact, decode=decode)
