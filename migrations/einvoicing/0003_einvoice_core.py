from tortoise import migrations
from tortoise.migrations import operations as ops
from orjson import loads
from tortoise.fields.base import OnDelete
from tortoise.fields.data import JSON_DUMPS
from tortoise import fields
from tortoise.indexes import Index

class Migration(migrations.Migration):
    dependencies = [('core', '0003_no_shared_row_keys'), ('einvoicing', '0002_no_shared_row_keys')]

    initial = False

    operations = [
        ops.CreateModel(
            name='EinvoiceUnit',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='einvoice_units', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('authority', fields.CharField(max_length=8)),
                ('status', fields.CharField(max_length=16)),
                ('settings', fields.JSONField(default=dict, encoder=JSON_DUMPS, decoder=loads)),
                ('secrets_enc', fields.TextField(default='', unique=False)),
                ('seq', fields.BigIntField(default=0)),
                ('seq_year', fields.IntField(null=True)),
                ('receipt_seq', fields.BigIntField(default=0)),
                ('chain_head', fields.CharField(default='', max_length=128)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('updated_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'einvoice_units', 'app': 'einvoicing', 'unique_together': (('merchant_id', 'livemode', 'authority'),), 'pk_attr': 'id', 'table_description': "A merchant's unit with one tax authority other than ZATCA (`gib`, `eta`) in one mode: what"},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='EinvoiceDocument',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='einvoice_documents', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('authority', fields.CharField(max_length=8)),
                ('unit', fields.ForeignKeyField('einvoicing.EinvoiceUnit', source_field='unit_id', db_constraint=False, to_field='id', related_name='documents', on_delete=OnDelete.CASCADE)),
                ('invoice_id', fields.CharField(null=True, max_length=40)),
                ('payment_id', fields.CharField(null=True, max_length=40)),
                ('original_id', fields.CharField(null=True, max_length=40)),
                ('kind', fields.CharField(max_length=16)),
                ('type', fields.CharField(max_length=16)),
                ('number', fields.CharField(max_length=64)),
                ('uuid', fields.CharField(max_length=64)),
                ('seq', fields.BigIntField()),
                ('previous', fields.CharField(default='', max_length=128)),
                ('body', fields.TextField(unique=False)),
                ('currency', fields.CharField(max_length=3)),
                ('amount', fields.BigIntField()),
                ('tax', fields.BigIntField()),
                ('reason', fields.CharField(null=True, max_length=200)),
                ('status', fields.CharField(max_length=12)),
                ('messages', fields.JSONField(default=list, encoder=JSON_DUMPS, decoder=loads)),
                ('external', fields.JSONField(default=dict, encoder=JSON_DUMPS, decoder=loads)),
                ('attempts', fields.IntField(default=0)),
                ('next_attempt_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('submitted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('issued_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('updated_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'einvoice_documents', 'app': 'einvoicing', 'unique_together': (('unit_id', 'number'),), 'indexes': [Index(fields=['invoice_id']), Index(fields=['payment_id']), Index(fields=['status', 'next_attempt_at'])], 'pk_attr': 'id', 'table_description': 'One document of a unit: an invoice, a note or return that refers to its original'},
            bases=['Model'],
        ),
    ]
