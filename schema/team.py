"""GraphQL for a merchant's team (issue 44): members and invites, the member's own sessions and
two-factor sign-in, step-up, the audit log and the payout bank account. Thin adapters over
services.identity (team, sessions, two_factor, auth, audit) and services.money.payout_settings,
like the REST routes of rest_compat/merchant_team.py. What a member's roles allow is checked
per root field before execution (schema.permissions, schema.operations)."""
from __future__ import annotations

import enum
from datetime import datetime

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from schema.context import Context
from schema.errors import UserError, user_errors
from schema.inputs import to_data
from schema.relay import Connection, Node, check_first, connection, node_resolver
from services.identity import audit, auth, permissions, sessions, team, two_factor
from services.money import payout_settings


def _permissions_type() -> type:
    """`MemberPermissions`: one Boolean per permission of services.identity.permissions.ALL
    (`payments_read` -> `paymentsRead`), area by area, read before write, then the rest."""
    paired = [p for a in permissions.AREAS for p in (f"{a}_read", f"{a}_write") if p in permissions.ALL]
    names = paired + sorted(permissions.ALL - set(paired))
    cls = type("MemberPermissions", (), {"__module__": __name__, "__annotations__": {n: bool for n in names}})
    return strawberry.type(cls, description="What the member's roles allow, one flag per permission "
                                            "(write includes read; API keys hold them all).")


MemberPermissions = _permissions_type()


@strawberry.enum
class SessionKind(enum.Enum):
    TOKEN = "token"
    COOKIE = "cookie"


@strawberry.type(description="A person of the merchant: an e-mail with roles.")
class Member(Node):
    id: strawberry.ID
    email: str
    roles: list[str]
    two_factor_enabled: bool
    created_at: datetime
    permissions: MemberPermissions = strawberry.field(description="The union of the roles' permissions.")
    language: str | None = strawberry.field(default=None, description="The dashboard's language: ar, en, tr "
                                                                      "(null: the browser's)")
    digits: str | None = strawberry.field(default=None, description="arab (Arabic-Indic) or latn (null: the "
                                                                    "language's default)")

    @classmethod
    def of(cls, m) -> Member:
        return cls(id=strawberry.ID(m.id), email=m.email, roles=list(m.roles), two_factor_enabled=m.two_factor_enabled,
                   created_at=m.created_at,
                   permissions=MemberPermissions(**permissions.flags(permissions.of_roles(m.roles))),
                   language=getattr(m, "language", None), digits=getattr(m, "digits", None))

    @strawberry.field(description="The merchants this member's e-mail belongs to (the signed-in member's own "
                                  "memberships; empty for another member), oldest first: the merchant switcher.")
    async def memberships(self, info: Info[Context, None]) -> list[Membership]:
        principal = info.context.principal
        if principal.member_id != str(self.id):
            return []
        return [Membership(merchant_id=strawberry.ID(j.merchant_id), merchant_name=mer.name, roles=list(j.roles))
                for j, mer in await team.membership_list(principal)]


@strawberry.type(description="A merchant the signed-in member's e-mail belongs to, with its roles there.")
class Membership:
    merchant_id: strawberry.ID
    merchant_name: str
    roles: list[str]


@strawberry.type(description="An invitation to join the team, e-mailed with a single-use link.")
class Invite(Node):
    id: strawberry.ID
    email: str
    roles: list[str]
    status: str = strawberry.field(description="pending, accepted or revoked")
    expires_at: datetime
    created_at: datetime

    @classmethod
    def of(cls, i) -> Invite:
        return cls(id=strawberry.ID(i.id), email=i.email, roles=list(i.roles), status=i.status,
                   expires_at=i.expires_at, created_at=i.created_at)


@strawberry.type(description="One of the signed-in member's sessions (sign-ins).")
class Session:
    id: strawberry.ID
    current: bool = strawberry.field(description="The session of this request.")
    kind: str = strawberry.field(description="token or cookie")
    device: str = strawberry.field(description="Browser and system read from the user agent (Chrome on Mac OS X).")
    user_agent: str | None
    ip: str | None
    created_at: datetime
    last_seen_at: datetime

    @classmethod
    def of(cls, s, current_id: str | None) -> Session:
        return cls(id=strawberry.ID(s.id), current=s.id == current_id, kind=s.kind,
                   device=sessions.device_of(s.user_agent), user_agent=s.user_agent or None, ip=s.ip or None,
                   created_at=s.created_at, last_seen_at=s.last_seen_at)


@strawberry.type
class AuditActor:
    type: str = strawberry.field(description="member, api_key or system")
    id: str | None
    email: str | None


@strawberry.type
class AuditObject:
    type: str
    id: str | None


@strawberry.type(description="An entry of the append-only audit log.")
class AuditEvent(Node):
    id: strawberry.ID
    created_at: datetime
    actor: AuditActor
    action: str
    object: AuditObject | None
    ip: str | None
    user_agent: str | None
    before: JSON | None
    after: JSON | None

    @classmethod
    def of(cls, e) -> AuditEvent:
        return cls(id=strawberry.ID(e.id), created_at=e.created_at,
                   actor=AuditActor(type=e.actor_type, id=e.actor_id, email=e.actor_email), action=e.action,
                   object=AuditObject(type=e.object_type, id=e.object_id) if e.object_type else None,
                   ip=e.ip, user_agent=e.user_agent, before=e.before, after=e.after)


@strawberry.type(description="Where settlements are paid; only the IBAN's last four characters are shown.")
class PayoutSettings:
    iban_last4: str | None
    account_holder_name: str | None
    updated_at: datetime | None

    @classmethod
    def of(cls, s) -> PayoutSettings:
        return cls(iban_last4=s.iban[-4:] if s else None, account_holder_name=s.account_holder_name if s else None,
                   updated_at=s.updated_at if s else None)


@strawberry.type(description="The merchant an invitation joins.")
class InvitingMerchant:
    id: strawberry.ID
    name: str


@node_resolver("mbr")
async def _member_node(info: Info[Context, None], node_id: str):
    return Member.of(await team.get_member(principal=info.context.principal, member_id=node_id))


@node_resolver("ivt")
async def _invite_node(info: Info[Context, None], node_id: str):
    return Invite.of(await team.get_invite(principal=info.context.principal, invite_id=node_id))


@node_resolver("aud")
async def _audit_node(info: Info[Context, None], node_id: str):
    return AuditEvent.of(await audit.get_event(principal=info.context.principal, event_id=node_id))


# ---------------------------------------------------------------- sign-in answers

def session_fields(info: Info[Context, None], s: auth.Session) -> dict:
    """What otpVerify and twoFactorVerify answer: a session (its token; for a cookie session the
    CSRF token, the cookie being set on the response by the view), or the challenge to answer."""
    if s.cookie:
        info.context.session_cookie = (s.cookie, s.csrf_token)
    opened = s.challenge_id is None
    return {"merchant_id": s.merchant_id, "member_id": s.member_id, "session_id": s.session_id,
            "token": s.token, "csrf_token": s.csrf_token, "expires_in": s.expires_in if opened else None,
            "two_factor": s.two_factor, "challenge_id": s.challenge_id}


TWO_FACTOR_DESCRIPTION = ("not_enrolled (a session), challenge (answer twoFactorVerify with challengeId), "
                          "enrollment_required (a session limited to the member's own account until "
                          "twoFactorConfirm) or verified (a session after twoFactorVerify)")


@strawberry.input
class TwoFactorVerifyInput:
    challenge_id: strawberry.ID = strawberry.field(description="otpVerify's challengeId")
    code: str | None = strawberry.field(default=strawberry.UNSET, description="The authenticator app's code")
    recovery_code: str | None = strawberry.field(default=strawberry.UNSET, description="Or a recovery code")


@strawberry.type
class TwoFactorVerifyPayload:
    token: str | None = strawberry.field(default=None, description="The session token (a token session)")
    csrf_token: str | None = strawberry.field(default=None, description="A cookie session's X-CSRF-Token")
    merchant_id: str | None = None
    member_id: str | None = None
    session_id: str | None = None
    expires_in: int | None = None
    two_factor: str | None = strawberry.field(default=None, description=TWO_FACTOR_DESCRIPTION)
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.input
class SessionSwitchMerchantInput:
    merchant_id: strawberry.ID = strawberry.field(description="One of viewer.member.memberships")


@strawberry.type
class SessionSwitchMerchantPayload:
    csrf_token: str | None = strawberry.field(default=None, description="A cookie session's X-CSRF-Token")
    token: str | None = strawberry.field(default=None, description="The session token (a token session)")
    merchant_id: str | None = None
    member_id: str | None = None
    session_id: str | None = None
    expires_in: int | None = None
    two_factor: str | None = strawberry.field(default=None, description=TWO_FACTOR_DESCRIPTION)
    challenge_id: str | None = strawberry.field(default=None, description="With twoFactor challenge: "
                                                                          "twoFactorVerify's challengeId")
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.input
class MemberPreferencesUpdateInput:
    language: str | None = strawberry.field(default=strawberry.UNSET, description="ar, en or tr; null clears")
    digits: str | None = strawberry.field(default=strawberry.UNSET, description="arab or latn; null clears")


@strawberry.type
class MemberPreferencesPayload:
    member: Member | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


# ---------------------------------------------------------------- inputs and payloads

@strawberry.input
class TeamInviteCreateInput:
    email: str
    roles: list[str] = strawberry.field(description=f"Among {', '.join(permissions.ROLE_NAMES)}")


@strawberry.type
class TeamInvitePayload:
    invite: Invite | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.input
class TeamInviteRevokeInput:
    id: strawberry.ID


@strawberry.input
class TeamInviteAcceptInput:
    token: str = strawberry.field(description="The token of the e-mailed link")


@strawberry.type
class TeamInviteAcceptPayload:
    member: Member | None = None
    merchant: InvitingMerchant | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.input
class TeamMemberUpdateInput:
    id: strawberry.ID
    roles: list[str] = strawberry.field(description=f"Among {', '.join(permissions.ROLE_NAMES)}")


@strawberry.input
class TeamMemberRemoveInput:
    id: strawberry.ID


@strawberry.type
class TeamMemberPayload:
    member: Member | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class TwoFactorEnrollPayload:
    secret: str | None = strawberry.field(default=None, description="Base32, for typing into the app")
    otpauth_uri: str | None = None
    qr_code: str | None = strawberry.field(default=None, description="An SVG data URI of otpauthUri")
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.input
class TwoFactorCodeInput:
    code: str = strawberry.field(description="The authenticator app's current code")


@strawberry.type
class TwoFactorConfirmPayload:
    enabled: bool | None = None
    recovery_codes: list[str] | None = strawberry.field(default=None, description="Shown this once; each works once")
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class TwoFactorDisablePayload:
    enabled: bool | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class StepUpPayload:
    step_up_expires_at: datetime | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.input
class SessionRevokeInput:
    id: strawberry.ID


@strawberry.type
class SessionRevokePayload:
    session: Session | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class SessionsRevokeOthersPayload:
    revoked: int | None = strawberry.field(default=None, description="How many sessions ended")
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.input
class PayoutSettingsUpdateInput:
    iban: str
    account_holder_name: str


@strawberry.type
class PayoutSettingsUpdatePayload:
    payout_settings: PayoutSettings | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


# ---------------------------------------------------------------- roots

@strawberry.type
class Query:
    @strawberry.field(description="The merchant's members, newest first.")
    async def team_members(self, info: Info[Context, None], first: int | None = None,
                           after: str | None = None) -> Connection[Member]:
        page = await team.list_members(principal=info.context.principal, limit=check_first(first),
                                       starting_after=after)
        return connection(page, Member.of, after=after)

    @strawberry.field(description="The merchant's invitations, newest first.")
    async def team_invites(self, info: Info[Context, None], first: int | None = None,
                           after: str | None = None) -> Connection[Invite]:
        page = await team.list_invites(principal=info.context.principal, limit=check_first(first),
                                       starting_after=after)
        return connection(page, Invite.of, after=after)

    @strawberry.field(description="The audit log, newest first; the filters are those of GET /api/audit-events.")
    async def audit_events(self, info: Info[Context, None], first: int | None = None, after: str | None = None,
                           actor: strawberry.ID | None = None, action: str | None = None,
                           object_type: str | None = None, object_id: strawberry.ID | None = None,
                           created_gte: datetime | None = None,
                           created_lte: datetime | None = None) -> Connection[AuditEvent]:
        page = await audit.list_events(principal=info.context.principal, actor=actor, action=action,
                                       object_type=object_type, object_id=object_id,
                                       created_gte=created_gte.isoformat() if created_gte else None,
                                       created_lte=created_lte.isoformat() if created_lte else None,
                                       limit=check_first(first), starting_after=after)
        return connection(page, AuditEvent.of, after=after)

    @strawberry.field(description="The signed-in member's open sessions, newest first (a member's session only).")
    async def sessions(self, info: Info[Context, None]) -> list[Session]:
        principal = info.context.principal
        rows = await sessions.list_sessions(principal=principal)
        return [Session.of(s, principal.session_id) for s in rows]

    @strawberry.field(description="The payout bank account.")
    async def payout_settings(self, info: Info[Context, None]) -> PayoutSettings:
        return PayoutSettings.of(await payout_settings.get_payout_settings(principal=info.context.principal))


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Invite a member by e-mail (a member's session).")
    async def team_invite_create(self, info: Info[Context, None], input: TeamInviteCreateInput) -> TeamInvitePayload:
        principal = info.context.principal
        invite, errors = await user_errors(lambda: team.create_invite(principal=principal, data=to_data(input)))
        return TeamInvitePayload(invite=Invite.of(invite) if invite else None, user_errors=errors)

    @strawberry.mutation
    async def team_invite_revoke(self, info: Info[Context, None], input: TeamInviteRevokeInput) -> TeamInvitePayload:
        principal = info.context.principal
        invite, errors = await user_errors(lambda: team.revoke_invite(principal=principal, invite_id=str(input.id)))
        return TeamInvitePayload(invite=Invite.of(invite) if invite else None, user_errors=errors)

    @strawberry.mutation(description="Accept an invitation with its e-mailed token (no credential needed).")
    async def team_invite_accept(self, info: Info[Context, None],
                                 input: TeamInviteAcceptInput) -> TeamInviteAcceptPayload:
        got, errors = await user_errors(lambda: team.accept_invite(data=to_data(input)))
        if errors:
            return TeamInviteAcceptPayload(user_errors=errors)
        member, merchant = got
        return TeamInviteAcceptPayload(member=Member.of(member),
                                       merchant=InvitingMerchant(id=strawberry.ID(merchant.id), name=merchant.name))

    @strawberry.mutation(description="Change a member's roles (step-up for a member with 2FA).")
    async def team_member_update(self, info: Info[Context, None], input: TeamMemberUpdateInput) -> TeamMemberPayload:
        principal = info.context.principal
        member, errors = await user_errors(lambda: team.update_member(
            principal=principal, member_id=str(input.id), data={"roles": input.roles}))
        return TeamMemberPayload(member=Member.of(member) if member else None, user_errors=errors)

    @strawberry.mutation(description="Remove a member: its sessions end at once.")
    async def team_member_remove(self, info: Info[Context, None], input: TeamMemberRemoveInput) -> TeamMemberPayload:
        principal = info.context.principal
        member, errors = await user_errors(lambda: team.remove_member(principal=principal, member_id=str(input.id)))
        return TeamMemberPayload(member=Member.of(member) if member else None, user_errors=errors)

    @strawberry.mutation(description="The second step of a sign-in: otpVerify's challenge and an authenticator "
                                     "or recovery code. A wrong code is a top-level 401 invalid_two_factor_code.")
    async def two_factor_verify(self, info: Info[Context, None],
                                input: TwoFactorVerifyInput) -> TwoFactorVerifyPayload:
        s, errors = await user_errors(lambda: auth.verify_two_factor(data=to_data(input)))
        if errors:
            return TwoFactorVerifyPayload(user_errors=errors)
        fields = session_fields(info, s)
        del fields["challenge_id"]
        return TwoFactorVerifyPayload(**fields)

    @strawberry.mutation(description="The signed-in member's dashboard language and digits.")
    async def member_preferences_update(self, info: Info[Context, None],
                                        input: MemberPreferencesUpdateInput) -> MemberPreferencesPayload:
        principal = info.context.principal
        data = {k: v for k in ("language", "digits") if (v := getattr(input, k)) is not strawberry.UNSET}   # null clears
        m, errors = await user_errors(lambda: team.update_preferences(principal=principal, data=data))
        return MemberPreferencesPayload(member=Member.of(m) if m else None, user_errors=errors)

    @strawberry.mutation(description="Open a session (of this session's kind: a cookie session sets a new cookie) on "
                                     "another merchant of the member's e-mail; its second factor first when that "
                                     "membership has one (twoFactor challenge).")
    async def session_switch_merchant(self, info: Info[Context, None],
                                      input: SessionSwitchMerchantInput) -> SessionSwitchMerchantPayload:
        principal = info.context.principal
        s, errors = await user_errors(lambda: auth.switch_merchant(principal=principal, data=to_data(input)))
        if errors:
            return SessionSwitchMerchantPayload(user_errors=errors)
        return SessionSwitchMerchantPayload(**session_fields(info, s))

    @strawberry.mutation(description="Start two-factor enrolment: a new secret, its otpauth URI and QR code.")
    async def two_factor_enroll(self, info: Info[Context, None]) -> TwoFactorEnrollPayload:
        principal = info.context.principal
        got, errors = await user_errors(lambda: _with_member(principal, two_factor.enroll))
        if errors:
            return TwoFactorEnrollPayload(user_errors=errors)
        return TwoFactorEnrollPayload(secret=got["secret"], otpauth_uri=got["otpauth_uri"], qr_code=got["qr_code"])

    @strawberry.mutation(description="Turn two-factor sign-in on with the app's first code.")
    async def two_factor_confirm(self, info: Info[Context, None], input: TwoFactorCodeInput) -> TwoFactorConfirmPayload:
        principal = info.context.principal
        codes, errors = await user_errors(
            lambda: _with_member(principal, lambda m: two_factor.confirm_with(m, to_data(input))))
        if errors:
            return TwoFactorConfirmPayload(user_errors=errors)
        return TwoFactorConfirmPayload(enabled=True, recovery_codes=codes)

    @strawberry.mutation(description="Turn two-factor sign-in off (refused while the merchant requires it).")
    async def two_factor_disable(self, info: Info[Context, None], input: TwoFactorCodeInput) -> TwoFactorDisablePayload:
        principal = info.context.principal
        _, errors = await user_errors(lambda: _with_member(principal, _disable(to_data(input))))
        if errors:
            return TwoFactorDisablePayload(user_errors=errors)
        return TwoFactorDisablePayload(enabled=False)

    @strawberry.mutation(description="Confirm an authenticator code: 5 minutes of step-up actions for this session.")
    async def step_up(self, info: Info[Context, None], input: TwoFactorCodeInput) -> StepUpPayload:
        principal = info.context.principal
        s, errors = await user_errors(lambda: auth.step_up(principal=principal, data=to_data(input)))
        return StepUpPayload(step_up_expires_at=s.step_up_until if s else None, user_errors=errors)

    @strawberry.mutation(description="End one of the signed-in member's sessions.")
    async def session_revoke(self, info: Info[Context, None], input: SessionRevokeInput) -> SessionRevokePayload:
        principal = info.context.principal
        s, errors = await user_errors(lambda: sessions.revoke(principal=principal, session_id=str(input.id)))
        return SessionRevokePayload(session=Session.of(s, principal.session_id) if s else None, user_errors=errors)

    @strawberry.mutation(description="End every session of the signed-in member but this one.")
    async def sessions_revoke_others(self, info: Info[Context, None]) -> SessionsRevokeOthersPayload:
        principal = info.context.principal
        n, errors = await user_errors(lambda: sessions.revoke_others(principal=principal))
        return SessionsRevokeOthersPayload(revoked=n, user_errors=errors)

    @strawberry.mutation(description="Set the payout bank account (step-up for a member with 2FA).")
    async def payout_settings_update(self, info: Info[Context, None],
                                     input: PayoutSettingsUpdateInput) -> PayoutSettingsUpdatePayload:
        principal = info.context.principal
        s, errors = await user_errors(lambda: payout_settings.update_payout_settings(principal=principal,
                                                                                     data=to_data(input)))
        return PayoutSettingsUpdatePayload(payout_settings=PayoutSettings.of(s) if s else None, user_errors=errors)


async def _with_member(principal, fn):
    """fn(the signed-in member): an API key is refused (403 member_required)."""
    return await fn(await team.me(principal))


def _disable(data: dict):
    async def run(member):
        await two_factor.disable_with(member, data, enforced=await team.two_factor_required(member))
    return run
