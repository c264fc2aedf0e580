"""API keys: issue, list, revoke, and authenticate a bearer key.

Only the SHA-256 of a key and its leading characters are stored; the full value is returned
once. Keys are high-entropy random strings, so a fast hash is enough (no password hashing).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

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
        await _forget(key)
        key.status, key.revoked_at = "revoked", now
    return key


# Authentication reads the key from the key-value store (one round trip) and falls back to the
# database. Revocation writes a tombstone there *before* answering, and the cache is filled only
# with SET NX, so a fill racing with a revocation can never resurrect a revoked key.
CACHE_TTL = 600
_REVOKED = "revoked"


def _cache_slot(digest: str) -> str:
    return f"apikey:{digest}"


async def _forget(key: ApiKey) -> None:
    await runtime().kv.set(_cache_slot(key.key_hash), _REVOKED, ttl=CACHE_TTL * 2)


async def authenticate_key(token: str, *, allow_publishable: bool = False) -> Principal:
    if not token.startswith(("sk_live_", "sk_test_", "pk_live_", "pk_test_")) or len(token) > 100:
        raise AuthenticationError("Invalid API key")
    rt = runtime()
    digest = key_hash(token)
    cached = await rt.kv.get(_cache_slot(digest))
    if cached == _REVOKED:
        raise AuthenticationError("Invalid API key")
    if cached:
        key_id, merchant_id, kind, mode = cached.split("|")
        livemode = mode == "live"
    else:
        key = await ApiKey.filter(key_hash=digest).only("id", "merchant_id", "kind", "livemode", "status").first()
        if key is None or key.status != "active":
            raise AuthenticationError("Invalid API key")
        key_id, merchant_id, kind, livemode = key.id, key.merchant_id, key.kind, key.livemode
        await rt.kv.set(_cache_slot(digest), f"{key_id}|{merchant_id}|{kind}|{'live' if livemode else 'test'}",
                        ttl=CACHE_TTL, nx=True)
    if kind == "publishable" and not allow_publishable:
        raise AuthenticationError("Invalid API key: a publishable key cannot make this call")
    # last_used to the minute: one marker per key per minute decides who writes it.
    now = rt.clock.now()
    if await rt.kv.set(f"apikey-used:{key_id}:{int(rt.clock.time() // 60)}", "1", ttl=120, nx=True):
        await ApiKey.filter(id=key_id).update(last_used=now)
    return Principal(merchant_id=merchant_id, livemode=livemode, kind=kind, key_id=key_id)
