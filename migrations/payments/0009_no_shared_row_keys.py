from tortoise import migrations
from tortoise.fields.base import OnDelete
from tortoise import fields

from migrations._keys import DropForeignKey

class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial'), ('core', '0002_list_counts'), ('payments', '0001_initial'), ('payments', '0002_payment_link'), ('payments', '0003_list_keyset'), ('payments', '0004_receipt_token'), ('payments', '0005_card_networks'), ('payments', '0006_installments'), ('payments', '0007_attempts_payment_index'), ('payments', '0008_risk_read_indexes')]

    initial = False

    operations = [
        DropForeignKey(
            model_name='Customer',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='customers', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='LedgerEntry',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='ledger_entries', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='Payment',
            name='customer',
            field=fields.ForeignKeyField('payments.Customer', source_field='customer_id', null=True, db_constraint=False, to_field='id', related_name='payments', on_delete=OnDelete.SET_NULL),
        ),
        DropForeignKey(
            model_name='Payment',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='payments', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='PaymentAttempt',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='payment_attempts', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='Refund',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='refunds', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='RoutingRule',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='routing_rules', on_delete=OnDelete.CASCADE),
        ),
    ]
