"""Input checking shared by REST and GraphQL: every bad value is a ValidationError naming its
field (`param`), never a 500. Services read their input through `Fields`."""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import date, datetime, timezone
from typing import Any

from services.errors import ValidationError

MAX_INT = 10**15            # far beyond any amount; larger numbers are refused, not wrapped
DEFAULT_MAX_LEN = 500
EMAIL_PATTERN = r"^[^@\s\x00-\x1f]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$"
_EMAIL = re.compile(EMAIL_PATTERN)
_MISSING = object()


def _name(prefix: str, key: str) -> str:
    return f"{prefix}{key}" if not prefix else f"{prefix}.{key}" if not key.startswith("[") else f"{prefix}{key}"


class Fields:
    """Typed reads from a JSON object. `prefix` names nested fields (`customer.email`)."""

    def __init__(self, data: Any, prefix: str = "", *, what: str = "request body"):
        if not isinstance(data, Mapping):
            raise ValidationError(f"{prefix or what} must be a JSON object", param=prefix or None)
        self.data = data
        self.prefix = prefix
        self.seen: set[str] = set()

    def param(self, key: str) -> str:
        return f"{self.prefix}.{key}" if self.prefix else key

    def _get(self, key: str, required: bool) -> Any:
        self.seen.add(key)
        value = self.data.get(key, _MISSING)
        if value is _MISSING or value is None:
            if required:
                raise ValidationError(f"{self.param(key)} is required", param=self.param(key))
            return _MISSING
        return value

    def has(self, key: str) -> bool:
        self.seen.add(key)          # a known field, given as null: not an unknown one
        return self.data.get(key) is not None

    def str(self, key: str, *, required: bool = False, default: Any = None, max_len: int = DEFAULT_MAX_LEN,
            min_len: int = 0, pattern: re.Pattern | None = None, strip: bool = True) -> Any:
        v = self._get(key, required)
        if v is _MISSING:
            return default
        return check_str(v, self.param(key), max_len=max_len, min_len=min_len, pattern=pattern, strip=strip)

    def int(self, key: str, *, required: bool = False, default: Any = None, min: int = 0,
            max: int = MAX_INT) -> Any:
        v = self._get(key, required)
        if v is _MISSING:
            return default
        return check_int(v, self.param(key), min=min, max=max)

    def bool(self, key: str, *, required: bool = False, default: Any = None) -> Any:
        v = self._get(key, required)
        if v is _MISSING:
            return default
        if not isinstance(v, bool):
            raise ValidationError(f"{self.param(key)} must be a boolean", param=self.param(key))
        return v

    def enum(self, key: str, values: Iterable[str], *, required: bool = False, default: Any = None) -> Any:
        v = self._get(key, required)
        if v is _MISSING:
            return default
        return check_enum(v, self.param(key), values)

    def email(self, key: str, *, required: bool = False, default: Any = None) -> Any:
        v = self._get(key, required)
        if v is _MISSING:
            return default
        return check_email(v, self.param(key))

    def obj(self, key: str, *, required: bool = False) -> Fields | None:
        v = self._get(key, required)
        if v is _MISSING:
            return None
        if not isinstance(v, Mapping):
            raise ValidationError(f"{self.param(key)} must be an object", param=self.param(key))
        return Fields(v, self.param(key))

    def list(self, key: str, *, required: bool = False, max_items: int = 100, min_items: int = 0) -> list | None:
        v = self._get(key, required)
        if v is _MISSING:
            return None
        if not isinstance(v, list):
            raise ValidationError(f"{self.param(key)} must be an array", param=self.param(key))
        if len(v) > max_items or len(v) < min_items:
            raise ValidationError(f"{self.param(key)} must hold {min_items} to {max_items} items",
                                  param=self.param(key))
        return v

    def metadata(self, key: str = "metadata", *, max_keys: int = 50, max_key_len: int = 40,
                 max_value_len: int = 500) -> dict[str, str] | None:
        v = self._get(key, False)
        if v is _MISSING:
            return None
        return check_metadata(v, self.param(key), max_keys=max_keys, max_key_len=max_key_len,
                              max_value_len=max_value_len)

    def datetime(self, key: str, *, required: bool = False, default: Any = None) -> Any:
        v = self._get(key, required)
        if v is _MISSING:
            return default
        return check_datetime(v, self.param(key))

    def date(self, key: str, *, required: bool = False, default: Any = None) -> Any:
        v = self._get(key, required)
        if v is _MISSING:
            return default
        if not isinstance(v, str):
            raise ValidationError(f"{self.param(key)} must be a date YYYY-MM-DD", param=self.param(key))
        try:
            return date.fromisoformat(v)
        except ValueError:
            raise ValidationError(f"{self.param(key)} must be a date YYYY-MM-DD", param=self.param(key)) from None

    def reject_unknown(self, also: Iterable[str] = ()) -> None:
        """Unknown fields are refused so a typo never passes silently."""
        allowed = self.seen | set(also)
        for key in self.data:
            if key not in allowed:
                raise ValidationError(f"unknown field {self.param(str(key))}", param=self.param(str(key)))


def check_str(v: Any, param: str, *, max_len: int = DEFAULT_MAX_LEN, min_len: int = 0,
              pattern: re.Pattern | None = None, strip: bool = True) -> str:
    if not isinstance(v, str):
        raise ValidationError(f"{param} must be a string", param=param)
    if strip:
        v = v.strip()
    if "\x00" in v:
        raise ValidationError(f"{param} must not contain NUL characters", param=param)
    if len(v) > max_len:
        raise ValidationError(f"{param} must be at most {max_len} characters", param=param)
    if len(v) < min_len:
        raise ValidationError(f"{param} must be at least {min_len} characters" if min_len > 1
                              else f"{param} must not be empty", param=param)
    if pattern is not None and not pattern.fullmatch(v):
        raise ValidationError(f"{param} has an invalid format", param=param)
    return v


def check_int(v: Any, param: str, *, min: int = 0, max: int = MAX_INT) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        if isinstance(v, float) and v.is_integer() and not isinstance(v, bool):
            v = int(v)
        else:
            raise ValidationError(f"{param} must be an integer", param=param)
    if v < min:
        raise ValidationError(f"{param} must be at least {min}", param=param)
    if v > max:
        raise ValidationError(f"{param} must be at most {max}", param=param)
    return v


def one_of(param: str, values: Iterable[Any], *, code: str | None = None, context: str = "") -> ValidationError:
    """The refusal of a value from a closed set, in the one form every such refusal takes:
    `currency must be one of TRY, SAR, AED` (`context` names what the set depends on: `for USDT`)."""
    listed = ", ".join(str(v) for v in values)
    return ValidationError(f"{param} must be one of {listed}{' ' + context if context else ''}", param=param,
                           code=code)


def check_enum(v: Any, param: str, values: Iterable[str], *, code: str | None = None) -> str:
    values = list(values)
    if not isinstance(v, str) or v not in values:
        raise one_of(param, values, code=code)
    return v


def check_email(v: Any, param: str) -> str:
    v = check_str(v, param, max_len=254, min_len=3)
    if not _EMAIL.fullmatch(v):
        raise ValidationError(f"{param} must be a valid e-mail address", param=param)
    local, _, domain = v.rpartition("@")
    return f"{local}@{domain.lower()}"


def check_metadata(v: Any, param: str, *, max_keys: int = 50, max_key_len: int = 40,
                   max_value_len: int = 500) -> dict[str, str]:
    if not isinstance(v, Mapping):
        raise ValidationError(f"{param} must be an object of string keys to string values", param=param)
    if len(v) > max_keys:
        raise ValidationError(f"{param} may hold at most {max_keys} keys", param=param)
    out: dict[str, str] = {}
    for k, val in v.items():
        if not isinstance(k, str) or not k or len(k) > max_key_len:
            raise ValidationError(f"{param} keys must be strings of 1 to {max_key_len} characters", param=param)
        if isinstance(val, bool) or not isinstance(val, (str, int, float)):
            raise ValidationError(f"{param}.{k} must be a string", param=f"{param}.{k}")
        val = str(val)
        if len(val) > max_value_len:
            raise ValidationError(f"{param}.{k} must be at most {max_value_len} characters", param=f"{param}.{k}")
        out[k] = val
    return out


def check_datetime(v: Any, param: str) -> datetime:
    """An ISO 8601 string or Unix seconds; naive values are UTC."""
    if isinstance(v, bool):
        raise ValidationError(f"{param} must be an ISO 8601 timestamp", param=param)
    if isinstance(v, int):
        if not 0 <= v <= 253402300799:
            raise ValidationError(f"{param} is out of range", param=param)
        return datetime.fromtimestamp(v, timezone.utc)
    if not isinstance(v, str):
        raise ValidationError(f"{param} must be an ISO 8601 timestamp", param=param)
    try:
        dt = datetime.fromisoformat(v.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValidationError(f"{param} must be an ISO 8601 timestamp", param=param) from None
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def _escaped(key: str) -> str:
    return key.replace("\x00", "\\u0000")


def reject_nul(value: Any, param: str = "") -> None:
    """Refuses a NUL character anywhere in decoded JSON -- a string value or an object key, at
    any depth -- with a 400 naming the field (`metadata.note`, `items[2].name`). PostgreSQL
    text cannot hold NUL, so without this check it would fail as a 500 deep in a write.
    Iterative: a body nested a thousand deep is no recursion error."""
    stack = [(param, value)]
    while stack:
        name, v = stack.pop()
        if isinstance(v, str):
            if "\x00" in v:
                raise ValidationError(f"{name or 'value'} must not contain NUL characters", param=name or None)
        elif isinstance(v, dict):
            for k, item in v.items():
                key_name = _name(name, _escaped(str(k)))
                if isinstance(k, str) and "\x00" in k:
                    raise ValidationError(f"field name {key_name} must not contain NUL characters",
                                          param=key_name)
                stack.append((key_name, item))
        elif isinstance(v, list):
            stack.extend((f"{name}[{i}]", item) for i, item in enumerate(v))
