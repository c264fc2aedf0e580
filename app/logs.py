"""Logging for operators: one access line per request and, with QAFILA_LOG_FORMAT=json, every log
record as one JSON object a line. An access line carries the method, the path without its query
string (query strings may hold tokens), the status, the duration and the request id -- never a
header, a body, a key, a card number or a token."""
from __future__ import annotations

import logging
import time

import orjson
from aiohttp import web

access = logging.getLogger("qafila.access")


class JsonFormatter(logging.Formatter):
    """`{"time", "level", "logger", "message", ...extra fields}` per record."""

    FIELDS = ("method", "path", "status", "duration_ms", "request_id", "remote")

    def format(self, record: logging.LogRecord) -> str:
        out = {"time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
               "level": record.levelname.lower(), "logger": record.name, "message": record.getMessage()}
        for name in self.FIELDS:
            if hasattr(record, name):
                out[name] = getattr(record, name)
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(out).decode()


JsonFormatter.converter = time.gmtime


def configure(fmt: str = "text", level: int = logging.INFO) -> None:
    handler = logging.StreamHandler()
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        fmtr = logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s")
        fmtr.converter = time.gmtime
        handler.setFormatter(fmtr)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    logging.getLogger("tortoise").setLevel(logging.WARNING)
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)


_SECRET_PARTS = ("token",)       # path parameters that are credentials (an invoice PDF's token)


def _path(request: web.Request) -> str:
    """The path, with a path parameter that is a credential replaced by its name."""
    path = request.path
    info = request.match_info
    for name in _SECRET_PARTS:
        value = info.get(name) if info is not None else None
        if value:
            path = path.replace(value, "{" + name + "}")
    return path


def access_middleware_factory(enabled: bool):
    @web.middleware
    async def access_log(request: web.Request, handler):
        if not enabled:
            return await handler(request)
        started = time.perf_counter()
        status = 500
        try:
            response = await handler(request)
            status = response.status
            return response
        except web.HTTPException as exc:
            status = exc.status
            raise
        finally:
            ms = round((time.perf_counter() - started) * 1000, 1)
            rid = request.get("request_id", "")
            path = _path(request)
            access.info("%s %s %s %.1fms %s", request.method, path, status, ms, rid,
                        extra={"method": request.method, "path": path, "status": status,
                               "duration_ms": ms, "request_id": rid, "remote": request.remote})
    return access_log
