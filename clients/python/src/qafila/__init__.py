"""Qafila: Python server library for the Qafila payments API.

    from qafila import Qafila
    client = Qafila("sk_test_...", base_url="http://127.0.0.1:8000")
    intent = client.payment_intents.create(amount=10000, currency="TRY", payment_method="card")
"""
from ._http import DEFAULT_BASE_URL, VERSION as __version__
from .client import AsyncPage, AsyncQafila, Page, Qafila
from .errors import (ERROR_FIELDS, APIConnectionError, APIError, AuthenticationError, CardError, ConflictError,
                     IdempotencyError, InvalidRequestError, NotFoundError, PermissionDeniedError, QafilaError,
                     RateLimitError, SignatureVerificationError)
from .types import *  # noqa: F401,F403  (the resource dataclasses and parameter TypedDicts)
from .webhooks import (WebhookEvent, compute_signature, compute_signature_v2, construct_event, verify_webhook,
                       verify_webhook_v2)
from . import types

__all__ = ["Qafila", "AsyncQafila", "Page", "AsyncPage", "DEFAULT_BASE_URL", "__version__",
           "QafilaError", "APIConnectionError", "APIError", "AuthenticationError", "CardError", "ConflictError",
           "IdempotencyError", "InvalidRequestError", "NotFoundError", "PermissionDeniedError", "RateLimitError",
           "SignatureVerificationError", "ERROR_FIELDS",
           "WebhookEvent", "verify_webhook", "verify_webhook_v2", "construct_event", "compute_signature",
           "compute_signature_v2", "types"] + list(types.__all__)
