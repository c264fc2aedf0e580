"""One identity for the merchant's people on the CRM port: a member's session (the bearer token of
`verify-otp`, or the `qafila_session` cookie) is a CRM credential too. At first use the merchant
gets its CRM company (the one `PUT /api/merchant {crm_access_token}` linked, else a new one, linked
then) and the member a CRM user of it; password users keep signing in as before. What a member may
do there is its roles' `crm_read` / `crm_write` (rest_compat.routing checks them per route)."""
from __future__ import annotations

from tortoise.transactions import in_transaction

from models.billing import MerchantProfile
from models.core import Merchant
from models.crm import Company, SessionFamily, User
from models.team import Member
from services.crm import accounts
from services.crm.currency import currency_of_country
from services.errors import Conflict
from services.identity import sessions
from services.identity.auth import bearer
from services.ids import new_id
from services.infra.runtime import runtime
from services.principal import Principal

_ADMIN_ROLES = frozenset({"owner", "administrator"})
_SEE_ALL_COMMISSIONS = frozenset({"owner", "administrator", "analyst", "support"})
NO_PASSWORD = "!member"          # never an argon2 hash: password sign-in always fails for such a user


async def authenticate(authorization: str | None, *, allow_publishable: bool = False,
                       client_address: str | None = None, cookie: str | None = None, csrf: str | None = None,
                       unsafe: bool = False) -> accounts.CrmPrincipal:
    """A CRM access token (accounts.authenticate), or a member's session."""
    token = bearer(authorization)
    if token is not None and sessions.looks_like_session(token):
        return await _member_principal(await sessions.resolve(token))
    if token is None and cookie and not authorization:
        return await _member_principal(await sessions.resolve(cookie, via_cookie=True, csrf=csrf, unsafe=unsafe))
    return await accounts.authenticate(authorization, allow_publishable=allow_publishable,
                                       client_address=client_address)


async def principal_of(p: Principal) -> accounts.CrmPrincipal:
    """The CRM caller a member's session is (the main /graphql's `crm` for the dashboard)."""
    return await _member_principal(p)


async def _member_principal(p: Principal) -> accounts.CrmPrincipal:
    company = await _company_of(p.merchant_id)
    member = await Member.get_or_none(id=p.member_id)
    roles = frozenset(member.roles if member else ())
    role = "admin" if roles & _ADMIN_ROLES else "member"
    user = await User.get_or_none(email=p.email)
    if user is None:
        user = await User.create(id=new_id("usr"), company_id=company.id, email=p.email, name="",
                                 password_hash=NO_PASSWORD, role=role, created_at=runtime().clock.now())
    elif user.company_id != company.id:
        raise Conflict(f"{p.email} already has a CRM account of another company: sign in to it with its password",
                       code="crm_email_taken")
    elif user.password_hash == NO_PASSWORD and user.role != role:      # the member's roles changed
        user.role = role
        await user.save(update_fields=["role"])
    family_id = "ses_" + p.session_id.split("_", 1)[1]          # the member session's twin
    if not await SessionFamily.exists(id=family_id):
        await SessionFamily.create(id=family_id, company_id=company.id, user_id=user.id,
                                   created_at=runtime().clock.now())
    return accounts.CrmPrincipal(company_id=company.id, user_id=user.id, role=user.role, plan=company.plan,
                                 session_id=family_id, member_id=p.member_id, permissions=p.permissions,
                                 two_factor_pending=p.two_factor_pending,
                                 own_commissions_only="sales" in roles and not roles & _SEE_ALL_COMMISSIONS)


async def _company_of(merchant_id: str) -> Company:
    """The merchant's CRM company, made and linked at first use (the merchant row locked meanwhile)."""
    profile = await MerchantProfile.get_or_none(merchant_id=merchant_id)
    if profile is not None and profile.crm_company_id:
        company = await Company.get_or_none(id=profile.crm_company_id)
        if company is not None:
            return company
    async with in_transaction():
        merchant = await Merchant.filter(id=merchant_id).select_for_update().first()
        profile = await MerchantProfile.get_or_none(merchant_id=merchant_id)
        if profile is not None and profile.crm_company_id:
            company = await Company.get_or_none(id=profile.crm_company_id)
            if company is not None:
                return company
        now = runtime().clock.now()
        company = await Company.create(id=new_id("cmp"), name=merchant.name or merchant.email.split("@")[0],
                                       currency=currency_of_country(merchant.country) or "USD",
                                       country=merchant.country, created_at=now)
        if profile is None:
            await MerchantProfile.create(merchant_id=merchant_id, crm_company_id=company.id, updated_at=now)
        else:
            await MerchantProfile.filter(merchant_id=merchant_id).update(crm_company_id=company.id, updated_at=now)
        return company
