"""Anatolia Pay (sandbox): a Turkish acquirer; TRY only, cheap and fast in Turkey; a Troy member."""
from decimal import Decimal

from services.payments.providers.base import SandboxProvider

PROVIDER = SandboxProvider(name="anatolia", currencies=frozenset({"TRY"}), countries=frozenset({"TR"}),
                           fee_rate=Decimal("0.0179"), fee_fixed={"TRY": 25}, latency_ms=180,
                           prior_approval=0.93, methods=frozenset({"card", "troy"}))
