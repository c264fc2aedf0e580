from tortoise import migrations

from migrations._keys import DropForeignKey
from tortoise.migrations import operations as ops
from orjson import loads
from tortoise.fields.base import OnDelete
from tortoise.fields.data import JSON_DUMPS
from tortoise import fields
from tortoise.indexes import Index

class Migration(migrations.Migration):
    dependencies = [('core', '0004_require_two_factor')]

    initial = True

    operations = [
        ops.CreateModel(
            name='AuditEvent',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='audit_events', on_delete=OnDelete.CASCADE)),
                ('seq', fields.BigIntField()),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('actor_type', fields.CharField(max_length=12)),
                ('actor_id', fields.CharField(null=True, max_length=40)),
                ('actor_email', fields.CharField(null=True, max_length=254)),
                ('action', fields.CharField(max_length=64)),
                ('object_type', fields.CharField(null=True, max_length=40)),
                ('object_id', fields.CharField(null=True, max_length=64)),
                ('ip', fields.CharField(null=True, max_length=64)),
                ('user_agent', fields.CharField(null=True, max_length=500)),
                ('before', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('after', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
            ],
            options={'table': 'audit_events', 'app': 'team', 'indexes': [Index(fields=['merchant_id', 'seq']), Index(fields=['merchant_id', 'action', 'seq']), Index(fields=['merchant_id', 'object_type', 'object_id', 'seq'])], 'pk_attr': 'id', 'table_description': 'Append-only: written in the transaction of the change it records, never updated or deleted.'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='Invite',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='invites', on_delete=OnDelete.CASCADE)),
                ('email', fields.CharField(max_length=254)),
                ('roles', fields.JSONField(default=list, encoder=JSON_DUMPS, decoder=loads)),
                ('status', fields.CharField(default='pending', max_length=12)),
                ('token_hash', fields.CharField(unique=True, max_length=64)),
                ('invited_by', fields.CharField(null=True, max_length=40)),
                ('expires_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'team_invites', 'app': 'team', 'indexes': [Index(fields=['merchant_id', 'created_at'])], 'pk_attr': 'id'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='Member',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='members', on_delete=OnDelete.CASCADE)),
                ('email', fields.CharField(max_length=254)),
                ('roles', fields.JSONField(default=list, encoder=JSON_DUMPS, decoder=loads)),
                ('two_factor_enabled', fields.BooleanField(default=False)),
                ('totp_secret', fields.TextField(null=True, unique=False)),
                ('totp_last_step', fields.BigIntField(default=0)),
                ('recovery_codes', fields.JSONField(default=list, encoder=JSON_DUMPS, decoder=loads)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'team_members', 'app': 'team', 'unique_together': (('merchant_id', 'email'),), 'indexes': [Index(fields=['email'])], 'pk_attr': 'id', 'table_description': "A person of a merchant: an e-mail with roles. The merchant's own e-mail is its first"},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='MemberSession',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='member_sessions', on_delete=OnDelete.CASCADE)),
                ('member_id', fields.CharField(db_index=True, max_length=40)),
                ('kind', fields.CharField(max_length=8)),
                ('secret_hash', fields.CharField(unique=True, max_length=64)),
                ('csrf_hash', fields.CharField(null=True, max_length=64)),
                ('two_factor_pending', fields.BooleanField(default=False)),
                ('user_agent', fields.CharField(default='', max_length=500)),
                ('ip', fields.CharField(default='', max_length=64)),
                ('step_up_until', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('last_seen_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('expires_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('revoked_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'team_sessions', 'app': 'team', 'pk_attr': 'id', 'table_description': 'One sign-in: the token (or cookie) names it; revoked, idle or past its 12 hours it fails.'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='PayoutSettings',
            fields=[
                ('merchant_id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('iban', fields.CharField(max_length=34)),
                ('account_holder_name', fields.CharField(max_length=140)),
                ('updated_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'payout_settings', 'app': 'team', 'pk_attr': 'merchant_id', 'table_description': "Where a merchant's settlements are paid: one bank account (IBAN checked mod 97)."},
            bases=['Model'],
        ),
            # No database constraint on merchant_id (migrations/_keys.py): a member's, invite's, session's or
        # audit entry's insert would lock the merchant's row FOR KEY SHARE.
        DropForeignKey(
            model_name='AuditEvent',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='audit_events', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='Invite',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='invites', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='Member',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='members', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='MemberSession',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='member_sessions', on_delete=OnDelete.CASCADE),
        ),
        # Every merchant that was already there gets its e-mail as its first member, an owner
        # (the member id follows from the merchant's: mer_X -> mbr_X).
        ops.RunSQL(
            "INSERT INTO team_members (id, merchant_id, email, roles, two_factor_enabled, totp_last_step, "
            "recovery_codes, created_at) SELECT 'mbr_' || substr(id, 5), id, email, '[\"owner\"]', FALSE, 0, '[]', "
            "created_at FROM merchants"),
    ]
