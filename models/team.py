"""A merchant's team: its members and their roles, invitations, server-side sign-in sessions,
the append-only audit log, and the payout bank account (a setting only a member may change)."""
from __future__ import annotations

from tortoise import fields
from tortoise.models import Model


class Member(Model):
    """A person of a merchant: an e-mail with roles. The merchant's own e-mail is its first
    member, an owner. The TOTP secret is sealed under QAFILA_SECRET_KEY (bound to the member);
    recovery codes are argon2 hashes, each spent once."""
    id = fields.CharField(pk=True, max_length=40)
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="members",
                                      on_delete=fields.CASCADE)
    email = fields.CharField(max_length=254)
    roles = fields.JSONField(default=list)
    two_factor_enabled = fields.BooleanField(default=False)
    totp_secret = fields.TextField(null=True)            # sealed; set by enroll, live once confirmed
    totp_last_step = fields.BigIntField(default=0)       # the last 30 s step a code was accepted for
    recovery_codes = fields.JSONField(default=list)      # argon2 hashes of the unused codes
    language = fields.CharField(max_length=2, null=True)  # the dashboard's: ar | en | tr (null: the browser's)
    digits = fields.CharField(max_length=4, null=True)    # arab | latn (null: the language's default)
    created_at = fields.DatetimeField()

    class Meta:
        table = "team_members"
        indexes = (("email",),)
        unique_together = (("merchant_id", "email"),)


class Invite(Model):
    id = fields.CharField(pk=True, max_length=40)
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="invites",
                                      on_delete=fields.CASCADE)
    email = fields.CharField(max_length=254)
    roles = fields.JSONField(default=list)
    status = fields.CharField(max_length=12, default="pending")     # pending | accepted | revoked
    token_hash = fields.CharField(max_length=64, unique=True)       # sha256 of the e-mailed token
    invited_by = fields.CharField(max_length=40, null=True)         # mbr_ of the inviter
    expires_at = fields.DatetimeField()
    created_at = fields.DatetimeField()

    class Meta:
        table = "team_invites"
        indexes = (("merchant_id", "created_at"),)


class MemberSession(Model):
    """One sign-in: the token (or cookie) names it; revoked, idle or past its 12 hours it fails."""
    id = fields.CharField(pk=True, max_length=40)
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="member_sessions",
                                      on_delete=fields.CASCADE)
    member_id = fields.CharField(max_length=40, db_index=True)
    kind = fields.CharField(max_length=8)                 # token | cookie
    secret_hash = fields.CharField(max_length=64, unique=True)
    csrf_hash = fields.CharField(max_length=64, null=True)
    two_factor_pending = fields.BooleanField(default=False)   # enrollment required: only /api/me* until confirmed
    user_agent = fields.CharField(max_length=500, default="")
    ip = fields.CharField(max_length=64, default="")
    step_up_until = fields.DatetimeField(null=True)
    created_at = fields.DatetimeField()
    last_seen_at = fields.DatetimeField()
    expires_at = fields.DatetimeField()
    revoked_at = fields.DatetimeField(null=True)

    class Meta:
        table = "team_sessions"


class AuditEvent(Model):
    """Append-only: written in the transaction of the change it records, never updated or deleted."""
    id = fields.CharField(pk=True, max_length=40)
    merchant = fields.ForeignKeyField("core.Merchant", db_constraint=False, related_name="audit_events",
                                      on_delete=fields.CASCADE)
    seq = fields.BigIntField()                            # the order of writing (time + counter)
    created_at = fields.DatetimeField()
    actor_type = fields.CharField(max_length=12)          # member | api_key | system
    actor_id = fields.CharField(max_length=40, null=True)
    actor_email = fields.CharField(max_length=254, null=True)
    action = fields.CharField(max_length=64)
    object_type = fields.CharField(max_length=40, null=True)
    object_id = fields.CharField(max_length=64, null=True)
    ip = fields.CharField(max_length=64, null=True)
    user_agent = fields.CharField(max_length=500, null=True)
    before = fields.JSONField(null=True)
    after = fields.JSONField(null=True)

    class Meta:
        table = "audit_events"
        indexes = (("merchant_id", "seq"), ("merchant_id", "action", "seq"),
                   ("merchant_id", "object_type", "object_id", "seq"))


class PayoutSettings(Model):
    """Where a merchant's settlements are paid: one bank account (IBAN checked mod 97)."""
    merchant_id = fields.CharField(pk=True, max_length=40)
    iban = fields.CharField(max_length=34)
    account_holder_name = fields.CharField(max_length=140)
    updated_at = fields.DatetimeField()

    class Meta:
        table = "payout_settings"
