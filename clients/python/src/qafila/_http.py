"""Requests, retries and idempotency keys, shared by the synchronous and the asynchronous client."""
from __future__ import annotations

import asyncio
import json
import os
import random
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Optional, Type

import httpx

from .errors import (APIConnectionError, QafilaError, _in_flight, error_from_response, parse_retry_after)

VERSION = "0.1.0"
DEFAULT_BASE_URL = "http://127.0.0.1:8000"

# How a call may be retried:
#   SAFE   -- GETs, keyed POSTs, and PUTs that set fields: any failure without an answer, 429,
#             409 "still being processed", and 5xx.
#   UNSAFE -- state changes by PUT that the service does not deduplicate (pause, send, ...):
#             only when the request surely did not run: could not connect, 429, 503.
SAFE = "safe"
UNSAFE = "unsafe"


@dataclass
class Call:
    method: str
    path: str
    params: Optional[Dict[str, Any]] = None
    body: Optional[Dict[str, Any]] = None
    model: Optional[Type[Any]] = None
    idempotency_key: Optional[str] = None
    retry: str = SAFE
    extra_headers: Dict[str, str] = field(default_factory=dict)


def clean(d: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    return {k: v for k, v in (d or {}).items() if v is not None}


def merge_params(params: Optional[Dict[str, Any]], kwargs: Dict[str, Any]) -> Dict[str, Any]:
    out = dict(params or {})
    out.update(kwargs)
    return clean(out)


def query_value(v: Any) -> Any:
    if isinstance(v, bool):
        return "true" if v else "false"
    return v


class BaseClient:
    def __init__(self, api_key: Optional[str] = None, *, base_url: Optional[str] = None, max_retries: int = 3,
                 timeout: float = 30.0, backoff_base: float = 0.5, backoff_max: float = 8.0,
                 max_retry_after: float = 60.0):
        api_key = api_key or os.environ.get("QAFILA_API_KEY")
        if not api_key:
            raise QafilaError("no API key: pass api_key=... or set QAFILA_API_KEY")
        self.api_key = api_key
        self.base_url = (base_url or os.environ.get("QAFILA_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self.max_retries = max(0, int(max_retries))
        self.timeout = timeout
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.max_retry_after = max_retry_after
        self._random = random.Random()

    # ------------------------------------------------------------------ request pieces

    def _headers(self, call: Call, key: Optional[str]) -> Dict[str, str]:
        h = {"Authorization": f"Bearer {self.api_key}", "Accept": "application/json",
             "User-Agent": f"qafila-python/{VERSION}"}
        if call.body is not None:
            h["Content-Type"] = "application/json"
        if key:
            h["Idempotency-Key"] = key
        h.update(call.extra_headers)
        return h

    def _prepare(self, call: Call):
        # One key per logical call, generated here once and sent again on every retry.
        key = call.idempotency_key
        if call.method == "POST" and not key:
            key = str(uuid.uuid4())
        content = None
        if call.body is not None:
            content = json.dumps(call.body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        params = {k: query_value(v) for k, v in clean(call.params).items()}
        return dict(method=call.method, url=self.base_url + call.path, params=params or None,
                    content=content, headers=self._headers(call, key))

    def _backoff(self, attempt: int) -> float:
        d = min(self.backoff_max, self.backoff_base * (2 ** attempt))
        return d / 2 + self._random.uniform(0, d / 2)          # exponential, with jitter

    def _retry_delay_for_error(self, call: Call, err: QafilaError, attempt: int) -> Optional[float]:
        """Seconds to wait before retrying after an answer, or None to raise it."""
        if attempt >= self.max_retries:
            return None
        status = err.status or 0
        if status == 429 or status == 503:
            pass
        elif call.retry != SAFE:
            return None
        elif status == 409:
            if not (err.code == "idempotency_conflict" and _in_flight(err.message, err.detail)):
                return None
        elif status not in (500, 502, 504):
            return None
        wait = parse_retry_after(err.headers.get("retry-after"))
        if wait is not None:
            if wait > self.max_retry_after:
                return None
            return max(wait, 0.0) + self._random.uniform(0, 0.1)
        return self._backoff(attempt)

    def _retry_delay_for_exception(self, call: Call, exc: Exception, attempt: int) -> Optional[float]:
        if attempt >= self.max_retries:
            return None
        if call.retry != SAFE and not isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)):
            return None
        return self._backoff(attempt)

    def _result(self, call: Call, response: httpx.Response) -> Any:
        if response.status_code == 204 or not response.content:
            data: Any = {}
        else:
            try:
                data = response.json()
            except ValueError:
                raise QafilaError(f"the service answered {response.status_code} with a body that is not JSON",
                                  status=response.status_code, request_id=response.headers.get("x-request-id"))
        if call.model is not None:
            return call.model.from_dict(data)
        return data

    @staticmethod
    def _error(response: httpx.Response) -> QafilaError:
        try:
            body = response.json()
        except ValueError:
            body = None
        return error_from_response(response.status_code, body, dict(response.headers), response.text)


class SyncRequester(BaseClient):
    def __init__(self, api_key=None, *, http_client: Optional[httpx.Client] = None,
                 transport: Optional[httpx.BaseTransport] = None, sleep: Callable[[float], None] = time.sleep, **kw):
        super().__init__(api_key, **kw)
        self._owns_client = http_client is None
        self._http = http_client or httpx.Client(timeout=self.timeout, transport=transport)
        self._sleep = sleep

    def request(self, call: Call) -> Any:
        req = self._prepare(call)
        attempt = 0
        while True:
            try:
                response = self._http.request(**req)
            except httpx.TransportError as exc:
                delay = self._retry_delay_for_exception(call, exc, attempt)
                if delay is None:
                    raise APIConnectionError(f"could not reach the service: {exc!r}") from exc
                self._sleep(delay)
                attempt += 1
                continue
            if response.status_code < 300:
                return self._result(call, response)
            err = self._error(response)
            delay = self._retry_delay_for_error(call, err, attempt)
            if delay is None:
                raise err
            self._sleep(delay)
            attempt += 1

    def close(self) -> None:
        if self._owns_client:
            self._http.close()


class AsyncRequester(BaseClient):
    def __init__(self, api_key=None, *, http_client: Optional[httpx.AsyncClient] = None,
                 transport: Optional[httpx.AsyncBaseTransport] = None, sleep=asyncio.sleep, **kw):
        super().__init__(api_key, **kw)
        self._owns_client = http_client is None
        self._http = http_client or httpx.AsyncClient(timeout=self.timeout, transport=transport)
        self._sleep = sleep

    async def request(self, call: Call) -> Any:
        req = self._prepare(call)
        attempt = 0
        while True:
            try:
                response = await self._http.request(**req)
            except httpx.TransportError as exc:
                delay = self._retry_delay_for_exception(call, exc, attempt)
                if delay is None:
                    raise APIConnectionError(f"could not reach the service: {exc!r}") from exc
                await self._sleep(delay)
                attempt += 1
                continue
            if response.status_code < 300:
                return self._result(call, response)
            err = self._error(response)
            delay = self._retry_delay_for_error(call, err, attempt)
            if delay is None:
                raise err
            await self._sleep(delay)
            attempt += 1

    async def aclose(self) -> None:
        if self._owns_client:
            await self._http.aclose()
