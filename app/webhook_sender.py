"""The aiohttp implementation of services.infra.webhook_http: one POST per call, the address
policy enforced at connect time (so a DNS answer that changed since configuration is caught),
no redirects, a bounded read of the answer, a total timeout."""
from __future__ import annotations

import asyncio
import functools
import ipaddress
import socket
import time
from collections.abc import Callable
from urllib.parse import urlsplit

import aiohttp
from aiohttp.abc import AbstractResolver
from aiohttp.client_proto import ResponseHandler
from aiohttp.resolver import DefaultResolver

from services.infra.webhook_http import DeliveryResult, install_transport

MAX_RESPONSE_BYTES = 4096       # the answer is not used: read a little so the server may finish
BODY_GRACE = 0.5                # seconds to read that little once the status is in; it never decides
BODILESS = (b" 204", b" 304")   # statuses whose answer ends at the blank line after the headers
USER_AGENT = "Qafila-Webhooks/1.0"


class AddressRefused(OSError):
    pass


class _PolicyResolver(AbstractResolver):
    """Resolves like aiohttp does, then keeps only the addresses the policy allows."""

    def __init__(self, allow: Callable[[str], bool]):
        self._inner = DefaultResolver()
        self._allow = allow

    async def resolve(self, host: str, port: int = 0, family: int = socket.AF_INET):
        infos = await self._inner.resolve(host, port, family)
        allowed = [i for i in infos if self._allow(i["host"])]
        if not allowed:
            raise AddressRefused(f"no allowed address for {host}")
        return allowed

    async def close(self) -> None:
        await self._inner.close()


class _OneAnswerHandler(ResponseHandler):
    """One request per connection (force_close): a 204 or 304 answer ends at the blank line
    after its headers (RFC 9112 section 6.3), so whatever a receiver sends after it (FastAPI's
    `null`, a stray chunk terminator) is dropped instead of failing the parse of a delivered
    webhook. Any other answer is passed to aiohttp's parser untouched."""

    _head = b""
    _mode = "head"          # head: collecting the status line and headers | pass | drop

    def data_received(self, data: bytes) -> None:
        if self._mode == "pass":
            super().data_received(data)
            return
        if self._mode == "drop":
            return
        self._head += data
        end = self._head.find(b"\r\n\r\n")
        if end < 0 and len(self._head) < 65536:
            return
        head, self._head = self._head, b""
        if end >= 0 and head.startswith(b"HTTP/1.") and head[8:12] in BODILESS:
            self._mode = "drop"
            head = head[:end + 4]
        else:
            self._mode = "pass"
        super().data_received(head)


class _OneAnswerConnector(aiohttp.TCPConnector):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        # aiohttp builds each connection's protocol with this factory (BaseConnector.__init__);
        # tests/test_contract_consistency.py fails if a new aiohttp stops using it.
        self._factory = functools.partial(_OneAnswerHandler, loop=self._loop)


def _literal_ip(host: str) -> str | None:
    try:
        return str(ipaddress.ip_address(host.strip("[]")))
    except ValueError:
        return None


async def send(url: str, *, body: bytes, headers: dict[str, str], timeout: float,
               allow_address: Callable[[str], bool]) -> DeliveryResult:
    started = time.monotonic()

    def done(status: int | None = None, error: str | None = None) -> DeliveryResult:
        return DeliveryResult(status_code=status, latency_ms=int((time.monotonic() - started) * 1000), error=error)

    host = urlsplit(url).hostname or ""
    literal = _literal_ip(host)
    # aiohttp does not ask the resolver about an IP literal: check it here.
    if literal is not None and not allow_address(literal):
        return done(error="address not allowed")
    try:
        connector = _OneAnswerConnector(resolver=_PolicyResolver(allow_address), force_close=True, limit=1,
                                         use_dns_cache=False)
        async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=timeout),
                                         trust_env=False, auto_decompress=False) as session:
            async with session.post(url, data=body, headers={**headers, "User-Agent": USER_AGENT},
                                    allow_redirects=False) as resp:
                # The status decides (any 2xx is delivered); the body is read briefly, best effort,
                # so an answer streamed until the connection closes cannot turn a 2xx into a timeout.
                answered = done(status=resp.status)
                try:
                    await asyncio.wait_for(resp.content.read(MAX_RESPONSE_BYTES), BODY_GRACE)
                except (asyncio.TimeoutError, aiohttp.ClientError, OSError):
                    pass
                return answered
    except asyncio.TimeoutError:
        return done(error=f"timeout after {timeout:g} s")
    except aiohttp.ClientConnectorError as exc:
        if isinstance(exc.os_error, AddressRefused) or isinstance(exc.__cause__, AddressRefused):
            return done(error="address not allowed")
        return done(error="connection failed")
    except AddressRefused:
        return done(error="address not allowed")
    except aiohttp.ClientError as exc:
        return done(error=f"http error: {type(exc).__name__}")
    except OSError as exc:
        return done(error=f"network error: {type(exc).__name__}")


def install() -> None:
    """Make services deliver webhooks through aiohttp (idempotent)."""
    install_transport(send)
