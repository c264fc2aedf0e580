"""Downstream payment providers behind one interface (`base.Provider`: authorize, capture,
void, refund) and the registry that knows them (`registry`). Reused by the `/v1` intents.

Adding a real provider is one new module defining a `Provider` subclass instance named
`PROVIDER`, listed in `registry.MODULES`.

Usage:
    from services.payments.providers import registry, AuthorizationRequest
    provider = registry.get("anatolia")
    result = await provider.authorize(AuthorizationRequest(payment_id=..., amount=..., currency=...,
                                                           card=card, attempt=1))
    if result.approved: ...
    elif result.retryable: ...   # soft decline or provider error: the router may cascade
"""
from services.payments.providers.base import (AuthorizationRequest, OperationResult, Provider,  # noqa: F401
                                     ProviderResult)
from services.payments.providers import registry  # noqa: F401,E402
