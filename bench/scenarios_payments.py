"""Payments hot paths for bench/run.py: create with the approved sandbox card, and read one."""
from __future__ import annotations

CREATE = {"amount": 10000, "currency": "TRY", "customer": {"email": "bench@example.com"},
          "payment_method": {"type": "card", "card": {"number": "4242424242424242", "exp_month": 12,
                                                      "exp_year": 2035, "cvc": "123"}}}


async def prepare(api) -> list[dict]:
    status, body = await api("POST", "/api/payments/create", CREATE)
    if status != 200:
        raise SystemExit(f"bench payments: create answered {status}: {body}")
    return [
        {"name": "POST /api/payments/create", "method": "POST", "path": "/api/payments/create", "body": CREATE},
        {"name": "GET /api/payments/:id", "method": "GET", "path": f"/api/payments/{body['id']}", "body": None},
    ]
