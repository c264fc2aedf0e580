"""Benchmark scenarios of the `/v1` payment intents, loaded by bench/run.py.

`prepare(api)` makes one intent to retrieve and returns the requests to load: intent create,
retrieve, list, and the GraphQL `paymentIntentCreate`."""
from __future__ import annotations

CREATE_MUTATION = """mutation($input: PaymentIntentCreateInput!) {
  paymentIntentCreate(input: $input) { paymentIntent { id status netAmount } userErrors { code field } } }"""


async def prepare(api) -> list[dict]:
    body = {"amount": 10000, "currency": "TRY", "payment_method": "card", "metadata": {"bench": "1"}}
    status, created = await api("POST", "/v1/payments/intent", body)
    if status != 201:
        raise RuntimeError(f"intent create for the benchmark answered {status}: {created}")
    return [
        {"name": "v1 intent create", "method": "POST", "path": "/v1/payments/intent", "body": body},
        {"name": "v1 intent retrieve", "method": "GET", "path": f"/v1/payments/{created['id']}", "body": None},
        {"name": "v1 intent list", "method": "GET", "path": "/v1/payments?limit=20", "body": None},
        {"name": "graphql paymentIntentCreate", "method": "POST", "path": "/graphql",
         "body": {"query": CREATE_MUTATION,
                  "variables": {"input": {"amount": 10000, "currency": "TRY", "paymentMethod": "card",
                                          "metadata": {"bench": "1"}}}}},
    ]
