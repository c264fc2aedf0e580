"""API keys: issue, list, revoke, and authenticate a bearer key.

Only the SHA-256 of a key and its leading characters are stored; the full value is returned
once. Keys are high-entropy random strings, so a fast hash is enough (no password hashing).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import timedelta

from models.core import ApiKey
from services.errors import AuthenticationError, NotFound, ValidationError
from services.ids import new_id, random_token
from services.infra.runtime import runtime
from services.pagination import Page, check_limit, paginate
from services.principal import Principal
from services.validation import Fields

KINDS = ("secret", "publishable")
MODES = ("test", "live")
_KIND_PREFIX = {"secret": "sk", "publishable": "pk"}
LAST_USED_EVERY = timedelta(seconds=60)     # last_used is kept to the minute: no write per request


def key_hash(full_key: str) -> str:
    return hashlib.sha256(full_key.encode()).hexdigest()


async def issue_key(*, merchant_id: str, kind: str, livemode: bool, name: str = "") -> tuple[ApiKey, str]:
    full = f"{_KIND_PREFIX[kind]}_{'live' if livemode else 'test'}_{random_token(32)}"
    key = await ApiKey.create(id=new_id("key"), merchant_id=merchant_id, name=name, kind=kind,
                              livemode=livemode, prefix=full[:12], key_hash=key_hash(full),
                              created_at=runtime().clock.now())
    return key, full


def _scope(principal: Principal) -> dict:
    # A session (the merchant signed in) manages keys of both modes; a key only those of its own.
    if principal.kind == "session":
        return {"merchant_id": principal.merchant_id}
    return principal.scope


@dataclass
class CreatedKey:
    key: ApiKey
    secret: str


async def create_api_key(*, principal: Principal, data: dict) -> CreatedKey:
    f = Fields(data)
    name = f.str("name", max_len=100, default="")
    mode = f.enum("mode", MODES, default=principal.mode)
    kind = f.enum("type", KINDS, default="secret")
    f.reject_unknown()
    if principal.kind == "publishable":
        raise AuthenticationError("Invalid API key")
    if mode == "live" and not principal.livemode and principal.kind != "session":
        raise ValidationError("a test key cannot create live keys: sign in (verify-otp) or use a live secret key",
                              param="mode", code="live_mode_required")
    key, full = await issue_key(merchant_id=principal.merchant_id, kind=kind, livemode=mode == "live", name=name)
    return CreatedKey(key=key, secret=full)


async def list_api_keys(*, principal: Principal, limit=None, starting_after: str | None = None) -> Page:
    return await paginate(ApiKey.filter(**_scope(principal)), limit=check_limit(limit),
                          starting_after=starting_after)


async def get_api_key(*, principal: Principal, key_id: str) -> ApiKey:
    key = await ApiKey.get_or_none(id=key_id, **_scope(principal)) if isinstance(key_id, str) else None
    if key is None:
        raise NotFound()
    return key


async def revoke_api_key(*, principal: Principal, key_id: str) -> ApiKey:
    key = await get_api_key(principal=principal, key_id=key_id)
    if key.status != "revoked":          # revoking twice is harmless and answers the same
        now = runtime().clock.now()
        await ApiKey.filter(id=key.id, status="active").update(status="revoked", revoked_at=now)
        key.status, key.revoked_at = "revoked", now
    return key


async def authenticate_key(token: str, *, allow_publishable: bool = False) -> Principal:
    if not token.startswith(("sk_live_", "sk_test_", "pk_live_", "pk_test_")) or len(token) > 100:
        raise AuthenticationError("Invalid API key")
    key = await ApiKey.filter(key_hash=key_hash(token)).only(
        "id", "merchant_id", "kind", "livemode", "status", "last_used").first()
    if key is None or key.status != "active":
        raise AuthenticationError("Invalid API key")
    if key.kind == "publishable" and not allow_publishable:
        raise AuthenticationError("Invalid API key: a publishable key cannot make this call")
    now = runtime().clock.now()
    if key.last_used is None or now - key.last_used >= LAST_USED_EVERY:
        await ApiKey.filter(id=key.id).update(last_used=now)
    return Principal(merchant_id=key.merchant_id, livemode=key.livemode, kind=key.kind, key_id=key.id)
