from tortoise import migrations
from tortoise.fields.base import OnDelete
from tortoise import fields

from migrations._keys import DropForeignKey

# 0001 created apple_pay_keys and wallet_transactions with PostgreSQL foreign keys to merchants
# although the models say db_constraint=False (Tortoise's CreateModel writes them): dropped here, as
# for every other table (migrations/_keys.py: such a key locks the merchant's row per row written,
# and a wallet payment writes a wallet_transactions row).


class Migration(migrations.Migration):
    dependencies = [('wallets', '0001_wallets')]

    initial = False

    operations = [
        DropForeignKey(
            model_name='ApplePayKey',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='apple_pay_keys', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='WalletTransaction',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='wallet_transactions', on_delete=OnDelete.CASCADE),
        ),
    ]
