from tortoise import migrations
from tortoise.fields.base import OnDelete
from tortoise import fields

from migrations._keys import DropForeignKey

class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial'), ('core', '0002_list_counts'), ('money', '0005_model_options')]

    initial = False

    operations = [
        DropForeignKey(
            model_name='BalanceLine',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='balance_lines', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='Dispute',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='disputes', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='LatencyRollup',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='latency_rollups', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='MoneyAccount',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='money_accounts', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='PaymentRollup',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='payment_rollups', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='Settlement',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='settlements', on_delete=OnDelete.CASCADE),
        ),
    ]
