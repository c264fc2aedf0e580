from tortoise import migrations
from tortoise.fields.base import OnDelete
from tortoise import fields

from migrations._keys import DropForeignKey

class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial'), ('core', '0002_list_counts'), ('intents', '0013_restore_indexes')]

    initial = False

    operations = [
        DropForeignKey(
            model_name='IntentRefund',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='intent_refunds', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='IntentSplit',
            name='destination',
            field=fields.ForeignKeyField('core.Merchant', source_field='destination_id', db_constraint=False, to_field='id', related_name='incoming_splits', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='PaymentIntent',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='payment_intents', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='PaymentMethod',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='intent_payment_methods', on_delete=OnDelete.CASCADE),
        ),
    ]
