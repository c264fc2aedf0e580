"""Merchant sign-in: one-time passwords by e-mail, signed session tokens, and the one
`authenticate` that turns any bearer credential into a Principal."""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

import jwt
import orjson

from services.identity import api_keys, merchants, ratelimit
from services.errors import AuthenticationError, ValidationError
from services.ids import new_id
from services.infra.runtime import runtime
from services.principal import Principal
from services.validation import Fields

SESSION_ISSUER = "qafila"
SESSION_AUDIENCE = "qafila-merchant"
_OTP = re.compile(r"\d{6}")
_REQUEST_ID = re.compile(r"req_[0-9A-Za-z]{1,40}")


@dataclass
class OtpRequest:
    request_id: str
    expires_in: int       # seconds


@dataclass
class Session:
    token: str
    merchant_id: str
    expires_in: int
    merchant_created: bool = False      # verify-otp: this verification signed the merchant up


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
    f.reject_unknown()
    if not _OTP.fullmatch(code):
        raise ValidationError("otp must be the 6-digit code from the e-mail", param="otp")
    if not _REQUEST_ID.fullmatch(request_id):
        raise ValidationError("request_id must be the req_ id returned by request-otp", param="request_id")
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
    if not await rt.kv.delete(slot):          # single use: only the first verification wins
        raise AuthenticationError("Invalid or expired one-time password", code="invalid_otp")
    merchant, created = await merchants.sign_in_or_up(record["email"])
    session = issue_session(merchant.id)
    session.merchant_created = created
    return session


def issue_session(merchant_id: str) -> Session:
    rt = runtime()
    now = int(rt.clock.time())
    ttl = rt.config.session_ttl_seconds
    claims = {"iss": SESSION_ISSUER, "aud": SESSION_AUDIENCE, "sub": merchant_id, "iat": now,
              "exp": now + ttl, "jti": secrets.token_hex(8), "typ": "session"}
    token = jwt.encode(claims, rt.config.secret_key, algorithm="HS256")
    return Session(token=token, merchant_id=merchant_id, expires_in=ttl)


def _session_principal(token: str) -> Principal:
    rt = runtime()
    try:
        claims = jwt.decode(token, rt.config.secret_key, algorithms=["HS256"], audience=SESSION_AUDIENCE,
                            issuer=SESSION_ISSUER, options={"require": ["exp", "iat", "sub", "jti"],
                                                            "verify_exp": False, "verify_iat": False})
    except jwt.PyJWTError:
        raise AuthenticationError("Invalid API key") from None
    # Expiry and issue time against the injected clock (PyJWT's iat check uses the wall clock).
    if claims.get("typ") != "session" or claims["exp"] <= rt.clock.time() or claims["iat"] > rt.clock.time() + 60:
        raise AuthenticationError("Invalid API key")
    # A session acts in test mode: live data is reached with a live secret key.
    return Principal(merchant_id=claims["sub"], livemode=False, kind="session")


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
                       client_address: str | None = None) -> Principal:
    """Any `Authorization: Bearer ...` credential: an API key or a session token. Keys no
    merchant has are limited per `client_address` (api_keys.UNKNOWN_KEYS)."""
    token = bearer(authorization)
    if token is None:
        raise AuthenticationError("Invalid API key: send Authorization: Bearer <API_KEY>")
    if token.startswith(("sk_", "pk_")):
        return await api_keys.authenticate_key(token, allow_publishable=allow_publishable,
                                               client_address=client_address)
    if token.count(".") == 2:
        return _session_principal(token)
    raise AuthenticationError("Invalid API key")


async def admit(authorization: str | None, *, rule: ratelimit.Rule, allow_publishable: bool = False,
                client_address: str | None = None) -> tuple[Principal, ratelimit.RateState]:
    """Authenticate the caller and count the request against `rule`: an API key in one
    key-value round trip (`api_keys.admit_key`), a session token verified here plus one count.
    Keys no merchant has are limited per `client_address` (api_keys.UNKNOWN_KEYS)."""
    token = bearer(authorization)
    if token is not None and token.startswith(("sk_", "pk_")):
        return await api_keys.admit_key(token, rule=rule, allow_publishable=allow_publishable,
                                        client_address=client_address)
    principal = await authenticate(authorization, allow_publishable=allow_publishable)
    return principal, await ratelimit.hit(rule, principal.credential_id)
