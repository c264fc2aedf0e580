"""The aiohttp implementation of services.infra.webhook_http: one POST per call, the address
policy enforced at connect time (so a DNS answer that changed since configuration is caught),
no redirects, a bounded read of the answer, a total timeout."""
from __future__ import annotations

import asyncio
import ipaddress
import socket
import time
from collections.abc import Callable
from urllib.parse import urlsplit

import aiohttp
from aiohttp.abc import AbstractResolver
from aiohttp.resolver import DefaultResolver

from services.infra.webhook_http import DeliveryResult, install_transport

MAX_RESPONSE_BYTES = 4096       # the answer is not used: read a little so the server may finish
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
        connector = aiohttp.TCPConnector(resolver=_PolicyResolver(allow_address), force_close=True, limit=1,
                                         use_dns_cache=False)
        async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=timeout),
                                         trust_env=False, auto_decompress=False) as session:
            async with session.post(url, data=body, headers={**headers, "User-Agent": USER_AGENT},
                                    allow_redirects=False) as resp:
                await resp.content.read(MAX_RESPONSE_BYTES)
                return done(status=resp.status)
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
