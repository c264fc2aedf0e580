from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise.fields.base import OnDelete
from tortoise import fields
from tortoise.indexes import Index

class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial')]

    initial = True

    operations = [
        ops.CreateModel(
            name='Receipt',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=True, to_field='id', related_name='receipts', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('payment_id', fields.CharField(unique=True, max_length=40)),
                ('source', fields.CharField(max_length=8)),
                ('channel', fields.CharField(max_length=12)),
                ('sent_to', fields.CharField(max_length=254)),
                ('locale', fields.CharField(default='en', max_length=2)),
                ('status', fields.CharField(default='pending', max_length=12)),
                ('attempts', fields.IntField(default=0)),
                ('next_attempt_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('lease_owner', fields.CharField(null=True, max_length=80)),
                ('lease_until', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('last_error', fields.CharField(null=True, max_length=200)),
                ('message_id', fields.CharField(null=True, max_length=128)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('updated_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('sent_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'receipts', 'app': 'receipts', 'indexes': [Index(fields=['status', 'next_attempt_at'])], 'pk_attr': 'id'},
            bases=['Model'],
        ),
    ]
