from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise.fields.base import OnDelete
from tortoise import fields
from tortoise.indexes import Index

from migrations._keys import DropForeignKey

class Migration(migrations.Migration):
    dependencies = [('core', '0003_no_shared_row_keys'), ('einvoicing', '0004_einvoice_no_shared_row_keys')]

    initial = False

    operations = [
        ops.CreateModel(
            name='EinvoiceRequest',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='einvoice_requests', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('authority', fields.CharField(max_length=8)),
                ('kind', fields.CharField(max_length=16)),
                ('payment_id', fields.CharField(max_length=40)),
                ('refund_id', fields.CharField(null=True, max_length=40)),
                ('amount', fields.BigIntField()),
                ('currency', fields.CharField(max_length=3)),
                ('asked', fields.BooleanField(default=False)),
                ('due_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'einvoice_requests', 'app': 'einvoicing', 'indexes': [Index(fields=['livemode', 'due_at'])], 'pk_attr': 'id', 'table_description': "A document asked for on a hot path (a payment's e-receipt, a refund's return receipt),"},
            bases=['Model'],
        ),
        # CreateModel writes a PostgreSQL foreign key despite db_constraint=False: dropped at once, as for
        # every table (a request row is written in the payment's own statement; such a key would lock
        # the merchant's row).
        DropForeignKey(
            model_name='EinvoiceRequest',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='einvoice_requests', on_delete=OnDelete.CASCADE),
        ),
    ]
