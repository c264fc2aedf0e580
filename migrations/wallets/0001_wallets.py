from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise.fields.base import OnDelete
from tortoise import fields
from tortoise.indexes import Index

class Migration(migrations.Migration):
    dependencies = [('core', '0003_no_shared_row_keys')]

    initial = True

    operations = [
        ops.CreateModel(
            name='ApplePayKey',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='apple_pay_keys', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('status', fields.CharField(max_length=12)),
                ('public_key_hash', fields.CharField(max_length=64)),
                ('private_key_enc', fields.TextField(unique=False)),
                ('csr', fields.TextField(unique=False)),
                ('certificate', fields.TextField(null=True, unique=False)),
                ('merchant_identifier', fields.CharField(null=True, max_length=200)),
                ('merchant_identifier_hash', fields.CharField(null=True, max_length=64)),
                ('expires_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('updated_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'apple_pay_keys', 'app': 'wallets', 'unique_together': (('merchant_id', 'livemode', 'public_key_hash'),), 'indexes': [Index(fields=['merchant_id', 'livemode', 'created_at'])], 'pk_attr': 'id', 'table_description': 'A P-256 payment processing key of a merchant in one mode; `pending` until the certificate'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='GooglePayKey',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('livemode', fields.BooleanField()),
                ('status', fields.CharField(max_length=12)),
                ('public_key', fields.TextField(unique=False)),
                ('private_key_enc', fields.TextField(unique=False)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'google_pay_keys', 'app': 'wallets', 'indexes': [Index(fields=['livemode', 'status'])], 'pk_attr': 'id', 'table_description': "The platform's ECv2 key pair of one mode: `current` decrypts and is published; `previous`"},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='WalletTransaction',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='wallet_transactions', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('wallet', fields.CharField(max_length=12)),
                ('token_hash', fields.CharField(max_length=64)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'wallet_transactions', 'app': 'wallets', 'unique_together': (('merchant_id', 'wallet', 'token_hash'),), 'pk_attr': 'id', 'table_description': "A wallet token already paid with: Apple's `transactionId`, Google's `messageId`, kept as"},
            bases=['Model'],
        ),
    ]
