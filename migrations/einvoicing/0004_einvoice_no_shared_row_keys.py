from tortoise import migrations
from tortoise.fields.base import OnDelete
from tortoise import fields

from migrations._keys import DropForeignKey

# 0003 created einvoice_units and einvoice_documents with PostgreSQL foreign keys although the models
# say db_constraint=False (Tortoise's CreateModel writes them): dropped here, as 0002 did for ZATCA's
# tables (migrations/_keys.py: a foreign key to merchants locks the merchant's row per row written).


class Migration(migrations.Migration):
    dependencies = [('einvoicing', '0003_einvoice_core')]

    initial = False

    operations = [
        DropForeignKey(
            model_name='EinvoiceUnit',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='einvoice_units', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='EinvoiceDocument',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='einvoice_documents', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='EinvoiceDocument',
            name='unit',
            field=fields.ForeignKeyField('einvoicing.EinvoiceUnit', source_field='unit_id', db_constraint=False, to_field='id', related_name='documents', on_delete=OnDelete.CASCADE),
        ),
    ]
