"""Turning Strawberry inputs into the plain dicts the services validate."""
from __future__ import annotations

import dataclasses
import enum
from typing import Any

from strawberry.types.unset import UNSET


def to_data(obj: Any) -> Any:
    """Input object -> dict of snake_case fields, leaving out what was not given."""
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, list):
        return [to_data(x) for x in obj]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out = {}
        for f in dataclasses.fields(obj):
            v = getattr(obj, f.name)
            if v is UNSET or v is None:
                continue
            out[f.name] = to_data(v)
        return out
    return obj
