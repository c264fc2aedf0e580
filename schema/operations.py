"""Prepared operations: what Strawberry's Schema.execute does per request that depends only on
the query text (parse, the operation and its type, validation), kept once per text.

Strawberry's execute builds, per request, an execution context, one instance of every schema
extension and four hook context managers (operation, parsing, validation, executing), looks
the text up in the parser cache and the document up in the validation cache (which hashes the
whole document), then runs graphql-core. `execute` below takes the same steps in the same
order with the same outcomes: parse (at most MAX_TOKENS tokens) -> the operation and its type,
refused as Strawberry refuses them -> schema.request_guard (cost, ids, NUL: per request, it
reads the variables) -> validation (the schema's rules, once per text) -> graphql-core.

An operation of one root field whose selection is made of plain fields (RootField, compiled
once per text) runs without graphql-core's per-request executor; everything else, and anything
out of the ordinary in a compiled one (an error, a null where none may be, a value of the wrong
type), is graphql-core's own work. tests/test_graphql_operations.py compares the two."""
from __future__ import annotations

from collections.abc import Iterable
from inspect import isawaitable
from typing import Any

from graphql import (DocumentNode, FieldNode, GraphQLEnumType, GraphQLError, GraphQLList, GraphQLNonNull,
                     GraphQLObjectType, GraphQLScalarType, OperationDefinitionNode, Undefined, parse)
from graphql import ExecutionResult as CoreExecutionResult
from graphql.execution import execute as graphql_execute
from graphql.execution.collect_fields import collect_fields
from graphql.execution.executor import default_field_resolver, default_type_resolver
from graphql.execution.get_variable_signature import get_variable_signature
from graphql.execution.values import VariableValues, VariableValueSource, get_argument_values, get_variable_values
from graphql.language.parser import MAX_NESTING_DEPTH
from graphql.pyutils import Path, is_iterable
from graphql.type import GraphQLInputObjectType, GraphQLResolveInfoHelpers, is_required_input_field
from graphql.utilities.coerce_input_value import coerce_default_value
from strawberry.exceptions import MissingQueryError
from strawberry.execution import optimized_is_awaitable
from strawberry.schema.exceptions import CannotGetOperationTypeError, InvalidOperationTypeError
from strawberry.schema.schema import (DEFAULT_ALLOWED_OPERATION_TYPES, StrawberryGraphQLCoreExecutionContext,
                                      validate_document)
from strawberry.schema.schema import _OperationContextAwareGraphQLResolveInfo as _ResolveInfo
from strawberry.types.arguments import convert_argument
from strawberry.types.execution import ExecutionResult, PreExecutionError
from strawberry.types.graphql import OperationType
from strawberry.utils.operation import get_first_operation, get_operation_type

from schema import permissions as field_permissions
from schema import request_guard
from services.identity import permissions as member_permissions
from services.errors import DomainError

CACHED_TEXTS = 256            # query texts kept per schema (Strawberry's caches kept 128 each)
_NAMES_PER_TEXT = 16          # operation names remembered per text (a client picks among few)


_LEAVES = "_qafila_leaves"


def _leaf(field_def) -> tuple[str, Any, bool] | None:
    """(Python attribute, serializer, non-null) of a plain leaf field: a Strawberry field with no
    resolver and no extensions (Strawberry's own "basic" field, resolved by getattr), no
    arguments, of a scalar or enum type (not a list); None for any other field."""
    sfield = field_def.extensions.get("strawberry-definition")
    resolve = field_def.resolve
    if (sfield is None or not sfield.is_basic_field or field_def.args or sfield.default_resolver is not getattr
            or getattr(resolve, "__name__", None) != "_get_basic_result"):
        return None
    type_ = field_def.type
    non_null = isinstance(type_, GraphQLNonNull)
    named = type_.of_type if non_null else type_
    if not isinstance(named, (GraphQLScalarType, GraphQLEnumType)):
        return None
    return sfield.python_name, named.serialize, non_null


def _leaves(parent_type: GraphQLObjectType) -> dict[str, tuple[str, Any, bool] | None]:
    leaves = getattr(parent_type, _LEAVES, None)
    if leaves is None:
        leaves = {name: _leaf(f) for name, f in parent_type.fields.items()}
        setattr(parent_type, _LEAVES, leaves)
    return leaves


class Executor(StrawberryGraphQLCoreExecutionContext):
    """Strawberry's graphql-core executor with two changes that keep every answer the same:

    - A selection made only of plain leaf fields (attributes of scalar or enum type, e.g.
      `payment { id status amount currency provider createdAt }`) is read and serialized
      directly: what graphql-core does for each (Strawberry's getattr resolver, then the
      type's serialize) without a resolve info, a path and the completion dispatch per field.
      Anything else -- a resolver, an argument, an object or list, __typename, a null in a
      non-null field, a serializer that fails or answers null -- takes graphql-core's path for
      the whole selection, which reports it as it always did.
    - No reference cycle is left behind: graphql-core's executor holds two of its own bound
      methods (`async_helpers`), so the executor and all it reaches (the context, the aiohttp
      request, every field's details) waited for the cycle collector; dropped once the
      response is built, reference counting frees them at once and the collector runs as
      seldom as on REST."""

    def execute_fields(self, parent_type, source_value, path, grouped_field_set, position_context):
        if self.middleware_manager is None:
            leaves = _leaves(parent_type)
            results: dict[str, Any] = {}
            for response_name, details in grouped_field_set.items():
                leaf = leaves.get(details[0].node.name.value)
                if leaf is None:
                    break
                name, serialize, non_null = leaf
                try:
                    value = getattr(source_value, name)
                    if value is None:
                        if non_null:
                            break
                        results[response_name] = None
                        continue
                    if isinstance(value, Exception):
                        break
                    value = serialize(value)
                except Exception:  # noqa: BLE001 - graphql-core's path reports it
                    break
                if value is None or value is Undefined:
                    break
                results[response_name] = value
            else:
                return results
        return super().execute_fields(parent_type, source_value, path, grouped_field_set, position_context)

    def build_response(self, data):
        try:
            return super().build_response(data)
        finally:
            if not self.background_futures and not self.pending_incremental_futures:
                self.async_helpers = None


# ---------------------------------------------------------------- variables, coerced as graphql-core does

def _coercer(type_, depth: int = 0):
    """graphql-core's coerce_input_value for one input type, with what depends only on the type
    (its kind, its fields, which are required or have a default) looked up once: (coerce,
    deepest nesting). The coercion is the same function, step for step; Undefined means
    invalid, and the caller then lets graphql-core report it."""
    if depth > MAX_NESTING_DEPTH:
        return None, depth
    if isinstance(type_, GraphQLNonNull):
        inner, deepest = _coercer(type_.of_type, depth)
        if inner is None:
            return None, deepest

        def non_null(value):
            if value is None or value is Undefined:
                return Undefined
            return inner(value)
        return non_null, deepest
    if isinstance(type_, GraphQLList):
        item, deepest = _coercer(type_.of_type, depth + 1)
        if item is None:
            return None, deepest

        def listed(value):
            if value is None or value is Undefined:
                return None
            if not is_iterable(value):
                one = item(value)
                return Undefined if one is Undefined else [one]
            out = []
            for v in value:
                one = item(v)
                if one is Undefined:
                    return Undefined
                out.append(one)
            return out
        return listed, deepest
    if isinstance(type_, GraphQLInputObjectType):
        if _coercer_building.get(type_.name):           # a recursive input type: graphql-core's
            return None, depth
        _coercer_building[type_.name] = True
        try:
            fields = []
            deepest = depth
            for name, field in type_.fields.items():
                coerce, d = _coercer(field.type, depth + 1)
                if coerce is None:
                    return None, d
                deepest = max(deepest, d)
                required = is_required_input_field(field)
                has_default = not required and coerce_default_value(field) is not Undefined
                fields.append((name, field.out_name or name, coerce, required, has_default, field))
        finally:
            del _coercer_building[type_.name]
        known = type_.fields
        one_of = type_.is_one_of
        out_type = type_.out_type

        def input_object(value):
            if value is None or value is Undefined:
                return None
            if not isinstance(value, dict):
                return Undefined
            defined = 0
            for name, v in value.items():
                if v is Undefined:
                    continue
                defined += 1
                if name not in known:
                    return Undefined
            out = {}
            for name, out_name, coerce, required, has_default, field in fields:
                v = value.get(name, Undefined)
                if v is Undefined:
                    if required:
                        return Undefined
                    if has_default:
                        out[out_name] = coerce_default_value(field)
                else:
                    c = coerce(v)
                    if c is Undefined:
                        return Undefined
                    out[out_name] = c
            if one_of:
                keys = list(out)
                if defined != 1 or len(keys) != 1 or out[keys[0]] is None:
                    return Undefined
            return out_type(out)
        return input_object, deepest
    leaf = type_.coerce_input_value

    def scalar(value):
        if value is None or value is Undefined:
            return None
        try:
            return leaf(value)
        except Exception:  # noqa: BLE001 - as graphql-core: invalid, no value
            return Undefined
    return scalar, depth


_coercer_building: dict[str, bool] = {}


def _variables(schema, operation) -> tuple | None:
    """Per variable of the operation: (name, signature, coerce); None when graphql-core must
    coerce them (a default value, a type whose nesting could go past its limit)."""
    out = []
    for var_def in operation.variable_definitions or ():
        signature = get_variable_signature(schema, var_def)
        if isinstance(signature, GraphQLError) or var_def.default_value is not None:
            return None
        coerce, deepest = _coercer(signature.type)
        if coerce is None or deepest >= MAX_NESTING_DEPTH:
            return None
        out.append((signature.name, signature, coerce))
    return tuple(out)


def _coerce_variables(variables: tuple, inputs: dict[str, Any]) -> VariableValues | None:
    """coerce_variable_values when every variable is given and valid; None otherwise (the
    caller runs graphql-core's, which reports the errors or applies what is missing). The
    nesting check is not needed: the types' nesting is below its limit."""
    sources: dict[str, VariableValueSource] = {}
    coerced: dict[str, Any] = {}
    for name, signature, coerce in variables:
        value = inputs.get(name, Undefined)
        if value is Undefined:
            return None
        sources[name] = VariableValueSource(signature, value)
        value = coerce(value)
        if value is Undefined:
            return None
        coerced[name] = value
    return VariableValues(sources, coerced)


# ---------------------------------------------------------------- one root field, compiled

_LEAF, _OBJECT, _LIST = 0, 1, 2


class _Slow(Exception):
    """The fast completion met something graphql-core must answer (a null in a non-null
    field, a serializer that fails, a value of another type, ...)."""


def _basic(field_def) -> str | None:
    """The Python attribute of a field Strawberry resolves with getattr (a basic field: no
    resolver, no extensions, no permission classes, no arguments); None for any other."""
    sfield = field_def.extensions.get("strawberry-definition")
    resolve = field_def.resolve
    if (sfield is None or not sfield.is_basic_field or field_def.args or sfield.default_resolver is not getattr
            or getattr(resolve, "__name__", None) != "_get_basic_result"):
        return None
    return sfield.python_name


def _strawberry_is_type_of(check) -> bool:
    """Strawberry's own is_type_of (it ignores the resolve info), or none at all."""
    return check is None or getattr(check, "__qualname__", "").endswith("_get_is_type_of.<locals>.is_type_of")


def _shape(schema, object_type: GraphQLObjectType, selection_set) -> tuple | None:
    """How to complete an object of `object_type` for `selection_set`: (is_type_of, fields), a
    field being (response name, attribute, kind, serializer or shape, non-null, items non-null);
    None unless every selection is a plain field (no fragment, directive, alias clash or
    __typename) that Strawberry resolves by getattr, of a leaf, object or list-of-object type."""
    if not _strawberry_is_type_of(object_type.is_type_of):
        return None
    fields = []
    seen = set()
    for sel in selection_set.selections:
        if not isinstance(sel, FieldNode) or sel.directives or sel.arguments:
            return None
        response_name = sel.alias.value if sel.alias else sel.name.value
        field_def = object_type.fields.get(sel.name.value)
        if response_name in seen or field_def is None:
            return None
        seen.add(response_name)
        name = _basic(field_def)
        if name is None:
            return None
        type_ = field_def.type
        non_null = isinstance(type_, GraphQLNonNull)
        if non_null:
            type_ = type_.of_type
        items_non_null = False
        kind = _OBJECT
        if isinstance(type_, GraphQLList):
            kind = _LIST
            type_ = type_.of_type
            items_non_null = isinstance(type_, GraphQLNonNull)
            if items_non_null:
                type_ = type_.of_type
        if isinstance(type_, (GraphQLScalarType, GraphQLEnumType)):
            if kind == _LIST or sel.selection_set is not None:
                return None
            fields.append((response_name, name, _LEAF, type_.coerce_output_value, non_null, False))
        elif isinstance(type_, GraphQLObjectType) and sel.selection_set is not None:
            sub = _shape(schema, type_, sel.selection_set)
            if sub is None:
                return None
            fields.append((response_name, name, kind, sub, non_null, items_non_null))
        else:
            return None
    return object_type.is_type_of, tuple(fields)


def _complete(shape: tuple, value: Any, info) -> dict[str, Any]:
    """graphql-core's completion of `value` for a compiled shape, when nothing in it is out of
    the ordinary; raises _Slow (or whatever a getattr raised) otherwise."""
    is_type_of, fields = shape
    if isinstance(value, Exception) or (is_type_of is not None and is_type_of(value, info) is not True):
        raise _Slow
    out: dict[str, Any] = {}
    for response_name, name, kind, how, non_null, items_non_null in fields:
        v = getattr(value, name)
        if v is None:
            if non_null:
                raise _Slow
            out[response_name] = None
            continue
        if kind == _LEAF:
            if isinstance(v, Exception):
                raise _Slow
            v = how(v)
            if v is None or v is Undefined:
                raise _Slow
        elif kind == _OBJECT:
            v = _complete(how, v, info)
        else:
            if not isinstance(v, list):
                raise _Slow
            items = []
            for item in v:
                if item is None:
                    if items_non_null:
                        raise _Slow
                    items.append(None)
                else:
                    items.append(_complete(how, item, info))
            v = items
        out[response_name] = v
    return out


def _cells(fn) -> dict[str, Any]:
    code = getattr(fn, "__code__", None)
    if code is None:
        return {}
    return dict(zip(code.co_freevars, (c.cell_contents for c in fn.__closure__ or ())))


def _direct_resolver(strawberry_schema, field_def):
    """Strawberry's resolver of a field (`_async_resolver` / `_resolver` of its schema
    converter) without the layers that do nothing for a field with no extensions and no
    exception handlers: the same Info, the same argument conversion (convert_argument, the
    arguments in their order), the same self/parent/root/info parameters, the same function.
    None for any other field (its resolver is called as graphql-core calls it)."""
    sfield = field_def.extensions.get("strawberry-definition")
    resolve = field_def.resolve
    if sfield is None or sfield.base_resolver is None or sfield.extensions \
            or getattr(resolve, "__name__", None) not in ("_async_resolver", "_resolver"):
        return None
    cells = _cells(resolve)
    info_cells = _cells(cells.get("_strawberry_info_from_graphql"))
    if cells.get("field_exception_handlers", True) or info_cells.get("field") is not sfield \
            or info_cells.get("self") is not strawberry_schema.schema_converter:
        return None
    resolver = sfield.base_resolver
    wrapped = resolver.wrapped_func
    if not callable(wrapped):
        return None
    converter = info_cells["self"]
    config = converter.config
    scalar_registry = converter.scalar_registry
    info_class = config.info_class
    arguments = tuple((config.name_converter.from_argument(a), a.python_name, a.type) for a in sfield.arguments)
    with_self = resolver.self_parameter is not None
    sources = tuple(p.name for p in (resolver.parent_parameter, resolver.root_parameter) if p is not None)
    info_name = resolver.info_parameter.name if resolver.info_parameter is not None else None

    def call(source, info, args: dict[str, Any]):
        strawberry_info = info_class(_raw_info=info, _field=sfield)
        kwargs = {}
        for graphql_name, python_name, type_ in arguments:
            if graphql_name in args:
                kwargs[python_name] = convert_argument(value=args[graphql_name], type_=type_, config=config,
                                                       scalar_registry=scalar_registry, info=strawberry_info,
                                                       path=(graphql_name,))
        for name in sources:
            kwargs[name] = source
        if info_name is not None:
            kwargs[info_name] = strawberry_info
        return wrapped(source, **kwargs) if with_self else wrapped(**kwargs)
    return call


class RootField:
    """An operation of one root field whose selection `_shape` can complete: run without
    graphql-core's per-request machinery (building an executor from the document, collecting
    fields, the chain of awaitables per field, a resolve info and a path per leaf), with the
    same steps and outcomes: the variables coerced by graphql-core, the field's arguments by
    graphql-core, its resolver (Strawberry's) called with a resolve info as graphql-core
    builds it, and its value completed -- by the shape when nothing is out of the ordinary,
    else by graphql-core's own completion of the same value (the resolver is never run twice);
    an error is located and propagated by graphql-core's executor."""

    __slots__ = ("operation", "variable_definitions", "variables", "root_type", "response_name", "field_def",
                 "node", "field_nodes", "field_details", "return_type", "has_args", "shape", "call")

    def __init__(self, operation, variables, root_type, response_name, field_def, field_details, shape, call):
        self.operation = operation
        self.variable_definitions = operation.variable_definitions or ()
        self.variables = variables
        self.root_type = root_type
        self.response_name = response_name
        self.field_def = field_def
        self.field_details = field_details
        self.node = field_details[0].node
        self.field_nodes = [d.node for d in field_details]
        self.return_type = field_def.type
        self.has_args = bool(field_def.args or self.node.arguments)
        self.shape = shape
        self.call = call

    async def run(self, schema, executor_class, context_value, root_value, raw_variables, operation_extensions):
        inputs = raw_variables or {}
        variable_values = _coerce_variables(self.variables, inputs) \
            if self.variables is not None and isinstance(inputs, dict) else None
        if variable_values is None:
            variable_values = get_variable_values(schema, self.variable_definitions, inputs, max_errors=50,
                                                  hide_suggestions=False)
            if isinstance(variable_values, list):
                return CoreExecutionResult(None, errors=variable_values)
        later = _Later(executor_class, schema, root_value, context_value, self.operation, variable_values,
                       operation_extensions)
        field_def, return_type, field_details = self.field_def, self.return_type, self.field_details
        path = Path(None, self.response_name, self.root_type.name)
        # Strawberry's build_resolve_info, with the executor's helpers made when first used
        info = _ResolveInfo(self.field_nodes[0].name.value, self.field_nodes, return_type, self.root_type, path,
                            schema, {}, root_value, self.operation, variable_values.coerced, context_value,
                            optimized_is_awaitable, None, GraphQLResolveInfoHelpers(later.gather, later.track),
                            operation_extensions)
        try:
            try:
                args = get_argument_values(field_def, self.node, variable_values, None, False) \
                    if self.has_args else {}
                call = self.call
                result = field_def.resolve(root_value, info, **args) if call is None else call(root_value, info, args)
                if optimized_is_awaitable(result):
                    result = await result
                try:
                    completed = _complete(self.shape, result, info)
                except Exception:  # noqa: BLE001 - graphql-core's completion answers it
                    completed = later.get().complete_value(return_type, field_details, info, path, result, None)
                    if optimized_is_awaitable(completed):
                        completed = await completed
            except Exception as raw_error:  # noqa: BLE001 - located as graphql-core locates it
                later.get().handle_field_error(raw_error, return_type, field_details, path)
                completed = None
            data = {self.response_name: completed}
        except GraphQLError as error:
            later.get().collected_errors.add(error, None)
            data = None
        executor = later.executor
        if executor is None:
            return CoreExecutionResult(data, None)
        if executor.background_futures or executor.pending_incremental_futures:
            return executor.build_response(data)
        # What build_response does with no hook, no incremental work (no @defer or @stream
        # here) and no work left in the background; and no cycle left (see Executor).
        executor.async_helpers = None
        return CoreExecutionResult(data, executor.collected_errors.errors or None)


class _Later:
    """The graphql-core executor of one request, made as graphql-core makes it when first
    needed: an error to locate, a value the compiled completion leaves to graphql-core, or a
    resolver using its resolve info's async helpers (gather, track)."""

    __slots__ = ("executor_class", "schema", "root_value", "context_value", "operation", "variable_values",
                 "operation_extensions", "executor")

    def __init__(self, executor_class, schema, root_value, context_value, operation, variable_values,
                 operation_extensions):
        self.executor_class = executor_class
        self.schema = schema
        self.root_value = root_value
        self.context_value = context_value
        self.operation = operation
        self.variable_values = variable_values
        self.operation_extensions = operation_extensions
        self.executor = None

    def get(self):
        executor = self.executor
        if executor is None:
            executor = self.executor = self.executor_class(
                self.schema, {}, {}, self.root_value, self.context_value, self.operation, self.variable_values,
                default_field_resolver, default_type_resolver, default_field_resolver, False, None,
                optimized_is_awaitable, None, hide_suggestions=False, abort_signal=None, hooks=None,
                operation_extensions=self.operation_extensions)
        return executor

    def gather(self, values):
        return self.get().gather_async_work(values)

    def track(self, values) -> None:
        return self.get().track_async_work(values)


def compile_root_field(strawberry_schema, document: DocumentNode, operation_name: str | None) -> RootField | None:
    """The RootField of a valid document's operation, or None when graphql-core must run it: a
    fragment or directive anywhere, more than one root field, an introspection field, or a
    selection `_shape` cannot complete."""
    schema = strawberry_schema._schema
    operation = None
    for definition in document.definitions:
        if not isinstance(definition, OperationDefinitionNode):
            return None
        if operation_name is None or (definition.name and definition.name.value == operation_name):
            operation = definition
    if operation is None or operation.directives:
        return None
    if any(v.directives for v in operation.variable_definitions or ()):
        return None
    root_type = schema.get_root_type(operation.operation)
    selections = operation.selection_set.selections
    if root_type is None or len(selections) != 1:
        return None
    node = selections[0]
    if not isinstance(node, FieldNode) or node.directives or node.name.value.startswith("__") \
            or node.selection_set is None:
        return None
    field_def = root_type.fields.get(node.name.value)
    if field_def is None or field_def.resolve is None:
        return None
    type_ = field_def.type
    named = type_.of_type if isinstance(type_, GraphQLNonNull) else type_
    if not isinstance(named, GraphQLObjectType):
        return None
    shape = _shape(schema, named, node.selection_set)
    if shape is None:
        return None
    grouped, _defers, _forbidden = collect_fields(schema, {}, VariableValues({}, {}), root_type, operation)
    if len(grouped) != 1:
        return None
    (response_name, field_details), = grouped.items()
    return RootField(operation, _variables(schema, operation), root_type, response_name, field_def, field_details,
                     shape, _direct_resolver(strawberry_schema, field_def))


class Operation:
    """The operation a request names in a text: the name Strawberry runs (with no name given,
    the first operation's, as Strawberry's ExecutionContext does), its type (None: no such
    operation) and request_guard's plan for it (made on first use)."""

    __slots__ = ("name", "type", "plan", "fast", "needs")

    def __init__(self, name: str | None, type_: OperationType | None):
        self.name = name
        self.type = type_
        self.plan: Any = _UNPLANNED
        self.fast: Any = _UNPLANNED      # a RootField, or None: graphql-core's execute
        self.needs: Any = _UNPLANNED     # (permissions its root fields need, open before 2FA enrolment)


_UNPLANNED = object()


class Prepared:
    """One query text: its document, its operations by the name a request gives, and its
    validation errors (computed on the first request the guard lets through)."""

    __slots__ = ("document", "operations", "errors")

    def __init__(self, document: DocumentNode):
        self.document = document
        self.operations: dict[str | None, Operation] = {}
        self.errors: list[GraphQLError] | None = None

    def operation(self, given: str | None) -> Operation:
        got = self.operations.get(given)
        if got is None:
            name = given
            if name is None:
                first = get_first_operation(self.document)
                name = first.name.value if first is not None and first.name is not None else None
            try:
                got = Operation(name, get_operation_type(self.document, name))
            except RuntimeError:
                got = Operation(name, None)
            if len(self.operations) < _NAMES_PER_TEXT:
                self.operations[given] = got
        return got


def preparer(max_tokens: int):
    """A per-schema cache: query text -> Prepared. A syntax error (or too many tokens) raises
    and is not kept, as in Strawberry's ParserCache."""
    from functools import lru_cache

    @lru_cache(maxsize=CACHED_TEXTS)
    def prepare(query: str) -> Prepared:
        return Prepared(parse(query, max_tokens=max_tokens))
    return prepare


def member_refusal(principal, needs) -> DomainError | None:
    """A member's session asking for what its roles do not allow (403 `permission_denied` naming
    the permission), or for anything but its own account before the 2FA its merchant requires."""
    perms, own_account = needs
    if principal.two_factor_pending and not own_account:
        return DomainError("Your merchant requires two-factor sign-in: enrol first (twoFactorEnroll)",
                           code="two_factor_enrollment_required", status=403)
    for p in perms:
        if p not in principal.permissions:
            return member_permissions.denied(p)
    return None


def _refused(schema, errors: list[GraphQLError]) -> PreExecutionError:
    schema._process_errors(errors)
    return PreExecutionError(data=None, errors=errors, extensions={})


async def execute(schema, prepare, rules: tuple, query: str | None, variable_values: dict[str, Any] | None,
                  context_value: Any, root_value: Any, operation_name: str | None,
                  allowed_operation_types: Iterable[OperationType] | None,
                  operation_extensions: dict[str, Any] | None) -> ExecutionResult:
    """Strawberry's Schema.execute for `schema` without extension hooks; `rules` are the
    validation rules its extensions would add to graphql-core's specified rules."""
    if allowed_operation_types is None:
        allowed_operation_types = DEFAULT_ALLOWED_OPERATION_TYPES
    if not query:
        raise MissingQueryError
    try:
        try:
            prepared = prepare(query)
        except GraphQLError as error:
            return _refused(schema, [error])
        except Exception as error:  # noqa: BLE001 - as Strawberry: an error of the request
            return _refused(schema, [GraphQLError(str(error), original_error=error)])
        operation = prepared.operation(operation_name)
        name = operation.name
        if operation.type is None:
            raise CannotGetOperationTypeError(name)
        if operation.type not in allowed_operation_types:
            raise InvalidOperationTypeError(operation.type)
        document = prepared.document
        try:
            plan = operation.plan
            if plan is _UNPLANNED:
                plan = operation.plan = request_guard.plan_request(schema._schema, document, name)
            if plan is None:
                request_guard.inspect_request(schema._schema, document, variable_values, name)
            else:
                request_guard.inspect_planned(schema._schema, plan, variable_values)
        except DomainError as err:
            return _refused(schema, [GraphQLError(err.message, original_error=err)])
        errors = prepared.errors
        if errors is None:
            errors = prepared.errors = validate_document(schema._schema, document, rules)
        if errors:
            return _refused(schema, errors)
        principal = getattr(context_value, "maybe_principal", None)
        if getattr(principal, "member_id", None) is not None:
            needs = operation.needs
            if needs is _UNPLANNED:
                needs = operation.needs = field_permissions.needed(field_permissions.root_fields(document, name))
            refused = member_refusal(principal, needs)
            if refused is not None:
                return _refused(schema, [GraphQLError(refused.message, original_error=refused)])
        fast = operation.fast
        if fast is _UNPLANNED:
            fast = operation.fast = compile_root_field(schema, document, name)
        executor_class = schema.execution_context_class
        if fast is not None and executor_class is Executor:
            result = await fast.run(schema._schema, executor_class, context_value, root_value, variable_values,
                                    operation_extensions)
        else:
            result = graphql_execute(schema._schema, document, root_value=root_value, context_value=context_value,
                                     variable_values=variable_values, operation_name=name,
                                     is_awaitable=optimized_is_awaitable, executor_class=executor_class,
                                     operation_extensions=operation_extensions)
            if isawaitable(result):
                result = await result
    except (MissingQueryError, CannotGetOperationTypeError, InvalidOperationTypeError):
        raise
    except Exception as exc:  # noqa: BLE001 - as Strawberry: an errors-only result, never a raise
        return _refused(schema, [exc if isinstance(exc, GraphQLError) else GraphQLError(str(exc), original_error=exc)])
    if result.errors:
        schema._process_errors(result.errors)
    return ExecutionResult(data=result.data, errors=result.errors, extensions={})
