"""Turning Strawberry inputs into the plain dicts the services validate."""
from __future__ import annotations

import dataclasses
import enum
from typing import Any

from strawberry.types.unset import UNSET


_ENUM, _LIST, _PLAIN = object(), object(), object()
_KINDS: dict[type, Any] = {}        # a value's type -> _ENUM, _LIST, _PLAIN or its dataclass field names


def _kind(obj: Any) -> Any:
    """What to_data does with values of type(obj) (it depends only on the type)."""
    if isinstance(obj, enum.Enum):
        return _ENUM
    if isinstance(obj, list):
        return _LIST
    if not dataclasses.is_dataclass(obj) or isinstance(obj, type):
        return _PLAIN
    return tuple(f.name for f in dataclasses.fields(obj))


def to_data(obj: Any) -> Any:
    """Input object -> dict of snake_case fields, leaving out what was not given."""
    kind = _KINDS.get(type(obj))
    if kind is None:
        kind = _KINDS[type(obj)] = _kind(obj)
    if kind is _PLAIN:
        return obj
    if kind is _ENUM:
        return obj.value
    if kind is _LIST:
        return [to_data(x) for x in obj]
    out = {}
    for name in kind:
        v = getattr(obj, name)
        if v is UNSET or v is None:
            continue
        out[name] = to_data(v)
    return out


# ---------------------------------------------------------------- building inputs

class _Plan:
    """How to build one input type: per field its GraphQL name, Python name and type, and
    whether its value is a scalar graphql-core has already parsed (taken as it is)."""

    __slots__ = ("fields", "nulls")

    def __init__(self, fields: list[tuple[str, str, Any, bool]], nulls: dict[str, None]):
        self.fields = fields
        self.nulls = nulls


_PLANS: dict[type, _Plan] = {}


def _plan(cls: type, ctx: Any) -> _Plan:
    from strawberry.types.arguments import _is_leaf_type, _is_optional_leaf_type

    definition = cls.__strawberry_definition__
    fields = []
    for f in definition.fields:
        type_ = f.resolve_type(type_definition=definition)
        leaf = _is_leaf_type(type_, ctx.scalar_registry) or _is_optional_leaf_type(type_, ctx.scalar_registry)
        fields.append((ctx.config.name_converter.from_field(f), f.python_name, type_, leaf))
    nulls = {f.python_name: None for f in definition.fields
             if f.default_value is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
    return _Plan(fields, nulls)


def build_input(cls: type, value: Any, ctx: Any) -> Any:
    """Strawberry's `from_input` hook for our input types: the same object Strawberry's generic
    conversion builds (tests/test_graphql_inputs.py compares them on every input type), from a
    plan made once per type instead of resolving every field's name and type per request.
    Scalars pass through as graphql-core parsed them; anything else (nested inputs, lists,
    enums) goes through Strawberry's own `convert_argument`."""
    from strawberry.types.arguments import convert_argument

    plan = _PLANS.get(cls)
    if plan is None:
        plan = _PLANS[cls] = _plan(cls, ctx)
    kwargs = dict(plan.nulls)
    for graphql_name, python_name, type_, leaf in plan.fields:
        if graphql_name in value:
            v = value[graphql_name]
            kwargs[python_name] = v if leaf or v is None else convert_argument(
                v, type_, ctx.scalar_registry, ctx.config, ctx.info, path=(*ctx.path, graphql_name))
    return cls(**kwargs)


def install_input_builders(schema: Any) -> None:
    """Use `build_input` for every input type of `schema`."""
    for definition in schema.schema_converter.type_map.values():
        d = getattr(definition, "definition", None)
        if getattr(d, "is_input", False) and d.from_input is None:
            d.from_input = build_input
