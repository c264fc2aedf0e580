"""NilePay (sandbox): Egypt and Iraq; slower, lower approval, low fixed fee; Fawry's collector."""
from decimal import Decimal

from services.payments.providers.base import SandboxProvider

PROVIDER = SandboxProvider(name="nilepay", currencies=frozenset({"EGP", "IQD"}), countries=frozenset({"EG", "IQ"}),
                           fee_rate=Decimal("0.0250"), fee_fixed={"EGP": 100, "IQD": 250_000}, latency_ms=420,
                           prior_approval=0.85, methods=frozenset({"card", "meeza", "fawry", "eg_wallet"}))
