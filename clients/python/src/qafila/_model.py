"""Base of the generated resource dataclasses (types.py)."""
from __future__ import annotations

import dataclasses
import json
from typing import Any, ClassVar, Dict, Optional, Tuple, Type, TypeVar

M = TypeVar("M", bound="Model")

_REGISTRY: Dict[str, Type["Model"]] = {}


def register(cls):
    _REGISTRY[cls.__name__] = cls
    return cls


class Model:
    """A resource as the service returned it.

    Fields are attributes (``intent.status``); nested objects are models too (``intent.fee.amount``).
    ``to_dict()`` gives the JSON exactly as received, including fields this version of the
    library does not know yet; ``obj["field"]`` reads from it as well.
    """

    _nested: ClassVar[Dict[str, Tuple[str, bool]]] = {}

    @classmethod
    def from_dict(cls: Type[M], data: Optional[Dict[str, Any]]) -> M:
        if data is None:
            return None  # type: ignore[return-value]
        values = {}
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            if f.name not in data:
                continue
            value = data[f.name]
            spec = cls._nested.get(f.name)
            if spec is not None and value is not None:
                sub = _REGISTRY[spec[0]]
                if spec[1] and isinstance(value, list):
                    value = [sub.from_dict(v) if isinstance(v, dict) else v for v in value]
                elif isinstance(value, dict):
                    value = sub.from_dict(value)
            values[f.name] = value
        obj = cls(**values)
        object.__setattr__(obj, "_raw", data)
        return obj

    @classmethod
    def field_names(cls) -> Tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]

    def to_dict(self) -> Dict[str, Any]:
        raw = getattr(self, "_raw", None)
        if raw is not None:
            return raw
        return {k: v for k, v in dataclasses.asdict(self).items() if v is not None}  # type: ignore[call-overload]

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"), ensure_ascii=False)

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.to_dict().get(key, default)
