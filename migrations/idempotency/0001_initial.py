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
            name='IdempotencyKey',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=True, to_field='id', related_name='idempotency_keys', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('operation', fields.CharField(max_length=100)),
                ('key', fields.CharField(max_length=255)),
                ('fingerprint', fields.CharField(max_length=64)),
                ('outcome', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'idempotency_keys', 'app': 'idempotency', 'indexes': [Index(fields=['created_at'])], 'pk_attr': 'id'},
            bases=['Model'],
        ),
    ]
