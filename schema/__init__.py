"""The one GraphQL schema: each domain module contributes a Query and a Mutation class."""
from __future__ import annotations

import importlib
import logging

import strawberry
from graphql import GraphQLError, specified_rules
from strawberry.extensions import (AddValidationRules, DisableIntrospection, MaxAliasesLimiter, ParserCache,
                                   QueryDepthLimiter, ValidationCache)
from strawberry.tools import merge_types
from strawberry.types import Info

from schema import operations, request_guard
from schema import permissions as field_permissions
from schema.context import Context
from schema.inputs import install_input_builders
from schema.relay import NODE_RESOLVERS, Node
from schema.scalars import SCALAR_OVERRIDES
from services.errors import DomainError, NotFound
from services.identity import permissions as member_permissions
from services.infra import faults

log = logging.getLogger("qafila.graphql")

# Domain modules, in the order their fields appear. Each may define Query, Mutation and/or
# SubscriptionRoot (the root subscription fields).
DOMAINS = ["schema.identity", "schema.team", "schema.payments", "schema.intents", "schema.billing", "schema.einvoicing", "schema.money",
           "schema.links", "schema.webhooks", "schema.live_events", "schema.local_methods", "schema.installments",
           "schema.crm", "schema.bnpl", "schema.marketplace"]

MAX_DEPTH = 10
MAX_ALIASES = 30
MAX_TOKENS = 5000


@strawberry.type
class NodeQuery:
    @strawberry.field(description="Any object by its prefixed id (pay_..., key_..., cus_...).")
    async def node(self, info: Info[Context, None], id: strawberry.ID) -> Node | None:
        prefix = str(id).split("_", 1)[0]
        resolver = NODE_RESOLVERS.get(prefix)
        if resolver is None:
            raise NotFound()
        principal = info.context.maybe_principal
        if getattr(principal, "member_id", None) is not None and prefix in field_permissions.NODE_PREFIXES:
            member_permissions.require(principal.permissions, field_permissions.NODE_PREFIXES[prefix])
        return await resolver(info, str(id))


# The depth and alias limiters make their validation rule classes when constructed; built once
# here, the rules are the same objects on every request, so the validation cache (keyed by
# schema, document and rules) hits instead of re-validating every query.
LIMIT_RULES = (*QueryDepthLimiter(max_depth=MAX_DEPTH).validation_rules,
               *MaxAliasesLimiter(max_alias_count=MAX_ALIASES).validation_rules)


class RequestLimits(ParserCache, ValidationCache):
    """Strawberry's ParserCache and ValidationCache plus what MaxTokensLimiter and
    AddValidationRules(depth, aliases) do, as one extension: one instance and one set of hooks
    per request instead of four (they cost more than parsing once the caches hit)."""

    def on_operation(self):
        ec = self.execution_context
        ec.parse_options["max_tokens"] = MAX_TOKENS
        ec.validation_rules = ec.validation_rules + LIMIT_RULES
        yield

    def on_validate(self):
        """Before validation (cached or not): the cost limit, id format and NUL checks of
        schema.request_guard; a refused document is never validated or executed."""
        ec = self.execution_context
        try:
            request_guard.inspect_request(ec.schema._schema, ec.graphql_document, ec.variables, ec.operation_name)
        except DomainError as err:
            ec.pre_execution_errors = [GraphQLError(err.message, original_error=err)]
            yield
            return
        yield from super().on_validate()


class QafilaSchema(strawberry.Schema):
    """Queries and mutations run through schema.operations (the work that depends only on the
    query text done once per text, no per-request extension hooks); subscriptions keep
    Strawberry's path with RequestLimits."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._prepare = operations.preparer(MAX_TOKENS)
        self._rules = self._validation_rules()

    def _validation_rules(self) -> tuple | None:
        """The rules RequestLimits and AddValidationRules extensions (DisableIntrospection)
        add, in their order; None (Strawberry's own execute) if another extension, a schema
        directive or incremental delivery is configured."""
        if self.directives or self.config.enable_experimental_incremental_execution:
            return None
        rules = tuple(specified_rules)
        for ext in self.extensions:
            if ext is RequestLimits:
                rules += LIMIT_RULES
            elif isinstance(ext, type) and issubclass(ext, AddValidationRules):
                rules += tuple(ext().validation_rules)
            else:
                return None
        return rules

    async def execute(self, query, variable_values=None, context_value=None, root_value=None,
                      operation_name=None, allowed_operation_types=None, operation_extensions=None):
        if self._rules is None:
            return await super().execute(query, variable_values, context_value, root_value, operation_name,
                                         allowed_operation_types, operation_extensions)
        return await operations.execute(self, self._prepare, self._rules, query, variable_values, context_value,
                                        root_value, operation_name, allowed_operation_types,
                                        operation_extensions)

    def process_errors(self, errors: list[GraphQLError], execution_context=None) -> None:
        # Expected outcomes are not logged; the rest is logged once by the view with a request id.
        return None


def build_schema(*, production: bool = False) -> strawberry.Schema:
    queries, mutations, subscriptions = [NodeQuery], [], []
    for name in DOMAINS:
        mod = importlib.import_module(name)
        if hasattr(mod, "Query"):
            queries.append(mod.Query)
        if hasattr(mod, "Mutation"):
            mutations.append(mod.Mutation)
        if hasattr(mod, "SubscriptionRoot"):       # `Subscription` is billing's type
            subscriptions.append(mod.SubscriptionRoot)
    query = merge_types("Query", tuple(queries))
    mutation = merge_types("Mutation", tuple(mutations)) if mutations else None
    subscription = merge_types("SubscriptionRoot", tuple(subscriptions)) if subscriptions else None
    extensions: list = [RequestLimits]
    if production:
        extensions.append(DisableIntrospection)
    schema = QafilaSchema(query=query, mutation=mutation, subscription=subscription, extensions=extensions,
                          scalar_overrides=SCALAR_OVERRIDES, execution_context_class=operations.Executor)
    install_input_builders(schema)
    return schema


def format_error(err: GraphQLError, request_id: str) -> dict:
    """errors[] entry: message + extensions {code, status} (+ param) in the REST codes."""
    original = err.original_error
    out = err.formatted
    if isinstance(original, DomainError):
        out["message"] = original.message
        out["extensions"] = {"code": original.code, "status": original.status, "param": original.param,
                             **original.extra_fields(), "request_id": request_id}
    elif original is not None and faults.is_outage(original):
        # PostgreSQL or Redis unreachable or saturated: 503, never 500 (the view sets the status).
        unavailable = faults.unavailable(original, where=f"request_id={request_id} graphql path={err.path}")
        out = {"message": unavailable.message, "path": err.path,
               "extensions": {"code": unavailable.code, "status": unavailable.status, "request_id": request_id}}
    elif original is None or isinstance(original, GraphQLError) or err.path is None:
        # parse, validation and variable-coercion errors: the request itself is wrong
        out["extensions"] = {"code": "graphql_validation_failed", "status": 400, "request_id": request_id}
    else:
        log.error("unexpected error in GraphQL request_id=%s path=%s", request_id, err.path,
                  exc_info=(type(original), original, original.__traceback__))
        out = {"message": "Internal server error", "path": err.path,
               "extensions": {"code": "internal_error", "status": 500, "request_id": request_id}}
    return out
