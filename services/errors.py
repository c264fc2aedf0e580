"""The one error model of both protocols: every expected failure is a DomainError.

REST renders it as {"error": {"type", "code", "message", "param"}} with its status; GraphQL
puts it in a payload's userErrors or in errors[].extensions {code, status}.
"""
from __future__ import annotations


# Fields an error may carry besides the four: the decline's reason, a one-time code's attempts left,
# the permission a member's role lacks.
EXTRA_FIELDS = ("decline_code", "attempts_left", "permission")


class DomainError(Exception):
    status = 400
    code = "invalid_request"
    type = "invalid_request_error"

    def __init__(self, message: str, *, code: str | None = None, param: str | None = None,
                 status: int | None = None, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.param = param
        self.headers = headers or {}

    def as_dict(self) -> dict:
        return {"type": self.type, "code": self.code, "message": self.message, "param": self.param}

    def extra_fields(self) -> dict:
        """Fields a subclass adds to every rendering of the error (REST body, GraphQL
        userError and extensions); a replayed error (services.idempotency) sets them as
        attributes too."""
        return {k: getattr(self, k) for k in EXTRA_FIELDS if getattr(self, k, None) is not None}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.status}, {self.code!r}, {self.message!r}, param={self.param!r})"


class ValidationError(DomainError):
    """Bad input: a field is missing, of the wrong type, out of range, unknown or too long."""
    status = 400
    code = "invalid_request"


class AuthenticationError(DomainError):
    status = 401
    code = "invalid_api_key"
    type = "authentication_error"


class PermissionDenied(DomainError):
    status = 403
    code = "permission_denied"
    type = "permission_error"


class NotFound(DomainError):
    status = 404
    code = "resource_not_found"

    def __init__(self, message: str = "Resource not found", *, param: str | None = "id", **kw):
        super().__init__(message, param=param, **kw)


class InvalidState(DomainError):
    """The operation is not allowed from the object's current state."""
    status = 400
    code = "invalid_state"


class PaymentDeclined(DomainError):
    """402: the provider (or our risk check) declined. `decline_code` is the real reason
    (`card_declined`, `insufficient_funds`, `risk_declined`, `authentication_required`, ...);
    REST puts it in the error body, GraphQL in the userError (`declineCode`)."""
    status = 402
    code = "payment_declined"
    type = "card_error"

    def __init__(self, message: str, *, decline_code: str | None = None, **kw):
        super().__init__(message, **kw)
        self.decline_code = decline_code


class Conflict(DomainError):
    status = 409
    code = "conflict"


class IdempotencyConflict(Conflict):
    code = "idempotency_conflict"
    type = "idempotency_error"


class RateLimited(DomainError):
    """`message` names the limit that applied ("Rate limit exceeded (5/min)"); `detail` may add
    the wait."""
    status = 429
    code = "rate_limit_exceeded"
    type = "rate_limit_error"

    def __init__(self, message: str, *, detail: str | None = None, **kw):
        super().__init__(message, **kw)
        self.detail = detail or message


class ServiceUnavailable(DomainError):
    status = 503
    code = "service_unavailable"
    type = "api_error"
