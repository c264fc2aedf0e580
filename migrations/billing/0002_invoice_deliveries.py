from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise.fields.base import OnDelete
from tortoise import fields
from tortoise.indexes import Index

class Migration(migrations.Migration):
    dependencies = [('billing', '0001_initial'), ('core', '0002_list_counts')]

    initial = False

    operations = [
        ops.CreateModel(
            name='InvoiceDelivery',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=True, to_field='id', related_name='invoice_deliveries', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('invoice', fields.ForeignKeyField('billing.Invoice', source_field='invoice_id', db_constraint=True, to_field='id', related_name='deliveries', on_delete=OnDelete.CASCADE)),
                ('channel', fields.CharField(max_length=12)),
                ('status', fields.CharField(default='pending', max_length=12)),
                ('attempts', fields.IntField(default=0)),
                ('next_attempt_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('lease_owner', fields.CharField(null=True, max_length=80)),
                ('lease_until', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('last_error', fields.CharField(null=True, max_length=200)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('updated_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('sent_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'invoice_deliveries', 'app': 'billing', 'indexes': [Index(fields=['status', 'next_attempt_at']), Index(fields=['invoice_id'])], 'pk_attr': 'id', 'table_description': 'The outbox of invoices a scheduler run (a renewal, a dunning retry) sends: written in the'},
            bases=['Model'],
        ),
    ]
