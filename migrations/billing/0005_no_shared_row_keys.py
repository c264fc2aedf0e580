from tortoise import migrations
from tortoise.fields.base import OnDelete
from tortoise import fields

from migrations._keys import DropForeignKey

class Migration(migrations.Migration):
    dependencies = [('billing', '0004_model_options'), ('core', '0001_initial'), ('core', '0002_list_counts'), ('payments', '0001_initial'), ('payments', '0002_payment_link'), ('payments', '0003_list_keyset'), ('payments', '0004_receipt_token'), ('payments', '0005_card_networks'), ('payments', '0006_installments'), ('payments', '0007_attempts_payment_index'), ('payments', '0008_risk_read_indexes')]

    initial = False

    operations = [
        DropForeignKey(
            model_name='Invoice',
            name='customer',
            field=fields.ForeignKeyField('payments.Customer', source_field='customer_id', db_constraint=False, to_field='id', related_name='invoices', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='Invoice',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='invoices', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='InvoiceDelivery',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='invoice_deliveries', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='SavedCard',
            name='customer',
            field=fields.ForeignKeyField('payments.Customer', source_field='customer_id', db_constraint=False, to_field='id', related_name='saved_cards', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='SavedCard',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='saved_cards', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='Subscription',
            name='customer',
            field=fields.ForeignKeyField('payments.Customer', source_field='customer_id', db_constraint=False, to_field='id', related_name='subscriptions', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='Subscription',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='subscriptions', on_delete=OnDelete.CASCADE),
        ),
    ]
