"""Outbound HTTP for services, behind a small protocol: the application installs an aiohttp
implementation (app/crm_http.py); services never import aiohttp themselves.

`post_json` sends a JSON body; `request` sends any method (GET, PUT, POST, ...) with an optional
body already encoded (bytes, with its content type: an authority's own JSON text, a form) and reads
the answer the same way (JSON parsed, else the text)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass
class HttpResult:
    status: int                 # 0 when the request never got an answer (network error, timeout)
    body: Any = None            # parsed JSON, or the text when it was not JSON
    error: str | None = None


class HttpSender(Protocol):
    async def post_json(self, url: str, *, json: Any, headers: dict[str, str] | None = None,
                        timeout: float = 10.0) -> HttpResult: ...

    async def request(self, method: str, url: str, *, data: bytes | None = None, content_type: str | None = None,
                      headers: dict[str, str] | None = None, timeout: float = 10.0) -> HttpResult: ...


class NoHttpSender:
    """The default until the application installs a real one."""

    async def post_json(self, url: str, *, json: Any, headers: dict[str, str] | None = None,
                        timeout: float = 10.0) -> HttpResult:
        return HttpResult(status=0, error="no HTTP client installed")

    async def request(self, method: str, url: str, *, data: bytes | None = None, content_type: str | None = None,
                      headers: dict[str, str] | None = None, timeout: float = 10.0) -> HttpResult:
        return HttpResult(status=0, error="no HTTP client installed")
