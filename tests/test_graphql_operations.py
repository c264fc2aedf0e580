"""QafilaSchema.execute (schema.operations: parse, operation and validation kept per query text)
answers exactly what Strawberry's own Schema.execute with our extensions answers, refusals
included, on the first request of a text and on the next ones."""
import re

import orjson
import pytest
import strawberry

from schema import MAX_ALIASES, MAX_DEPTH, MAX_TOKENS, build_schema
from schema.context import Context
from strawberry.types.graphql import OperationType

SCHEMA = build_schema()
PRODUCTION = build_schema(production=True)

_DEEP = "{ __schema { types { " + "fields { type { " * MAX_DEPTH + "name" + " } }" * MAX_DEPTH + " } } }"
_ALIASES = "{ " + " ".join(f"a{i}: __typename" for i in range(MAX_ALIASES + 5)) + " }"
_COSTLY = "{ " + " ".join(f"p{i}: payments(first: 1000) {{ edges {{ node {{ id status amount }} }} }}"
                          for i in range(5)) + " }"

CASES = {
    "execution error with a path (no credential)": ("{ viewer { id email } }", {}),
    "syntax error": ("{ viewer { id ", {}),
    "too many tokens": ("{ " + "a " * (MAX_TOKENS + 10) + "}", {}),
    "two operations, none named: the first runs": ("query A { __typename } query B { viewer { id } }", {}),
    "two operations, the second named": ("query A { __typename } query B { viewer { id } }",
                                         {"operation_name": "B"}),
    "unknown operation name": ("query A { __typename }", {"operation_name": "C"}),
    "anonymous and named operations": ("{ __typename } query B { __typename }", {}),
    "mutation where only queries are allowed": (
        "mutation { paymentIntentCreate(input: {}) { userErrors { code } } }",
        {"allowed_operation_types": {OperationType.QUERY}}),
    "unknown field": ("{ nope }", {}),
    "introspection depth": (_DEEP, {}),
    "alias limit": (_ALIASES, {}),
    "cost limit": (_COSTLY, {}),
    "malformed id literal": ('{ payment(id: "not an id!") { id } }', {}),
    "NUL in a variable": ("query($id: ID!) { payment(id: $id) { id } }", {"variable_values": {"id": "pay_\x00"}}),
    "missing variable": ("query($id: ID!) { payment(id: $id) { id } }", {}),
    "variable of the wrong type": ("query($first: Int) { payments(first: $first) { totalCount } }",
                                   {"variable_values": {"first": "x"}}),
    "introspection": ("{ __schema { queryType { name } } }", {}),
    "typename": ("{ __typename }", {}),
}


async def _outcome(execute, schema, query, kwargs):
    try:
        result = await execute(schema, query, context_value=Context(request=None, request_id="req_test"), **kwargs)
    except Exception as exc:  # noqa: BLE001 - the outcome compared is the exception
        return ("raised", type(exc), getattr(exc, "operation_name", None), getattr(exc, "operation_type", None))
    errors = result.errors or []
    return (type(result), result.data, [e.formatted for e in errors],
            [type(e.original_error) for e in errors], result.extensions)


@pytest.mark.parametrize("production", [False, True], ids=["development", "production"])
@pytest.mark.parametrize("case", sorted(CASES))
async def test_prepared_execution_answers_as_strawberry(case, production):
    schema = PRODUCTION if production else SCHEMA
    query, kwargs = CASES[case]
    theirs = await _outcome(strawberry.Schema.execute, schema, query, kwargs)
    first = await _outcome(type(schema).execute, schema, query, kwargs)
    again = await _outcome(type(schema).execute, schema, query, kwargs)
    assert first == theirs
    assert again == theirs


async def test_an_empty_query_is_refused_as_strawberry_refuses_it():
    for execute in (strawberry.Schema.execute, type(SCHEMA).execute):
        outcome = await _outcome(execute, SCHEMA, "", {})
        assert outcome[:2] == ("raised", strawberry.exceptions.MissingQueryError)


# ---------------------------------------------------------------- plain leaf fields

PAYMENT_FIELDS = """id status amount currency provider createdAt riskScore amountCaptured amountRefunded
  captureMethod declineCode customerId paymentLink receiptUrl metadata __typename again: id
  card { brand last4 expMonth expYear fingerprint country }
  routingDecision { strategy reason latencyMs ruleId alternativesConsidered attempts { provider outcome } }
  customer { id email } receipt { channel status }"""
DOCUMENTS = [
    ("query($id: ID!) { payment(id: $id) { " + PAYMENT_FIELDS + " } }", "payment"),
    ("query($id: ID!) { payment(id: $id) { id status amount currency provider createdAt } }", "payment"),
    ("query($id: ID!) { paymentIntent(id: $id) { id status amount currency netAmount settlementDate livemode "
     "canceledAt succeededAt description metadata fee { amount currency rate breakdown { processing network } } "
     "nextAction { type } split { merchantId amount } crypto { asset } } }", "intent"),
    ("{ viewer { id email } }", None),
    ("{ payments(first: 5) { totalCount edges { cursor node { id status amount declineCode } } } }", None),
]


def _view_schema(app):
    return next(route.handler.schema for resource in app.router.resources() for route in resource
                if getattr(route.handler, "schema", None) is not None)


async def test_plain_leaf_fields_answer_as_graphql_core_answers(client, merchant, monkeypatch):
    from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

    from models.payments import Payment
    from tests.helpers import gql
    from tests.payments_fixtures import DECLINED, call, pay

    _, paid = await pay(client, merchant.sk, customer={"email": "leaf@example.com"})
    await pay(client, merchant.sk, number=DECLINED)
    declined = {"id": (await Payment.get(merchant_id=merchant.id, status="failed")).id}
    _, intent = await call(client, "POST", "/v1/payments/intent", merchant.sk,
                           {"amount": 5000, "currency": "TRY", "payment_method": "card"})
    schema = _view_schema(client.app)
    for query, kind in DOCUMENTS:
        ids = {"payment": [paid["id"], declined["id"]], "intent": [intent["id"]], None: [None]}[kind]
        for id_ in ids:
            variables = {"id": id_} if id_ else {}
            ours = await gql(client, query, variables, key=merchant.sk)
            with monkeypatch.context() as m:
                m.setattr(schema, "execution_context_class", StrawberryGraphQLCoreExecutionContext)
                theirs = await gql(client, query, variables, key=merchant.sk)
            assert ours == theirs
            assert ours[0] == 200 and "errors" not in ours[1], ours


# ---------------------------------------------------------------- the guard's plan per document

GUARDED = [
    "query($id: ID!) { payment(id: $id) { id } }",
    "query($id: ID!, $c: ID) { payment(id: $id) { id } customer(id: $c) { id } }",
    'query($a: String) { payments(first: 5, after: $a) { edges { node { id } } } }',
    "query($n: Int) { payments(first: $n) { edges { node { id customer { id } } } } }",
    "mutation($input: PaymentCaptureInput!) { paymentCapture(input: $input) { userErrors { code } } }",
    "mutation($input: PaymentCreateInput!) { paymentCreate(input: $input) { userErrors { code } } }",
    "query($id: ID!) { ...F } fragment F on Query { payment(id: $id) { id } again: payment(id: $id) { id } }",
    'query($id: ID!) { payment(id: "pay_bad id") { id } other: payment(id: $id) { id } }',
]
VARIABLES = [
    {}, {"id": "pay_abc", "c": "cus_abc", "a": "pay_abc", "n": 10},
    {"id": "bad id", "c": "cus_\x00"}, {"id": "pay_abc", "c": "x" * 200}, {"a": "bad cursor!"}, {"n": 10**9},
    {"input": {"id": "pay_abc", "amount": 5}}, {"input": {"id": "nope nope"}},
    {"input": {"amount": 1, "currency": "TRY", "customerId": "bad id", "paymentMethod": {"card": {"number": "1"}}}},
    {"input": {"customer": {"id": "cus_ok", "email": "a\x00b"}}}, {"id": 12345}, {"id": ["pay_a"]},
]


def _guarded(fn):
    try:
        return ("ok", fn())
    except Exception as exc:  # noqa: BLE001 - the outcome compared is the exception
        return (type(exc), str(exc), getattr(exc, "param", None), getattr(exc, "code", None))


@pytest.mark.parametrize("query", GUARDED)
def test_the_guards_plan_refuses_what_the_full_walk_refuses(query):
    from graphql import parse

    from schema import request_guard

    s, doc = SCHEMA._schema, parse(query)
    plan = request_guard.plan_request(s, doc, None)
    for variables in VARIABLES:
        full = _guarded(lambda: request_guard.inspect_request(s, doc, variables, None))
        if plan is None:
            continue
        planned = _guarded(lambda: request_guard.inspect_planned(s, plan, variables))
        assert planned[0] == "ok" if full[0] == "ok" else planned == full, variables


# ---------------------------------------------------------------- no garbage for the collector

async def test_a_graphql_request_leaves_no_reference_cycle(client, merchant):
    """The executor, the context and the aiohttp request are freed by reference counting, as
    on REST: left in cycles they waited for the collector, whose full passes over the heap cost
    100-500 ms under load (docs/decisions.md, issue 16)."""
    import gc

    from aiohttp import web

    from schema.context import Context
    from schema.operations import Executor
    from tests.helpers import gql

    documents = ["{ viewer { id email } }",
                 "mutation { paymentIntentCreate(input: {amount: 5000, currency: \"TRY\", paymentMethod: \"card\"}) "
                 "{ paymentIntent { id status } userErrors { code } } }",
                 "mutation { paymentIntentCreate(input: {amount: -1}) { userErrors { code field } } }"]
    for query in documents:
        await gql(client, query, key=merchant.sk)
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for query in documents:
            status, body = await gql(client, query, key=merchant.sk)
            assert status == 200 and "errors" not in body, body
        gc.collect()
        left = [type(o).__name__ for o in gc.garbage if isinstance(o, (Context, web.BaseRequest, Executor))]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert left == []


# ---------------------------------------------------------------- one root field, compiled

def _compiled(schema, query: str, operation_name: str | None = None):
    """The RootField the schema keeps for `query` once it has run (None: graphql-core runs it)."""
    return schema._prepare(query).operation(operation_name).fast


COMPILED = [
    ("query($id: ID!) { payment(id: $id) { id status amount currency provider createdAt } }", {"id": "paid"}),
    ("query($id: ID!) { payment(id: $id) { id status amount currency provider createdAt } }", {"id": "declined"}),
    ("query($id: ID!) { payment(id: $id) { id status amount } }", {"id": "pay_" + "x" * 24}),
    ("query Q($id: ID!) { p: payment(id: $id) { i: id s: status declineCode customerId paymentLink } }",
     {"id": "declined"}),
    ("query($id: ID!) { payment(id: $id) { id } }", {}),
    ("query($id: ID!) { payment(id: $id) { id } }", {"id": None}),
    ("query($id: ID!) { payment(id: $id) { id } }", {"id": 12345}),
    ('query($id: ID! = "pay_xxxxxxxxxxxxxxxxxxxxxxxx") { payment(id: $id) { id } }', {}),
    ("query($id: ID!) { paymentIntent(id: $id) { id status amount netAmount description livemode settlementDate "
     "fee { amount currency rate breakdown { processing currencyConversion network } } split { merchantId amount } "
     "nextAction { type } crypto { asset } codAddress { city } } }", {"id": "intent"}),
    ("mutation($input: PaymentIntentCreateInput!) { paymentIntentCreate(input: $input) "
     "{ paymentIntent { id status netAmount } userErrors { code field } } }",
     {"input": {"amount": 10000, "currency": "TRY", "paymentMethod": "card", "metadata": {"bench": "1"}}}),
    ("mutation($input: PaymentIntentCreateInput!) { paymentIntentCreate(input: $input) "
     "{ paymentIntent { id status netAmount codStatus codAddress { line1 city country postalCode } } "
     "userErrors { code field message declineCode } } }",
     {"input": {"amount": 2500, "currency": "TRY", "paymentMethod": "cod",
                "codAddress": {"line1": "Istiklal 1", "city": "Istanbul", "country": "TR"}}}),
    ("mutation($input: PaymentIntentCreateInput!) { paymentIntentCreate(input: $input) "
     "{ paymentIntent { id split { merchantId amount currency } } userErrors { code field } } }",
     {"input": {"amount": 10000, "currency": "TRY", "paymentMethod": "card",
                "split": [{"merchantId": "mer_" + "y" * 24, "amount": 100, "currency": "TRY"}]}}),
    ("mutation($input: PaymentIntentCreateInput!) { paymentIntentCreate(input: $input) "
     "{ paymentIntent { id } userErrors { code field message } } }", {"input": {"amount": -1, "currency": "TRY"}}),
    ("mutation($input: PaymentIntentCreateInput!) { paymentIntentCreate(input: $input) { userErrors { code } } }",
     {"input": {"nope": 1}}),
    ("mutation($input: PaymentIntentCreateInput!) { paymentIntentCreate(input: $input) { userErrors { code } } }",
     {"input": None}),
    ("mutation($input: PaymentIntentCreateInput!) { paymentIntentCreate(input: $input) { userErrors { code } } }",
     {"input": [{"amount": 1}]}),
    ("mutation($input: PaymentIntentCreateInput!) { paymentIntentCreate(input: $input) { userErrors { code } } }",
     {"input": {"split": {"amount": 1}, "codAddress": None, "metadata": [1, {"a": None}]}}),
    ("mutation($input: PaymentCreateInput!) { paymentCreate(input: $input) "
     "{ payment { id status amount declineCode } userErrors { code field declineCode } } }",
     {"input": {"amount": 1000, "currency": "TRY", "paymentMethod": {"card": {"number": "4000000000000002",
                                                                             "expMonth": 12, "expYear": 2035}}}}),
    ("mutation($input: PaymentCreateInput!) { paymentCreate(input: $input) { payment { id } userErrors { code } } }",
     {"input": {"amount": 1000, "currency": "TRY", "paymentMethod": {"card": {"number": 4242}}}}),
]


async def test_compiled_root_fields_answer_as_graphql_core_answers(client, merchant, monkeypatch):
    """Every document above runs compiled (RootField) and answers what Strawberry's executor on
    graphql-core answers: data, errors (message, path, locations, code) and HTTP status."""
    from models.payments import Payment
    from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext
    from tests.helpers import gql
    from tests.payments_fixtures import DECLINED, call, pay

    _, paid = await pay(client, merchant.sk)
    await pay(client, merchant.sk, number=DECLINED)
    declined = (await Payment.get(merchant_id=merchant.id, status="failed")).id
    _, intent = await call(client, "POST", "/v1/payments/intent", merchant.sk,
                           {"amount": 5000, "currency": "TRY", "payment_method": "card"})
    named = {"paid": paid["id"], "declined": declined, "intent": intent["id"]}
    schema = _view_schema(client.app)

    def without_ids(answer):         # creates make new ids each run
        status, body = answer
        text = orjson.dumps(body).decode()
        return status, re.sub(r"pay_[A-Za-z0-9]{24}", "pay_ID", re.sub(r"req_[A-Za-z0-9]{24}", "req_ID", text))

    for query, variables in COMPILED:
        variables = {k: named.get(v, v) if isinstance(v, str) else v for k, v in variables.items()}
        ours = await gql(client, query, variables, key=merchant.sk)
        assert _compiled(schema, query) is not None, query
        with monkeypatch.context() as m:
            m.setattr(schema, "execution_context_class", StrawberryGraphQLCoreExecutionContext)
            theirs = await gql(client, query, variables, key=merchant.sk)
        assert without_ids(ours) == without_ids(theirs), (query, variables)
    # and without a credential: the resolver's 401, as graphql-core reports it
    query, variables = COMPILED[0]
    ours = await gql(client, query, {"id": paid["id"]}, key="sk_test_" + "z" * 32)
    with monkeypatch.context() as m:
        m.setattr(schema, "execution_context_class", StrawberryGraphQLCoreExecutionContext)
        theirs = await gql(client, query, {"id": paid["id"]}, key="sk_test_" + "z" * 32)
    assert without_ids(ours) == without_ids(theirs)


NOT_COMPILED = [
    "query($id: ID!) { payment(id: $id) { id receipt { status } } }",           # a resolver below the root
    "query($id: ID!) { payment(id: $id) { id __typename } }",
    "query($id: ID!) { payment(id: $id) { id ... on Payment { status } } }",
    "query($id: ID!, $s: Boolean!) { payment(id: $id) { id status @include(if: $s) } }",
    "query($id: ID!) { a: payment(id: $id) { id } b: payment(id: $id) { id } }",
    "{ __schema { queryType { name } } }",
    "mutation { paymentIntentCreate(input: {amount: 100}) { userErrors { code } } viewer: __typename }",
    "query($id: ID!) { node(id: $id) { id } }",                                 # an interface
]


@pytest.mark.parametrize("query", NOT_COMPILED)
async def test_what_is_not_compiled_runs_on_graphql_core(query):
    ctx = Context(request=None, request_id="req_test")
    await type(SCHEMA).execute(SCHEMA, query, variable_values={"id": "pay_" + "x" * 24, "s": True},
                               context_value=ctx)
    assert _compiled(SCHEMA, query) is None


# A schema whose resolvers return what a Qafila resolver should never return, to compare the
# compiled completion's way back to graphql-core's with graphql-core itself.

@strawberry.type
class _Inner:
    n: int
    s: str | None = None


@strawberry.interface
class _Named:
    name: str


@strawberry.type
class _Outer(_Named):
    name: str
    inner: _Inner
    maybe: _Inner | None
    items: list[_Inner]
    loose: list[_Inner | None] | None
    count: int


def _odd(kind: str):
    good = _Inner(n=1, s="a")
    outer = dict(name="x", inner=good, maybe=None, items=[good], loose=[good, None], count=3)
    bad = {"ok": {}, "null inner": {"inner": None}, "null item": {"items": [good, None]},
           "bad int": {"count": "three"}, "wrong inner type": {"inner": "text"}, "null name": {"name": None},
           "exception value": {"count": ValueError("no count")}, "not a list": {"items": good},
           "tuple": {"items": (good,)}, "big int": {"count": 2 ** 40}}[kind]
    return _Outer(**{**outer, **bad})


@strawberry.type
class _Query:
    @strawberry.field
    async def outer(self, kind: str) -> _Outer:
        if kind == "raise":
            raise ValueError("resolver failed")
        if kind == "none":
            return None  # type: ignore[return-value]
        if kind == "other type":
            return _Inner(n=1)  # type: ignore[return-value]
        return _odd(kind)

    @strawberry.field
    def maybe_outer(self, kind: str) -> _Outer | None:
        if kind == "raise":
            raise ValueError("resolver failed")
        return None if kind == "none" else _odd(kind)


ODD_KINDS = ["ok", "null inner", "null item", "bad int", "wrong inner type", "null name", "exception value",
             "not a list", "tuple", "big int", "raise", "none", "other type"]
ODD_SELECTION = "{ name inner { n s } maybe { n } items { n s } loose { n } count }"


@pytest.mark.parametrize("kind", ODD_KINDS)
@pytest.mark.parametrize("field", ["outer", "maybeOuter"])
async def test_compiled_completion_falls_back_to_graphql_core(kind, field):
    from schema import LIMIT_RULES, RequestLimits
    from schema import QafilaSchema
    from schema.operations import Executor
    from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

    ours = QafilaSchema(query=_Query, extensions=[RequestLimits], execution_context_class=Executor)
    theirs = QafilaSchema(query=_Query, extensions=[RequestLimits],
                          execution_context_class=StrawberryGraphQLCoreExecutionContext)
    assert ours._rules == tuple(__import__("graphql").specified_rules) + LIMIT_RULES
    query = f"query($k: String!) {{ {field}(kind: $k) {ODD_SELECTION} }}"
    ctx = Context(request=None, request_id="req_test")
    got = await ours.execute(query, variable_values={"k": kind}, context_value=ctx)
    want = await theirs.execute(query, variable_values={"k": kind}, context_value=ctx)
    assert _compiled(ours, query) is not None
    assert (got.data, [e.formatted for e in got.errors or []]) == \
        (want.data, [e.formatted for e in want.errors or []])


async def test_a_post_of_another_media_type_is_refused_before_its_body_is_read(client, merchant):
    """415 for the Content-Type, not 413 for a body it would never parse."""
    from tests.helpers import bearer

    resp = await client.post("/graphql", data=b"x" * (1024 * 1024 + 10),
                             headers={**bearer(merchant.sk), "Content-Type": "text/plain"})
    body = await resp.json()
    assert resp.status == 415, body
    assert body["errors"][0]["extensions"]["code"] == "unsupported_media_type"
