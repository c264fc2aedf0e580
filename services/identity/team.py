"""A merchant's team: members and their roles, invitations by e-mail, and the rules that keep a
merchant from locking itself out (the last owner stays; only owners grant, take or remove
`owner`). Every change is in the audit log and, for members, a `team.*` webhook in each mode."""
from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from tortoise.exceptions import IntegrityError
from tortoise.transactions import in_transaction

from models.core import Merchant
from models.team import Invite, Member
from services import events
from services.errors import Conflict, DomainError, NotFound, ValidationError
from services.identity import audit, permissions, sessions
from services.ids import check_id, new_id, owned
from services.infra.runtime import runtime
from services.pagination import Page, check_limit, paginate
from services.principal import Principal
from services.timestamps import iso
from services.validation import Fields

INVITE_DAYS = 10


def member_object(m: Member) -> dict:
    return {"id": m.id, "object": "member", "email": m.email, "roles": list(m.roles),
            "two_factor_enabled": m.two_factor_enabled, "created_at": iso(m.created_at)}


def invite_object(i: Invite) -> dict:
    return {"id": i.id, "object": "invite", "email": i.email, "roles": list(i.roles), "status": i.status,
            "expires_at": iso(i.expires_at), "created_at": iso(i.created_at)}


def check_roles(value, param: str = "roles") -> list[str]:
    message = f"roles must be among {', '.join(permissions.ROLE_NAMES)}"
    if not isinstance(value, list) or not value:
        raise ValidationError(message, param=param)
    out: list[str] = []
    for r in value:
        if not isinstance(r, str) or r not in permissions.ROLES:
            raise ValidationError(message, param=param)
        if r not in out:
            out.append(r)
    return out


async def _roles_of(principal: Principal) -> list[str]:
    if principal.member_id is None:
        return ["owner"]
    m = await Member.get_or_none(id=principal.member_id, merchant_id=principal.merchant_id)
    return list(m.roles) if m else []


async def _require_owner(principal: Principal, *, what: str) -> None:
    if "owner" not in await _roles_of(principal):
        err = DomainError(f"Only an owner can {what}", code="permission_denied", status=403)
        err.type = "permission_error"
        err.permission = "owner"
        raise err


async def _emit_both_modes(merchant_id: str, type: str, obj: dict) -> None:
    for livemode in (False, True):
        await events.emit(merchant_id=merchant_id, livemode=livemode, type=type, obj=obj)


# ---------------------------------------------------------------- owners and sign-up

async def add_owner(merchant: Merchant) -> Member:
    """The merchant's own e-mail as its first member (in the caller's transaction)."""
    return await Member.create(id=new_id("mbr"), merchant_id=merchant.id, email=merchant.email, roles=["owner"],
                               created_at=runtime().clock.now())


async def memberships(email: str) -> list[Member]:
    """The members with this e-mail, oldest first (an e-mail may belong to several merchants)."""
    return await Member.filter(email=email).order_by("created_at", "id")


# ---------------------------------------------------------------- invites

def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def create_invite(*, principal: Principal, data: dict) -> Invite:
    sessions.require_member(principal)
    f = Fields(data)
    # Normalised as sign-in normalises it (services.validation.check_email), so the invited
    # e-mail signs in to this membership: the domain lower-cased, the local part kept.
    email = f.email("email", required=True)
    roles = check_roles(f._get("roles", True))
    f.reject_unknown()
    if "owner" in roles:
        await _require_owner(principal, what="invite an owner")
    rt = runtime()
    now = rt.clock.now()
    token = secrets.token_urlsafe(32)
    async with in_transaction():
        if await Member.filter(merchant_id=principal.merchant_id, email=email).exists():
            raise Conflict(f"{email} is already a member of this merchant", code="already_member", param="email")
        if await Invite.filter(merchant_id=principal.merchant_id, email=email, status="pending",
                               expires_at__gt=now).exists():
            raise Conflict(f"{email} already has a pending invitation: revoke it to invite again",
                           code="invite_pending", param="email")
        invite = await Invite.create(id=new_id("ivt"), merchant_id=principal.merchant_id, email=email, roles=roles,
                                     status="pending", token_hash=_token_hash(token), invited_by=principal.member_id,
                                     expires_at=now + timedelta(days=INVITE_DAYS), created_at=now)
        await audit.record(merchant_id=principal.merchant_id, action="invite.created", principal=principal,
                           object_type="invite", object_id=invite.id, after={"email": email, "roles": roles})
    merchant = await Merchant.get(id=principal.merchant_id)
    link = f"{rt.config.public_url.rstrip('/')}/dashboard/accept-invite?token={token}"
    await rt.mailer.send(
        to=email, subject=f"You are invited to {merchant.name or merchant.email} on Qafila",
        text=f"{principal.email or merchant.email} invited you to join {merchant.name or merchant.email} on Qafila "
             f"as {', '.join(roles)}.\n\nAccept the invitation: {link}\n\nThe link works once and expires in "
             f"{INVITE_DAYS} days.\n")
    return invite


async def list_invites(*, principal: Principal, limit=None, starting_after: str | None = None) -> Page:
    return await paginate(Invite.filter(merchant_id=principal.merchant_id), limit=check_limit(limit),
                          starting_after=starting_after)


async def get_invite(*, principal: Principal, invite_id: str) -> Invite:
    return await owned(Invite, merchant_id=principal.merchant_id, object_id=invite_id)


async def revoke_invite(*, principal: Principal, invite_id: str) -> Invite:
    check_id(invite_id, "id")
    async with in_transaction():
        invite = await Invite.filter(id=invite_id, merchant_id=principal.merchant_id).select_for_update().first()
        if invite is None:                   # an unknown id is a 404 for any caller
            raise NotFound()
        sessions.require_member(principal)
        if invite.status != "pending":
            raise Conflict(f"This invitation is already {invite.status}", code="invite_not_pending")
        if "owner" in invite.roles:
            await _require_owner(principal, what="revoke an owner's invitation")
        invite.status = "revoked"
        await invite.save(update_fields=["status"])
        await audit.record(merchant_id=principal.merchant_id, action="invite.revoked", principal=principal,
                           object_type="invite", object_id=invite.id, before={"status": "pending"},
                           after={"status": "revoked"})
    return invite


async def accept_invite(*, data: dict) -> tuple[Member, Merchant]:
    """The invite's token (no credential): the e-mail becomes a member with the invite's roles."""
    f = Fields(data)
    token = f.str("token", required=True, max_len=200)
    f.reject_unknown()
    now = runtime().clock.now()
    async with in_transaction():
        invite = await Invite.filter(token_hash=_token_hash(token)).select_for_update().first()
        if invite is None or invite.status != "pending":
            raise NotFound("This invitation does not exist, was used or was revoked", code="invite_not_found",
                           param="token")
        if invite.expires_at <= now:
            raise DomainError("This invitation has expired: ask for a new one", code="invite_expired", status=410,
                              param="token")
        member = await Member.get_or_none(merchant_id=invite.merchant_id, email=invite.email)
        created = member is None
        if created:
            try:
                member = await Member.create(id=new_id("mbr"), merchant_id=invite.merchant_id, email=invite.email,
                                             roles=list(invite.roles), created_at=now)
            except IntegrityError:       # joined meanwhile (a concurrent acceptance)
                raise NotFound("This invitation does not exist, was used or was revoked", code="invite_not_found",
                               param="token") from None
        invite.status = "accepted"
        await invite.save(update_fields=["status"])
        await audit.record(merchant_id=invite.merchant_id, action="invite.accepted", object_type="invite",
                           object_id=invite.id, actor=("member", member.id, member.email),
                           before={"status": "pending"}, after={"status": "accepted", "member_id": member.id})
        if created:
            await _emit_both_modes(invite.merchant_id, "team.member_added", member_object(member))
    merchant = await Merchant.get(id=invite.merchant_id)
    return member, merchant


# ---------------------------------------------------------------- members

async def list_members(*, principal: Principal, limit=None, starting_after: str | None = None) -> Page:
    return await paginate(Member.filter(merchant_id=principal.merchant_id), limit=check_limit(limit),
                          starting_after=starting_after)


async def get_member(*, principal: Principal, member_id: str) -> Member:
    return await owned(Member, merchant_id=principal.merchant_id, object_id=member_id)


async def update_member(*, principal: Principal, member_id: str, data: dict) -> Member:
    check_id(member_id, "id")
    if not await Member.exists(id=member_id, merchant_id=principal.merchant_id):
        raise NotFound()                     # an unknown id is a 404 for any caller
    sessions.require_member(principal)
    f = Fields(data)
    roles = check_roles(f._get("roles", True))
    f.reject_unknown()
    await sessions.require_step_up(principal)
    async with in_transaction():
        # Every owner row of the merchant is locked: two demotions at once cannot leave none.
        team = await Member.filter(merchant_id=principal.merchant_id).select_for_update().order_by("id")
        member = next((m for m in team if m.id == member_id), None)
        if member is None:
            raise NotFound()
        before = list(member.roles)
        if ("owner" in before) != ("owner" in roles):
            await _require_owner(principal, what="grant or take the owner role")
        if "owner" in before and "owner" not in roles and not any(
                "owner" in (m.roles or []) for m in team if m.id != member.id):
            raise Conflict("This is the merchant's last owner: make another member an owner first",
                           code="last_owner")
        if before == roles:
            return member
        member.roles = roles
        await member.save(update_fields=["roles"])
        await audit.record(merchant_id=principal.merchant_id, action="member.roles_updated", principal=principal,
                           object_type="member", object_id=member.id, before={"roles": before},
                           after={"roles": roles})
        await _emit_both_modes(principal.merchant_id, "team.member_roles_updated",
                               {**member_object(member), "_previous_attributes": {"roles": before}})
    return member


async def remove_member(*, principal: Principal, member_id: str) -> Member:
    check_id(member_id, "id")
    async with in_transaction():
        team = await Member.filter(merchant_id=principal.merchant_id).select_for_update().order_by("id")
        member = next((m for m in team if m.id == member_id), None)
        if member is None:                   # an unknown id is a 404 for any caller
            raise NotFound()
        sessions.require_member(principal)
        if "owner" in member.roles:
            await _require_owner(principal, what="remove an owner")
            if not any("owner" in (m.roles or []) for m in team if m.id != member.id):
                raise Conflict("This is the merchant's last owner: make another member an owner first",
                               code="last_owner")
        await sessions.revoke_all_of(member.id, principal.merchant_id)
        await Member.filter(id=member.id).delete()
        await audit.record(merchant_id=principal.merchant_id, action="member.removed", principal=principal,
                           object_type="member", object_id=member.id, before=member_object(member))
        await _emit_both_modes(principal.merchant_id, "team.member_removed", member_object(member))
    return member


async def two_factor_required(member: Member) -> bool:
    """The merchant requires two-factor sign-in of every member (`require_two_factor`)."""
    return await Merchant.filter(id=member.merchant_id, require_two_factor=True).exists()


async def me(principal: Principal) -> Member:
    sessions.require_member(principal)
    m = await Member.get_or_none(id=principal.member_id, merchant_id=principal.merchant_id)
    if m is None:
        raise NotFound()
    return m


# ---------------------------------------------------------------- the dashboard's preferences

LANGUAGES = ("ar", "en", "tr")
DIGITS = ("arab", "latn")


async def update_preferences(*, principal: Principal, data: dict) -> Member:
    """The signed-in member's dashboard language (ar, en, tr) and digits (arab: Arabic-Indic,
    latn: Latin); null clears a choice (back to the browser's language, the language's digits)."""
    f = Fields(data)
    changes: dict = {}
    for name, values in (("language", LANGUAGES), ("digits", DIGITS)):
        if name in data:
            f.has(name)
            v = data[name]
            if v is not None and v not in values:
                raise ValidationError(f"{name} must be one of {', '.join(values)} (or null)", param=name)
            changes[name] = v
    f.reject_unknown()
    if not changes:
        raise ValidationError("give language or digits", param="language")
    m = await me(principal)
    await Member.filter(id=m.id).update(**changes)
    for k, v in changes.items():
        setattr(m, k, v)
    return m


async def membership_list(principal: Principal) -> list[tuple[Member, Merchant]]:
    """The signed-in member's memberships (same e-mail), oldest first, with their merchants."""
    m = await me(principal)
    joined = await memberships(m.email)
    merchants = {x.id: x for x in await Merchant.filter(id__in=[j.merchant_id for j in joined])}
    return [(j, merchants[j.merchant_id]) for j in joined if j.merchant_id in merchants]
