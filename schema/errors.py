"""GraphQL side of the one error model: expected mutation outcomes become userErrors,
everything else a top-level error with extensions {code, status}."""
from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import strawberry

from services.errors import DomainError

T = TypeVar("T")

# Outcomes that are never a payload's userErrors: the caller cannot fix them in the input.
TOP_LEVEL_STATUSES = {401, 403, 429, 500, 503}


def camel(path: str | None) -> str | None:
    if not path:
        return path
    out = []
    for part in path.split("."):
        head, *rest = part.split("_")
        out.append(head + "".join(w[:1].upper() + w[1:] for w in rest))
    return ".".join(out)


@strawberry.type(description="An expected failure of a mutation: invalid input, wrong state, decline, conflict.")
class UserError:
    code: str
    message: str
    field: str | None = None
    decline_code: str | None = strawberry.field(
        default=None, description="For `payment_declined`: the provider's reason (card_declined, "
                                  "insufficient_funds, risk_declined, ...), as in the REST error body.")
    attempts_left: int | None = strawberry.field(
        default=None, description="For a wrong STC Pay one-time code: the attempts left, as in the REST error body.")

    @classmethod
    def of(cls, err: DomainError) -> UserError:
        return cls(code=err.code, message=err.message, field=camel(err.param),
                   decline_code=err.extra_fields().get("decline_code"),
                   attempts_left=err.extra_fields().get("attempts_left"))


async def user_errors(fn: Callable[[], Awaitable[T]]) -> tuple[T | None, list[UserError]]:
    """Run a service call; an expected DomainError becomes a userError, the rest propagate."""
    try:
        return await fn(), []
    except DomainError as err:
        if err.status in TOP_LEVEL_STATUSES:
            raise
        return None, [UserError.of(err)]
