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
            name='PaymentLink',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=True, to_field='id', related_name='payment_links', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('status', fields.CharField(default='active', max_length=12)),
                ('amount', fields.BigIntField()),
                ('currency', fields.CharField(max_length=3)),
                ('description', fields.CharField(null=True, max_length=500)),
                ('metadata', fields.JSONField(default=dict, encoder=JSON_DUMPS, decoder=loads)),
                ('expires_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('cancelled_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('updated_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'payment_links', 'app': 'links', 'indexes': [Index(fields=['merchant_id', 'livemode', 'created_at'])], 'pk_attr': 'id'},
            bases=['Model'],
        ),
    ]
