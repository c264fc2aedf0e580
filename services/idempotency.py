"""A reusable idempotency guard.

Key from `X-Idempotency-Key` or an `idempotency_key` field; scope merchant + mode + operation;
a fingerprint of the parameters. The first outcome (a result or a DomainError) is stored for
24 hours and replayed; other parameters under the same key -> 409 `idempotency_conflict`; a
request still in flight under the same key -> 409, and nothing is stored for it. An unexpected
exception stores nothing, so the client may retry.

What is stored is small and protocol-neutral (usually the created object's id), so REST and
GraphQL replay the same outcome in their own shape.
"""
from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import orjson

from services.errors import DomainError, IdempotencyConflict, ValidationError
from services.infra.runtime import runtime
from services.principal import Principal

T = TypeVar("T")

TTL_SECONDS = 24 * 3600
IN_FLIGHT_SECONDS = 120      # a crashed request frees its key after this long
MAX_KEY_LEN = 255


def fingerprint(params: Any) -> str:
    return hashlib.sha256(orjson.dumps(params, option=orjson.OPT_SORT_KEYS, default=str)).hexdigest()


def check_key(key: Any, param: str = "idempotency_key") -> str | None:
    if key is None or key == "":
        return None
    if not isinstance(key, str) or len(key) > MAX_KEY_LEN or not key.isprintable():
        raise ValidationError(f"{param} must be a printable string of at most {MAX_KEY_LEN} characters",
                              param=param)
    return key


async def run(*, principal: Principal, operation: str, key: str | None, params: Any,
              execute: Callable[[], Awaitable[T]], encode: Callable[[T], Any],
              decode: Callable[[Any], Awaitable[T]]) -> T:
    """Run `execute` once per key. `encode` turns its result into what is stored; `decode`
    turns a stored value back into a result on replay."""
    key = check_key(key)
    if key is None:
        return await execute()
    kv = runtime().kv
    digest = hashlib.sha256(key.encode()).hexdigest()[:32]
    slot = f"idem:{principal.merchant_id}:{principal.mode}:{operation}:{digest}"
    fp = fingerprint(params)
    claim = orjson.dumps({"fp": fp, "state": "in_flight"}).decode()
    if not await kv.set(slot, claim, ttl=IN_FLIGHT_SECONDS, nx=True):
        raw = await kv.get(slot)
        if raw is None:           # expired between the two calls: treat as in flight
            raise IdempotencyConflict("A request with this idempotency key is still being processed",
                                      param="idempotency_key")
        record = orjson.loads(raw)
        if record["fp"] != fp:
            raise IdempotencyConflict("This idempotency key was already used with different parameters",
                                      param="idempotency_key")
        if record["state"] == "in_flight":
            raise IdempotencyConflict("A request with this idempotency key is still being processed",
                                      param="idempotency_key")
        if "error" in record:
            e = record["error"]
            err = DomainError(e["message"], code=e["code"], param=e.get("param"), status=e["status"])
            err.type = e.get("type", err.type)
            raise err
        return await decode(record["result"])
    try:
        result = await execute()
    except DomainError as exc:
        if exc.status >= 500 or exc.status in (409, 429):
            await kv.delete(slot)
        else:
            done = {"fp": fp, "state": "done", "error": {"message": exc.message, "code": exc.code,
                                                         "param": exc.param, "status": exc.status,
                                                         "type": exc.type}}
            await kv.set(slot, orjson.dumps(done).decode(), ttl=TTL_SECONDS)
        raise
    except BaseException:
        await kv.delete(slot)
        raise
    done = {"fp": fp, "state": "done", "result": encode(result)}
    await kv.set(slot, orjson.dumps(done, default=str).decode(), ttl=TTL_SECONDS)
    return result
