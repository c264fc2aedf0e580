"""Members' sign-in sessions, kept on the server: a token (`sess_<id>.<secret>`, sent as a bearer
token or in the `qafila_session` cookie) names one row; only its hash is stored. A session ends
when revoked (sign-out, a member removed), idle past QAFILA_SESSION_IDLE_SECONDS, or 12 hours
after sign-in. A cookie session also has a CSRF token, required on its writes."""
from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import timedelta

from tortoise.transactions import in_transaction

from models.core import Merchant
from models.team import Member, MemberSession
from services.errors import AuthenticationError, DomainError, NotFound
from services.identity import audit, permissions
from services.ids import check_id, new_id
from services.infra.runtime import runtime
from services.principal import Principal
from services.timestamps import iso

COOKIE = "qafila_session"
CSRF_COOKIE = "qafila_csrf"     # the cookie session's CSRF token, for the page's own script
TOUCH_EVERY = 5            # seconds: last_seen_at is written at most this often
STEP_UP_SECONDS = 300


@dataclass
class IssuedSession:
    session: MemberSession
    token: str
    csrf_token: str | None


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def device_of(user_agent: str) -> str:
    """`Chrome on Mac OS X` (ua-parser), or "" when there is nothing to read."""
    if not user_agent:
        return ""
    from ua_parser import parse
    r = parse(user_agent)
    browser = r.user_agent.family if r.user_agent else None
    os_ = r.os.family if r.os else None
    if browser and os_:
        return f"{browser} on {os_}"
    return browser or os_ or ""


async def create(*, member: Member, kind: str, two_factor_pending: bool = False) -> IssuedSession:
    """A new session of `member` (in the caller's transaction), and its `member.signed_in` entry."""
    rt = runtime()
    now = rt.clock.now()
    secret = secrets.token_urlsafe(32)
    csrf = secrets.token_urlsafe(24) if kind == "cookie" else None
    meta = audit.REQUEST.get()
    s = await MemberSession.create(
        id=new_id("sess"), merchant_id=member.merchant_id, member_id=member.id, kind=kind, secret_hash=_hash(secret),
        csrf_hash=_hash(csrf) if csrf else None, two_factor_pending=two_factor_pending,
        user_agent=(meta.user_agent or "")[:500], ip=(meta.ip or "")[:64], created_at=now, last_seen_at=now,
        expires_at=now + timedelta(seconds=rt.config.session_ttl_seconds))
    await audit.record(merchant_id=member.merchant_id, action="member.signed_in", object_type="member",
                       object_id=member.id, actor=("member", member.id, member.email),
                       after={"session_id": s.id, "kind": kind})
    return IssuedSession(session=s, token=f"{s.id}.{secret}", csrf_token=csrf)


def looks_like_session(token: str) -> bool:
    return token.startswith("sess_") and "." in token


async def resolve(token: str, *, via_cookie: bool = False, csrf: str | None = None, unsafe: bool = False) -> Principal:
    """The principal of a session token; 401 `session_expired` / `session_revoked` / invalid. A
    cookie session's write (`unsafe`) needs its CSRF token: 403 `csrf_failed`."""
    sid, _, secret = token.partition(".")
    try:
        check_id(sid, "session")
    except DomainError:
        raise AuthenticationError("Invalid API key") from None
    s = await MemberSession.get_or_none(id=sid)
    if s is None or not hmac.compare_digest(s.secret_hash, _hash(secret)):
        raise AuthenticationError("Invalid API key")
    rt = runtime()
    now = rt.clock.now()
    if s.revoked_at is not None:
        raise AuthenticationError("This session was signed out", code="session_revoked")
    idle = rt.config.session_idle_seconds
    if now >= s.expires_at or (now - s.last_seen_at).total_seconds() > idle:
        raise AuthenticationError("This session has expired: sign in again", code="session_expired")
    if via_cookie and unsafe:
        if not csrf or s.csrf_hash is None or not hmac.compare_digest(s.csrf_hash, _hash(csrf)):
            raise DomainError("Missing or wrong X-CSRF-Token for this session", code="csrf_failed", status=403)
    member = await Member.get_or_none(id=s.member_id, merchant_id=s.merchant_id)
    if member is None:                  # removed: its sessions were revoked with it
        raise AuthenticationError("This session was signed out", code="session_revoked")
    if (now - s.last_seen_at).total_seconds() >= TOUCH_EVERY:
        await MemberSession.filter(id=s.id).update(last_seen_at=now)
    return Principal(merchant_id=s.merchant_id, livemode=False, kind="session", member_id=member.id,
                     session_id=s.id, email=member.email, permissions=permissions.of_roles(member.roles),
                     via_cookie=via_cookie, two_factor_pending=s.two_factor_pending and not member.two_factor_enabled)


def shape(s: MemberSession, *, current_id: str | None) -> dict:
    return {"id": s.id, "object": "session", "current": s.id == current_id, "kind": s.kind,
            "device": device_of(s.user_agent), "user_agent": s.user_agent or None, "ip": s.ip or None,
            "created_at": iso(s.created_at), "last_seen_at": iso(s.last_seen_at)}


async def list_sessions(*, principal: Principal) -> list[MemberSession]:
    require_member(principal)
    rt = runtime()
    now = rt.clock.now()
    rows = await MemberSession.filter(member_id=principal.member_id, merchant_id=principal.merchant_id,
                                      revoked_at=None, expires_at__gt=now).order_by("-created_at", "-id")
    idle = rt.config.session_idle_seconds
    return [s for s in rows if (now - s.last_seen_at).total_seconds() <= idle]


async def revoke(*, principal: Principal, session_id: str) -> MemberSession:
    check_id(session_id, "id")
    async with in_transaction():
        s = await MemberSession.get_or_none(id=session_id, member_id=principal.member_id,
                                            merchant_id=principal.merchant_id)
        if s is None:                        # an unknown id (or an API key's ask) is a 404
            raise NotFound()
        if s.revoked_at is None:
            s.revoked_at = runtime().clock.now()
            await s.save(update_fields=["revoked_at"])
            await audit.record(merchant_id=principal.merchant_id, action="session.revoked", principal=principal,
                               object_type="session", object_id=s.id)
    return s


async def revoke_others(*, principal: Principal) -> int:
    require_member(principal)
    async with in_transaction():
        others = await MemberSession.filter(member_id=principal.member_id, merchant_id=principal.merchant_id,
                                            revoked_at=None).exclude(id=principal.session_id).only("id")
        now = runtime().clock.now()
        for s in others:
            await MemberSession.filter(id=s.id).update(revoked_at=now)
            await audit.record(merchant_id=principal.merchant_id, action="session.revoked", principal=principal,
                               object_type="session", object_id=s.id)
    return len(others)


async def sign_out(*, principal: Principal) -> None:
    require_member(principal)
    await revoke(principal=principal, session_id=principal.session_id)


async def revoke_all_of(member_id: str, merchant_id: str) -> None:
    """Every session of a member ends at once (the member was removed); in the caller's transaction."""
    await MemberSession.filter(member_id=member_id, merchant_id=merchant_id, revoked_at=None).update(
        revoked_at=runtime().clock.now())


def require_member(principal: Principal) -> None:
    """Team writes, /api/me* and step-up act for a person: an API key gets 403 `member_required`."""
    if principal.member_id is None or principal.session_id is None:
        raise DomainError("This needs a member's session (sign in), not an API key", code="member_required",
                          status=403)


async def step_up(*, principal: Principal) -> MemberSession:
    """The session may do step-up actions for STEP_UP_SECONDS (the caller checked the code)."""
    until = runtime().clock.now() + timedelta(seconds=STEP_UP_SECONDS)
    await MemberSession.filter(id=principal.session_id).update(step_up_until=until)
    return await MemberSession.get(id=principal.session_id)


async def require_step_up(principal: Principal) -> None:
    """A member with 2FA must have stepped up within 5 minutes for this action (403 `step_up_required`);
    an API key and a member without 2FA pass."""
    if principal.member_id is None:
        return
    member = await Member.get_or_none(id=principal.member_id)
    if member is None or not member.two_factor_enabled:
        return
    s = await MemberSession.get_or_none(id=principal.session_id)
    if s is None or s.step_up_until is None or s.step_up_until <= runtime().clock.now():
        raise DomainError("Confirm it's you: POST /api/auth/step-up with an authenticator code first",
                          code="step_up_required", status=403)


async def merchant_of(member: Member) -> Merchant:
    return await Merchant.get(id=member.merchant_id)
