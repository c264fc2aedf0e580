"""GraphQL for intents (listed in schema.DOMAINS)."""
from __future__ import annotations
