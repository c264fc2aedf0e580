"""GraphQL for webhooks (listed in schema.DOMAINS)."""
from __future__ import annotations
