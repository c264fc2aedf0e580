from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise.fields.base import OnDelete
from tortoise import fields
from tortoise.indexes import Index

class Migration(migrations.Migration):
    initial = True

    operations = [
        ops.CreateModel(
            name='Merchant',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('email', fields.CharField(unique=True, max_length=254)),
                ('name', fields.CharField(default='', max_length=200)),
                ('country', fields.CharField(default='TR', max_length=2)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'merchants', 'app': 'core', 'pk_attr': 'id'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='ApiKey',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=True, to_field='id', related_name='api_keys', on_delete=OnDelete.CASCADE)),
                ('name', fields.CharField(default='', max_length=100)),
                ('kind', fields.CharField(max_length=12)),
                ('livemode', fields.BooleanField()),
                ('prefix', fields.CharField(max_length=16)),
                ('key_hash', fields.CharField(unique=True, max_length=64)),
                ('status', fields.CharField(default='active', max_length=12)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('last_used', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('revoked_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'api_keys', 'app': 'core', 'indexes': [Index(fields=['merchant_id', 'livemode', 'created_at'])], 'pk_attr': 'id'},
            bases=['Model'],
        ),
    ]
