"""The per-request GraphQL context: the caller, per-request DataLoaders, the request id."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from strawberry.dataloader import DataLoader

from services.errors import AuthenticationError, DomainError
from services.principal import Principal


@dataclass
class Context:
    request: Any
    request_id: str
    client_address: str | None = None
    _principal: Principal | None = None
    _auth_error: DomainError | None = None
    loaders: dict[str, DataLoader] = field(default_factory=dict)
    kind: str = "main"                 # main | crm: which application serves this request
    extra: dict[str, Any] = field(default_factory=dict)
    # Set by the view while it answers: the HTTP status of a refused document (400) and the
    # Retry-After of a resolver's outage (503).
    answer_status: int | None = None
    retry_after: int | None = None
    # Set by a sign-in resolver (otpVerify, twoFactorVerify with session COOKIE): the view sets
    # the qafila_session cookie to it on the response.
    session_cookie: tuple[str, str | None] | None = None   # (cookie, its CSRF token)

    @property
    def principal(self) -> Principal:
        """The authenticated merchant; a missing or bad credential is a top-level 401."""
        if self._auth_error is not None:
            raise self._auth_error
        if not isinstance(self._principal, Principal):
            # none, or a CRM user's token asking for merchant data: not a merchant credential
            raise AuthenticationError("Invalid API key: send Authorization: Bearer <API_KEY>")
        return self._principal

    @property
    def maybe_principal(self) -> Principal | None:
        return self._principal

    def loader(self, name: str, batch_fn) -> DataLoader:
        """One DataLoader per name per request (created on first use)."""
        got = self.loaders.get(name)
        if got is None:
            got = self.loaders[name] = DataLoader(load_fn=batch_fn)
        return got
