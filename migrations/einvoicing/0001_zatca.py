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
            name='ZatcaUnit',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=True, to_field='id', related_name='zatca_units', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('status', fields.CharField(max_length=16)),
                ('vat_number', fields.CharField(max_length=15)),
                ('organization_name', fields.CharField(max_length=200)),
                ('organization_unit', fields.CharField(max_length=200)),
                ('common_name', fields.CharField(max_length=200)),
                ('invoice_types', fields.CharField(max_length=4)),
                ('egs_serial', fields.CharField(max_length=100)),
                ('address', fields.JSONField(default=dict, encoder=JSON_DUMPS, decoder=loads)),
                ('industry', fields.CharField(max_length=100)),
                ('locale', fields.CharField(default='ar-SA', max_length=35)),
                ('certificate', fields.TextField(unique=False)),
                ('certificate_serial', fields.CharField(max_length=64)),
                ('certificate_expires_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('token', fields.TextField(unique=False)),
                ('secret_enc', fields.TextField(unique=False)),
                ('private_key_enc', fields.TextField(unique=False)),
                ('icv', fields.BigIntField(default=0)),
                ('last_hash', fields.CharField(max_length=100)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('updated_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'zatca_units', 'app': 'einvoicing', 'unique_together': (('merchant_id', 'livemode'),), 'pk_attr': 'id', 'table_description': "The merchant's e-invoice generation solution unit (EGS) in one mode. `icv` and `last_hash`"},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='ZatcaDocument',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=True, to_field='id', related_name='zatca_documents', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('unit', fields.ForeignKeyField('einvoicing.ZatcaUnit', source_field='unit_id', db_constraint=True, to_field='id', related_name='documents', on_delete=OnDelete.CASCADE)),
                ('invoice_id', fields.CharField(max_length=40)),
                ('kind', fields.CharField(max_length=12)),
                ('type', fields.CharField(max_length=10)),
                ('number', fields.CharField(max_length=40)),
                ('uuid', fields.CharField(max_length=36)),
                ('icv', fields.BigIntField()),
                ('pih', fields.CharField(max_length=100)),
                ('hash', fields.CharField(max_length=100)),
                ('xml', fields.TextField(unique=False)),
                ('amount', fields.BigIntField()),
                ('tax', fields.BigIntField()),
                ('reason', fields.CharField(null=True, max_length=200)),
                ('status', fields.CharField(max_length=10)),
                ('messages', fields.JSONField(default=list, encoder=JSON_DUMPS, decoder=loads)),
                ('attempts', fields.IntField(default=0)),
                ('next_attempt_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('submitted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('updated_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'zatca_documents', 'app': 'einvoicing', 'unique_together': (('unit_id', 'icv'),), 'indexes': [Index(fields=['invoice_id']), Index(fields=['status', 'next_attempt_at'])], 'pk_attr': 'id', 'table_description': "One signed document of a unit's chain: an invoice (388), a credit note (381) or a debit"},
            bases=['Model'],
        ),
    ]
