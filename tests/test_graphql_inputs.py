"""Our `from_input` builder makes exactly the objects Strawberry's generic conversion makes."""
import dataclasses

import pytest
from graphql import GraphQLInputObjectType, GraphQLList, GraphQLNonNull
from strawberry.types.arguments import InputContext, convert_argument
from strawberry.types.unset import UNSET

import schema as schema_pkg
from schema.inputs import build_input

SCHEMA = schema_pkg.build_schema()
INPUTS = {name: t.definition for name, t in SCHEMA.schema_converter.type_map.items()
          if getattr(getattr(t, "definition", None), "is_input", False)}


def _sample(gql_type, depth=0):
    """A value for every field of an input type (nested inputs and lists included)."""
    if isinstance(gql_type, GraphQLNonNull):
        return _sample(gql_type.of_type, depth)
    if isinstance(gql_type, GraphQLList):
        return [_sample(gql_type.of_type, depth), _sample(gql_type.of_type, depth)]
    if isinstance(gql_type, GraphQLInputObjectType):
        return {name: _sample(f.type, depth + 1) for name, f in gql_type.fields.items()}
    return {"Int": 7, "Float": 1.5, "Boolean": True, "JSON": {"k": "v"}}.get(gql_type.name, f"s{depth}")


def _deep_switch_off():
    saved = {d: d.from_input for d in INPUTS.values()}
    for d in INPUTS.values():
        d.from_input = None
    return saved


@pytest.mark.parametrize("name", sorted(INPUTS))
@pytest.mark.parametrize("shape", ["every field", "only required", "nulls"])
def test_every_input_type_is_built_as_strawberry_builds_it(name, shape):
    gql = SCHEMA._schema.type_map[name]
    value = _sample(gql)
    if shape == "only required":
        value = {k: v for k, v in value.items() if isinstance(gql.fields[k].type, GraphQLNonNull)}
    elif shape == "nulls":
        value = {k: (v if isinstance(gql.fields[k].type, GraphQLNonNull) else None) for k, v in value.items()}
    cls = INPUTS[name].origin
    ctx = InputContext(info=None, config=SCHEMA.config, scalar_registry=SCHEMA.schema_converter.scalar_registry,
                       path=("input",))
    ours = build_input(cls, value, ctx)
    saved = _deep_switch_off()                    # nested inputs too
    try:
        theirs = convert_argument(value, cls, ctx.scalar_registry, ctx.config, None, path=("input",))
    finally:
        for d, f in saved.items():
            d.from_input = f
    assert type(ours) is type(theirs)
    assert dataclasses.asdict(ours) == dataclasses.asdict(theirs)
    assert all((getattr(ours, f.name) is UNSET) == (getattr(theirs, f.name) is UNSET)
               for f in dataclasses.fields(ours))


def test_the_schema_uses_the_builder_for_every_input_type():
    assert INPUTS and all(d.from_input is build_input for d in INPUTS.values())
