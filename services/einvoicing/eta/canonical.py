"""ETA's canonical serialization of a JSON document (ETA SDK, "Document serialization
approach"): every property as its upper-cased quoted name followed by its value; a simple value
quoted as its JSON text (a number exactly as written: 10.50 stays "10.50"); an object's
properties in order; an array's name once, then again before each element. The document hash is
SHA-256 of the UTF-8 text.

Numbers keep their literal text both ways: `loads` reads them as `Number` (a str), and `dumps`
writes `Decimal` and `Number` values as they are, so what is serialized is what is sent."""
from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from typing import Any


class Number(str):
    """A JSON number kept as the text it was written with."""


def loads(text: str | bytes) -> Any:
    return json.loads(text, parse_float=Number, parse_int=Number)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return ""
    return str(v)


def serialize(doc: Any) -> str:
    """The canonical text of a document (an object at the top: its properties without a name of its own)."""
    if not isinstance(doc, dict):
        return '"' + _value(doc) + '"'
    out: list[str] = []
    for name, value in doc.items():
        key = '"' + str(name).upper() + '"'
        if isinstance(value, list):
            out.append(key)
            for element in value:
                out.append(key + serialize(element))
        elif isinstance(value, dict):
            out.append(key + serialize(value))
        else:
            out.append(key + '"' + _value(value) + '"')
    return "".join(out)


def digest(doc: Any) -> str:
    """SHA-256 (hex, lower case) of the canonical text."""
    return hashlib.sha256(serialize(doc).encode("utf-8")).hexdigest()


def dumps(doc: Any) -> str:
    """Compact JSON with numbers (Decimal, Number, int) written as their exact text."""
    if isinstance(doc, dict):
        return "{" + ",".join(json.dumps(str(k), ensure_ascii=False) + ":" + dumps(v) for k, v in doc.items()) + "}"
    if isinstance(doc, list):
        return "[" + ",".join(dumps(v) for v in doc) + "]"
    if isinstance(doc, Number):
        return str(doc)
    if isinstance(doc, Decimal):
        return format(doc, "f")
    if isinstance(doc, bool) or doc is None or isinstance(doc, (int, str)):
        return json.dumps(doc, ensure_ascii=False)
    raise TypeError(f"not a JSON value: {type(doc).__name__}")
