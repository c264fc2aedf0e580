"""GraphQL for crm (listed in schema.DOMAINS)."""
from __future__ import annotations
