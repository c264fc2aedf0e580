"""Two-factor sign-in for members: TOTP (RFC 6238: SHA-1, 6 digits, 30 s steps, one step either
side; `pyotp`), ten single-use recovery codes (argon2 hashes), and the guard every code check
shares: a step once accepted is refused again, and after 5 wrong codes of a member in 5 minutes
(anywhere: sign-in, step-up, confirm, disable) every try is a 429 before anything else."""
from __future__ import annotations

import secrets

import pyotp
import segno
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from tortoise.transactions import in_transaction

from models.team import Member
from services.errors import Conflict, RateLimited, ValidationError
from services.identity import audit
from services.infra.runtime import runtime
from services.infra.sealing import seal, unseal
from services.validation import Fields

ISSUER = "Qafila"
MAX_FAILURES = 5
FAILURE_WINDOW = 300
RECOVERY_CODES = 10
_SALT = b"qafila-team"
_INFO = b"totp-secret"
# Recovery codes are long random strings: a light argon2id profile is plenty (and keeps sign-in fast).
_hasher = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)


def _seal(member: Member, secret: str) -> str:
    return seal(runtime().config.secret_key, secret.encode(), context=member.id, salt=_SALT, info=_INFO)


def _secret(member: Member) -> str | None:
    if not member.totp_secret:
        return None
    return unseal(runtime().config.secret_key, member.totp_secret, context=member.id, salt=_SALT,
                  info=_INFO).decode()


def _failures_key(member_id: str) -> str:
    return f"2fa-fail:{member_id}:{int(runtime().clock.time() // FAILURE_WINDOW)}"


async def guard(member_id: str) -> None:
    """429 while the member has MAX_FAILURES wrong codes in the current window: before the code is read."""
    raw = await runtime().kv.get(_failures_key(member_id))
    if raw is not None and int(raw) >= MAX_FAILURES:
        rt = runtime()
        retry = int(FAILURE_WINDOW - rt.clock.time() % FAILURE_WINDOW) + 1
        raise RateLimited(f"Rate limit exceeded ({MAX_FAILURES}/5min)",
                          detail=f"Too many wrong codes: try again in {retry} s",
                          headers={"Retry-After": str(retry)})


async def _failed(member_id: str) -> None:
    await runtime().kv.incr(_failures_key(member_id), ttl=FAILURE_WINDOW + 5)


def _check_code_format(code, param: str) -> str:
    # ASCII digits only: str.isdigit() also takes other scripts' digits, which compare_digest refuses (a 500).
    if not isinstance(code, str) or not code.strip().isascii() or not code.strip().isdigit() or len(code.strip()) != 6:
        raise ValidationError(f"{param} must be the 6-digit code of your authenticator app", param=param,
                              code="invalid_two_factor_code")
    return code.strip()


def _matching_step(secret: str, code: str, last_step: int) -> int | None:
    """The step (of now-1, now, now+1) whose code is `code` and was not used before, else None."""
    totp = pyotp.TOTP(secret)
    now = runtime().clock.time()
    step = int(now // totp.interval)
    for s in (step - 1, step, step + 1):
        if s > last_step and secrets.compare_digest(totp.generate_otp(s), code):
            return s
    return None


async def check_totp(member: Member, code, *, param: str = "code", status: int = 400,
                     secret: str | None = None) -> None:
    """The member's current code (or of `secret`, while enrolling), once; a wrong one is counted
    and answered `invalid_two_factor_code` (400 naming `param`, or 401 at sign-in)."""
    await guard(member.id)
    code = _check_code_format(code, param)
    secret = secret or _secret(member)
    step = _matching_step(secret, code, member.totp_last_step) if secret else None
    if step is None:
        await _failed(member.id)
        raise ValidationError("The authenticator code is wrong or was already used", param=param,
                              code="invalid_two_factor_code", status=status)
    # Only one request may spend this step: a conditional update wins once.
    won = await Member.filter(id=member.id, totp_last_step__lt=step).update(totp_last_step=step)
    if not won:
        await _failed(member.id)
        raise ValidationError("The authenticator code is wrong or was already used", param=param,
                              code="invalid_two_factor_code", status=status)
    member.totp_last_step = step


async def check_recovery_code(member: Member, code, *, param: str = "recovery_code", status: int = 400) -> None:
    """A recovery code, spent: removed from the member's list (its hash) at once."""
    await guard(member.id)
    if not isinstance(code, str) or not 8 <= len(code.strip()) <= 32:
        raise ValidationError(f"{param} must be one of your recovery codes", param=param,
                              code="invalid_two_factor_code", status=status)
    code = code.strip().lower().replace("-", "")
    async with in_transaction():
        fresh = await Member.filter(id=member.id).select_for_update().first()
        for h in list(fresh.recovery_codes or []):
            try:
                _hasher.verify(h, code)
            except (VerificationError, InvalidHashError):
                continue
            fresh.recovery_codes = [x for x in fresh.recovery_codes if x != h]
            await fresh.save(update_fields=["recovery_codes"])
            member.recovery_codes = fresh.recovery_codes
            await audit.record(merchant_id=member.merchant_id, action="member.recovery_code_used",
                               object_type="member", object_id=member.id, actor=("member", member.id, member.email),
                               after={"recovery_codes_left": len(fresh.recovery_codes)})
            return
    await _failed(member.id)
    raise ValidationError("The recovery code is wrong or was already used", param=param,
                          code="invalid_two_factor_code", status=status)


async def enroll(member: Member) -> dict:
    """A new secret (kept sealed, not live until confirmed), its otpauth URI and QR code."""
    if member.two_factor_enabled:
        raise Conflict("Two-factor sign-in is already on: disable it first to enrol again",
                       code="two_factor_already_enabled")
    secret = pyotp.random_base32()
    member.totp_secret = _seal(member, secret)
    await member.save(update_fields=["totp_secret"])
    uri = pyotp.TOTP(secret).provisioning_uri(name=member.email, issuer_name=ISSUER)
    qr = segno.make(uri, error="m").svg_data_uri(scale=4)
    return {"secret": secret, "otpauth_uri": uri, "qr_code": qr}


def _new_recovery_codes() -> list[str]:
    alphabet = "abcdefghijkmnpqrstuvwxyz23456789"
    return ["".join(secrets.choice(alphabet) for _ in range(10)) for _ in range(RECOVERY_CODES)]


async def confirm(member: Member, code) -> list[str]:
    """The first code from the app turns 2FA on; the recovery codes are shown this once."""
    if member.two_factor_enabled:
        raise Conflict("Two-factor sign-in is already on", code="two_factor_already_enabled")
    secret = _secret(member)
    if secret is None:
        raise ValidationError("Enrol first: POST /api/me/two-factor/enroll", param="code", code="two_factor_not_enrolled")
    await check_totp(member, code, secret=secret)
    codes = _new_recovery_codes()
    member.two_factor_enabled = True
    member.recovery_codes = [_hasher.hash(c) for c in codes]
    async with in_transaction():            # the change and its audit entry together
        await member.save(update_fields=["two_factor_enabled", "recovery_codes"])
        await audit.record(merchant_id=member.merchant_id, action="member.two_factor_enabled", object_type="member",
                           object_id=member.id, actor=("member", member.id, member.email),
                           before={"two_factor_enabled": False}, after={"two_factor_enabled": True})
    return codes


async def disable(member: Member, code, *, enforced: bool) -> None:
    if not member.two_factor_enabled:
        raise Conflict("Two-factor sign-in is not on", code="two_factor_not_enabled")
    if enforced:
        raise Conflict("Your merchant requires two-factor sign-in", code="two_factor_enforced")
    await check_totp(member, code)
    member.two_factor_enabled = False
    member.totp_secret = None
    member.recovery_codes = []
    async with in_transaction():
        await member.save(update_fields=["two_factor_enabled", "totp_secret", "recovery_codes"])
        await audit.record(merchant_id=member.merchant_id, action="member.two_factor_disabled", object_type="member",
                           object_id=member.id, actor=("member", member.id, member.email),
                           before={"two_factor_enabled": True}, after={"two_factor_enabled": False})


async def confirm_with(member: Member, data: dict) -> list[str]:
    await guard(member.id)
    f = Fields(data)
    code = f._get("code", True)
    f.reject_unknown()
    return await confirm(member, code)


async def disable_with(member: Member, data: dict, *, enforced: bool) -> None:
    await guard(member.id)
    f = Fields(data)
    code = f._get("code", True)
    f.reject_unknown()
    await disable(member, code, enforced=enforced)
