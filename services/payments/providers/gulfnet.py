"""GulfNet (sandbox): a Gulf acquirer for Saudi Arabia, the Emirates, Kuwait and Qatar."""
from decimal import Decimal

from services.payments.providers.base import SandboxProvider

PROVIDER = SandboxProvider(name="gulfnet", currencies=frozenset({"SAR", "AED", "KWD", "QAR"}),
                           countries=frozenset({"SA", "AE", "KW", "QA"}), fee_rate=Decimal("0.0220"),
                           fee_fixed={"SAR": 50, "AED": 50, "KWD": 50, "QAR": 50}, latency_ms=240,
                           prior_approval=0.91)
