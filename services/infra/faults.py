"""Which failures mean "a backing service is unreachable or saturated" rather than a bug.

One place decides it for every edge (the REST error middlewares, the request-id middleware,
the GraphQL view and error formatter, the background workers): PostgreSQL or Redis refusing,
dropping or timing out a connection, or a connection pool whose wait timed out. Such a
failure answers 503 with `Retry-After`, never 500, and heals by itself: the pools reconnect
on the next use once the dependency is back.
"""
from __future__ import annotations

import asyncio
import errno
import logging
import socket

from services.errors import ServiceUnavailable

log = logging.getLogger("qafila.faults")

MESSAGE = "Service temporarily unavailable"
RETRY_AFTER_BUSY = 1        # seconds: a pool wait timed out, the process is saturated
RETRY_AFTER_DOWN = 5        # seconds: PostgreSQL or Redis cannot be reached

# PostgreSQL SQLSTATEs of a lost or refused connection: class 08 (connection exception),
# 53300 (too many connections), 57P01-57P03 (admin/crash shutdown, cannot connect now).
_DOWN_SQLSTATES = frozenset({"53300", "57P01", "57P02", "57P03"})
_NETWORK_ERRNOS = frozenset({errno.ECONNREFUSED, errno.ECONNRESET, errno.ECONNABORTED, errno.EPIPE,
                             errno.ETIMEDOUT, errno.EHOSTUNREACH, errno.ENETUNREACH, errno.ENETDOWN,
                             errno.EHOSTDOWN, errno.EADDRNOTAVAIL})
_ASYNCPG_CLOSED = ("connection is closed", "pool is closing", "pool is closed")


class PoolTimeout(Exception):
    """Waiting for a pooled connection (PostgreSQL or Redis) took longer than QAFILA_POOL_TIMEOUT."""

    def __init__(self, what: str, timeout: float):
        super().__init__(f"no {what} connection free within {timeout:g} s")
        self.what = what


def _one(exc: BaseException) -> str | None:
    """"busy", "down" or None for this exception alone (not what it wraps)."""
    if isinstance(exc, ServiceUnavailable):
        return "down" if exc.code == ServiceUnavailable.code else None   # not e.g. messaging_not_configured
    if isinstance(exc, PoolTimeout):
        return "busy"
    try:
        import redis.exceptions as rx
    except ImportError:      # pragma: no cover - redis is a dependency
        rx = None
    if rx is not None:
        if isinstance(exc, rx.ConnectionError):
            # BlockingConnectionPool's wait timed out ("No connection available.") or a
            # bounded pool was full: saturation; anything else is Redis unreachable.
            text = str(exc)
            return "busy" if ("No connection available" in text or isinstance(exc, rx.MaxConnectionsError)) \
                else "down"
        if isinstance(exc, rx.TimeoutError):
            return "down"
    state = getattr(exc, "sqlstate", None)
    if isinstance(state, str) and (state.startswith("08") or state in _DOWN_SQLSTATES):
        return "down"
    module = type(exc).__module__ or ""
    if module.startswith("asyncpg") and type(exc).__name__ == "InterfaceError":
        return "down" if any(t in str(exc) for t in _ASYNCPG_CLOSED) else None
    if module.startswith("tortoise"):
        name = type(exc).__name__
        if name == "DBConnectionError":
            return "down"
        if name == "OperationalError" and "database is locked" in str(exc):
            return "busy"         # SQLite's busy timeout ran out: the single writer is saturated
        return None
    if module == "sqlite3" and "database is locked" in str(exc):
        return "busy"
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError)):
        return "busy"
    if isinstance(exc, (ConnectionError, socket.gaierror)):   # refused, reset, broken pipe, DNS
        return "down"
    if isinstance(exc, OSError) and (exc.errno in _NETWORK_ERRNOS or (
            exc.errno is None and str(exc).startswith(("Connect call failed", "Multiple exceptions")))):
        return "down"      # asyncio's connect to several addresses, unreachable networks
    return None


def classify(exc: BaseException | None) -> str | None:
    """"busy" (a pool wait timed out), "down" (a dependency is unreachable) or None (not an
    outage) for `exc` or anything it wraps (__cause__, __context__, exception groups)."""
    seen: set[int] = set()
    stack = [exc]
    while stack and len(seen) < 16:
        e = stack.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        kind = _one(e)
        if kind is not None:
            return kind
        if isinstance(e, BaseExceptionGroup):
            stack.extend(e.exceptions)
        stack.extend((e.__cause__, e.__context__))
        wrapped = getattr(e, "original_error", None)      # GraphQLError
        if isinstance(wrapped, BaseException):
            stack.append(wrapped)
    return None


def is_outage(exc: BaseException | None) -> bool:
    return classify(exc) is not None


def retry_after(exc: BaseException | None) -> int:
    """Seconds for `Retry-After`: soon after a pool wait timed out, later when a dependency is down."""
    return RETRY_AFTER_BUSY if classify(exc) == "busy" else RETRY_AFTER_DOWN


def unavailable(exc: BaseException, *, where: str = "") -> ServiceUnavailable:
    """The 503 to answer for an outage `exc` (is_outage(exc) is true), logged once as one line:
    the exception's type only (a driver message may name hosts or carry query values)."""
    if isinstance(exc, ServiceUnavailable):
        exc.headers.setdefault("Retry-After", str(RETRY_AFTER_DOWN))
        return exc
    kind = classify(exc) or "down"
    retry = RETRY_AFTER_BUSY if kind == "busy" else RETRY_AFTER_DOWN
    log.warning("service unavailable (%s: %s)%s", kind, type(exc).__name__, f" {where}" if where else "")
    err = ServiceUnavailable(MESSAGE, headers={"Retry-After": str(retry)})
    err.__cause__ = exc
    return err


class OutageTracebacks(logging.Filter):
    """Turns a log record whose exception is an outage into one line (no traceback): a pool
    reconnecting or a worker retrying while PostgreSQL or Redis is down says so every few
    seconds, and a traceback each time would bury everything else."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None and is_outage(exc):
            record.msg = f"{record.msg} ({classify(exc)}: {type(exc).__name__})"
            record.exc_info = None
            record.exc_text = None
        return True


_FILTER = OutageTracebacks()


def quiet_outage_tracebacks(*loggers: str) -> None:
    """Install OutageTracebacks on these loggers (idempotent)."""
    for name in loggers:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
