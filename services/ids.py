"""Prefixed, unguessable identifiers (`pay_...`, `key_...`) used by every protocol, in the order
they were made (to the millisecond)."""
from __future__ import annotations

import os
import re
import time
from typing import Any

from services.errors import NotFound, ValidationError

_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


# Bytes 0..247 map to the 62 characters four times over (248 = 4 x 62); 248..255 are dropped, so
# every kept byte is one uniform character.
_BYTE_TO_CHAR = bytes(ord(_ALPHABET[b % 62]) if b < 248 else 0 for b in range(256))
_DROPPED = bytes(range(248, 256))


def random_token(length: int = 24) -> str:
    """`length` characters drawn uniformly from the 62 letters and digits: random bytes from the
    system's source, each below 248 kept as one character (rejection sampling), in one C-level
    translate instead of a Python loop per character."""
    out = b""
    while len(out) < length:
        out += os.urandom(length + 8).translate(_BYTE_TO_CHAR, _DROPPED)
    return out[:length].decode()


# An id is time first, then chance: its first TIME_CHARS characters are the milliseconds since the
# Unix epoch in base 62 (the alphabet above is in ASCII order, so ids sort by the millisecond they
# were made in), the other 17 of the default 24 are random (101 bits: still unguessable). A new row's
# key then lands at the end of its primary key index, and of every index on another row's id
# (a payment's ledger legs, attempts, receipt, event), where the pages are hot, instead of on a
# random page of an index of millions: fewer pages touched, and far less WAL (each page's first
# change after a checkpoint is logged whole). The slot of a counter (models/_rows.py) reads the last
# two characters, random as before. Ids shorter than 20 characters stay wholly random.
TIME_CHARS = 7                  # 62**7 ms: until the year 2081
_TIMED_FROM = 20


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


_STAMP = [-1, ""]               # (the millisecond, its TIME_CHARS characters): one encoding per ms


def _stamp(ms: int) -> str:
    if _STAMP[0] != ms:
        chars, n = [], ms
        for _ in range(TIME_CHARS):
            n, r = divmod(n, 62)
            chars.append(_ALPHABET[r])
        _STAMP[0], _STAMP[1] = ms, "".join(reversed(chars))
    return _STAMP[1]


# The random characters (not secrets: random_token above reads the system's source afresh for every
# API key and webhook secret) come from a pool filled 4 KiB of random bytes at a time: a payment
# create makes about fifteen ids, and one getrandom() call each cost more than the rest of new_id.
# The pool is emptied in a forked child, so two processes never hand out the same characters.
_POOL = bytearray()
_REFILL = 4096


def _drain_pool() -> None:
    del _POOL[:]


os.register_at_fork(after_in_child=_drain_pool)


def new_id(prefix: str, length: int = 24) -> str:
    timed = length >= _TIMED_FROM
    need = length - TIME_CHARS if timed else length
    while len(_POOL) < need:
        _POOL.extend(os.urandom(_REFILL).translate(_BYTE_TO_CHAR, _DROPPED))
    chars = _POOL[-need:]
    del _POOL[-need:]
    return f"{prefix}_{_stamp(_now_ms())}{chars.decode()}" if timed else f"{prefix}_{chars.decode()}"


# A well-formed id: a lower-case prefix of 1 to 8 letters, "_", then letters, digits and "_";
# at most MAX_ID_LEN characters in all (the width of every id column). This is the one check
# of an id arriving from outside (REST path parameters, pagination cursors, GraphQL ID
# arguments): a malformed one is a 400 naming its parameter before any query runs; a
# well-formed id that matches nothing (unknown, another tenant's, or another resource's
# prefix) stays the lookup's 404.
MAX_ID_LEN = 40
ID_LENGTH = 24                  # the random part of the ids new_id makes (its default length)
WELL_FORMED = r"[a-z]{1,8}_[A-Za-z0-9_]{1,%d}" % (MAX_ID_LEN - 2)
_WELL_FORMED = re.compile(WELL_FORMED)


def check_id(value: Any, param: str = "id") -> str:
    if not isinstance(value, str):
        raise ValidationError(f"{param} must be a string id", code="invalid_id", param=param)
    if len(value) > MAX_ID_LEN:
        raise ValidationError(f"{param} must be at most {MAX_ID_LEN} characters", code="invalid_id", param=param)
    if not _WELL_FORMED.fullmatch(value):
        raise ValidationError(f"{param} is not a well-formed id (prefix_ followed by letters and digits)",
                              code="invalid_id", param=param)
    return value


async def owned(model, *, merchant_id: str, object_id: Any, param: str = "id"):
    """The merchant's row of `model` with this id: a malformed id is a 400 naming `param`, an
    unknown one (or another merchant's) a 404."""
    row = await model.get_or_none(id=check_id(object_id, param), merchant_id=merchant_id)
    if row is None:
        raise NotFound()
    return row
