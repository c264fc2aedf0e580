"""GraphQL for webhooks: endpoints, events with their deliveries and attempts, test and retry.
Thin adapters over services/webhooks.py, like the REST routes in rest_compat/merchant_webhooks.py."""
from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from schema.context import Context
from schema.errors import UserError, user_errors
from schema.inputs import to_data
from schema.relay import Connection, Node, check_first, connection, node_resolver
from services import webhooks


@strawberry.type
class WebhookEndpoint(Node):
    id: strawberry.ID
    url: str
    status: str
    events: list[str]
    livemode: bool
    created_at: datetime

    @classmethod
    def of(cls, e) -> WebhookEndpoint:
        return cls(id=strawberry.ID(e.id), url=e.url, status=e.status, events=list(e.events),
                   livemode=e.livemode, created_at=e.created_at)


@strawberry.type
class WebhookAttempt:
    number: int
    created_at: datetime
    status_code: int | None
    latency_ms: int
    error: str | None
    manual: bool

    @classmethod
    def of(cls, a) -> WebhookAttempt:
        return cls(number=a.number, created_at=a.created_at, status_code=a.status_code, latency_ms=a.latency_ms,
                   error=a.error, manual=a.manual)


@strawberry.type
class WebhookDelivery:
    id: strawberry.ID
    endpoint_id: strawberry.ID
    state: str
    delivered: bool
    attempts: int
    next_attempt_at: datetime | None
    last_status_code: int | None
    last_error: str | None
    attempt_log: list[WebhookAttempt] | None = strawberry.field(
        description="Every attempt; only when the event is read on its own (node or a mutation).")


@strawberry.type
class WebhookEvent(Node):
    id: strawberry.ID
    event: str = strawberry.field(description="The event type, e.g. payment.succeeded.")
    delivered: bool
    status: str
    attempts: int
    object_id: str | None
    created_at: datetime
    data: JSON | None = None
    deliveries: list[WebhookDelivery] | None = None

    @classmethod
    def of(cls, s, *, detail: bool = False) -> WebhookEvent:
        e = s.event
        out = cls(id=strawberry.ID(e.id), event=e.type, delivered=s.delivered, status=s.status, attempts=s.attempts,
                  object_id=e.object_id, created_at=e.created_at)
        if detail:
            out.data = webhooks.event_data(e.data)
            out.deliveries = [
                WebhookDelivery(id=strawberry.ID(d.id), endpoint_id=strawberry.ID(d.endpoint_id), state=d.state,
                                delivered=d.delivered, attempts=d.attempts, next_attempt_at=d.next_attempt_at,
                                last_status_code=d.last_status_code, last_error=d.last_error,
                                attempt_log=[WebhookAttempt.of(a) for a in s.attempt_log.get(d.id, [])])
                for d in s.deliveries]
        return out


@node_resolver("whk")
async def _endpoint_node(info: Info[Context, None], node_id: str):
    return WebhookEndpoint.of(await webhooks.get_endpoint(principal=info.context.principal, endpoint_id=node_id))


@node_resolver("evt")
async def _event_node(info: Info[Context, None], node_id: str):
    return WebhookEvent.of(await webhooks.get_event(principal=info.context.principal, event_id=node_id), detail=True)


@strawberry.input
class WebhookEndpointConfigureInput:
    url: str
    events: list[str]


@strawberry.type
class WebhookEndpointConfigurePayload:
    webhook_endpoint: WebhookEndpoint | None = None
    secret: str | None = strawberry.field(default=None, description="The signing secret (keep it safe).")
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.input
class WebhookTestInput:
    event: str
    endpoint: strawberry.ID | None = strawberry.UNSET


@strawberry.type
class WebhookTestResult:
    endpoint_id: strawberry.ID
    url: str
    delivered: bool
    status_code: int | None
    latency_ms: int
    error: str | None


@strawberry.type
class WebhookTestPayload:
    delivered: bool | None = None
    status_code: int | None = None
    latency_ms: int | None = None
    event_id: str | None = None
    results: list[WebhookTestResult] = strawberry.field(default_factory=list)
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.input
class WebhookEventRetryInput:
    id: strawberry.ID


@strawberry.type
class WebhookEventRetryPayload:
    webhook_event: WebhookEvent | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class Query:
    @strawberry.field
    async def webhook_endpoints(self, info: Info[Context, None], first: int | None = None,
                                after: str | None = None) -> Connection[WebhookEndpoint]:
        page = await webhooks.list_endpoints(principal=info.context.principal, limit=check_first(first),
                                             starting_after=after)
        return connection(page, WebhookEndpoint.of, after=after)

    @strawberry.field(description="Events of this merchant and mode with their delivery state, newest first.")
    async def webhook_events(self, info: Info[Context, None], first: int | None = None, after: str | None = None,
                             type: str | None = None) -> Connection[WebhookEvent]:
        page = await webhooks.list_events(principal=info.context.principal, limit=check_first(first),
                                          starting_after=after, type=type)
        return connection(page, WebhookEvent.of, after=after)


@strawberry.type
class Mutation:
    @strawberry.mutation
    async def webhook_endpoint_configure(self, info: Info[Context, None],
                                         input: WebhookEndpointConfigureInput) -> WebhookEndpointConfigurePayload:
        principal = info.context.principal
        e, errors = await user_errors(lambda: webhooks.configure_endpoint(principal=principal, data=to_data(input)))
        if errors:
            return WebhookEndpointConfigurePayload(user_errors=errors)
        return WebhookEndpointConfigurePayload(webhook_endpoint=WebhookEndpoint.of(e), secret=e.secret)

    @strawberry.mutation
    async def webhook_test(self, info: Info[Context, None], input: WebhookTestInput) -> WebhookTestPayload:
        principal = info.context.principal
        t, errors = await user_errors(lambda: webhooks.send_test(principal=principal, data=to_data(input)))
        if errors:
            return WebhookTestPayload(user_errors=errors)
        return WebhookTestPayload(delivered=t.delivered, status_code=t.status_code, latency_ms=t.latency_ms,
                                  event_id=t.event_id,
                                  results=[WebhookTestResult(endpoint_id=strawberry.ID(o.endpoint_id), url=o.url,
                                                             delivered=o.delivered, status_code=o.status_code,
                                                             latency_ms=o.latency_ms, error=o.error)
                                           for o in t.results])

    @strawberry.mutation
    async def webhook_event_retry(self, info: Info[Context, None],
                                  input: WebhookEventRetryInput) -> WebhookEventRetryPayload:
        principal = info.context.principal
        s, errors = await user_errors(lambda: webhooks.retry_event(principal=principal, event_id=str(input.id)))
        return WebhookEventRetryPayload(webhook_event=WebhookEvent.of(s, detail=True) if s else None,
                                        user_errors=errors)
