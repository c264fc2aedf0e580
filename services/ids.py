"""Prefixed, unguessable identifiers (`pay_...`, `key_...`) used by every protocol."""
from __future__ import annotations

import secrets

_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def random_token(length: int = 24) -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(length))


def new_id(prefix: str, length: int = 24) -> str:
    return f"{prefix}_{random_token(length)}"
