"""Payments hot paths for bench/run.py: create with the approved sandbox card, and read one (REST
and the GraphQL `payment(id)` query)."""
from __future__ import annotations

CREATE = {"amount": 10000, "currency": "TRY", "customer": {"email": "bench@example.com"},
          "payment_method": {"type": "card", "card": {"number": "4242424242424242", "exp_month": 12,
                                                      "exp_year": 2035, "cvc": "123"}}}

PAYMENT_QUERY = "query($id: ID!) { payment(id: $id) { id status amount currency provider createdAt } }"


async def prepare(api) -> list[dict]:
    status, body = await api("POST", "/api/payments/create", CREATE)
    if status != 200:
        raise SystemExit(f"bench payments: create answered {status}: {body}")
    return [
        {"name": "POST /api/payments/create", "method": "POST", "path": "/api/payments/create", "body": CREATE},
        {"name": "GET /api/payments/:id", "method": "GET", "path": f"/api/payments/{body['id']}", "body": None},
        {"name": "GET /api/payments/list", "method": "GET", "path": "/api/payments/list?limit=20", "body": None},
        {"name": "graphql payment(id)", "method": "POST", "path": "/graphql",
         "body": {"query": PAYMENT_QUERY, "variables": {"id": body["id"]}}},
    ]
