"""CRM accounts: signup (a user and its company), login, rotating refresh tokens with reuse
detection, logout, and the `authenticate` that turns a CRM access token into a CrmPrincipal."""
from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal, InvalidOperation

import jwt
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from tortoise.exceptions import IntegrityError
from tortoise.transactions import in_transaction

from models.crm import Company, RefreshToken, SessionFamily, User
from services.identity import ratelimit
from services.identity.auth import bearer
from services.crm.currency import check_currency, currency_of_country
from services.errors import AuthenticationError, Conflict, NotFound, PermissionDenied, RateLimited, ValidationError
from services.ids import new_id, random_token
from services.infra.runtime import runtime
from services.validation import Fields

ISSUER = "qafila"
AUDIENCE = "qafila-crm"
ACCESS_TTL = 15 * 60                 # seconds
REFRESH_TTL = 30 * 24 * 3600         # seconds
PLANS = ("free", "paid")
ROLES = ("admin", "member")
MIN_PASSWORD = 8
PLAN_RULES = {
    "free": ratelimit.Rule("crm-free", 60, 60, "Rate limit exceeded (60/min on the free plan)"),
    "paid": ratelimit.Rule("crm-paid", 600, 60, "Rate limit exceeded (600/min on the paid plan)"),
}
# Public endpoints (signup, login, refresh, logout, webhook): per client address.
PUBLIC_RULE = ratelimit.Rule("crm-public", 300, 60, "Rate limit exceeded")
LOGIN_FAILURES = ratelimit.Rule("crm-login", 5, 900,
                                "Too many failed sign-ins for this e-mail; try again in 15 minutes")

# argon2id, memory-hard (RFC 9106 second recommended profile: 64 MiB, 3 passes); the test
# environment uses a light profile (8 MiB, 1 pass) so the suite stays fast. verify() reads the
# parameters from the stored hash, so either profile verifies the other's hashes.
_HASHERS = {"strong": PasswordHasher(time_cost=3, memory_cost=64 * 1024, parallelism=4),
            "test": PasswordHasher(time_cost=1, memory_cost=8 * 1024, parallelism=1)}
_DUMMY: dict[str, str] = {}      # a hash to verify against for unknown e-mails (same timing)


def _hasher() -> PasswordHasher:
    return _HASHERS["test" if runtime().config.env == "test" else "strong"]


def _dummy_hash() -> str:
    h = _hasher()
    key = "test" if h is _HASHERS["test"] else "strong"
    if key not in _DUMMY:
        _DUMMY[key] = h.hash("qafila-timing-equaliser")
    return _DUMMY[key]


@dataclass(frozen=True, slots=True)
class CrmPrincipal:
    company_id: str
    user_id: str
    role: str
    plan: str
    session_id: str
    member_id: str | None = None          # a merchant member on the CRM port (services.crm.members)
    permissions: frozenset[str] | None = None
    two_factor_pending: bool = False
    own_commissions_only: bool = False    # a member whose only CRM role is `sales`

    @property
    def credential_id(self) -> str:
        """The rate limit counts per company: every user and token of it share the plan's allowance."""
        return f"company:{self.company_id}"

    @property
    def rate_rule(self) -> ratelimit.Rule:
        return PLAN_RULES.get(self.plan, PLAN_RULES["free"])

    @property
    def scope(self) -> dict:
        return {"company_id": self.company_id}

    def require_admin(self) -> None:
        if self.role != "admin":
            raise PermissionDenied("Only an admin of the company can do this")


@dataclass
class Tokens:
    access_token: str
    refresh_token: str
    expires_in: int
    refresh_expires_in: int
    user: User
    company: Company


def rate_rule_for(principal) -> ratelimit.Rule:
    return principal.rate_rule if isinstance(principal, CrmPrincipal) else PUBLIC_RULE


def _hash_password(password: str) -> str:
    return _hasher().hash(password)


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _password(f: Fields) -> str:
    return f.str("password", required=True, min_len=MIN_PASSWORD, max_len=200, strip=False)


def access_token(*, user_id: str, company_id: str, role: str, session_id: str) -> str:
    rt = runtime()
    now = int(rt.clock.time())
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": user_id, "cid": company_id, "role": role,
              "sid": session_id, "iat": now, "exp": now + ACCESS_TTL, "jti": secrets.token_hex(12),
              "typ": "crm_access"}
    return jwt.encode(claims, rt.config.secret_key, algorithm="HS256")


async def _new_refresh(family_id: str) -> str:
    rt = runtime()
    token = f"rt_{random_token(48)}"
    now = rt.clock.now()
    await RefreshToken.create(id=new_id("rtk"), family_id=family_id, token_hash=_token_hash(token),
                              created_at=now, expires_at=now + timedelta(seconds=REFRESH_TTL))
    return token


async def _start_session(user: User, company: Company) -> Tokens:
    family = await SessionFamily.create(id=new_id("ses"), company_id=company.id, user_id=user.id,
                                        created_at=runtime().clock.now())
    refresh = await _new_refresh(family.id)
    return Tokens(access_token=access_token(user_id=user.id, company_id=company.id, role=user.role,
                                            session_id=family.id),
                  refresh_token=refresh, expires_in=ACCESS_TTL, refresh_expires_in=REFRESH_TTL,
                  user=user, company=company)


def _country(value: str | None) -> str | None:
    if value is None:
        return None
    if not (value.isascii() and value.isalpha()):
        raise ValidationError("country must be an ISO 3166 two-letter code such as SA", param="country")
    return value.upper()


async def signup(*, data: dict) -> Tokens:
    f = Fields(data)
    email = f.email("email", required=True).lower()
    password = _password(f)
    name = f.str("name", max_len=200, default="")
    company_name = f.str("company_name", max_len=200, default="")
    currency = f.str("currency", max_len=3)
    country = f.str("country", max_len=2, min_len=2)
    f.reject_unknown()
    # The report currency: as given, else the company's country's (SA -> SAR, AE -> AED, TR -> TRY,
    # KW -> KWD, QA -> QAR, EG -> EGP, IQ -> IQD), else USD.
    country = _country(country)
    currency = check_currency(currency or currency_of_country(country) or "USD", "currency")
    rt = runtime()
    if await User.filter(email=email).exists():
        raise Conflict("An account with this e-mail already exists", code="email_taken", param="email")
    password_hash = _hash_password(password)
    now = rt.clock.now()
    try:
        async with in_transaction():
            company = await Company.create(id=new_id("cmp"), name=company_name or name or email.split("@")[0],
                                           currency=currency, country=country, created_at=now)
            user = await User.create(id=new_id("usr"), company_id=company.id, email=email, name=name,
                                     password_hash=password_hash, role="admin", created_at=now)
            return await _start_session(user, company)
    except IntegrityError:
        raise Conflict("An account with this e-mail already exists", code="email_taken", param="email") from None


def _email_subject(email: str) -> str:
    return hashlib.sha256(email.encode()).hexdigest()


async def login(*, data: dict) -> Tokens:
    f = Fields(data)
    email = f.email("email", required=True).lower()
    password = f.str("password", required=True, max_len=200, strip=False)
    f.reject_unknown()
    rt = runtime()
    subject = _email_subject(email)
    window = int(rt.clock.time() // LOGIN_FAILURES.window)
    failures = await rt.kv.get(f"rl:{LOGIN_FAILURES.name}:{subject}:{window}")
    if failures is not None and int(failures) >= LOGIN_FAILURES.limit:
        retry = max(1, int((window + 1) * LOGIN_FAILURES.window - rt.clock.time()))
        raise RateLimited(LOGIN_FAILURES.message, code="too_many_login_attempts",
                          headers={"Retry-After": str(retry)})
    user = await User.get_or_none(email=email)
    ok = False
    try:
        ok = _hasher().verify(user.password_hash if user else _dummy_hash(), password) and user is not None
    except (VerificationError, InvalidHashError):
        ok = False
    if not ok:
        await ratelimit.hit(LOGIN_FAILURES, subject)
        raise AuthenticationError("Invalid e-mail or password", code="invalid_credentials")
    company = await Company.get(id=user.company_id)
    return await _start_session(user, company)


async def _refresh_row(token: str | None, param: str = "refresh_token") -> RefreshToken:
    if not token or not isinstance(token, str) or len(token) > 200:
        raise AuthenticationError("Invalid refresh token", code="invalid_refresh_token")
    row = await RefreshToken.get_or_none(token_hash=_token_hash(token))
    if row is None:
        raise AuthenticationError("Invalid refresh token", code="invalid_refresh_token")
    return row


async def _revoke_family(family_id: str, reason: str) -> None:
    await SessionFamily.filter(id=family_id, revoked_at=None).update(revoked_at=runtime().clock.now(),
                                                                    revoked_reason=reason)


async def refresh(*, data: dict) -> Tokens:
    f = Fields(data)
    token = f.str("refresh_token", required=True, max_len=200)
    f.reject_unknown()
    row = await _refresh_row(token)
    rt = runtime()
    now = rt.clock.now()
    family = await SessionFamily.get(id=row.family_id)
    if family.revoked_at is not None:
        raise AuthenticationError("Invalid refresh token: the session has ended", code="invalid_refresh_token")
    if row.used_at is not None:
        # A rotated token came back: someone holds a copy. End the whole session.
        await _revoke_family(family.id, "reuse")
        raise AuthenticationError("Refresh token reuse detected: the session has been revoked",
                                  code="refresh_token_reused")
    if row.expires_at <= now:
        raise AuthenticationError("Invalid refresh token: it has expired", code="invalid_refresh_token")
    async with in_transaction():
        claimed = await RefreshToken.filter(id=row.id, used_at=None).update(used_at=now)
        if claimed != 1:            # a concurrent refresh won: this is a second use
            await _revoke_family(family.id, "reuse")
            raise AuthenticationError("Refresh token reuse detected: the session has been revoked",
                                      code="refresh_token_reused")
        new_refresh = await _new_refresh(family.id)
    user = await User.get(id=family.user_id)
    company = await Company.get(id=family.company_id)
    return Tokens(access_token=access_token(user_id=user.id, company_id=company.id, role=user.role,
                                            session_id=family.id),
                  refresh_token=new_refresh, expires_in=ACCESS_TTL, refresh_expires_in=REFRESH_TTL,
                  user=user, company=company)


async def logout(*, data: dict, authorization: str | None = None) -> str:
    """Ends the session named by the refresh token in the body or, without one, by the bearer
    access token. Returns the session id."""
    f = Fields(data)
    token = f.str("refresh_token", max_len=200)
    f.reject_unknown()
    if token:
        row = await _refresh_row(token)
        family_id = row.family_id
    else:
        principal = await authenticate(authorization)
        family_id = principal.session_id
    await _revoke_family(family_id, "logout")
    return family_id


def _claims(token: str) -> dict:
    rt = runtime()
    try:
        claims = jwt.decode(token, rt.config.secret_key, algorithms=["HS256"], audience=AUDIENCE, issuer=ISSUER,
                            options={"require": ["exp", "iat", "sub", "jti", "sid", "cid"], "verify_exp": False,
                                     "verify_iat": False})
    except jwt.PyJWTError:
        raise AuthenticationError("Invalid access token", code="invalid_token") from None
    if claims.get("typ") != "crm_access":
        raise AuthenticationError("Invalid access token", code="invalid_token")
    # Expiry (and issue time) against the injected clock, so tests move past it without sleeping;
    # PyJWT would check `iat` against the wall clock, refusing tokens issued on a test clock ahead of it.
    if not isinstance(claims["iat"], int) or claims["iat"] > rt.clock.time() + 60:
        raise AuthenticationError("Invalid access token", code="invalid_token")
    if not isinstance(claims["exp"], int) or claims["exp"] <= rt.clock.time():
        raise AuthenticationError("Access token expired: refresh it", code="token_expired")
    return claims


async def authenticate(authorization: str | None, *, allow_publishable: bool = False,
                       client_address: str | None = None) -> CrmPrincipal:
    """`Authorization: Bearer <access token>` -> CrmPrincipal; anything else is 401 (a token is
    checked without the database: `client_address`, which the merchant API uses against key
    guessing, is not needed)."""
    token = bearer(authorization)
    if token is None:
        raise AuthenticationError("Missing access token: send Authorization: Bearer <ACCESS_TOKEN>",
                                  code="missing_token")
    if len(token) > 2000:
        raise AuthenticationError("Invalid access token", code="invalid_token")
    claims = _claims(token)
    family = await SessionFamily.filter(id=claims["sid"]).select_related("company", "user").first()
    if family is None or family.user_id != claims["sub"] or family.company_id != claims["cid"]:
        raise AuthenticationError("Invalid access token", code="invalid_token")
    if family.revoked_at is not None:
        raise AuthenticationError("Access token revoked: the session has ended", code="token_revoked")
    return CrmPrincipal(company_id=family.company_id, user_id=family.user_id, role=family.user.role,
                        plan=family.company.plan, session_id=family.id)


# ---------------------------------------------------------------- company and users

async def get_company(*, principal: CrmPrincipal) -> Company:
    company = await Company.get_or_none(id=principal.company_id)
    if company is None:
        raise NotFound()
    return company


async def update_company(*, principal: CrmPrincipal, data: dict) -> Company:
    principal.require_admin()
    f = Fields(data)
    name = f.str("name", max_len=200, min_len=1)
    f.seen.add("commission_rate")
    rate = data.get("commission_rate")
    currency = f.str("currency", max_len=3)
    country = _country(f.str("country", max_len=2, min_len=2))
    phone_number_id = f.str("phone_number_id", max_len=64, min_len=1)
    f.reject_unknown()
    company = await get_company(principal=principal)
    if name is not None:
        company.name = name
    if country is not None:         # the report currency stays as set unless `currency` is given too
        company.country = country
    if currency is not None:
        company.currency = check_currency(currency, "currency")
    if phone_number_id is not None:
        company.phone_number_id = phone_number_id
    if rate is not None:
        company.commission_rate = str(check_rate(rate))
    try:
        await company.save()
    except IntegrityError:
        raise Conflict("This phone_number_id belongs to another company", param="phone_number_id") from None
    return company


def check_rate(v) -> Decimal:
    """A commission rate: a fraction from 0 to 1, as a string or a number ("0.05" is 5%)."""
    from services.errors import ValidationError
    if isinstance(v, bool) or not isinstance(v, (str, int, float)):
        raise ValidationError("commission_rate must be a decimal from 0 to 1", param="commission_rate")
    try:
        d = Decimal(str(v))
    except InvalidOperation:
        raise ValidationError("commission_rate must be a decimal from 0 to 1", param="commission_rate") from None
    if not d.is_finite() or not Decimal(0) <= d <= Decimal(1) or d.as_tuple().exponent < -6:
        raise ValidationError("commission_rate must be a decimal from 0 to 1 (at most 6 decimals)",
                              param="commission_rate")
    return d.normalize() if d else Decimal(0)


async def create_user(*, principal: CrmPrincipal, data: dict) -> User:
    principal.require_admin()
    f = Fields(data)
    email = f.email("email", required=True).lower()
    password = _password(f)
    name = f.str("name", max_len=200, default="")
    role = f.enum("role", ROLES, default="member")
    f.reject_unknown()
    if await User.filter(email=email).exists():
        raise Conflict("An account with this e-mail already exists", code="email_taken", param="email")
    try:
        return await User.create(id=new_id("usr"), company_id=principal.company_id, email=email, name=name,
                                 password_hash=_hash_password(password), role=role,
                                 created_at=runtime().clock.now())
    except IntegrityError:
        raise Conflict("An account with this e-mail already exists", code="email_taken", param="email") from None


async def list_users(*, principal: CrmPrincipal) -> list[User]:
    return await User.filter(company_id=principal.company_id).order_by("created_at", "id")
