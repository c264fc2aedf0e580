"""GulfNet (sandbox): a Gulf acquirer for Saudi Arabia, the Emirates, Kuwait, Qatar, Bahrain and
Oman; a member of the local schemes (mada, KNET, BenefitPay) and an STC Pay partner."""
from decimal import Decimal

from services.payments.providers.base import SandboxProvider

PROVIDER = SandboxProvider(name="gulfnet", currencies=frozenset({"SAR", "AED", "KWD", "QAR", "BHD", "OMR"}),
                           countries=frozenset({"SA", "AE", "KW", "QA", "BH", "OM"}), fee_rate=Decimal("0.0220"),
                           fee_fixed={"SAR": 50, "AED": 50, "KWD": 50, "QAR": 50, "BHD": 50, "OMR": 50},
                           latency_ms=240, prior_approval=0.91,
                           methods=frozenset({"card", "mada", "knet", "benefit", "stcpay", "naps", "omannet", "sadad",
                                              "aani"}))
