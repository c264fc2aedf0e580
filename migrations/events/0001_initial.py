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
            name='Event',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=True, to_field='id', related_name='events', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('type', fields.CharField(max_length=64)),
                ('object_id', fields.CharField(null=True, max_length=40)),
                ('data', fields.JSONField(encoder=JSON_DUMPS, decoder=loads)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'events', 'app': 'events', 'indexes': [Index(fields=['merchant_id', 'livemode', 'created_at']), Index(fields=['object_id'])], 'pk_attr': 'id'},
            bases=['Model'],
        ),
    ]
