"""Member sign-in: one-time passwords by e-mail, then (when on) the authenticator code, opening a
server-side session (services.identity.sessions); step-up; and the one `authenticate` that turns
any credential (an API key, a session token or cookie) into a Principal."""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

import orjson

from tortoise.transactions import in_transaction

from models.core import Merchant
from models.team import Member
from services.identity import api_keys, audit, merchants, ratelimit, sessions, team, two_factor
from services.errors import AuthenticationError, InvalidState, NotFound, ValidationError
from services.ids import check_id, new_id
from services.infra.runtime import runtime
from services.principal import Principal
from services.validation import _MISSING, Fields

SESSION_ISSUER = "qafila"
SESSION_AUDIENCE = "qafila-merchant"
_OTP = re.compile(r"\d{6}")
_REQUEST_ID = re.compile(r"req_[0-9A-Za-z]{1,40}")
CHALLENGE_TTL = 300          # seconds to answer the two-factor challenge of a sign-in


@dataclass
class OtpRequest:
    request_id: str
    expires_in: int       # seconds


@dataclass
class Session:
    """What a sign-in answers: a session (`token`, or for a cookie session the `csrf_token` and
    the cookie's value in `cookie`), or a two-factor `challenge_id` to answer first."""
    merchant_id: str
    member_id: str | None = None
    session_id: str | None = None
    token: str | None = None
    csrf_token: str | None = None
    cookie: str | None = None
    expires_in: int = 0
    merchant_created: bool = False      # verify-otp: this verification signed the merchant up
    two_factor: str = "not_enrolled"    # not_enrolled | challenge | enrollment_required | verified
    challenge_id: str | None = None


def _code_digest(request_id: str, code: str) -> str:
    key = runtime().config.secret_key.encode()
    return hmac.new(key, f"{request_id}:{code}".encode(), hashlib.sha256).hexdigest()


async def request_otp(*, data: dict, client_address: str | None) -> OtpRequest:
    f = Fields(data)
    email = f.email("email", required=True)
    f.reject_unknown()
    rt = runtime()
    await ratelimit.enforce(ratelimit.OTP_PER_EMAIL, hashlib.sha256(email.encode()).hexdigest())
    if client_address:
        await ratelimit.enforce(ratelimit.OTP_PER_ADDRESS, client_address)
    request_id = new_id("req")
    code = f"{secrets.randbelow(10**6):06d}"
    ttl = rt.config.otp_ttl_seconds
    record = {"email": email, "digest": _code_digest(request_id, code), "expires_at": rt.clock.time() + ttl}
    await rt.kv.set(f"otp:{request_id}", orjson.dumps(record).decode(), ttl=ttl + 60)
    minutes = ttl // 60
    await rt.mailer.send(
        to=email, subject=f"Your Qafila sign-in code: {code}",
        text=f"Your Qafila sign-in code is {code}.\n\nIt expires in {minutes} minutes and works once.\n"
             f"If you did not ask for it, ignore this e-mail.\n")
    return OtpRequest(request_id=request_id, expires_in=ttl)


async def verify_otp(*, data: dict) -> Session:
    f = Fields(data)
    request_id = f.str("request_id", required=True, max_len=64)
    code = f.str("otp", required=True, max_len=6, min_len=6)
    merchant_id = f.str("merchant_id", max_len=40)
    kind = f.enum("session", ("token", "cookie"), default="token")
    f.reject_unknown()
    if not _OTP.fullmatch(code):
        raise ValidationError("otp must be the 6-digit code from the e-mail", param="otp")
    if not _REQUEST_ID.fullmatch(request_id):
        raise ValidationError("request_id must be the req_ id returned by request-otp", param="request_id")
    if merchant_id is not None:
        check_id(merchant_id, "merchant_id")
    rt = runtime()
    slot = f"otp:{request_id}"
    raw = await rt.kv.get(slot)
    if raw is None:
        raise AuthenticationError("Invalid or expired one-time password", code="invalid_otp")
    record = orjson.loads(raw)
    if rt.clock.time() >= record["expires_at"]:
        await rt.kv.delete(slot)
        raise AuthenticationError("Invalid or expired one-time password", code="invalid_otp")
    attempts = await rt.kv.incr(f"{slot}:tries", ttl=rt.config.otp_ttl_seconds + 60)
    if attempts > rt.config.otp_max_attempts:
        await rt.kv.delete(slot)
        raise AuthenticationError("Too many attempts: request a new one-time password", code="invalid_otp")
    if not hmac.compare_digest(record["digest"], _code_digest(request_id, code)):
        raise AuthenticationError("Invalid or expired one-time password", code="invalid_otp")
    email = record["email"]
    joined = await team.memberships(email)
    member = None
    if merchant_id is not None:
        member = next((m for m in joined if m.merchant_id == merchant_id), None)
        if member is None:          # checked before the code is spent: the member may ask for another merchant
            raise NotFound("This e-mail is not a member of that merchant", param="merchant_id")
    if not await rt.kv.delete(slot):          # single use: only the first verification wins
        raise AuthenticationError("Invalid or expired one-time password", code="invalid_otp")
    created = False
    if member is None and joined:
        member = joined[0]                     # the oldest membership
    if member is None:                         # no membership: the code signs a new merchant up
        merchant, created = await merchants.sign_in_or_up(email)
        member = await Member.filter(merchant_id=merchant.id).order_by("created_at", "id").first()
    return await _after_first_factor(member, kind=kind, merchant_created=created)


async def _after_first_factor(member: Member, *, kind: str, merchant_created: bool = False) -> Session:
    """The e-mail code was right: a session, or first the member's authenticator code."""
    rt = runtime()
    if member.two_factor_enabled:
        challenge_id = new_id("tfc")
        await rt.kv.set(f"2fa-challenge:{challenge_id}", orjson.dumps({"member_id": member.id, "kind": kind}).decode(),
                        ttl=CHALLENGE_TTL)
        return Session(merchant_id=member.merchant_id, member_id=member.id, two_factor="challenge",
                       challenge_id=challenge_id, merchant_created=merchant_created)
    merchant = await Merchant.get(id=member.merchant_id)
    pending = merchant.require_two_factor
    return await _open(member, kind=kind, two_factor="enrollment_required" if pending else "not_enrolled",
                       pending=pending, merchant_created=merchant_created)


async def _open(member: Member, *, kind: str, two_factor: str, pending: bool = False,
                merchant_created: bool = False) -> Session:
    async with in_transaction():
        issued = await sessions.create(member=member, kind=kind, two_factor_pending=pending)
    return Session(merchant_id=member.merchant_id, member_id=member.id, session_id=issued.session.id,
                   token=issued.token if kind == "token" else None, csrf_token=issued.csrf_token,
                   cookie=issued.token if kind == "cookie" else None,
                   expires_in=runtime().config.session_ttl_seconds, merchant_created=merchant_created,
                   two_factor=two_factor)


async def switch_merchant(*, principal, data: dict) -> Session:
    """The dashboard's merchant switcher: a signed-in member opens a session (of the same kind)
    on another merchant its e-mail belongs to. The e-mail is already proven by the session; the
    other membership's own second factor is asked for when it has one."""
    sessions.require_member(principal)
    f = Fields(data)
    merchant_id = f.str("merchant_id", required=True, max_len=40)
    f.reject_unknown()
    me = await Member.get_or_none(id=principal.member_id, merchant_id=principal.merchant_id)
    target = await Member.get_or_none(merchant_id=merchant_id, email=me.email) if me else None
    if target is None:
        raise NotFound("This e-mail is not a member of that merchant", param="merchant_id")
    return await _after_first_factor(target, kind="cookie" if principal.via_cookie else "token")


async def open_session(member: Member, *, kind: str = "token") -> Session:
    """A session for `member` without the sign-in steps: tests and the CLI."""
    return await _open(member, kind=kind, two_factor="not_enrolled")


async def verify_two_factor(*, data: dict) -> Session:
    """The second step of a sign-in: the challenge of verify-otp and an authenticator or recovery code."""
    f = Fields(data)
    challenge_id = f.str("challenge_id", required=True, max_len=64)
    code = f._get("code", False)
    recovery = f._get("recovery_code", False)
    f.reject_unknown()
    check_id(challenge_id, "challenge_id")
    rt = runtime()
    raw = await rt.kv.get(f"2fa-challenge:{challenge_id}")
    if raw is None:
        raise AuthenticationError("This sign-in has expired: start again", code="invalid_challenge")
    record = orjson.loads(raw)
    member = await Member.get_or_none(id=record["member_id"])
    if member is None:
        raise AuthenticationError("This sign-in has expired: start again", code="invalid_challenge")
    await two_factor.guard(member.id)
    if (code is _MISSING) == (recovery is _MISSING):
        raise ValidationError("send code or recovery_code", param="code")
    try:
        if code is not _MISSING:
            await two_factor.check_totp(member, code, status=401)
        else:
            await two_factor.check_recovery_code(member, recovery, status=401)
    except ValidationError as exc:
        async with in_transaction():
            await audit.record(merchant_id=member.merchant_id, action="member.sign_in_failed", object_type="member",
                               object_id=member.id, actor=("member", member.id, member.email),
                               after={"reason": exc.code})
        if exc.status == 401:
            raise AuthenticationError(exc.message, code=exc.code, param=exc.param) from None
        raise
    if not await rt.kv.delete(f"2fa-challenge:{challenge_id}"):
        raise AuthenticationError("This sign-in has expired: start again", code="invalid_challenge")
    return await _open(member, kind=record["kind"], two_factor="verified")


async def step_up(*, principal: Principal, data: dict):
    """POST /api/auth/step-up: the member's authenticator code opens 5 minutes of step-up actions."""
    sessions.require_member(principal)
    f = Fields(data)
    code = f._get("code", True)
    f.reject_unknown()
    member = await team.me(principal)
    if not member.two_factor_enabled:
        raise InvalidState("Turn two-factor sign-in on first: step-up confirms an authenticator code",
                           code="two_factor_not_enabled")
    await two_factor.check_totp(member, code)
    return await sessions.step_up(principal=principal)


def bearer(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    token = token.strip()
    if not (token.isascii() and token.isprintable()):
        # Every credential Qafila issues is printable ASCII; bytes that are not UTF-8 arrive as
        # lone surrogates, which no hash or JWT library can encode. Such a token is simply
        # wrong: each caller answers it with its own 401 for an unknown credential.
        return "unreadable-credential"
    return token


async def authenticate(authorization: str | None, *, allow_publishable: bool = False,
                       client_address: str | None = None, cookie: str | None = None, csrf: str | None = None,
                       unsafe: bool = False) -> Principal:
    """Any `Authorization: Bearer ...` credential: an API key or a session token; without one, the
    `qafila_session` cookie (whose writes, `unsafe`, need the session's `csrf` token). Keys no
    merchant has are limited per `client_address` (api_keys.UNKNOWN_KEYS)."""
    token = bearer(authorization)
    if token is None and cookie and not authorization:
        return await sessions.resolve(cookie, via_cookie=True, csrf=csrf, unsafe=unsafe)
    if token is None:
        raise AuthenticationError("Invalid API key: send Authorization: Bearer <API_KEY>")
    if token.startswith(("sk_", "pk_")):
        return await api_keys.authenticate_key(token, allow_publishable=allow_publishable,
                                               client_address=client_address)
    if sessions.looks_like_session(token):
        return await sessions.resolve(token)
    raise AuthenticationError("Invalid API key")


async def admit(authorization: str | None, *, rule: ratelimit.Rule, allow_publishable: bool = False,
                client_address: str | None = None, cookie: str | None = None, csrf: str | None = None,
                unsafe: bool = False) -> tuple[Principal, ratelimit.RateState]:
    """Authenticate the caller and count the request against `rule`: an API key in one
    key-value round trip (`api_keys.admit_key`), a session token verified here plus one count.
    Keys no merchant has are limited per `client_address` (api_keys.UNKNOWN_KEYS)."""
    token = bearer(authorization)
    if token is not None and token.startswith(("sk_", "pk_")):
        return await api_keys.admit_key(token, rule=rule, allow_publishable=allow_publishable,
                                        client_address=client_address)
    principal = await authenticate(authorization, allow_publishable=allow_publishable, cookie=cookie, csrf=csrf,
                                   unsafe=unsafe)
    return principal, await ratelimit.hit(rule, principal.credential_id)
