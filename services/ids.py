"""Prefixed, unguessable identifiers (`pay_...`, `key_...`) used by every protocol."""
from __future__ import annotations

import secrets

_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def random_token(length: int = 24) -> str:
    """`length` characters drawn uniformly from the 62 letters and digits: one uniform number
    below 62**length (rejection sampling over random bits), written in base 62. One call to the
    system's random source instead of one per character."""
    space = 62 ** length
    bits = space.bit_length()
    while (n := secrets.randbits(bits)) >= space:
        pass
    out = []
    for _ in range(length):
        n, r = divmod(n, 62)
        out.append(_ALPHABET[r])
    return "".join(out)


def new_id(prefix: str, length: int = 24) -> str:
    return f"{prefix}_{random_token(length)}"
