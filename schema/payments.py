"""GraphQL for payments (listed in schema.DOMAINS)."""
from __future__ import annotations
