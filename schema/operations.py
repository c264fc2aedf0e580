"""Prepared operations: what Strawberry's Schema.execute does per request that depends only on
the query text (parse, the operation and its type, validation), kept once per text.

Strawberry's execute builds, per request, an execution context, one instance of every schema
extension and four hook context managers (operation, parsing, validation, executing), looks
the text up in the parser cache and the document up in the validation cache (which hashes the
whole document), then runs graphql-core. `execute` below takes the same steps in the same
order with the same outcomes: parse (at most MAX_TOKENS tokens) -> the operation and its type,
refused as Strawberry refuses them -> schema.request_guard (cost, ids, NUL: per request, it
reads the variables) -> validation (the schema's rules, once per text) -> graphql-core."""
from __future__ import annotations

from collections.abc import Iterable
from inspect import isawaitable
from typing import Any

from graphql import (DocumentNode, GraphQLEnumType, GraphQLError, GraphQLNonNull, GraphQLObjectType,
                     GraphQLScalarType, Undefined, parse)
from graphql.execution import execute as graphql_execute
from strawberry.exceptions import MissingQueryError
from strawberry.execution import optimized_is_awaitable
from strawberry.schema.exceptions import CannotGetOperationTypeError, InvalidOperationTypeError
from strawberry.schema.schema import (DEFAULT_ALLOWED_OPERATION_TYPES, StrawberryGraphQLCoreExecutionContext,
                                      validate_document)
from strawberry.types.execution import ExecutionResult, PreExecutionError
from strawberry.types.graphql import OperationType
from strawberry.utils.operation import get_first_operation, get_operation_type

from schema import request_guard
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


class Operation:
    """The operation a request names in a text: the name Strawberry runs (with no name given,
    the first operation's, as Strawberry's ExecutionContext does), its type (None: no such
    operation) and request_guard's plan for it (made on first use)."""

    __slots__ = ("name", "type", "plan")

    def __init__(self, name: str | None, type_: OperationType | None):
        self.name = name
        self.type = type_
        self.plan: Any = _UNPLANNED


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
        result = graphql_execute(schema._schema, document, root_value=root_value, context_value=context_value,
                                 variable_values=variable_values, operation_name=name,
                                 is_awaitable=optimized_is_awaitable, executor_class=schema.execution_context_class,
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
