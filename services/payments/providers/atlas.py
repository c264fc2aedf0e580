"""Atlas Global (sandbox): a cross-border acquirer for every supported currency and market;
the dearest, but it takes anything (the usual fallback)."""
from decimal import Decimal

from services.money.currencies import CURRENCIES
from services.payments.providers.base import SandboxProvider

PROVIDER = SandboxProvider(name="atlas", currencies=frozenset(CURRENCIES), countries=None,
                           fee_rate=Decimal("0.0290"), fee_fixed={}, latency_ms=320, prior_approval=0.88,
                           methods=frozenset({"card", "cliq"}))     # a CliQ participant (JOD)
