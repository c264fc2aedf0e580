"""Shared test helpers (import from tests.helpers)."""
from tests.conftest import bearer, gql  # noqa: F401
