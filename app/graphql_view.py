"""The /graphql endpoint: authenticates, rate-limits (the caller's /api bucket), builds the
context, and renders errors by the rules of DESIGN.md."""
from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from pathlib import Path

import orjson
from aiohttp import web
from graphql import (FieldNode, FragmentDefinitionNode, FragmentSpreadNode, InlineFragmentNode,
                     OperationDefinitionNode, parse)
from graphql import OperationType as GraphQLOperationType
from cross_web import HTTPException
from strawberry.aiohttp.views import AiohttpWebSocketAdapter, GraphQLView
from strawberry.exceptions import MissingQueryError
from strawberry.http import GraphQLRequestData
from strawberry.schema.exceptions import CannotGetOperationTypeError, InvalidOperationTypeError
from strawberry.types.graphql import OperationType
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import BaseGraphQLTransportWSHandler

from rest_compat.merchant_team import set_cookie
from rest_compat.routing import client_address, cookie_credentials, json_response, outage_error, request_id
from schema import format_error
from schema.context import Context
from services.identity import audit, auth, ratelimit, sessions
from services.errors import DomainError, ValidationError
from services.infra import faults


@functools.cache
def _graphiql_page() -> str:
    return (Path(__file__).parent / "static" / "graphiql" / "index.html").read_text(encoding="utf-8")


class _TextWebSocketAdapter(AiohttpWebSocketAdapter):
    """graphql-transport-ws messages as text frames (browser clients parse text, not bytes)."""

    async def send_json(self, message) -> None:
        if not self.ws.closed:
            await self.ws.send_str(orjson.dumps(message).decode())


class _TransportWSHandler(BaseGraphQLTransportWSHandler):
    """graphql-transport-ws with the API key in `connection_init`'s payload (`authorization`:
    "Bearer sk_..." or the bare key; `Authorization` and `apiKey` also read), or the upgrade
    request's Authorization header. A missing or bad key closes the socket with 4401."""

    async def handle_connection_init(self, message) -> None:
        payload = message.get("payload") or {}
        key = next((payload[k] for k in ("authorization", "Authorization", "apiKey", "api_key")
                    if isinstance(payload, dict) and isinstance(payload.get(k), str)), None)
        ctx = self.context
        cookie = ctx.request.cookies.get(sessions.COOKIE) if key is None and self.view.kind == "main" else None
        if key is not None or cookie:
            header = None if key is None else key if key.lower().startswith("bearer ") else f"Bearer {key}"
            try:
                ctx._principal, ctx._auth_error = await self.view.authenticate(
                    header, allow_publishable=False, client_address=getattr(ctx, "client_address", None),
                    **({"cookie": cookie} if cookie else {})), None
            except DomainError:
                ctx._principal = None
        if ctx._principal is None or ctx._auth_error is not None:
            await self.websocket.close(code=4401, reason="Unauthorized: invalid API key")
            return
        await super().handle_connection_init(message)


class QafilaGraphQLView(GraphQLView):
    websocket_adapter_class = _TextWebSocketAdapter
    graphql_transport_ws_handler_class = _TransportWSHandler

    def __init__(self, schema, *, graphiql: bool, kind: str = "main",
                 authenticate: Callable[..., Awaitable] = auth.authenticate,
                 rate_rule: ratelimit.Rule = ratelimit.MERCHANT_API,
                 rate_rule_for: Callable[..., ratelimit.Rule] | None = None,
                 admit: Callable[..., Awaitable] | None = None):
        super().__init__(schema=schema, graphql_ide="graphiql" if graphiql else None,
                         allow_queries_via_get=True, subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL,),
                         keep_alive=False)
        self.kind = kind
        self.authenticate = authenticate
        self.rate_rule = rate_rule
        self.rate_rule_for = rate_rule_for      # per caller (CRM plans), else rate_rule
        self.admit = admit                      # authenticate and count in one step (auth.admit)

    async def __call__(self, request: web.Request) -> web.StreamResponse:
        try:
            return await self._execute(request)
        except Exception as exc:
            # PostgreSQL or Redis down while authenticating or counting the request: a top-level
            # error with HTTP 503 and Retry-After, never a 500 (services.infra.faults).
            outage = outage_error(request, exc)
            if outage is None:
                raise
            return json_response({"data": None, "errors": [{"message": outage.message, "extensions": {
                "code": outage.code, "status": outage.status, "request_id": request_id(request)}}]},
                status=outage.status, headers=outage.headers)

    async def _execute(self, request: web.Request) -> web.StreamResponse:
        rid = request_id(request)
        principal, auth_error, state = None, None, None
        counted = request.method == "POST" or bool(request.query.get("query"))
        header = request.headers.get("Authorization")
        audit.set_request(ip=client_address(request), user_agent=request.headers.get("User-Agent"))
        cookie = cookie_credentials(request) if self.kind == "main" and not header else {}
        if header or cookie:
            try:
                if counted and self.admit is not None:
                    principal, state = await self.admit(header, rule=self.rate_rule, allow_publishable=False,
                                                        client_address=client_address(request), **cookie)
                else:
                    principal = await self.authenticate(header, allow_publishable=False,
                                                        client_address=client_address(request), **cookie)
            except DomainError as err:
                auth_error = err
            if auth_error is not None and auth_error.status == 429:    # an address guessing keys
                return json_response({"data": None, "errors": [{"message": auth_error.message, "extensions": {
                    "code": auth_error.code, "status": 429, "request_id": rid}}]},
                    status=429, headers=auth_error.headers)
        if counted:
            rule = self.rate_rule_for(principal) if self.rate_rule_for and principal else self.rate_rule
            if state is None:
                subject = getattr(principal, "credential_id", None) or f"ip:{client_address(request)}"
                state = await ratelimit.hit(rule, subject)
            if state.allowed and request.method == "POST" and _is_json(request.headers.get("Content-Type")):
                # Each root field of a mutation counts, as if the aliased fields came one by one.
                extra = _mutation_fields(await request.read()) - 1
                if extra > 0:
                    subject = getattr(principal, "credential_id", None) or f"ip:{client_address(request)}"
                    state = await ratelimit.hit(rule, subject, count=extra)
            if not state.allowed:
                return json_response({"data": None, "errors": [{
                    "message": rule.message,
                    "extensions": {"code": "rate_limit_exceeded", "status": 429, "request_id": rid}}]},
                    status=429, headers=state.headers())
        ctx = request["qafila_context"] = Context(request=request, request_id=rid,
                                                  client_address=client_address(request),
                                                  _principal=principal, _auth_error=auth_error, kind=self.kind)
        try:
            response = await self._run(request, ctx)
        finally:
            # The context refers to the request: without this the pair would wait for the
            # cycle collector (with everything the request holds) instead of being freed now.
            del request["qafila_context"]
        if ctx.answer_status is not None:       # a refused document (see process_result): 400
            response.set_status(ctx.answer_status)
        if state is not None:
            response.headers.update(state.headers())
        if ctx.retry_after is not None:          # a resolver met an outage: see process_result
            response.set_status(503)
            response.headers["Retry-After"] = str(ctx.retry_after)
        if ctx.session_cookie is not None:       # a cookie session signed in (otpVerify, twoFactorVerify)
            set_cookie(response, *ctx.session_cookie)
        return response

    async def render_graphql_ide(self, request: web.Request) -> web.Response:
        """GraphiQL with its scripts and styles served by this service (app/static/graphiql),
        not from a CDN: it works with no internet access."""
        return web.Response(text=_graphiql_page(), content_type="text/html", charset="utf-8")

    async def _run(self, request: web.Request, ctx: Context) -> web.StreamResponse:
        """Strawberry's run, with every refusal of the HTTP request itself (not JSON, not an
        object, no query, wrong content type or method) answered as a JSON GraphQL error with
        extensions {code, status, param, request_id} instead of Strawberry's plain text.

        A POST takes the steps Strawberry's run takes for one, in this coroutine and without
        those that cannot apply to a POST on this view (a websocket handshake, GraphiQL, a
        batch, a root value): parse the body, execute, process_result, one JSON response. GET
        and a streaming transport (none is configured) take Strawberry's run."""
        try:
            if request.method != "POST":
                return await self.run(request=request)
            _check_media(request.headers.get("Content-Type"))
            request_data = _post_data(await request.read(), self._stream_transport_map
                                      and self._get_stream_transport_from_headers(request.headers))
            if request_data.protocol != "http":
                return await self.run(request=request)
            try:
                result = await self.schema.execute(
                    request_data.query, variable_values=request_data.variables, context_value=ctx,
                    operation_name=request_data.operation_name, allowed_operation_types=_POST_OPERATIONS,
                    operation_extensions=request_data.extensions)
            except CannotGetOperationTypeError as e:
                raise HTTPException(400, e.as_http_error_reason()) from e
            except InvalidOperationTypeError as e:
                raise HTTPException(400, e.as_http_error_reason("POST")) from e
            except MissingQueryError as e:
                raise HTTPException(400, "No GraphQL query found in the request") from e
            response_data = await self.process_result(request=request, result=result)
            if result.errors:
                self._handle_errors(result.errors, response_data)
            return web.Response(body=self.encode_json(response_data), content_type="application/json",
                                charset="utf-8")
        except DomainError as err:
            return _request_error(request, err)
        except HTTPException as exc:
            status = exc.status_code
            code = "invalid_json" if "JSON" in (exc.reason or "") else _HTTP_CODES.get(status, "invalid_request")
            return _request_error(request, DomainError(exc.reason or "Invalid request", code=code, status=status))

    def is_websocket_request(self, request: web.Request) -> bool:
        # Only a GET can be a handshake; Strawberry builds a WebSocketResponse to find out.
        return request.method == "GET" and super().is_websocket_request(request)

    async def parse_http_body(self, request_adapter):
        """A POST body as `_post_data` reads it; GET requests are Strawberry's."""
        if request_adapter.method != "POST":
            return await super().parse_http_body(request_adapter)
        headers = request_adapter.headers
        _check_media(headers.get("Content-Type"))
        return _post_data(await request_adapter.get_body(),
                          self._stream_transport_map and self._get_stream_transport_from_headers(headers))

    async def get_context(self, request: web.Request, response) -> Context:
        return request["qafila_context"]

    async def process_result(self, request: web.Request, result):
        data = {"data": result.data}
        if result.errors:
            rid = request_id(request)
            ctx = request["qafila_context"]
            data["errors"] = [format_error(e, rid) for e in result.errors]
            if result.data is None and all(e.path is None for e in result.errors):
                ctx.answer_status = 400            # refused before execution (syntax, validation, cost)
            outages = [e.original_error for e in result.errors if faults.is_outage(e.original_error)]
            if outages:
                ctx.retry_after = max(faults.retry_after(e) for e in outages)
        if result.extensions:
            data["extensions"] = result.extensions
        return data

    def encode_json(self, data) -> bytes:
        return orjson.dumps(data)

    def decode_json(self, data: str | bytes) -> object:
        return orjson.loads(data)

_POST_OPERATIONS = OperationType.from_http("POST")
_HTTP_CODES = {400: "invalid_request", 404: "resource_not_found", 405: "method_not_allowed",
               415: "unsupported_media_type"}


def _is_json(content_type: str | None) -> bool:
    try:
        _check_media(content_type)
    except DomainError:
        return False         # refused by _run before its body is read
    return True


def _mutation_fields(raw: bytes) -> int:
    """How many root fields the mutation of a POST body runs (1 for anything else, including a
    body that is not a well-formed request: its refusal comes later, counted once)."""
    if b"mutation" not in raw:
        return 1
    try:
        data = orjson.loads(raw)
        return _root_mutation_fields(data["query"], data.get("operationName"))
    except Exception:
        return 1


@functools.lru_cache(maxsize=256)
def _root_mutation_fields(query: str, operation_name: str | None) -> int:
    document = parse(query)
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)
                  and (operation_name is None or (d.name and d.name.value == operation_name))]
    if len(operations) != 1 or operations[0].operation != GraphQLOperationType.MUTATION:
        return 1

    def count(selection_set, seen: frozenset) -> int:
        n = 0
        for sel in selection_set.selections:
            if isinstance(sel, FieldNode):
                n += sel.name.value != "__typename"
            elif isinstance(sel, InlineFragmentNode):
                n += count(sel.selection_set, seen)
            elif isinstance(sel, FragmentSpreadNode) and sel.name.value in fragments and sel.name.value not in seen:
                n += count(fragments[sel.name.value].selection_set, seen | {sel.name.value})
        return n
    return max(1, count(operations[0].selection_set, frozenset()))


def _check_media(content_type: str | None) -> None:
    """A POST's Content-Type: application/json (or none), checked before the body is read."""
    media = content_type.split(";", 1)[0].strip().lower() if content_type else "application/json"
    if media != "application/json" and not media.endswith("+json"):
        raise DomainError(f"Content-Type {media or '(empty)'} is not supported: send application/json",
                          code="unsupported_media_type", status=415, param="Content-Type")


def _post_data(raw: bytes, transport) -> GraphQLRequestData:
    """A POST body (its Content-Type checked by _check_media): a JSON object, `query` a
    non-empty string, `variables`/`extensions` objects, `operationName` a string; each
    refusal a DomainError naming the problem. `transport`: the streaming transport the
    request's Accept header asks for, if any."""
    try:
        data = orjson.loads(raw) if raw.strip() else {}
    except orjson.JSONDecodeError:
        raise ValidationError("Request body is not valid JSON", code="invalid_json") from None
    if not isinstance(data, dict):
        raise ValidationError("Request body must be a JSON object", code="invalid_json")
    query = data.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ValidationError("query is required: the GraphQL document as a string", param="query")
    for name, kind, types in (("variables", "an object", dict), ("extensions", "an object", dict),
                              ("operationName", "a string", str)):
        if not isinstance(data.get(name), (types, type(None))):
            raise ValidationError(f"{name} must be {kind} or null", param=name)
    return GraphQLRequestData(query=query, variables=data.get("variables"),
                              operation_name=data.get("operationName"), extensions=data.get("extensions"),
                              protocol=transport.protocol if transport else "http")


def _request_error(request: web.Request, err: DomainError) -> web.Response:
    rid = request_id(request)
    return json_response({"data": None, "errors": [{"message": err.message, "extensions": {
        "code": err.code, "status": err.status, "param": err.param, "request_id": rid}}]},
        status=err.status, headers=err.headers)
