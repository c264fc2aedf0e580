from tortoise import migrations
from tortoise.migrations import operations as ops
from orjson import loads
from tortoise.fields.base import OnDelete
from tortoise.fields.data import JSON_DUMPS
from tortoise import fields
from tortoise.indexes import Index

class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial'), ('events', '0001_initial')]

    initial = True

    operations = [
        ops.CreateModel(
            name='WebhookEndpoint',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=True, to_field='id', related_name='webhook_endpoints', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('url', fields.CharField(max_length=2048)),
                ('secret', fields.CharField(max_length=80)),
                ('events', fields.JSONField(encoder=JSON_DUMPS, decoder=loads)),
                ('status', fields.CharField(default='active', max_length=16)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('updated_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'webhook_endpoints', 'app': 'webhooks', 'indexes': [Index(fields=['merchant_id', 'livemode', 'status'])], 'pk_attr': 'id'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='WebhookDelivery',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('event', fields.ForeignKeyField('events.Event', source_field='event_id', db_constraint=True, to_field='id', related_name='webhook_deliveries', on_delete=OnDelete.CASCADE)),
                ('endpoint', fields.ForeignKeyField('webhooks.WebhookEndpoint', source_field='endpoint_id', db_constraint=True, to_field='id', related_name='deliveries', on_delete=OnDelete.CASCADE)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=True, to_field='id', related_name='webhook_deliveries', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('state', fields.CharField(default='pending', max_length=16)),
                ('delivered', fields.BooleanField(default=False)),
                ('attempts', fields.IntField(default=0)),
                ('next_attempt_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('lease_owner', fields.CharField(null=True, max_length=80)),
                ('lease_until', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('last_status_code', fields.IntField(null=True)),
                ('last_error', fields.CharField(null=True, max_length=200)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('updated_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'webhook_deliveries', 'app': 'webhooks', 'unique_together': (('event_id', 'endpoint_id'),), 'indexes': [Index(fields=['state', 'next_attempt_at']), Index(fields=['merchant_id', 'livemode', 'created_at'])], 'pk_attr': 'id'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='WebhookAttempt',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('delivery', fields.ForeignKeyField('webhooks.WebhookDelivery', source_field='delivery_id', db_constraint=True, to_field='id', related_name='attempt_log', on_delete=OnDelete.CASCADE)),
                ('number', fields.IntField()),
                ('manual', fields.BooleanField(default=False)),
                ('status_code', fields.IntField(null=True)),
                ('latency_ms', fields.IntField()),
                ('error', fields.CharField(null=True, max_length=200)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'webhook_attempts', 'app': 'webhooks', 'indexes': [Index(fields=['delivery_id', 'number'])], 'pk_attr': 'id'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='WebhookFanout',
            fields=[
                ('event', fields.OneToOneField('events.Event', source_field='event_id', primary_key=True, db_index=True, db_constraint=True, to_field='id', related_name='webhook_fanout', on_delete=OnDelete.CASCADE)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'webhook_fanouts', 'app': 'webhooks', 'pk_attr': 'event_id', 'table_description': 'Marks an event whose deliveries were created: the primary key makes fan-out happen once'},
            bases=['Model'],
        ),
    ]
