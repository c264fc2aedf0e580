"""Schemathesis hooks for .ci/schemathesis.sh (loaded through SCHEMATHESIS_HOOKS).

- Strategies for Qafila's custom GraphQL scalars (MinorAmount, JSON).
- `qafila_no_server_error` for /graphql: Qafila answers an expected failure of a query (invalid
  input, not found, authentication) as a top-level error whose `extensions.status` is its HTTP
  status (DESIGN.md, schema/__init__.py format_error). Schemathesis' own GraphQL check counts
  every error with a `path` as a server failure unless its code is one of Apollo's or
  graphql-java's; this check fails on what is really a server error instead: an HTTP 5xx, an
  error with `extensions.status` >= 500 or without one, or a body that is not a GraphQL answer.
"""
from __future__ import annotations

import json

import schemathesis
from hypothesis import strategies as st
from schemathesis.graphql import nodes

schemathesis.graphql.scalar("MinorAmount", st.integers(min_value=-1, max_value=10**13).map(nodes.Int))
schemathesis.graphql.scalar("JSON", st.sampled_from([nodes.Object([]), nodes.String("x"), nodes.Int(1)]))


@schemathesis.check
def qafila_no_server_error(ctx, response, case):
    if response.status_code >= 500:
        raise AssertionError(f"HTTP {response.status_code}: {response.text[:300]}")
    try:
        body = json.loads(response.text)
    except ValueError:
        raise AssertionError(f"not JSON (HTTP {response.status_code}): {response.text[:300]}") from None
    if not isinstance(body, dict) or not ("data" in body or "errors" in body):
        raise AssertionError(f"not a GraphQL answer: {response.text[:300]}")
    for error in body.get("errors") or []:
        status = (error.get("extensions") or {}).get("status") if isinstance(error, dict) else None
        if not isinstance(status, int) or status >= 500:
            raise AssertionError(f"server error in errors[]: {json.dumps(error)[:300]}")
