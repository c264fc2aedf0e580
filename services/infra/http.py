"""Outbound HTTP for services, behind a small protocol: the application installs an aiohttp
implementation (app/crm_http.py); services never import aiohttp themselves."""
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


class NoHttpSender:
    """The default until the application installs a real one."""

    async def post_json(self, url: str, *, json: Any, headers: dict[str, str] | None = None,
                        timeout: float = 10.0) -> HttpResult:
        return HttpResult(status=0, error="no HTTP client installed")
