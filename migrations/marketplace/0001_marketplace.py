from tortoise import migrations
from tortoise.migrations import operations as ops
from orjson import loads
from tortoise.fields.base import OnDelete
from tortoise.fields.data import JSON_DUMPS
from tortoise import fields
from tortoise.indexes import Index

from migrations._keys import DropForeignKey

class Migration(migrations.Migration):
    dependencies = [('core', '0004_require_two_factor')]

    initial = True

    operations = [
        ops.CreateModel(
            name='MarketplaceSettings',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='marketplace_settings', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('dispute_policy', fields.CharField(default='platform', max_length=12)),
                ('payout_account', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('commission_invoices', fields.BooleanField(default=True)),
                ('updated_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'marketplace_settings', 'app': 'marketplace', 'pk_attr': 'id', 'table_description': 'One per platform merchant and mode.'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='Payout',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='marketplace_payouts', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('batch_id', fields.CharField(max_length=40)),
                ('sub_merchant_id', fields.CharField(max_length=40)),
                ('amount', fields.BigIntField()),
                ('currency', fields.CharField(max_length=3)),
                ('iban', fields.CharField(max_length=34)),
                ('holder_name', fields.CharField(max_length=140)),
                ('bic', fields.CharField(null=True, max_length=11)),
                ('purpose', fields.CharField(max_length=4)),
                ('reference', fields.CharField(max_length=140)),
                ('status', fields.CharField(max_length=10)),
                ('carried_in', fields.BigIntField(default=0)),
                ('carried_forward', fields.BigIntField(default=0)),
                ('commission', fields.BigIntField(default=0)),
                ('commission_invoice', fields.CharField(null=True, max_length=40)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('paid_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('updated_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'marketplace_payouts', 'app': 'marketplace', 'indexes': [Index(fields=['merchant_id', 'livemode', 'created_at']), Index(fields=['batch_id']), Index(fields=['sub_merchant_id', 'created_at'])], 'pk_attr': 'id'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='PayoutBatch',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='payout_batches', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('currency', fields.CharField(max_length=3)),
                ('count', fields.IntField()),
                ('total', fields.BigIntField()),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'marketplace_payout_batches', 'app': 'marketplace', 'indexes': [Index(fields=['merchant_id', 'livemode', 'created_at'])], 'pk_attr': 'id'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='SellerEntry',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('txn_id', fields.CharField(max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='seller_entries', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('sub_merchant_id', fields.CharField(max_length=40)),
                ('account', fields.CharField(max_length=20)),
                ('currency', fields.CharField(max_length=3)),
                ('amount', fields.BigIntField()),
                ('kind', fields.CharField(max_length=20)),
                ('split_id', fields.CharField(null=True, max_length=40)),
                ('payment_id', fields.CharField(null=True, max_length=40)),
                ('refund_id', fields.CharField(null=True, max_length=40)),
                ('line_amount', fields.BigIntField(null=True)),
                ('fee', fields.BigIntField(null=True)),
                ('available_on', fields.DateField(null=True)),
                ('payout_id', fields.CharField(null=True, max_length=40)),
                ('excluded', fields.BooleanField(default=False)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'seller_entries', 'app': 'marketplace', 'indexes': [Index(fields=['sub_merchant_id', 'account', 'payout_id']), Index(fields=['split_id']), Index(fields=['txn_id'])], 'pk_attr': 'id', 'table_description': 'One leg of a seller-ledger transaction (debits > 0, credits < 0, each transaction summing to'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='Split',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='marketplace_splits', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('payment_id', fields.CharField(max_length=40)),
                ('position', fields.SmallIntField(default=0)),
                ('sub_merchant_id', fields.CharField(max_length=40)),
                ('reference', fields.CharField(null=True, max_length=200)),
                ('currency', fields.CharField(max_length=3)),
                ('line_amount', fields.BigIntField()),
                ('fee', fields.BigIntField()),
                ('amount', fields.BigIntField()),
                ('release', fields.CharField(max_length=12)),
                ('status', fields.CharField(max_length=12)),
                ('auto_release_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('released_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('available_on', fields.DateField(null=True)),
                ('amount_refunded', fields.BigIntField(default=0)),
                ('amount_reversed', fields.BigIntField(default=0)),
                ('fee_refunded', fields.BigIntField(default=0)),
                ('amount_disputed', fields.BigIntField(default=0)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('updated_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'marketplace_splits', 'app': 'marketplace', 'indexes': [Index(fields=['merchant_id', 'livemode', 'created_at']), Index(fields=['payment_id', 'position']), Index(fields=['sub_merchant_id', 'created_at']), Index(fields=['status', 'auto_release_at'])], 'pk_attr': 'id', 'table_description': "One split line of a payment (`spl_`): `amount` = line_amount - fee is the seller's."},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='SubMerchant',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='sub_merchants', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('type', fields.CharField(max_length=16)),
                ('legal_name', fields.CharField(max_length=200)),
                ('email', fields.CharField(max_length=254)),
                ('country', fields.CharField(max_length=2)),
                ('currency', fields.CharField(max_length=3)),
                ('address', fields.JSONField(encoder=JSON_DUMPS, decoder=loads)),
                ('external_id', fields.CharField(null=True, max_length=200)),
                ('tax_id', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('registration_number', fields.CharField(null=True, max_length=64)),
                ('payout', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('payout_hold_until', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('iban_due', fields.BooleanField(default=False)),
                ('default_fee', fields.JSONField(encoder=JSON_DUMPS, decoder=loads)),
                ('auto_release_days', fields.IntField(null=True)),
                ('payout_schedule', fields.JSONField(encoder=JSON_DUMPS, decoder=loads)),
                ('carry', fields.BigIntField(default=0)),
                ('last_payout_on', fields.DateField(null=True)),
                ('due_since', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('updated_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'sub_merchants', 'app': 'marketplace', 'indexes': [Index(fields=['merchant_id', 'livemode', 'created_at'])], 'pk_attr': 'id', 'table_description': 'A seller of the platform (`smr_`). `payout` holds {iban, holder_name, bic, purpose}; `carry`'},
            bases=['Model'],
        ),
        # No database constraint on merchant_id (migrations/_keys.py): a split's, ledger leg's or payout's
        # insert would lock the merchant's row FOR KEY SHARE.
        DropForeignKey(
            model_name='MarketplaceSettings',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='marketplace_settings', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='Payout',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='marketplace_payouts', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='PayoutBatch',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='payout_batches', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='SellerEntry',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='seller_entries', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='Split',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='marketplace_splits', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='SubMerchant',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='sub_merchants', on_delete=OnDelete.CASCADE),
        ),
    ]
