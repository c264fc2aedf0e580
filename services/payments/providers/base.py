"""The provider interface and the sandbox behaviour every built-in provider shares.

Outcomes of `authorize`: `approved`, `declined` (issuer said no; `decline_code` says why;
`soft=True` when another provider may succeed), `error` (the provider failed: retryable),
`requires_action` (3-D Secure needed; the `/v1` flow handles it). `latency_ms` is the
provider's latency (simulated by the sandbox providers, which never sleep).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from decimal import Decimal

from services.payments import cards
from services.payments.cards import Card
from services.money.currencies import percent_of, round_minor


@dataclass(frozen=True)
class AuthorizationRequest:
    payment_id: str
    amount: int
    currency: str
    card: Card
    attempt: int = 1                   # 1-based position in the cascade
    capture: bool = True
    three_d_secure_passed: bool = False
    wallet: "WalletAuthorization | None" = None     # Apple Pay / Google Pay: the cryptogram and ECI


@dataclass(frozen=True)
class WalletAuthorization:
    """What a wallet token adds to an authorization (services.payments.wallets): sent to the
    provider, never stored or shown."""
    type: str                          # apple_pay | google_pay
    auth_method: str                   # CRYPTOGRAM_3DS | PAN_ONLY | EMV
    cryptogram: str | None = field(default=None, repr=False)
    eci: str | None = None


@dataclass(frozen=True)
class ProviderResult:
    outcome: str                       # approved | declined | error | requires_action
    reference: str | None = None       # the provider's id for the authorization
    decline_code: str | None = None    # card_declined | insufficient_funds | processing_error | ...
    message: str = ""
    latency_ms: int = 0
    soft: bool = False                 # a decline another provider may approve

    @property
    def approved(self) -> bool:
        return self.outcome == "approved"

    @property
    def retryable(self) -> bool:
        """Worth cascading to the next provider."""
        return self.outcome == "error" or (self.outcome == "declined" and self.soft)


@dataclass(frozen=True)
class OperationResult:
    """Outcome of capture, void and refund."""
    ok: bool
    reference: str | None = None
    message: str = ""
    latency_ms: int = 0


@dataclass
class Provider:
    """A downstream provider. Subclasses implement the four operations; the attributes feed
    eligibility and routing (cost, latency, prior approval rate)."""

    name: str
    currencies: frozenset[str]
    countries: frozenset[str] | None          # None: every market
    fee_rate: Decimal                          # fraction of the amount
    fee_fixed: dict[str, int] = field(default_factory=dict)   # per currency, minor units
    latency_ms: int = 200                      # typical authorization latency
    prior_approval: float = 0.9                # expected approval rate before any observation
    # The payment method types it carries (services.payments.methods): local schemes (mada,
    # KNET, ...) reach only the acquirers that declare them.
    methods: frozenset[str] = frozenset({"card"})

    def serves(self, currency: str, country: str | None = None) -> bool:
        if currency not in self.currencies:
            return False
        return country is None or self.countries is None or country in self.countries

    def fee(self, amount: int, currency: str) -> int:
        """Processing fee in minor units, rounded half-up once."""
        return round_minor(percent_of(amount, self.fee_rate) + self.fee_fixed.get(currency, 0))

    async def authorize(self, req: AuthorizationRequest) -> ProviderResult:
        raise NotImplementedError

    async def capture(self, *, reference: str, amount: int, currency: str) -> OperationResult:
        raise NotImplementedError

    async def void(self, *, reference: str) -> OperationResult:
        raise NotImplementedError

    async def refund(self, *, reference: str, amount: int, currency: str) -> OperationResult:
        raise NotImplementedError


def _ref(prefix: str, *parts: object) -> str:
    return prefix + hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:20]


class SandboxProvider(Provider):
    """In-process sandbox: outcomes follow the test card (services/cards.SANDBOX)."""

    async def authorize(self, req: AuthorizationRequest) -> ProviderResult:
        b = req.card.behaviour
        lat = self.latency_ms
        if b == cards.DECLINE:
            return ProviderResult("declined", decline_code="card_declined", message="The card was declined",
                                  latency_ms=lat)
        if b == cards.INSUFFICIENT_FUNDS:
            return ProviderResult("declined", decline_code="insufficient_funds",
                                  message="The card has insufficient funds", latency_ms=lat)
        if b == cards.EXPIRED_CARD:
            return ProviderResult("declined", decline_code="expired_card", message="The card has expired",
                                  latency_ms=lat)
        if b == cards.PROCESSING_ERROR_ONCE and req.attempt == 1:
            return ProviderResult("error", decline_code="processing_error",
                                  message=f"{self.name} could not process the card", latency_ms=lat * 3)
        if b == cards.REQUIRES_3DS and not req.three_d_secure_passed:
            return ProviderResult("requires_action", decline_code="authentication_required",
                                  message="3-D Secure authentication is required", latency_ms=lat)
        return ProviderResult("approved", reference=_ref(f"{self.name}_auth_", req.payment_id, req.attempt),
                              latency_ms=lat)

    async def capture(self, *, reference: str, amount: int, currency: str) -> OperationResult:
        return OperationResult(True, reference=_ref(f"{self.name}_cap_", reference, amount),
                               latency_ms=self.latency_ms // 2)

    async def void(self, *, reference: str) -> OperationResult:
        return OperationResult(True, reference=_ref(f"{self.name}_void_", reference), latency_ms=self.latency_ms // 2)

    async def refund(self, *, reference: str, amount: int, currency: str) -> OperationResult:
        return OperationResult(True, reference=_ref(f"{self.name}_ref_", reference, amount),
                               latency_ms=self.latency_ms // 2)
