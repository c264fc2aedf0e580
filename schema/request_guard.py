"""Hostile GraphQL documents refused before validation and execution, in one pass over the
parsed document (run by schema.RequestLimits before the validation cache):

- cost: every field costs 1, and a field taking `first`, `last` or `limit` multiplies the cost
  of what it selects by that value (the argument's default when absent, the variable's value
  when given as a variable), so `payments(first: 100) { edges { node { customer { ... } } } }`
  costs about 100 times its node. Above MAX_COST the request is a 400 `query_too_complex`
  whose message gives the cost and the limit. Fragments are costed once each (a fragment
  "bomb" stays linear) and a fragment cycle is left to validation.
- ids: every argument or input field of type ID, and the `after`/`before` cursor of a
  connection, written in the document or passed as a variable, goes through
  services.ids.check_id (a malformed id is a 400 naming it).
- NUL: no string in the variables or in the document's literals may hold a NUL character.

Errors are DomainErrors; the caller wraps them as top-level GraphQL errors (HTTP 400).
`plan_request` does once per document what does not depend on the variables (schema.operations
keeps the plan per query text); `inspect_planned` then checks only the variables' values."""
from __future__ import annotations

from typing import Any

import orjson
from graphql import (FieldNode, FragmentDefinitionNode, FragmentSpreadNode, GraphQLInputObjectType, GraphQLList,
                     GraphQLNonNull, GraphQLScalarType, GraphQLSchema, InlineFragmentNode, IntValueNode,
                     ListValueNode, ObjectValueNode, OperationDefinitionNode, StringValueNode, VariableNode,
                     get_named_type)

from services.errors import ValidationError
from services.ids import check_id
from services.pagination import DEFAULT_PAGE
from services.validation import reject_nul

MAX_COST = 20_000
PAGE_ARGUMENTS = ("first", "last", "limit")
CURSOR_ARGUMENTS = ("after", "before")
_MISSING = object()


class _Walk:
    def __init__(self, schema: GraphQLSchema, fragments: dict[str, FragmentDefinitionNode],
                 variables: dict[str, Any]):
        self.schema = schema
        self.fragments = fragments
        self.variables = variables
        self.fragment_costs: dict[str, int] = {}
        self.active: set[str] = set()

    # ---------------------------------------------------------------- cost

    def selections(self, selection_set, parent) -> int:
        total = 0
        for sel in selection_set.selections:
            if isinstance(sel, FieldNode):
                total += self.field(sel, parent)
            elif isinstance(sel, InlineFragmentNode):
                t = self.schema.get_type(sel.type_condition.name.value) if sel.type_condition else parent
                total += self.selections(sel.selection_set, t)
            elif isinstance(sel, FragmentSpreadNode):
                total += self.spread(sel.name.value)
        return total

    def spread(self, name: str) -> int:
        if name in self.fragment_costs:
            return self.fragment_costs[name]
        frag = self.fragments.get(name)
        if frag is None or name in self.active:        # unknown or a cycle: validation reports it
            return 0
        self.active.add(name)
        cost = self.selections(frag.selection_set, self.schema.get_type(frag.type_condition.name.value))
        self.active.discard(name)
        self.fragment_costs[name] = cost
        return cost

    def field(self, node: FieldNode, parent) -> int:
        name = node.name.value
        fields = getattr(parent, "fields", None) or {}
        fdef = fields.get(name)
        if fdef is None:                                # __typename, introspection, or unknown
            return 0 if name.startswith("__") else 1
        connection = get_named_type(fdef.type).name.endswith("Connection")
        for arg in node.arguments or ():
            adef = fdef.args.get(arg.name.value)
            if adef is not None:
                self.literal(adef.type, arg.value, arg.name.value)
                if connection and arg.name.value in CURSOR_ARGUMENTS:
                    self.cursor(arg.value, arg.name.value)
        if node.selection_set is None:
            return 1
        inner = self.selections(node.selection_set, get_named_type(fdef.type))
        return 1 + self.multiplier(node, fdef) * inner

    def multiplier(self, node: FieldNode, fdef) -> int:
        for arg_name in PAGE_ARGUMENTS:
            if arg_name not in fdef.args:
                continue
            given = next((a.value for a in node.arguments or () if a.name.value == arg_name), None)
            value: Any = _MISSING
            if isinstance(given, IntValueNode):
                value = int(given.value)
            elif isinstance(given, VariableNode):
                value = self.variables.get(given.name.value, _MISSING)
            if not isinstance(value, int) or isinstance(value, bool):
                default = fdef.args[arg_name].default_value
                value = default if isinstance(default, int) and not isinstance(default, bool) else DEFAULT_PAGE
            return max(1, min(value, 1_000_000))
        return 1

    # ---------------------------------------------------------------- ids and NUL

    def cursor(self, node, param: str) -> None:
        """A connection's cursor is the id of the last row seen (services.pagination)."""
        value = self.variables.get(node.name.value) if isinstance(node, VariableNode) else \
            node.value if isinstance(node, StringValueNode) else None
        if isinstance(value, str):
            check_id(value, param)

    def literal(self, type_, node, param: str) -> None:
        if isinstance(node, VariableNode):
            value = self.variables.get(node.name.value, _MISSING)
            if value is not _MISSING:
                self.value(type_, value, param)
            return
        if isinstance(type_, GraphQLNonNull):
            type_ = type_.of_type
        if isinstance(type_, GraphQLList):
            if isinstance(node, ListValueNode):
                for i, item in enumerate(node.values):
                    self.literal(type_.of_type, item, f"{param}[{i}]")
            else:
                self.literal(type_.of_type, node, param)
        elif isinstance(type_, GraphQLInputObjectType):
            if isinstance(node, ObjectValueNode):
                for f in node.fields:
                    fd = type_.fields.get(f.name.value)
                    if fd is not None:
                        self.literal(fd.type, f.value, f"{param}.{f.name.value}")
        elif isinstance(type_, GraphQLScalarType):
            if isinstance(node, StringValueNode):
                if "\x00" in node.value:
                    raise ValidationError(f"{param} must not contain NUL characters", param=param)
                if type_.name == "ID":
                    check_id(node.value, param)
            elif isinstance(node, IntValueNode) and type_.name == "ID":
                check_id(node.value, param)
            elif isinstance(node, (ObjectValueNode, ListValueNode)):     # e.g. a JSON scalar literal
                self.strings(node, param)

    def strings(self, node, param: str) -> None:
        if isinstance(node, StringValueNode):
            if "\x00" in node.value:
                raise ValidationError(f"{param} must not contain NUL characters", param=param)
        elif isinstance(node, ObjectValueNode):
            for f in node.fields:
                self.strings(f.value, f"{param}.{f.name.value}")
        elif isinstance(node, ListValueNode):
            for i, item in enumerate(node.values):
                self.strings(item, f"{param}[{i}]")

    def value(self, type_, value: Any, param: str) -> None:
        """A variable's value at a location of `type_` (NUL in variables is checked up front).
        Only ID values are checked here, so a type that holds no ID is not walked."""
        if value is None or not _holds_ids(type_):
            return
        if isinstance(type_, GraphQLNonNull):
            type_ = type_.of_type
        if isinstance(type_, GraphQLList):
            if isinstance(value, list):
                for i, item in enumerate(value):
                    self.value(type_.of_type, item, f"{param}[{i}]")
            else:
                self.value(type_.of_type, value, param)
        elif isinstance(type_, GraphQLInputObjectType):
            if isinstance(value, dict):
                for k, v in value.items():
                    fd = type_.fields.get(k)
                    if fd is not None:
                        self.value(fd.type, v, f"{param}.{k}")
        elif isinstance(type_, GraphQLScalarType) and type_.name == "ID":
            if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
                check_id(str(value), param)


def _holds_ids(type_) -> bool:
    """Whether a value of input type `type_` can hold an ID anywhere (kept on the named type)."""
    named = get_named_type(type_)
    got = getattr(named, "_qafila_holds_ids", None)
    if got is None:
        got = _named_holds_ids(named, set())
        named._qafila_holds_ids = got
    return got


def _named_holds_ids(named, seen: set) -> bool:
    if isinstance(named, GraphQLScalarType):
        return named.name == "ID"
    if isinstance(named, GraphQLInputObjectType):
        if named.name in seen:
            return False                    # its fields are being looked at already
        seen.add(named.name)
        return any(_named_holds_ids(get_named_type(f.type), seen) for f in named.fields.values())
    return False


class _Recorder(_Walk):
    """The walk of a document with no variables read: each check a variable's value gets is
    recorded, in walk order, instead of made; `dynamic` if the cost reads a variable."""

    def __init__(self, schema: GraphQLSchema, fragments: dict[str, FragmentDefinitionNode]):
        super().__init__(schema, fragments, {})
        self.checks: list[tuple[Any, str, str]] = []      # (input type, or None for a cursor; variable; param)
        self.dynamic = False

    def cursor(self, node, param: str) -> None:
        if isinstance(node, VariableNode):
            self.checks.append((None, node.name.value, param))
        else:
            super().cursor(node, param)

    def literal(self, type_, node, param: str) -> None:
        if isinstance(node, VariableNode):
            self.checks.append((type_, node.name.value, param))
        else:
            super().literal(type_, node, param)

    def multiplier(self, node: FieldNode, fdef) -> int:
        if any(isinstance(a.value, VariableNode) and a.name.value in PAGE_ARGUMENTS for a in node.arguments or ()):
            self.dynamic = True
        return super().multiplier(node, fdef)


class Plan:
    """What inspect_request does for one operation of one document, less what depends only on
    the document (its literals, which passed, and its cost, which is within the limit): the
    checks of the variables' values, in the order the walk makes them."""

    __slots__ = ("checks",)

    def __init__(self, checks: list[tuple[Any, str, str]]):
        self.checks = checks


def plan_request(schema: GraphQLSchema, document, operation_name: str | None) -> Plan | None:
    """The plan of an operation, or None when inspect_request must run in full on every request:
    its cost depends on a variable, or the document itself is refused (a literal or its cost)."""
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    walk = _Recorder(schema, fragments)
    cost = 0
    try:
        for op in _operations(schema, document, operation_name):
            cost = max(cost, walk.selections(op.selection_set, schema.get_root_type(op.operation)))
    except ValidationError:
        return None
    if walk.dynamic or cost > MAX_COST:
        return None
    return Plan(walk.checks)


def _reject_nul(variables: dict[str, Any]) -> None:
    """services.validation.reject_nul after a cheap look: orjson writes a NUL in any string or
    key as \\u0000, so variables whose JSON has none hold none. Anything else (a NUL, a value
    orjson refuses) takes the full walk, which names the field."""
    if not variables:
        return
    try:
        if b"\\u0000" not in orjson.dumps(variables):
            return
    except TypeError:                   # orjson.JSONEncodeError: a key or value JSON cannot hold
        pass
    reject_nul(variables)


def inspect_planned(schema: GraphQLSchema, plan: Plan, variables: dict[str, Any] | None) -> None:
    """inspect_request for an operation with a plan: the same refusals in the same order."""
    variables = variables if isinstance(variables, dict) else {}
    _reject_nul(variables)
    if not plan.checks:
        return
    walk = _Walk(schema, {}, variables)
    for type_, name, param in plan.checks:
        value = variables.get(name, _MISSING)
        if value is _MISSING:
            continue
        if type_ is None:
            if isinstance(value, str):
                check_id(value, param)
        else:
            walk.value(type_, value, param)


def _operations(schema: GraphQLSchema, document, operation_name: str | None):
    """The operations inspect_request walks: the named one, or every one with a root type."""
    for op in document.definitions:
        if not isinstance(op, OperationDefinitionNode):
            continue
        if operation_name and (op.name is None or op.name.value != operation_name):
            continue
        if schema.get_root_type(op.operation) is None:
            continue
        yield op


def inspect_request(schema: GraphQLSchema, document, variables: dict[str, Any] | None,
                    operation_name: str | None) -> int:
    """Raises a DomainError for a NUL, a malformed id or a cost above MAX_COST; answers the cost
    of the operation that will run (the largest one when it is not named)."""
    variables = variables if isinstance(variables, dict) else {}
    _reject_nul(variables)
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    walk = _Walk(schema, fragments, variables)
    cost = 0
    for op in _operations(schema, document, operation_name):
        cost = max(cost, walk.selections(op.selection_set, schema.get_root_type(op.operation)))
    if cost > MAX_COST:
        raise ValidationError(f"Query cost {cost} exceeds the limit of {MAX_COST} (each field costs 1; "
                              f"first/last/limit multiply what they select)", code="query_too_complex")
    return cost
