"""Exactly-once operations under an idempotency key, across crashes and processes.

Key from `Idempotency-Key` / `X-Idempotency-Key` or an `idempotency_key` field; scope merchant +
mode + operation; a keyed fingerprint of the parameters. The key's row (`idempotency_keys`) is
the lock and the record at once:

1. A transaction starts by claiming the key: `INSERT ... ON CONFLICT DO NOTHING`. A concurrent
   request with the same key waits for the first transaction (at most `IN_FLIGHT_WAIT` seconds
   on PostgreSQL, then 409 "still being processed"); once the first commits, it replays.
2. The operation runs inside that transaction; its outcome (the created object's id, or a
   DomainError it ended with, such as a decline) is written into the row before COMMIT. So the
   object and the key commit together or not at all. An operation that writes in one statement
   may put the outcome in it (`outcome_row`: the key's row, upserted onto the claim); `run` then
   writes no outcome of its own -- one round trip fewer -- and writes it whenever the outcome
   the operation recorded is not the one it ended with.
3. A process killed mid-request never commits: its claim vanishes with its connection and the
   retry runs the operation afresh -- no two objects, no stale "in flight" lock to wait out.

Other parameters under a used key -> 409 `idempotency_conflict`. A 5xx, 409 or 429 stores
nothing, so the client may retry. What is stored is small and protocol-neutral (usually the
created object's id), so REST and GraphQL replay the same outcome in their own shape; secrets
are never stored (see `redact`).
"""
from __future__ import annotations

import hashlib
import hmac
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

import orjson
from tortoise.transactions import in_transaction

from models import _lookup as lookup
from models import _rows as rows_
from models.idempotency import IdempotencyKey
from services.errors import EXTRA_FIELDS, DomainError, IdempotencyConflict, ValidationError
from services.infra.db import LOCK_NOT_AVAILABLE, sqlstate
from services.infra.runtime import runtime
from services.principal import Principal

T = TypeVar("T")

MAX_KEY_LEN = 255
IN_FLIGHT_WAIT = "250ms"       # PostgreSQL lock_timeout while waiting for a concurrent holder
SECRET_FIELDS = ("key", "secret", "client_secret")

_IN_FLIGHT = "A request with this idempotency key is still being processed; retry shortly"
_REUSED = "This idempotency key was already used with different parameters"


def fingerprint(params: Any) -> str:
    """A keyed hash: parameters may hold card data, so an unkeyed hash would be guessable."""
    secret = runtime().config.secret_key.encode()
    return hmac.new(secret, orjson.dumps(params, option=orjson.OPT_SORT_KEYS, default=str),
                    hashlib.sha256).hexdigest()


def check_key(key: Any, param: str = "idempotency_key") -> str | None:
    if key is None or key == "":
        return None
    if not isinstance(key, str) or len(key) > MAX_KEY_LEN or not key.isascii() or not key.isprintable():
        raise ValidationError(f"{param} must be printable ASCII of at most {MAX_KEY_LEN} characters",
                              param=param)
    return key


def redact(value: Any) -> Any:
    """A response as it may be stored: secret fields (an API key's value, a signing secret)
    are dropped; a replay answers without them."""
    if isinstance(value, dict):
        return {k: redact(v) for k, v in value.items() if k not in SECRET_FIELDS}
    if isinstance(value, list):
        return [redact(v) for v in value]
    return value


_running: set[str] = set()       # keys this process is executing now


class _Taken(Exception):
    """The key's row exists (committed by another request) or is held by one in flight."""

    def __init__(self, in_flight: bool):
        self.in_flight = in_flight


def _row_id(principal: Principal, operation: str, key: str) -> str:
    return hashlib.sha256(f"{principal.merchant_id}\0{principal.mode}\0{operation}\0{key}".encode()).hexdigest()


def _storable(exc: DomainError) -> bool:
    return exc.status < 500 and exc.status not in (409, 429)


_CLAIM_SQL = ('INSERT INTO "idempotency_keys" ("id", "merchant_id", "livemode", "operation", "key", '
              '"fingerprint", "outcome", "created_at") VALUES ({}, {}, {}, {}, {}, {}, NULL, {}) '
              'ON CONFLICT ("id") DO NOTHING')
# PostgreSQL: the claim in one round trip. `w` (materialized once) notes the transaction's
# lock_timeout and then sets it to IN_FLIGHT_WAIT (set_config(..., true) is SET LOCAL); the key's
# row is inserted from `w`, so a wait on a concurrent holder of the same key ends after
# IN_FLIGHT_WAIT; the row the INSERT returns then puts lock_timeout back -- evaluated only for a row
# the INSERT produced, so after its wait -- and the rest of the transaction (the operation's own
# writes) waits as before. (pg_settings' reset_val would cost more than the round trip saved.)
_CLAIM_PG_SQL = ("WITH w AS MATERIALIZED (SELECT p.prev, set_config('lock_timeout', "
                 f"'{IN_FLIGHT_WAIT}', true) AS s FROM (SELECT current_setting('lock_timeout') AS prev OFFSET 0) p), "
                 'c AS (INSERT INTO "idempotency_keys" ("id", "merchant_id", "livemode", "operation", "key", '
                 '"fingerprint", "outcome", "created_at") SELECT $1, $2, $3, $4, $5, $6, NULL, $7 FROM w '
                 'ON CONFLICT ("id") DO NOTHING RETURNING "id") '
                 "SELECT set_config('lock_timeout', (SELECT prev FROM w), true) FROM c")
_FINISH_SQL = 'UPDATE "idempotency_keys" SET "outcome" = {} WHERE "id" = {}'


async def _claim(row_id: str, principal: Principal, operation: str, key: str, fp: str) -> None:
    db = IdempotencyKey._meta.db
    now = runtime().clock.now()
    values = [row_id, principal.merchant_id, principal.livemode, operation[:100], key, fp,
              lookup.db_value(IdempotencyKey, "created_at", now)]
    if db.capabilities.dialect == "postgres":
        try:       # the driver reports no row count for INSERT: count the rows the claim returns
            got = len(await lookup.fetch(db, _CLAIM_PG_SQL, values))
        except Exception as exc:
            if sqlstate(exc) == LOCK_NOT_AVAILABLE:
                raise _Taken(in_flight=True) from None
            raise
    else:
        got = await lookup.execute(IdempotencyKey, _CLAIM_SQL, values)
    if not got:
        raise _Taken(in_flight=False)


async def _finish(row_id: str, outcome: dict) -> None:
    await lookup.execute(IdempotencyKey, _FINISH_SQL,
                       [orjson.dumps(outcome, default=str).decode(), row_id])


async def _replay(row_id: str, fp: str, decode: Callable[[Any], Awaitable[T]]) -> T:
    row = await lookup.first(IdempotencyKey, id=row_id)
    if row is None or row.outcome is None:
        raise IdempotencyConflict(_IN_FLIGHT, param="idempotency_key", headers={"Retry-After": "1"})
    if not hmac.compare_digest(row.fingerprint, fp):
        raise IdempotencyConflict(_REUSED, param="idempotency_key")
    outcome = row.outcome
    if "error" in outcome:
        e = outcome["error"]
        err = DomainError(e["message"], code=e["code"], param=e.get("param"), status=e["status"])
        err.type = e.get("type", err.type)
        for name, value in (e.get("extra") or {}).items():
            setattr(err, name, value)
        raise err
    return await decode(outcome["result"])


def _error_record(exc: DomainError) -> dict:
    extra = {k: getattr(exc, k) for k in EXTRA_FIELDS if getattr(exc, k, None) is not None}
    return {"error": {"message": exc.message, "code": exc.code, "param": exc.param, "status": exc.status,
                      "type": exc.type, "extra": extra}}


async def run(*, principal: Principal, operation: str, key: str | None, params: Any,
              execute: Callable[[], Awaitable[T]], encode: Callable[[T], Any],
              decode: Callable[[Any], Awaitable[T]]) -> T:
    """Run `execute` once per key, in one transaction with the key's row. `encode` turns its
    result into what is stored; `decode` turns a stored value back into a result on replay."""
    key = check_key(key)
    if key is None:
        return await execute()
    row_id = _row_id(principal, operation, key)
    fp = fingerprint(params)
    if row_id in _running:         # in flight in this very process: no need to ask the database
        raise IdempotencyConflict(_IN_FLIGHT, param="idempotency_key", headers={"Retry-After": "1"})
    _running.add(row_id)
    try:
        return await _run_claimed(row_id, principal, operation, key, fp, execute, encode, decode)
    finally:
        _running.discard(row_id)


@dataclass
class _Claim:
    """The key a `run` claimed, while its operation runs; `written`: the outcome the operation
    put in its own write (outcome_row), if any."""
    row_id: str
    principal: Principal
    operation: str
    key: str
    fingerprint: str
    written: dict | None = None


_CLAIMED: ContextVar[_Claim | None] = ContextVar("idempotency_claim", default=None)


def outcome_row(result: Any = None, *, error: DomainError | None = None) -> IdempotencyKey | None:
    """Inside `run`'s operation: the claimed key's row holding the operation's outcome --
    `result` as `encode` would store it, or the DomainError it is about to raise -- for the
    operation to write with its own rows (lookup.insert_all upserts it onto the claim, in the
    same transaction). None outside a keyed run, or for an error that is not stored."""
    claim = _CLAIMED.get()
    if claim is None or (error is not None and not _storable(error)):
        return None
    claim.written = _error_record(error) if error is not None else {"result": result}
    p = claim.principal
    return rows_.new(IdempotencyKey, id=claim.row_id, merchant_id=p.merchant_id, livemode=p.livemode,
                     operation=claim.operation[:100], key=claim.key, fingerprint=claim.fingerprint,
                     outcome=claim.written, created_at=runtime().clock.now())


async def _run_claimed(row_id, principal, operation, key, fp, execute, encode, decode):
    failure: DomainError | None = None
    try:
        async with in_transaction(IdempotencyKey._meta.default_connection):
            await _claim(row_id, principal, operation, key, fp)
            claim = _Claim(row_id, principal, operation, key, fp)
            token = _CLAIMED.set(claim)
            try:
                result = await execute()
            except DomainError as exc:
                if not _storable(exc):
                    raise
                failure = exc          # e.g. a decline: the failed payment and this outcome commit
                if claim.written != _error_record(exc):
                    await _finish(row_id, _error_record(exc))
            else:
                if claim.written != {"result": encode(result)}:
                    await _finish(row_id, {"result": encode(result)})
            finally:
                _CLAIMED.reset(token)
    except _Taken as taken:
        if taken.in_flight:
            raise IdempotencyConflict(_IN_FLIGHT, param="idempotency_key", headers={"Retry-After": "1"}) from None
        return await _replay(row_id, fp, decode)
    if failure is not None:
        raise failure
    return result


async def prune(*, older_than_hours: int = 24 * 7, batch: int = 1000) -> int:
    """Forget keys older than a week (Stripe keeps them 24 hours; we keep them longer)."""
    from datetime import timedelta

    cutoff = runtime().clock.now() - timedelta(hours=older_than_hours)
    ids = await IdempotencyKey.filter(created_at__lt=cutoff).limit(batch).values_list("id", flat=True)
    if not ids:
        return 0
    return await IdempotencyKey.filter(id__in=list(ids)).delete()
