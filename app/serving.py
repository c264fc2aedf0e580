"""Serving the applications on TCP ports, with limits a slow or greedy client cannot get around.

aiohttp has no timeout for reading a request head or body, and no connection limit: a client
that sends its headers one byte at a time holds a connection (and its memory) for as long as it
likes. Here every connection goes through `GuardedRequestHandler`, aiohttp's own request handler
plus:

- a header timeout: a complete request head must arrive within QAFILA_HEADER_TIMEOUT seconds of
  the connection (or of the first byte of a later request on a kept-alive connection), else the
  connection is closed;
- a body timeout: a request body must arrive within QAFILA_BODY_TIMEOUT seconds of its head
  (time when the server itself stopped reading, e.g. a handler not reading yet, does not count);
- a connection limit per process (QAFILA_MAX_CONNECTIONS, shared by the main and the CRM ports)
  and per client address (QAFILA_MAX_CONNECTIONS_PER_CLIENT): a connection beyond it is answered
  at once with 503, `Retry-After` and `Connection: close`, and closed;
- an idle keep-alive timeout of KEEPALIVE_TIMEOUT seconds (aiohttp's AppRunner default is an hour).

`start_servers()` is what `qafila serve` runs in each process; tests start it on port 0.
"""
from __future__ import annotations

import asyncio
import logging
import resource
from dataclasses import dataclass, field

import orjson
from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from app.backend import Backend
from app.settings import Settings
from rest_compat.routing import new_request_id

log = logging.getLogger("qafila.serving")

KEEPALIVE_TIMEOUT = 75.0     # seconds an idle kept-alive connection stays open (aiohttp's run_app default)
BACKLOG = 1024               # pending TCP connections the kernel queues for accept (a burst)
REFUSED_LINGER = 1.0         # seconds a refused connection is drained before it is closed
REFUSED_RETRY_AFTER = 1


@dataclass(frozen=True)
class Limits:
    header_timeout: float = 10.0
    body_timeout: float = 30.0
    max_connections: int = 1000
    max_connections_per_client: int = 256      # 0: no limit per client address

    @classmethod
    def from_settings(cls, settings: Settings) -> Limits:
        return cls(header_timeout=settings.header_timeout, body_timeout=settings.body_timeout,
                   max_connections=settings.max_connections,
                   max_connections_per_client=settings.max_connections_per_client)


@dataclass
class ConnectionGuard:
    """The open connections of one process, in total and per client address, and what was cut."""

    limits: Limits
    open: int = 0
    per_client: dict[str, int] = field(default_factory=dict)
    refused: int = 0
    header_timeouts: int = 0
    body_timeouts: int = 0

    def admit(self, client: str) -> bool:
        per_client = self.limits.max_connections_per_client
        if self.open >= self.limits.max_connections or (per_client and self.per_client.get(client, 0) >= per_client):
            self.refused += 1
            if self.refused == 1 or self.refused % 1000 == 0:
                log.warning("connection limit reached: %d open (limit %d, %d per client); %d refused so far",
                            self.open, self.limits.max_connections, per_client, self.refused)
            return False
        self.open += 1
        self.per_client[client] = self.per_client.get(client, 0) + 1
        return True

    def release(self, client: str) -> None:
        self.open -= 1
        left = self.per_client.get(client, 1) - 1
        if left > 0:
            self.per_client[client] = left
        else:
            self.per_client.pop(client, None)


def _refusal() -> bytes:
    rid = new_request_id()            # the one request id format (rest_compat.routing)
    body = orjson.dumps({"error": {"type": "api_error", "code": "service_unavailable",
                                   "message": "Too many connections: retry shortly", "param": None,
                                   "request_id": rid}})
    head = (f"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nRetry-After: {REFUSED_RETRY_AFTER}\r\nX-Request-Id: {rid}\r\n"
            f"Connection: close\r\n\r\n")
    return head.encode() + body


class GuardedRequestHandler(RequestHandler):
    """aiohttp's request handler (the asyncio protocol of one connection) with the header and
    body timeouts and the connection limit of `ConnectionGuard`."""

    def __init__(self, manager: web.Server, *, guard: ConnectionGuard, **kwargs):
        super().__init__(manager, **kwargs)
        self._guard = guard
        self._client: str | None = None          # set once admitted
        self._refused_handle: asyncio.Handle | None = None
        self._refused = False
        self._head_timer: asyncio.TimerHandle | None = None
        self._heads_at_arm = 0
        self._body_timer: asyncio.TimerHandle | None = None
        self._last_payload = None

    # -- connection ----------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        client = str(peer[0]) if isinstance(peer, (tuple, list)) and peer else "local"
        if not self._guard.admit(client):
            self._refused = True
            self._refuse(transport)
            return
        self._client = client
        super().connection_made(transport)
        self._arm_head_timer()

    def _refuse(self, transport) -> None:
        """Answer 503 before reading anything, stop writing, and drain what the client sends for
        a moment (closing with unread data would reset the connection before it reads the 503)."""
        self.transport = transport
        transport.write(_refusal())
        if transport.can_write_eof():
            transport.write_eof()
        self._refused_handle = self._loop.call_later(REFUSED_LINGER, transport.close)

    def connection_lost(self, exc: BaseException | None) -> None:
        if self._refused:
            if self._refused_handle is not None:
                self._refused_handle.cancel()
                self._refused_handle = None
            self.transport = None
            return
        self._cancel_head_timer()
        self._cancel_body_timer()
        if self._client is not None:
            self._guard.release(self._client)
            self._client = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return           # drained and ignored
        body_pending = self._last_payload is not None and not self._last_payload.is_eof()
        heads = self._request_count
        super().data_received(data)
        if self._request_count != heads:                    # a complete request head arrived
            self._cancel_head_timer()
            payload = self._messages[-1][1] if self._messages else None
            self._last_payload = payload
            if payload is not None and not payload.is_eof():
                self._arm_body_timer(payload)
        elif (data and not body_pending and self._head_timer is None and not self._force_close
              and not self._upgraded and self._payload_parser is None):   # (not WebSocket frames)
            self._arm_head_timer()                          # the first bytes of a later request head

    # -- header timeout ------------------------------------------------------------------

    def _arm_head_timer(self) -> None:
        self._cancel_head_timer()
        self._heads_at_arm = self._request_count
        self._head_timer = self._loop.call_later(self._guard.limits.header_timeout, self._head_timed_out)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.transport is None or self._force_close or self._request_count != self._heads_at_arm:
            return
        if self._request_in_progress or self._messages:
            self._arm_head_timer()       # a pipelined head while a request runs: look again later
            return
        self._guard.header_timeouts += 1
        log.debug("request head not complete in %.3g s: closing the connection from %s",
                  self._guard.limits.header_timeout, self._client)
        self.force_close()

    # -- body timeout --------------------------------------------------------------------

    def _arm_body_timer(self, payload) -> None:
        self._cancel_body_timer()
        self._body_timer = self._loop.call_later(self._guard.limits.body_timeout, self._body_timed_out, payload)
        payload.on_eof(self._cancel_body_timer)

    def _cancel_body_timer(self) -> None:
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None

    def _body_timed_out(self, payload) -> None:
        self._body_timer = None
        if self.transport is None or self._force_close or payload.is_eof():
            return
        if self._reading_paused or self._buffer_paused:
            # The server stopped reading (the handler has not consumed the body yet): not the
            # client's delay. Look again later.
            self._body_timer = self._loop.call_later(self._guard.limits.body_timeout, self._body_timed_out, payload)
            return
        self._guard.body_timeouts += 1
        log.debug("request body not complete in %.3g s: closing the connection from %s",
                  self._guard.limits.body_timeout, self._client)
        self.force_close()


class GuardedServer(web.Server):
    """aiohttp's low-level server, making a `GuardedRequestHandler` for each connection."""

    def __init__(self, server: web.Server, guard: ConnectionGuard):
        super().__init__(server.request_handler, request_factory=server.request_factory,
                         handler_cancellation=server.handler_cancellation, loop=server._loop, **server._kwargs)
        self.guard = guard

    def __call__(self) -> RequestHandler:
        return GuardedRequestHandler(self, loop=self._loop, guard=self.guard, **self._kwargs)


class GuardedAppRunner(web.AppRunner):
    def __init__(self, app: web.Application, *, guard: ConnectionGuard, **kwargs):
        kwargs.setdefault("keepalive_timeout", KEEPALIVE_TIMEOUT)
        super().__init__(app, **kwargs)
        self._guard = guard

    async def _make_server(self) -> web.Server:
        return GuardedServer(await super()._make_server(), self._guard)


async def start_app(app: web.Application, host: str, port: int, *, guard: ConnectionGuard,
                    reuse_port: bool = False, access_log: logging.Logger | None = None) -> tuple[web.AppRunner, int]:
    """Serve `app` on host:port (0: any free port) with the guard's limits; returns the runner
    (`await runner.cleanup()` stops it) and the bound port."""
    runner = GuardedAppRunner(app, guard=guard, access_log=access_log)
    await runner.setup()
    site = web.TCPSite(runner, host, port, reuse_port=reuse_port, backlog=BACKLOG)
    try:
        await site.start()
    except BaseException:
        await runner.cleanup()
        raise
    return runner, site.port


@dataclass
class Servers:
    """The main and the CRM application of one process, serving."""

    guard: ConnectionGuard
    main_port: int
    crm_port: int
    runners: list[web.AppRunner]

    async def close(self) -> None:
        for runner in reversed(self.runners):
            await runner.cleanup()
        self.runners.clear()


async def start_servers(settings: Settings, backend: Backend, *, host: str = "127.0.0.1", port: int = 8000,
                        crm_port: int = 8001, workers: bool = False, reuse_port: bool = False,
                        access_log: logging.Logger | None = None) -> Servers:
    """Build the main and the CRM application on a started `backend` and serve them; `workers`
    also runs the background workers in this process. One ConnectionGuard covers both ports."""
    from app.server import create_app

    guard = ConnectionGuard(Limits.from_settings(settings))
    servers = Servers(guard=guard, main_port=0, crm_port=0, runners=[])
    try:
        runner, servers.main_port = await start_app(create_app(settings, backend=backend, workers=workers), host,
                                                    port, guard=guard, reuse_port=reuse_port, access_log=access_log)
        servers.runners.append(runner)
        runner, servers.crm_port = await start_app(create_app(settings, kind="crm", backend=backend), host,
                                                   crm_port, guard=guard, reuse_port=reuse_port, access_log=access_log)
        servers.runners.append(runner)
    except BaseException:
        await servers.close()
        raise
    return servers


def raise_open_files_limit(settings: Settings) -> None:
    """Each connection is a file descriptor: lift the soft RLIMIT_NOFILE (up to the hard limit)
    so QAFILA_MAX_CONNECTIONS plus the pools fit, and say so when it cannot."""
    need = settings.max_connections + settings.db_pool_size + settings.redis_pool_size + 256
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < need:
        target = need if hard == resource.RLIM_INFINITY else min(need, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    if soft != resource.RLIM_INFINITY and soft < need:
        log.warning("the open files limit (%d) is below QAFILA_MAX_CONNECTIONS + pools + 256 (%d): "
                    "raise `ulimit -n` or lower QAFILA_MAX_CONNECTIONS", soft, need)
