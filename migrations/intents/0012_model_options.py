from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise.indexes import Index

class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial'), ('core', '0002_list_counts'), ('intents', '0011_status_list_index')]

    initial = False

    operations = [
        ops.AlterModelOptions(
            name='IntentRefund',
            options={'table': 'intent_refunds', 'app': 'intents', 'indexes': [Index(fields=['intent_id', 'created_at'])], 'pk_attr': 'id', 'table_description': 'One refund of a payment intent (`ref_`): the money went back to the customer, the'},
        ),
    ]
