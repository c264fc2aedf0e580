from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise.indexes import Index

class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial'), ('core', '0002_list_counts'), ('money', '0004_money_reads_at_scale')]

    initial = False

    operations = [
        ops.AlterModelOptions(
            name='LatencyRollup',
            options={'table': 'latency_rollups', 'app': 'money', 'unique_together': (('merchant_id', 'livemode', 'currency', 'day', 'provider', 'bucket', 'slot'),), 'indexes': [Index(fields=['merchant_id', 'livemode', 'currency', 'day', 'provider', 'bucket', 'count'], name='latency_rollups_window')], 'pk_attr': 'id', 'table_description': 'How many authorizations at a provider took `bucket` ms (see services.analytics.bucket),'},
        ),
    ]
