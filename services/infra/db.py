"""Database facts the services need without naming a driver: which errors mean "run the
transaction again" (PostgreSQL deadlock 40P01, serialization failure 40001)."""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")
log = logging.getLogger("qafila.db")

RETRYABLE_SQLSTATES = frozenset({"40P01", "40001"})
LOCK_NOT_AVAILABLE = "55P03"


def sqlstate(exc: BaseException) -> str | None:
    """The SQLSTATE of a driver error, also when the ORM wrapped it (its __cause__)."""
    seen = 0
    while exc is not None and seen < 5:
        state = getattr(exc, "sqlstate", None)
        if isinstance(state, str):
            return state
        exc = exc.__cause__ or (exc.args[0] if exc.args and isinstance(exc.args[0], BaseException) else None)
        seen += 1
    return None


def is_retryable(exc: BaseException) -> bool:
    return sqlstate(exc) in RETRYABLE_SQLSTATES


async def retrying(step: Callable[[], Awaitable[T]], *, attempts: int = 5, what: str = "transaction") -> T:
    """Run `step` (one whole transaction) again when PostgreSQL chose it as a deadlock or
    serialization victim; the caller's state must be rebuilt inside `step`."""
    for attempt in range(1, attempts + 1):
        try:
            return await step()
        except Exception as exc:
            if not is_retryable(exc) or attempt == attempts:
                raise
            log.warning("%s: %s on attempt %d, retrying", what, sqlstate(exc), attempt)
            await asyncio.sleep(0.005 * attempt)
    raise AssertionError("unreachable")
