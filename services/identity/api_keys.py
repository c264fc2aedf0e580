"""API keys: issue, list, revoke, and authenticate a bearer key.

Only the SHA-256 of a key and its leading characters are stored; the full value is returned
once. Keys are high-entropy random strings, so a fast hash is enough (no password hashing).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

from tortoise.transactions import in_transaction

from models.core import ApiKey
from services.identity import audit, ratelimit, sessions
from services.errors import AuthenticationError, NotFound, RateLimited, ValidationError
from services.ids import new_id, random_token
from services.infra.runtime import runtime
from services.pagination import Page, check_limit, keyset
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


def default_key_name(kind: str, mode: str) -> str:
    """'Secret key (test)', 'Publishable key (live)': the name of a key created without one."""
    return f"{kind.capitalize()} key ({mode})"


async def create_api_key(*, principal: Principal, data: dict) -> CreatedKey:
    f = Fields(data)
    name = f.str("name", max_len=100)
    mode = f.enum("mode", MODES, default=principal.mode)
    kind = f.enum("type", KINDS, default="secret")
    f.reject_unknown()
    if name is None:                    # omitted (an empty body): a default name, never ""
        name = default_key_name(kind, mode)
    elif not name.strip():
        raise ValidationError("name must not be blank (omit it for a default name)", param="name")
    if principal.kind == "publishable":
        raise AuthenticationError("Invalid API key")
    if mode == "live" and not principal.livemode and principal.kind != "session":
        raise ValidationError("a test key cannot create live keys: sign in (verify-otp) or use a live secret key",
                              param="mode", code="live_mode_required")
    if mode == "live":
        await sessions.require_step_up(principal)
    async with in_transaction():
        key, full = await issue_key(merchant_id=principal.merchant_id, kind=kind, livemode=mode == "live", name=name)
        await audit.record(merchant_id=principal.merchant_id, action="api_key.created", principal=principal,
                           object_type="api_key", object_id=key.id,
                           after={"name": name, "type": kind, "mode": mode, "key_sha256": key.key_hash})
    return CreatedKey(key=key, secret=full)


async def list_api_keys(*, principal: Principal, limit=None, starting_after: str | None = None) -> Page:
    return await keyset(ApiKey, scope=_scope(principal), limit=check_limit(limit), starting_after=starting_after)


async def get_api_key(*, principal: Principal, key_id: str) -> ApiKey:
    key = await ApiKey.get_or_none(id=key_id, **_scope(principal)) if isinstance(key_id, str) else None
    if key is None:
        raise NotFound()
    return key


async def revoke_api_key(*, principal: Principal, key_id: str) -> ApiKey:
    key = await get_api_key(principal=principal, key_id=key_id)
    if key.status != "revoked":          # revoking twice is harmless and answers the same
        now = runtime().clock.now()
        async with in_transaction():
            await ApiKey.filter(id=key.id, status="active").update(status="revoked", revoked_at=now)
            await audit.record(merchant_id=principal.merchant_id, action="api_key.revoked", principal=principal,
                               object_type="api_key", object_id=key.id, before={"status": "active"},
                               after={"status": "revoked", "key_sha256": key.key_hash})
        await _forget(key.key_hash)
        key.status, key.revoked_at = "revoked", now
    return key


# Authentication reads the key from the key-value store (one round trip) and falls back to the
# database. Revocation writes a tombstone there *before* answering, and the cache is filled only
# with SET NX, so a fill racing with a revocation can never resurrect a revoked key.
CACHE_TTL = 600
_REVOKED = "revoked"


def _cache_slot(digest: str) -> str:
    return f"apikey:{digest}"


async def _forget(digest: str) -> None:
    """The revoked key's tombstone, in place of any cached entry."""
    await runtime().kv.set(_cache_slot(digest), _REVOKED, ttl=CACHE_TTL * 2)


def _check_format(token: str) -> None:
    if not token.startswith(("sk_live_", "sk_test_", "pk_live_", "pk_test_")) or len(token) > 100:
        raise AuthenticationError("Invalid API key")


# Keys no merchant has, per client address: each costs a database read (a digest no key ever
# had is not cached), so an address guessing keys is stopped after this many in the window:
# 429 with Retry-After, without reading the database, until the window ends. Counted per
# address, and only for unknown keys: a known key (cached or read) never touches the counter,
# so another address's guesses never slow it.
UNKNOWN_KEYS = ratelimit.Rule("unknown-key-ip", 20, 600)


async def _refuse_if_guessing(client_address: str | None) -> None:
    """Before a database read of a key not in the cache: 429 when the address already spent its
    unknown keys of this window (a read of the counter, not a count)."""
    if not client_address:
        return
    rt = runtime()
    counter, _, now = ratelimit.counter(UNKNOWN_KEYS, f"ip:{client_address}")
    spent = int(await rt.kv.get(counter) or 0)
    state = ratelimit.state(UNKNOWN_KEYS, spent + 1, now)
    if not state.allowed:
        raise _guessing(state)


def _guessing(state: ratelimit.RateState) -> RateLimited:
    rule = UNKNOWN_KEYS
    return RateLimited(rule.message, headers=state.headers(), param=None,
                       detail=f"{rule.message}: too many unknown API keys from this address (limit "
                              f"{ratelimit.describe(rule)}); retry after {state.retry_after} s")


async def _unknown(client_address: str | None) -> AuthenticationError | RateLimited:
    """A key no merchant has: counted against the address; the refusal to raise (401, or 429
    once the address is beyond its limit)."""
    if client_address:
        state = await ratelimit.hit(UNKNOWN_KEYS, f"ip:{client_address}")
        if not state.allowed:
            return _guessing(state)
    return AuthenticationError("Invalid API key")


async def _fill_cache(digest: str, client_address: str | None = None) -> str:
    """The key's cache entry `key_id|merchant_id|kind|mode`, read from the database and cached.
    A revoked key gets its tombstone back: an integration still sending a key it rolled long ago
    costs one key-value round trip a request, not a database read (tombstones are bounded by the
    keys ever revoked; a digest no key ever had is not cached, so garbage cannot fill the store:
    it is counted against the client's address instead, see UNKNOWN_KEYS)."""
    await _refuse_if_guessing(client_address)
    key = await ApiKey.filter(key_hash=digest).only("id", "merchant_id", "kind", "livemode", "status").first()
    if key is None:
        raise await _unknown(client_address)
    if key.status != "active":
        await _forget(digest)
        raise AuthenticationError("Invalid API key")
    entry = f"{key.id}|{key.merchant_id}|{key.kind}|{'live' if key.livemode else 'test'}"
    await runtime().kv.set(_cache_slot(digest), entry, ttl=CACHE_TTL, nx=True)
    return entry


async def _principal(entry: str, digest: str, *, allow_publishable: bool, first_use_this_minute: bool) -> Principal:
    if entry == _REVOKED:
        raise AuthenticationError("Invalid API key")
    key_id, merchant_id, kind, mode = entry.split("|")
    if kind == "publishable" and not allow_publishable:
        raise AuthenticationError("Invalid API key: a publishable key cannot make this call")
    if first_use_this_minute:        # last_used to the minute: the marker decides who writes it
        await ApiKey.filter(id=key_id).update(last_used=runtime().clock.now())
    return Principal(merchant_id=merchant_id, livemode=mode == "live", kind=kind, key_id=key_id,
                     credential=f"key:{digest}")


def _marker(digest: str) -> str:
    return f"apikey-used:{digest}:{int(runtime().clock.time() // 60)}"


async def authenticate_key(token: str, *, allow_publishable: bool = False,
                           client_address: str | None = None) -> Principal:
    """The caller of a bearer API key (no rate limit counted: see `admit_key`; unknown keys are
    counted per `client_address`: see UNKNOWN_KEYS)."""
    _check_format(token)
    kv, digest = runtime().kv, key_hash(token)
    entry = await kv.get(_cache_slot(digest)) or await _fill_cache(digest, client_address)
    marked = entry != _REVOKED and await kv.set(_marker(digest), "1", ttl=120, nx=True)
    return await _principal(entry, digest, allow_publishable=allow_publishable, first_use_this_minute=marked)


async def admit_key(token: str, *, rule: ratelimit.Rule, allow_publishable: bool = False,
                    client_address: str | None = None) -> tuple[Principal, ratelimit.RateState]:
    """Authenticate a bearer API key and count the request against `rule`, in one key-value
    round trip: the cached key, the rate-limit counter and the last-used marker are all keyed
    by the key's digest. Only a cache miss (once per key per CACHE_TTL) costs a database read
    and a second round trip."""
    _check_format(token)
    rt, digest = runtime(), key_hash(token)
    subject = f"key:{digest}"
    counter, ttl, now = ratelimit.counter(rule, subject)
    for attempt in (1, 2):
        entry, count, marked = await rt.kv.get_incr_mark(_cache_slot(digest), counter, ttl, _marker(digest), 120)
        if entry is not None:
            principal = await _principal(entry, digest, allow_publishable=allow_publishable,
                                         first_use_this_minute=marked)
            return principal, ratelimit.state(rule, count, now)
        if attempt == 1:
            await _fill_cache(digest, client_address)
    raise AuthenticationError("Invalid API key")      # the entry vanished twice: revoked meanwhile
