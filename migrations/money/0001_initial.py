from tortoise import migrations
from tortoise.migrations import operations as ops
from orjson import loads
from tortoise.fields.base import OnDelete
from tortoise.fields.data import JSON_DUMPS
from tortoise import fields
from tortoise.indexes import Index

class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial')]

    initial = True

    operations = [
        ops.CreateModel(
            name='BalanceLine',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=True, to_field='id', related_name='balance_lines', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('currency', fields.CharField(max_length=3)),
                ('kind', fields.CharField(max_length=20)),
                ('payment_id', fields.CharField(null=True, max_length=40)),
                ('refund_id', fields.CharField(null=True, max_length=40)),
                ('source_id', fields.CharField(null=True, max_length=40)),
                ('gross', fields.BigIntField()),
                ('fee', fields.BigIntField()),
                ('net', fields.BigIntField()),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('settlement_id', fields.CharField(null=True, max_length=40)),
            ],
            options={'table': 'balance_lines', 'app': 'money', 'indexes': [Index(fields=['settlement_id', 'merchant_id', 'livemode', 'currency', 'created_at'])], 'pk_attr': 'id', 'table_description': "What one ledger transaction did to the merchant's balance, written by services.ledger in"},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='Dispute',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=True, to_field='id', related_name='disputes', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('payment_id', fields.CharField(max_length=40)),
                ('amount', fields.BigIntField()),
                ('fee', fields.BigIntField()),
                ('currency', fields.CharField(max_length=3)),
                ('reason', fields.CharField(max_length=40)),
                ('status', fields.CharField(max_length=16)),
                ('evidence', fields.JSONField(default=dict, encoder=JSON_DUMPS, decoder=loads)),
                ('evidence_due_by', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('decide_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('updated_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('closed_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'disputes', 'app': 'money', 'indexes': [Index(fields=['merchant_id', 'livemode', 'created_at']), Index(fields=['payment_id']), Index(fields=['status', 'decide_at'])], 'pk_attr': 'id'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='LatencyRollup',
            fields=[
                ('id', fields.BigIntField(generated=True, primary_key=True, unique=True, db_index=True)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=True, to_field='id', related_name='latency_rollups', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('day', fields.DateField()),
                ('currency', fields.CharField(max_length=3)),
                ('provider', fields.CharField(max_length=40)),
                ('bucket', fields.IntField()),
                ('count', fields.IntField(default=0)),
            ],
            options={'table': 'latency_rollups', 'app': 'money', 'unique_together': (('merchant_id', 'livemode', 'currency', 'day', 'provider', 'bucket'),), 'pk_attr': 'id', 'table_description': 'How many authorizations at a provider took `bucket` ms (see services.analytics.bucket).'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='MoneyAccount',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=True, to_field='id', related_name='money_accounts', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('currency', fields.CharField(max_length=3)),
                ('settle_after', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'money_accounts', 'app': 'money', 'pk_attr': 'id', 'table_description': 'Per merchant, mode and currency: when settling may next try (after a day whose available'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='PaymentRollup',
            fields=[
                ('id', fields.BigIntField(generated=True, primary_key=True, unique=True, db_index=True)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=True, to_field='id', related_name='payment_rollups', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('day', fields.DateField()),
                ('currency', fields.CharField(max_length=3)),
                ('provider', fields.CharField(max_length=40)),
                ('payments', fields.IntField(default=0)),
                ('approved', fields.IntField(default=0)),
                ('volume', fields.BigIntField(default=0)),
                ('captured', fields.BigIntField(default=0)),
                ('refunded', fields.BigIntField(default=0)),
                ('tries', fields.IntField(default=0)),
                ('tries_approved', fields.IntField(default=0)),
            ],
            options={'table': 'payment_rollups', 'app': 'money', 'unique_together': (('merchant_id', 'livemode', 'currency', 'day', 'provider'),), 'pk_attr': 'id', 'table_description': 'Analytics per merchant, mode, merchant-local day, currency and provider ("" when no'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='Settlement',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=True, to_field='id', related_name='settlements', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('currency', fields.CharField(max_length=3)),
                ('amount', fields.BigIntField()),
                ('gross', fields.BigIntField(default=0)),
                ('fee', fields.BigIntField(default=0)),
                ('transactions', fields.IntField(default=0)),
                ('status', fields.CharField(max_length=12)),
                ('settled_on', fields.DateField()),
                ('arrival_date', fields.DateField()),
                ('payout_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('paid_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'settlements', 'app': 'money', 'indexes': [Index(fields=['merchant_id', 'livemode', 'created_at']), Index(fields=['status', 'payout_at'])], 'pk_attr': 'id', 'table_description': 'A payout: the lines of one merchant, mode and currency that were available by `settled_on`,'},
            bases=['Model'],
        ),
    ]
