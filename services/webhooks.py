"""Webhooks: endpoint configuration, the fan-out of outbox events into deliveries, the
dispatcher (claim with a lease, sign, POST, record, schedule the retry), test deliveries,
manual retry, and the lists of events and attempts.

Delivery is at least once: an event is fanned out once per (event, endpoint); a claimed
delivery is leased for LEASE seconds, so a dispatcher that dies mid-delivery only delays it.
"""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import logging
import socket
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import orjson
from tortoise.exceptions import IntegrityError
from tortoise.transactions import in_transaction

from models import _lookup as lookup
from models.events import Event, EventWaiting
from models.webhooks import WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookFanout
from services.identity import audit
from services.errors import InvalidState, NotFound, ValidationError
from services.events import EVENT_TYPES
from services.ids import new_id, random_token
from services.infra import db, leases
from services.infra.runtime import runtime
from services.infra.webhook_http import DeliveryResult, transport
from services.pagination import Page, check_limit, paginate
from services.principal import Principal
from services.timestamps import iso
from services.validation import Fields, check_enum, check_str, one_of

log = logging.getLogger("qafila.webhooks")

DELIVERY_TIMEOUT = 5.0                                   # seconds; the receiver must answer 2xx by then
RETRY_DELAYS = (5, 30, 120, 600, 3600, 6 * 3600, 24 * 3600)   # seconds after each failed attempt
MAX_ATTEMPTS = 1 + len(RETRY_DELAYS)                     # the first delivery plus one retry per delay
LEASE = timedelta(seconds=30)                            # > DELIVERY_TIMEOUT with a wide margin
FANOUT_LOOKBACK = timedelta(days=7)                      # how far back the fan-out looks for new events
MAX_ENDPOINTS = 16                                       # active endpoints per merchant and mode
CLAIM_BATCH = 20
FANOUT_BATCH = 200                                       # events per fan-out pass

SIGNATURE_HEADER = "x-service-signature"                 # hex HMAC-SHA256(secret, body)
TIMESTAMP_HEADER = "x-service-timestamp"                 # Unix seconds of this attempt
SIGNATURE_V2_HEADER = "x-service-signature-v2"           # hex HMAC-SHA256(secret, f"{timestamp}.{body}")
EVENT_ID_HEADER = "x-service-event-id"

# Never a webhook target, not even in test mode: the cloud instance-metadata services.
METADATA_ADDRESSES = {ipaddress.ip_address(a) for a in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200")}
METADATA_HOSTS = {"metadata.google.internal", "metadata"}


# ---------------------------------------------------------------- signatures and envelope

def sign(secret: str, body: bytes) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def sign_v2(secret: str, timestamp: int, body: bytes) -> str:
    return hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()


def event_data(obj: Any) -> dict:
    """An event's `data`: `{object}`; an object stored with `_previous_attributes` (an update's
    changed fields, e.g. team.member_roles_updated) has them as `data.previous_attributes`."""
    if isinstance(obj, dict) and "_previous_attributes" in obj:
        obj = dict(obj)
        return {"previous_attributes": obj.pop("_previous_attributes"), "object": obj}
    return {"object": obj}


def envelope(*, event_id: str, type: str, created: datetime, livemode: bool, obj: Any, merchant_id: str) -> dict:
    """The delivered event (its `data`: event_data)."""
    return {"id": event_id, "type": type, "created": int(created.timestamp()), "livemode": livemode,
            "data": event_data(obj), "merchant_id": merchant_id}


def signed_request(secret: str, payload: dict) -> tuple[bytes, dict[str, str]]:
    body = orjson.dumps(payload)
    ts = int(runtime().clock.time())
    headers = {"Content-Type": "application/json", SIGNATURE_HEADER: sign(secret, body),
               TIMESTAMP_HEADER: str(ts), SIGNATURE_V2_HEADER: sign_v2(secret, ts, body),
               EVENT_ID_HEADER: payload["id"]}
    return body, headers


# ---------------------------------------------------------------- outbound safety

def strict_targets(livemode: bool) -> bool:
    """Live mode outside development: https and public addresses only."""
    return livemode and runtime().config.env != "development"


def address_allowed(address: str, *, strict: bool) -> bool:
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip in METADATA_ADDRESSES:
        return False
    if not strict:
        return True
    return ip.is_global and not ip.is_multicast


def address_policy(livemode: bool):
    strict = strict_targets(livemode)
    return lambda address: address_allowed(address, strict=strict)


async def _resolve(host: str) -> list[str]:
    try:
        infos = await asyncio.wait_for(asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM), 3)
    except (OSError, asyncio.TimeoutError):
        return []
    return [info[4][0] for info in infos]


async def check_url(url: str, *, livemode: bool) -> str:
    url = check_str(url, "url", max_len=2048, min_len=1)
    parts = urlsplit(url)
    strict = strict_targets(livemode)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise ValidationError("url must be an absolute https:// URL", param="url", code="invalid_webhook_url")
    if strict and parts.scheme != "https":
        raise ValidationError("url must use https in live mode", param="url", code="invalid_webhook_url")
    if parts.username or parts.password:
        raise ValidationError("url must not contain credentials", param="url", code="invalid_webhook_url")
    if parts.fragment:
        raise ValidationError("url must not contain a fragment", param="url", code="invalid_webhook_url")
    try:
        parts.port
    except ValueError:
        raise ValidationError("url has an invalid port", param="url", code="invalid_webhook_url") from None
    host = parts.hostname.lower()
    if host in METADATA_HOSTS:
        raise ValidationError("url may not point at a metadata service", param="url", code="invalid_webhook_url")
    try:
        literal = [str(ipaddress.ip_address(host))]
    except ValueError:
        literal = None
    if literal is None and not strict:
        return url          # test mode: resolved, and checked against the metadata addresses, when sending
    addresses = literal or await _resolve(host)
    if not addresses:
        raise ValidationError("url host does not resolve", param="url", code="invalid_webhook_url")
    if not all(address_allowed(a, strict=strict) for a in addresses):
        raise ValidationError("url must resolve to a public address (not loopback, private, link-local "
                              "or metadata) in live mode" if strict else
                              "url may not point at a metadata service", param="url", code="invalid_webhook_url")
    return url


# ---------------------------------------------------------------- endpoints

def _events_param(values: list) -> list[str]:
    out: list[str] = []
    for i, v in enumerate(values):
        if not isinstance(v, str) or (v != "*" and v not in EVENT_TYPES):
            raise one_of(f"events[{i}]", ("*", *EVENT_TYPES))
        if v not in out:
            out.append(v)
    return ["*"] if "*" in out else out


def subscribed(endpoint: WebhookEndpoint, event_type: str) -> bool:
    return "*" in endpoint.events or event_type in endpoint.events


async def configure_endpoint(*, principal: Principal, data: dict) -> WebhookEndpoint:
    """Create an endpoint, or update the subscriptions of the active one with the same URL."""
    f = Fields(data)
    url = f.str("url", required=True, max_len=2048, min_len=1)
    events = _events_param(f.list("events", required=True, min_items=1, max_items=len(EVENT_TYPES) + 1))
    f.reject_unknown()
    url = await check_url(url, livemode=principal.livemode)
    now = runtime().clock.now()
    async with in_transaction():
        existing = await WebhookEndpoint.filter(**principal.scope, url=url, status="active").first()
        if existing is not None:
            existing.events, existing.updated_at = events, now
            await existing.save(update_fields=["events", "updated_at"])
            return existing
        if await WebhookEndpoint.filter(**principal.scope, status="active").count() >= MAX_ENDPOINTS:
            raise ValidationError(f"at most {MAX_ENDPOINTS} active webhook endpoints per mode", param="url",
                                  code="too_many_endpoints")
        endpoint = await WebhookEndpoint.create(id=new_id("whk"), **principal.scope, url=url,
                                                secret=f"whsec_{random_token(32)}", events=events, status="active",
                                                created_at=now, updated_at=now)
        await audit.record(merchant_id=principal.merchant_id, action="webhook_endpoint.created", principal=principal,
                           object_type="webhook_endpoint", object_id=endpoint.id,
                           after={"url": url, "events": events, "mode": principal.mode})
        return endpoint


async def list_endpoints(*, principal: Principal, limit=None, starting_after: str | None = None) -> Page:
    return await paginate(WebhookEndpoint.filter(**principal.scope), limit=check_limit(limit),
                          starting_after=starting_after)


async def get_endpoint(*, principal: Principal, endpoint_id: str) -> WebhookEndpoint:
    e = await WebhookEndpoint.get_or_none(id=endpoint_id, **principal.scope) if isinstance(endpoint_id, str) else None
    if e is None:
        raise NotFound()
    return e


async def disable_endpoint(*, principal: Principal, endpoint_id: str) -> WebhookEndpoint:
    """Stop sending to an endpoint: its pending deliveries fail for good (they stay listed)."""
    e = await get_endpoint(principal=principal, endpoint_id=endpoint_id)
    now = runtime().clock.now()
    async with in_transaction():
        await WebhookEndpoint.filter(id=e.id).update(status="disabled", updated_at=now)
        await WebhookDelivery.filter(endpoint_id=e.id, state="pending").update(
            state="failed", next_attempt_at=None, last_error="endpoint disabled", updated_at=now)
        if e.status != "disabled":
            await audit.record(merchant_id=principal.merchant_id, action="webhook_endpoint.disabled",
                               principal=principal, object_type="webhook_endpoint", object_id=e.id,
                               before={"status": e.status}, after={"status": "disabled"})
    e.status = "disabled"
    return e


# ---------------------------------------------------------------- fan-out

@dataclass
class FanOut:
    """One fan-out pass: the events it took (`limit` of them: more may be waiting) and the
    deliveries it created."""
    events: int = 0
    deliveries: int = 0


_WAITING = ('SELECT "event_id" AS "id", "merchant_id", "livemode", "type", "created_at" FROM "events_waiting" '
            'WHERE "created_at" >= {}')


# Taken events leave the waiting table: on PostgreSQL one statement with the ids as one array (one
# prepared statement whatever the batch's size; an IN list of n parameters is a new statement,
# parsed and planned, for every n: 7-8 ms a pass of 200 events, issue 48).
_UNWAIT_SQL = 'DELETE FROM "events_waiting" WHERE "event_id" = ANY($1::text[])'


async def _unwait(ids: list[str]) -> None:
    if lookup.on_postgres(EventWaiting):
        await lookup.execute_raw(EventWaiting._meta.db, _UNWAIT_SQL, [ids])
    else:
        await EventWaiting.filter(event_id__in=ids).delete()


async def fan_out(*, limit: int | None = None, merchant_id: str | None = None) -> FanOut:
    """Create the deliveries of events not fanned out yet (one per subscribed active endpoint).
    The `webhook_fanouts` primary key makes this happen once per event whatever the number of
    dispatchers; the event's `events_waiting` row (deleted afterwards, and again by whoever finds
    an event already done) keeps the read to the events still waiting. An event no endpoint takes
    only leaves the waiting table: two dispatchers both deleting its row create nothing, so it
    needs no `webhook_fanouts` row."""
    limit = limit or FANOUT_BATCH
    now = runtime().clock.now()
    since = now - FANOUT_LOOKBACK
    # Not the events' data (a payment object each): the fan-out needs only who and what.
    template, values = _WAITING, [lookup.db_value(EventWaiting, "created_at", since)]
    if merchant_id:
        template += ' AND "merchant_id" = {}'
        values.append(merchant_id)
    # planned for its values (once a pass): a generic plan made while the table was empty would
    # scan all of it, dead rows of taken events included, until the next ANALYZE
    found = await lookup.query(Event, template + ' ORDER BY "created_at" LIMIT {}', [*values, limit],
                               custom_plan=True)
    if not found:
        return FanOut()
    events = lookup.views(Event, found)
    endpoints = await WebhookEndpoint.filter(merchant_id__in={e.merchant_id for e in events}, status="active")
    by_tenant: dict[tuple[str, bool], list[WebhookEndpoint]] = defaultdict(list)
    for ep in endpoints:
        by_tenant[(ep.merchant_id, ep.livemode)].append(ep)
    plan = [(ev, [ep for ep in by_tenant[(ev.merchant_id, ev.livemode)] if subscribed(ep, ev.type)
                  and ep.created_at <= ev.created_at + timedelta(seconds=1)]) for ev in events]
    untaken = [ev.id for ev, targets in plan if not targets]
    plan = [(ev, targets) for ev, targets in plan if targets]
    done = FanOut(events=len(events))

    def rows(ev, targets: list[WebhookEndpoint]) -> list:
        return [WebhookFanout(event_id=ev.id, created_at=now), *(
            WebhookDelivery(id=new_id("whd"), event_id=ev.id, endpoint_id=ep.id, merchant_id=ev.merchant_id,
                            livemode=ev.livemode, state="pending", next_attempt_at=now, created_at=now,
                            updated_at=now) for ep in targets)]
    # The whole batch in one write. If another dispatcher fanned out some of these events first,
    # drop those and write the rest again; event by event only if that keeps colliding.
    # Two dispatchers may write overlapping batches at once: PostgreSQL may then pick one as a
    # deadlock victim, which runs its statement again (never a failed pass).
    async def mark(ids: list[str]) -> None:
        if ids:
            await db.retrying(lambda: _unwait(sorted(ids)), what="webhook fan-out mark")

    await mark(untaken)
    for _ in range(3):
        if not plan:
            return done
        try:
            together = [r for ev, targets in plan for r in rows(ev, targets)]
            await db.retrying(lambda: lookup.insert_all(sorted(together, key=lambda r: not isinstance(r, WebhookFanout))),
                              what="webhook fan-out")
            await mark([ev.id for ev, _ in plan])
            done.deliveries += sum(len(targets) for _, targets in plan)
            return done
        except IntegrityError:
            taken = set(await WebhookFanout.filter(event_id__in=[ev.id for ev, _ in plan])
                        .values_list("event_id", flat=True))
            await mark(sorted(taken))
            plan = [(ev, targets) for ev, targets in plan if ev.id not in taken]
    for ev, targets in plan:
        try:
            await lookup.insert_all(rows(ev, targets))
        except IntegrityError:
            pass                # another dispatcher fanned this event out first
        else:
            done.deliveries += len(targets)
        await mark([ev.id])
    return done


# ---------------------------------------------------------------- dispatcher

async def claim_due(*, owner: str, limit: int = CLAIM_BATCH, merchant_id: str | None = None) -> list[str]:
    """Lease up to `limit` due deliveries to `owner` (services.infra.leases: SKIP LOCKED on PostgreSQL,
    so any number of workers). `merchant_id` confines the claim to one merchant (tests)."""
    return await leases.claim_due(WebhookDelivery, status_field="state", owner=owner, now=runtime().clock.now(),
                                  lease=LEASE, limit=limit, merchant_id=merchant_id)


async def _send(endpoint: WebhookEndpoint, payload: dict, *, timeout: float) -> DeliveryResult:
    body, headers = signed_request(endpoint.secret, payload)
    return await transport()(endpoint.url, body=body, headers=headers, timeout=timeout,
                             allow_address=address_policy(endpoint.livemode))


async def deliver_claimed(delivery_id: str, *, owner: str, timeout: float = DELIVERY_TIMEOUT,
                          manual: bool = False) -> WebhookDelivery | None:
    """One attempt of a delivery leased to `owner`: POST, record the attempt, then mark it
    delivered, schedule the next retry, or fail it for good."""
    d = await WebhookDelivery.get_or_none(id=delivery_id, lease_owner=owner).select_related("endpoint", "event")
    if d is None:
        return None
    ev = d.event
    payload = envelope(event_id=ev.id, type=ev.type, created=ev.created_at, livemode=ev.livemode, obj=ev.data,
                       merchant_id=ev.merchant_id)
    started = runtime().clock.now()
    result = await _send(d.endpoint, payload, timeout=timeout)
    now = runtime().clock.now()
    number = d.attempts + 1
    changes: dict[str, Any] = {"attempts": number, "lease_owner": None, "lease_until": None, "updated_at": now,
                               "last_status_code": result.status_code, "last_error": _error(result)}
    if result.ok:
        changes.update(state="delivered", delivered=True, next_attempt_at=None)
    elif manual or number >= MAX_ATTEMPTS:
        changes.update(state="failed", next_attempt_at=None)
    else:
        changes.update(state="pending", next_attempt_at=now + timedelta(seconds=RETRY_DELAYS[number - 1]))
    async with in_transaction():
        await WebhookAttempt.create(id=new_id("wha"), delivery_id=d.id, number=number, manual=manual,
                                    status_code=result.status_code, latency_ms=result.latency_ms,
                                    error=_error(result), created_at=started)
        updated = await WebhookDelivery.filter(id=d.id, lease_owner=owner).update(**changes)
    if not updated:
        log.warning("webhook delivery %s: lease lost during the attempt (took %d ms)", d.id, result.latency_ms)
    for k, v in changes.items():
        setattr(d, k, v)
    return d


def _error(result: DeliveryResult) -> str | None:
    if result.ok:
        return None
    return (result.error or f"HTTP {result.status_code}")[:200]


@dataclass
class RunStats:
    fanned_out: int = 0
    claimed: int = 0
    delivered: int = 0
    failed: int = 0
    backlog: bool = False       # the fan-out took a full batch: more events may be waiting

    @property
    def busy(self) -> bool:
        """More work is waiting: the next step should follow at once."""
        return self.backlog or self.claimed >= CLAIM_BATCH


async def run_once(*, owner: str, timeout: float = DELIVERY_TIMEOUT, limit: int = CLAIM_BATCH,
                   merchant_id: str | None = None) -> RunStats:
    """One dispatcher step: fan new events out, claim what is due, deliver it concurrently.
    `merchant_id` confines the step to one merchant (tests; replaying one shop)."""
    fanned = await fan_out(merchant_id=merchant_id)
    stats = RunStats(fanned_out=fanned.deliveries, backlog=fanned.events >= FANOUT_BATCH)
    ids = await claim_due(owner=owner, limit=limit, merchant_id=merchant_id)
    stats.claimed = len(ids)
    results = await asyncio.gather(*(deliver_claimed(i, owner=owner, timeout=timeout) for i in ids),
                                   return_exceptions=True)
    for r in results:
        if isinstance(r, BaseException):
            log.error("webhook delivery crashed: %s", type(r).__name__, exc_info=r)
        elif r is not None:
            stats.delivered += r.delivered
            stats.failed += not r.delivered
    return stats


# ---------------------------------------------------------------- test delivery

def _sample_object(event_type: str, principal: Principal) -> dict:
    group, _, what = event_type.partition(".")
    now = runtime().clock.now()
    if group == "payment":
        status = {"created": "requires_payment_method"}.get(what, what)
        dispute = None
        if what == "disputed":         # the shape of services.money.dispute_view.shape
            dispute = {"id": new_id("dp"), "object": "dispute", "amount": 10000, "fee": 25000, "currency": "TRY",
                       "reason": "fraudulent", "status": "needs_response",
                       "evidence_due_by": iso(now + timedelta(days=7)), "created_at": iso(now), "closed_at": None}
        return {"id": new_id("pay"), "object": "payment", "status": status, "amount": 10000, "currency": "TRY",
                "livemode": principal.livemode, "merchant_id": principal.merchant_id,
                "created_at": iso(now), "metadata": {"test": "true"}, "dispute": dispute}
    return {"id": new_id("test"), "object": group, "status": what, "livemode": principal.livemode}


@dataclass
class TestOutcome:
    endpoint_id: str
    url: str
    delivered: bool
    status_code: int | None
    latency_ms: int
    error: str | None


@dataclass
class TestDelivery:
    event_id: str
    delivered: bool
    status_code: int | None
    latency_ms: int
    results: list[TestOutcome] = field(default_factory=list)


async def send_test(*, principal: Principal, data: dict, timeout: float = DELIVERY_TIMEOUT) -> TestDelivery:
    """POST a sample event of the named type to every active endpoint subscribed to it, now,
    and report what each answered (recorded nowhere: it is a connectivity check)."""
    f = Fields(data)
    event_type = f.enum("event", EVENT_TYPES, required=True)
    endpoint_id = f.str("endpoint", max_len=40)
    f.reject_unknown()
    qs = WebhookEndpoint.filter(**principal.scope, status="active")
    if endpoint_id:
        qs = qs.filter(id=endpoint_id)
    endpoints = [e for e in await qs.order_by("created_at") if subscribed(e, event_type)]
    if endpoint_id and not endpoints:
        raise NotFound(param="endpoint")
    if not endpoints:
        raise ValidationError(f"no active webhook endpoint is subscribed to {event_type}: configure one first",
                              param="event", code="no_webhook_endpoint")
    payload = envelope(event_id=new_id("evt"), type=event_type, created=runtime().clock.now(),
                       livemode=principal.livemode, obj=_sample_object(event_type, principal),
                       merchant_id=principal.merchant_id)
    results = await asyncio.gather(*(_send(e, payload, timeout=timeout) for e in endpoints))
    outcomes = [TestOutcome(endpoint_id=e.id, url=e.url, delivered=r.ok, status_code=r.status_code,
                            latency_ms=r.latency_ms, error=_error(r)) for e, r in zip(endpoints, results)]
    # One endpoint: its answer. Several: the first that failed, else the first.
    shown = next((o for o in outcomes if not o.delivered), outcomes[0])
    return TestDelivery(event_id=payload["id"], delivered=all(o.delivered for o in outcomes),
                        status_code=shown.status_code, latency_ms=shown.latency_ms, results=outcomes)


# ---------------------------------------------------------------- events, deliveries, attempts

@dataclass
class EventSummary:
    event: Event
    delivered: bool
    status: str                 # pending | delivered | failed | no_endpoints
    attempts: int
    deliveries: list[WebhookDelivery] = field(default_factory=list)
    attempt_log: dict[str, list[WebhookAttempt]] = field(default_factory=dict)   # delivery id -> attempts

    @property
    def id(self) -> str:
        return self.event.id


def _summary(ev: Event, deliveries: list[WebhookDelivery], fanned: bool) -> EventSummary:
    states = {d.state for d in deliveries}
    if not deliveries:
        status = "no_endpoints" if fanned else "pending"
    elif "pending" in states:
        status = "pending"
    elif "failed" in states:
        status = "failed"
    else:
        status = "delivered"
    return EventSummary(event=ev, delivered=bool(deliveries) and states == {"delivered"}, status=status,
                        attempts=sum(d.attempts for d in deliveries), deliveries=deliveries)


async def _summaries(events: list[Event]) -> list[EventSummary]:
    ids = [e.id for e in events]
    if not ids:
        return []
    by_event: dict[str, list[WebhookDelivery]] = defaultdict(list)
    for d in await WebhookDelivery.filter(event_id__in=ids).order_by("created_at", "id"):
        by_event[d.event_id].append(d)
    # Fanned out: no longer waiting, or (its waiting row deleted after) its fan-out row written.
    # An event no endpoint took has no fan-out row, only no waiting row.
    fanned = set(await WebhookFanout.filter(event_id__in=ids).values_list("event_id", flat=True))
    waiting = set(await EventWaiting.filter(event_id__in=ids).values_list("event_id", flat=True))
    return [_summary(e, by_event[e.id], e.id not in waiting or e.id in fanned) for e in events]


async def list_events(*, principal: Principal, limit=None, starting_after: str | None = None,
                      type: str | None = None) -> Page:
    """Events of this merchant and mode, newest first; items are EventSummary."""
    qs = Event.filter(**principal.scope)
    if type not in (None, ""):
        qs = qs.filter(type=check_enum(type, "type", EVENT_TYPES))
    p = await paginate(qs, limit=check_limit(limit), starting_after=starting_after)
    p.items = await _summaries(p.items)
    return p


async def get_event(*, principal: Principal, event_id: str) -> EventSummary:
    ev = await Event.get_or_none(id=event_id, **principal.scope) if isinstance(event_id, str) else None
    if ev is None:
        raise NotFound()
    (s,) = await _summaries([ev])
    log_by: dict[str, list[WebhookAttempt]] = {d.id: [] for d in s.deliveries}
    for a in await WebhookAttempt.filter(delivery_id__in=list(log_by)).order_by("created_at", "number"):
        log_by[a.delivery_id].append(a)
    s.attempt_log = log_by
    return s


async def retry_event(*, principal: Principal, event_id: str, timeout: float = DELIVERY_TIMEOUT) -> EventSummary:
    """Re-send a failed event now, once, to each endpoint whose delivery failed for good."""
    s = await get_event(principal=principal, event_id=event_id)
    failed = [d for d in s.deliveries if d.state == "failed"]
    if not failed:
        raise InvalidState(f"only a failed event can be retried; this one is {s.status}", param="id")
    owner = f"manual:{random_token(12)}"
    now = runtime().clock.now()
    claimed = []
    active = set(await WebhookEndpoint.filter(id__in=[d.endpoint_id for d in failed], status="active")
                 .values_list("id", flat=True))
    for d in failed:
        # Only an active endpoint is retried; the conditional update keeps two retries apart.
        if d.endpoint_id in active and await WebhookDelivery.filter(id=d.id, state="failed").update(
                state="pending", next_attempt_at=now, lease_owner=owner, lease_until=now + LEASE, updated_at=now):
            claimed.append(d.id)
    if not claimed:
        raise InvalidState("the endpoints of this event are disabled or it is already being retried", param="id")
    await asyncio.gather(*(deliver_claimed(i, owner=owner, timeout=timeout, manual=True) for i in claimed))
    return await get_event(principal=principal, event_id=event_id)
