from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise.fields.base import OnDelete
from tortoise import fields
from tortoise.indexes import Index

class Migration(migrations.Migration):
    dependencies = [('core', '0002_list_counts'), ('intents', '0002_list_keyset')]

    initial = False

    operations = [
        ops.AddField(
            model_name='PaymentIntent',
            name='amount_refunded',
            field=fields.BigIntField(default=0, db_default=0),
        ),
        ops.CreateModel(
            name='IntentRefund',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('intent', fields.ForeignKeyField('intents.PaymentIntent', source_field='intent_id', db_constraint=True, to_field='id', related_name='refunds', on_delete=OnDelete.CASCADE)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=True, to_field='id', related_name='intent_refunds', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('amount', fields.BigIntField()),
                ('currency', fields.CharField(max_length=3)),
                ('reason', fields.CharField(null=True, max_length=200)),
                ('status', fields.CharField(default='succeeded', max_length=16)),
                ('provider_reference', fields.CharField(null=True, max_length=64)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'intent_refunds', 'app': 'intents', 'indexes': [Index(fields=['intent_id', 'created_at'])], 'pk_attr': 'id', 'table_description': 'One refund of a payment intent.'},
            bases=['Model'],
        ),
    ]
