"""The aiohttp implementation of services.infra.http.HttpSender (outbound calls such as the
messaging platform's Graph API), installed in the runtime by app/backend.py."""
from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import orjson

from services.infra.http import HttpResult


class AiohttpSender:
    async def post_json(self, url: str, *, json: Any, headers: dict[str, str] | None = None,
                        timeout: float = 10.0) -> HttpResult:
        try:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as session:
                async with session.post(url, data=orjson.dumps(json),
                                        headers={"Content-Type": "application/json", **(headers or {})}) as resp:
                    raw = await resp.read()
                    try:
                        body = orjson.loads(raw) if raw else None
                    except orjson.JSONDecodeError:
                        body = raw[:2000].decode("utf-8", "replace")
                    return HttpResult(status=resp.status, body=body)
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as exc:
            return HttpResult(status=0, error=type(exc).__name__)

    async def request(self, method: str, url: str, *, data: bytes | None = None, content_type: str | None = None,
                      headers: dict[str, str] | None = None, timeout: float = 10.0) -> HttpResult:
        """Any method, the body already encoded (bytes and its content type) or none (GET)."""
        sent = {**({"Content-Type": content_type} if content_type else {}), **(headers or {})}
        try:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as session:
                async with session.request(method.upper(), url, data=data, headers=sent) as resp:
                    raw = await resp.read()
                    try:
                        body = orjson.loads(raw) if raw else None
                    except orjson.JSONDecodeError:
                        body = raw[:2000].decode("utf-8", "replace")
                    return HttpResult(status=resp.status, body=body)
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as exc:
            return HttpResult(status=0, error=type(exc).__name__)
