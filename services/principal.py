"""Who is calling: a merchant in live or test mode, through a secret key, a publishable key
or a member's session. Every service takes one and scopes every query by it; a member's
`permissions` limit what it may do (None: an API key, which holds them all)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

CredentialKind = Literal["secret", "publishable", "session"]


@dataclass(frozen=True, slots=True)
class Principal:
    merchant_id: str
    livemode: bool
    kind: CredentialKind
    key_id: str | None = None
    credential: str | None = None   # what rate limits count against, when not key_id (an API key's digest)
    member_id: str | None = None    # a member's session: who, and what its roles allow
    session_id: str | None = None
    email: str | None = None
    permissions: frozenset[str] | None = None
    via_cookie: bool = False
    two_factor_pending: bool = False    # the merchant requires 2FA and this member has not enrolled yet

    @property
    def mode(self) -> str:
        return "live" if self.livemode else "test"

    @property
    def credential_id(self) -> str:
        """What the rate limit counts against: the key, or the merchant's session."""
        return self.credential or self.key_id or f"session:{self.session_id or self.merchant_id}"

    @property
    def scope(self) -> dict:
        """The filter that confines a query to this tenant and mode."""
        return {"merchant_id": self.merchant_id, "livemode": self.livemode}
