"""Typed exceptions. Every error the service answers is JSON:
``{"error": {"type", "code", "message", "param", "detail"?, "decline_code"?, "permission"?, "request_id"}}``."""
from __future__ import annotations

from typing import Any, Mapping, Optional

#: the fields of the service's error object this library reads (checked against /openapi.json by a test)
ERROR_FIELDS = ("type", "code", "message", "param", "detail", "decline_code", "permission", "request_id")


class QafilaError(Exception):
    """Base class. ``status`` is the HTTP status (None when no answer arrived)."""

    def __init__(self, message: str, *, status: Optional[int] = None, type: Optional[str] = None,
                 code: Optional[str] = None, param: Optional[str] = None, detail: Optional[str] = None,
                 decline_code: Optional[str] = None, request_id: Optional[str] = None,
                 headers: Optional[Mapping[str, str]] = None, body: Any = None,
                 permission: Optional[str] = None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.type = type
        self.code = code
        self.param = param
        self.detail = detail
        self.decline_code = decline_code
        self.permission = permission      # 403 permission_denied: what the member's roles lack
        self.request_id = request_id
        self.headers = dict(headers or {})
        self.body = body

    def __str__(self) -> str:
        parts = [self.message]
        if self.detail and self.detail != self.message:
            parts.append(f"({self.detail})")
        meta = ", ".join(f"{k}={v}" for k, v in (("status", self.status), ("code", self.code),
                                                  ("decline_code", self.decline_code), ("param", self.param),
                                                  ("request_id", self.request_id)) if v is not None)
        return " ".join(parts) + (f" [{meta}]" if meta else "")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"


class APIConnectionError(QafilaError):
    """No answer: connection refused or reset, timeout. Retried automatically before being raised."""


class InvalidRequestError(QafilaError):
    """400, 413, 415, 422: a parameter is missing or malformed, or the operation is not allowed now."""


class NotFoundError(InvalidRequestError):
    """404: no such object (or route)."""


class AuthenticationError(QafilaError):
    """401: missing or invalid API key."""


class CardError(QafilaError):
    """402: the payment was declined; see ``decline_code``."""


class PermissionDeniedError(QafilaError):
    """403: the key or the member may not do this (a live key on a test helper; a member's roles
    lacking ``permission``, e.g. ``refunds_write``)."""


class ConflictError(QafilaError):
    """409."""


class IdempotencyError(ConflictError):
    """409 ``idempotency_conflict``: the key was used with different parameters (raised at once),
    or the first request with it is still running (retried automatically before being raised)."""

    @property
    def in_flight(self) -> bool:
        return _in_flight(self.message, self.detail)


class RateLimitError(QafilaError):
    """429. ``retry_after`` is the server's ``Retry-After`` in seconds."""

    @property
    def retry_after(self) -> Optional[float]:
        return parse_retry_after(self.headers.get("retry-after"))


class APIError(QafilaError):
    """5xx: the service failed or is unavailable (503 carries Retry-After)."""


class SignatureVerificationError(QafilaError):
    """A webhook delivery's signature does not match its body and the endpoint secret."""


def _in_flight(*texts: Optional[str]) -> bool:
    return any(t and "still being processed" in t for t in texts)


def parse_retry_after(value: Optional[str]) -> Optional[float]:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        import email.utils
        import time
        ts = email.utils.parsedate_to_datetime(value).timestamp()
        return max(0.0, ts - time.time())
    except (TypeError, ValueError):
        return None


def error_from_response(status: int, body: Any, headers: Mapping[str, str], text: str = "") -> QafilaError:
    err = body.get("error") if isinstance(body, dict) else None
    if not isinstance(err, dict):
        err = {}
    message = err.get("message") or (text[:200] if text else f"HTTP {status}")
    code = err.get("code")
    if status == 404:
        cls = NotFoundError
    elif status in (400, 413, 415, 422):
        cls = InvalidRequestError
    elif status == 401:
        cls = AuthenticationError
    elif status == 402:
        cls = CardError
    elif status == 403:
        cls = PermissionDeniedError
    elif status == 409:
        cls = IdempotencyError if code == "idempotency_conflict" else ConflictError
    elif status == 429:
        cls = RateLimitError
    elif status >= 500:
        cls = APIError
    else:
        cls = QafilaError
    lower = {k.lower(): v for k, v in headers.items()}
    return cls(message, status=status, type=err.get("type"), code=code, param=err.get("param"),
               detail=err.get("detail"), decline_code=err.get("decline_code"), permission=err.get("permission"),
               request_id=err.get("request_id") or lower.get("x-request-id"), headers=lower, body=body)
