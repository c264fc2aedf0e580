from tortoise import migrations

from migrations._keys import DropForeignKey
from tortoise.migrations import operations as ops
from tortoise.fields.base import OnDelete
from tortoise import fields
from tortoise.indexes import Index

class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial'), ('core', '0002_list_counts'), ('core', '0003_no_shared_row_keys'), ('core', '0004_require_two_factor'), ('money', '0006_no_shared_row_keys')]

    initial = False

    operations = [
        ops.CreateModel(
            name='DisputeEvidenceFile',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='dispute_files', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('dispute_id', fields.CharField(max_length=40)),
                ('filename', fields.CharField(max_length=255)),
                ('content_type', fields.CharField(max_length=40)),
                ('size', fields.IntField()),
                ('sha256', fields.CharField(max_length=64)),
                ('content', fields.BinaryField()),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'dispute_evidence_files', 'app': 'money', 'indexes': [Index(fields=['dispute_id'])], 'pk_attr': 'id', 'table_description': "A file attached to a dispute's evidence (PDF, PNG or JPEG, at most 700 KiB); the dispute's"},
            bases=['Model'],
        ),
        # No database constraint on merchant_id (migrations/_keys.py): a file's insert would lock the
        # merchant's row FOR KEY SHARE.
        DropForeignKey(
            model_name='DisputeEvidenceFile',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='dispute_files', on_delete=OnDelete.CASCADE),
        ),
    ]
