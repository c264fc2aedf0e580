"""QafilaSchema.execute (schema.operations: parse, operation and validation kept per query text)
answers exactly what Strawberry's own Schema.execute with our extensions answers, refusals
included, on the first request of a text and on the next ones."""
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
