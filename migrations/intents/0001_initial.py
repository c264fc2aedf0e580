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
            name='PaymentIntent',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=True, to_field='id', related_name='payment_intents', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('status', fields.CharField(max_length=32)),
                ('amount', fields.BigIntField()),
                ('currency', fields.CharField(max_length=3)),
                ('amount_received', fields.BigIntField(default=0)),
                ('payment_method', fields.CharField(max_length=20)),
                ('payment_method_ref', fields.CharField(null=True, max_length=40)),
                ('customer_id', fields.CharField(null=True, max_length=64)),
                ('order_id', fields.CharField(null=True, max_length=200)),
                ('description', fields.CharField(null=True, max_length=1000)),
                ('statement_descriptor', fields.CharField(null=True, max_length=22)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('locale', fields.CharField(default='en', max_length=2)),
                ('fee_amount', fields.BigIntField()),
                ('fee_rate', fields.CharField(max_length=20)),
                ('fee_processing', fields.BigIntField()),
                ('fee_conversion', fields.BigIntField()),
                ('fee_network', fields.BigIntField()),
                ('net_amount', fields.BigIntField()),
                ('settlement_date', fields.DateField()),
                ('crypto', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('cod_address', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('cod_status', fields.CharField(null=True, max_length=20)),
                ('split', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('next_action', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('return_url', fields.CharField(null=True, max_length=2000)),
                ('receipt_url', fields.CharField(null=True, max_length=2000)),
                ('failure_code', fields.CharField(null=True, max_length=40)),
                ('failure_message', fields.CharField(null=True, max_length=500)),
                ('provider', fields.CharField(null=True, max_length=40)),
                ('provider_ref', fields.CharField(null=True, max_length=80)),
                ('cancellation_reason', fields.CharField(null=True, max_length=40)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('expires_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('succeeded_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('canceled_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('version', fields.IntField(default=0)),
            ],
            options={'table': 'payment_intents', 'app': 'intents', 'indexes': [Index(fields=['merchant_id', 'livemode', 'created_at']), Index(fields=['status', 'expires_at'])], 'pk_attr': 'id'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='IntentSplit',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('intent', fields.ForeignKeyField('intents.PaymentIntent', source_field='intent_id', db_constraint=True, to_field='id', related_name='splits', on_delete=OnDelete.CASCADE)),
                ('destination', fields.ForeignKeyField('core.Merchant', source_field='destination_id', db_constraint=True, to_field='id', related_name='incoming_splits', on_delete=OnDelete.CASCADE)),
                ('amount', fields.BigIntField()),
                ('currency', fields.CharField(max_length=3)),
                ('status', fields.CharField(default='pending', max_length=12)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'intent_splits', 'app': 'intents', 'pk_attr': 'id', 'table_description': "One transfer of a split: `amount` from the intent's merchant to `destination`."},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='PaymentMethod',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=True, to_field='id', related_name='intent_payment_methods', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('type', fields.CharField(default='card', max_length=20)),
                ('brand', fields.CharField(max_length=20)),
                ('last4', fields.CharField(max_length=4)),
                ('exp_month', fields.SmallIntField()),
                ('exp_year', fields.SmallIntField()),
                ('fingerprint', fields.CharField(max_length=64)),
                ('test_behaviour', fields.CharField(default='ok', max_length=12)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'intent_payment_methods', 'app': 'intents', 'indexes': [Index(fields=['merchant_id', 'livemode', 'created_at'])], 'pk_attr': 'id', 'table_description': 'A tokenized card: brand, last4, expiry and fingerprint only (never the number or CVC).'},
            bases=['Model'],
        ),
    ]
