"""The append-only audit log: who did what to which object, from where, with the state before
and after. `record` is called inside the transaction of the change it records (so a change is
never without its entry, nor an entry without its change); nothing updates or deletes an entry.
No secret is ever recorded: keys, tokens, codes, TOTP secrets and IBANs stay out of `before`
and `after` (callers pass only safe fields; `_scrub` drops any that slip through)."""
from __future__ import annotations

import contextvars
import csv
import io
from dataclasses import dataclass
from datetime import datetime

import orjson
from tortoise.expressions import Q

from models.team import AuditEvent
from services.errors import ValidationError
from services.ids import check_id, new_id, owned
from services.infra.runtime import runtime
from services.pagination import Page, check_limit
from services.principal import Principal
from services.timestamps import iso
from services.validation import check_datetime

ACTIONS = (
    "member.signed_in", "member.sign_in_failed", "member.two_factor_enabled", "member.two_factor_disabled",
    "member.recovery_code_used", "member.roles_updated", "member.removed",
    "invite.created", "invite.accepted", "invite.revoked",
    "api_key.created", "api_key.revoked",
    "webhook_endpoint.created", "webhook_endpoint.disabled",
    "session.revoked", "refund.created", "dispute.evidence_submitted", "dispute.evidence_file_added", "payout_settings.updated",
    "merchant.updated",
)
CSV_COLUMNS = ("id", "created_at", "actor_type", "actor_id", "actor_email", "action", "object_type",
               "object_id", "ip", "user_agent", "before", "after")
_SECRET_KEYS = frozenset({"key", "secret", "token", "code", "otp", "recovery_code", "recovery_codes", "iban",
                          "totp_secret", "password", "csrf_token", "secret_hash", "key_hash", "token_hash"})


@dataclass(frozen=True)
class RequestMeta:
    ip: str | None = None
    user_agent: str | None = None


# Set by the HTTP layer for the request being served (rest_compat.routing, the GraphQL view).
REQUEST = contextvars.ContextVar("qafila_audit_request", default=RequestMeta())
_last_seq = 0


def _next_seq() -> int:
    """The order of writing: the clock in microseconds (x1000), strictly increasing in this
    process, so entries written at one instant (a frozen or stepped-back clock, a job running at
    its due time) keep their order; entries of two processes tied on it are ordered by id."""
    global _last_seq
    _last_seq = max(int(runtime().clock.time() * 1_000_000) * 1000, _last_seq + 1)
    return _last_seq


def set_request(*, ip: str | None, user_agent: str | None) -> contextvars.Token:
    return REQUEST.set(RequestMeta(ip=ip, user_agent=(user_agent or "")[:500] or None))


def _scrub(value):
    if isinstance(value, dict):
        return {k: _scrub(v) for k, v in value.items() if k not in _SECRET_KEYS}
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    return value


def actor_of(principal: Principal | None) -> tuple[str, str | None, str | None]:
    if principal is None or principal.kind in ("scheduler",):
        return "system", None, None
    if principal.member_id:
        return "member", principal.member_id, principal.email
    if principal.key_id:
        return "api_key", principal.key_id, None
    return "system", None, None


async def record(*, merchant_id: str, action: str, principal: Principal | None = None,
                 object_type: str | None = None, object_id: str | None = None,
                 before: dict | None = None, after: dict | None = None,
                 actor: tuple[str, str | None, str | None] | None = None) -> AuditEvent:
    """One entry, in the caller's transaction. `actor` overrides the principal's (a sign-in,
    where the member has no session yet)."""
    assert action in ACTIONS, action
    actor_type, actor_id, actor_email = actor or actor_of(principal)
    meta = REQUEST.get()
    rt = runtime()
    now = rt.clock.now()
    return await AuditEvent.create(
        id=new_id("aud"), merchant_id=merchant_id, seq=_next_seq(), created_at=now, actor_type=actor_type,
        actor_id=actor_id, actor_email=actor_email, action=action, object_type=object_type, object_id=object_id,
        ip=meta.ip, user_agent=meta.user_agent, before=_scrub(before) if before is not None else None,
        after=_scrub(after) if after is not None else None)


def shape(e: AuditEvent) -> dict:
    return {"id": e.id, "created_at": iso(e.created_at),
            "actor": {"type": e.actor_type, "id": e.actor_id, "email": e.actor_email},
            "action": e.action, "object": {"type": e.object_type, "id": e.object_id} if e.object_type else None,
            "ip": e.ip, "user_agent": e.user_agent, "before": e.before, "after": e.after}


async def list_events(*, principal: Principal, actor: str | None = None, action: str | None = None,
                      object_type: str | None = None, object_id: str | None = None,
                      created_gte=None, created_lte=None, limit=None, starting_after: str | None = None) -> Page:
    """Newest first, keyset on the order of writing; every filter is checked (an unknown action: 400)."""
    limit = check_limit(limit)
    qs = AuditEvent.filter(merchant_id=principal.merchant_id)
    if actor is not None:
        qs = qs.filter(actor_id=check_id(actor, "actor"))
    if action is not None:
        if action not in ACTIONS:
            raise ValidationError(f"action must be among {', '.join(ACTIONS)}", param="action")
        qs = qs.filter(action=action)
    if object_type is not None:
        if not isinstance(object_type, str) or not object_type.isascii() or not object_type.replace("_", "").isalpha() \
                or len(object_type) > 40:
            raise ValidationError("object_type must be an object type such as member or refund", param="object_type")
        qs = qs.filter(object_type=object_type)
    if object_id is not None:
        qs = qs.filter(object_id=check_id(object_id, "object_id"))
    if created_gte is not None:
        qs = qs.filter(created_at__gte=_when(created_gte, "created_gte"))
    if created_lte is not None:
        qs = qs.filter(created_at__lte=_when(created_lte, "created_lte"))
    counter = qs.count                      # the total, counted only when asked for (GraphQL's totalCount)
    if starting_after:
        check_id(starting_after, "starting_after")
        anchor = await AuditEvent.filter(merchant_id=principal.merchant_id, id=starting_after).only(
            "id", "seq").first()
        if anchor is None:
            raise ValidationError("starting_after is not an id from this list", param="starting_after")
        qs = qs.filter(Q(seq__lt=anchor.seq) | Q(seq=anchor.seq, id__lt=anchor.id))
    rows = await qs.order_by("-seq", "-id").limit(limit + 1)
    has_more = len(rows) > limit
    rows = rows[:limit]
    return Page(items=rows, has_more=has_more, total=None, next_cursor=rows[-1].id if has_more and rows else None,
                counter=counter)


async def get_event(*, principal: Principal, event_id: str) -> AuditEvent:
    return await owned(AuditEvent, merchant_id=principal.merchant_id, object_id=event_id)


def _when(v, param: str) -> datetime:
    """A time filter: ISO 8601 or Unix seconds (as text from a query string)."""
    if isinstance(v, str) and v.strip().isdigit():
        v = int(v.strip())
    return check_datetime(v, param)


def to_csv(events: list[AuditEvent]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for e in events:
        w.writerow([e.id, iso(e.created_at), e.actor_type, e.actor_id or "", e.actor_email or "", e.action,
                    e.object_type or "", e.object_id or "", e.ip or "", e.user_agent or "",
                    orjson.dumps(e.before).decode() if e.before is not None else "",
                    orjson.dumps(e.after).decode() if e.after is not None else ""])
    return buf.getvalue()
