from tortoise import migrations
from tortoise.migrations import operations as ops
from orjson import loads
from tortoise.fields.base import OnDelete
from tortoise.fields.data import JSON_DUMPS
from tortoise import fields
from tortoise.indexes import Index

class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial'), ('payments', '0001_initial')]

    initial = True

    operations = [
        ops.CreateModel(
            name='Invoice',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=True, to_field='id', related_name='invoices', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('customer', fields.ForeignKeyField('payments.Customer', source_field='customer_id', db_constraint=True, to_field='id', related_name='invoices', on_delete=OnDelete.CASCADE)),
                ('subscription_id', fields.CharField(null=True, max_length=40)),
                ('period_start', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('period_end', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('sequence', fields.BigIntField()),
                ('number', fields.CharField(max_length=32)),
                ('status', fields.CharField(max_length=8)),
                ('currency', fields.CharField(max_length=3)),
                ('items', fields.JSONField(encoder=JSON_DUMPS, decoder=loads)),
                ('subtotal', fields.BigIntField()),
                ('tax_rate', fields.CharField(max_length=8)),
                ('tax', fields.BigIntField()),
                ('total', fields.BigIntField()),
                ('due_date', fields.DateField()),
                ('locale', fields.CharField(default='en', max_length=2)),
                ('access_token', fields.CharField(unique=True, max_length=64)),
                ('sent_to', fields.CharField(null=True, max_length=254)),
                ('sent_via', fields.CharField(null=True, max_length=12)),
                ('sent_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('paid_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('payment_id', fields.CharField(null=True, max_length=40)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('updated_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'invoices', 'app': 'billing', 'unique_together': (('merchant_id', 'livemode', 'sequence'),), 'indexes': [Index(fields=['merchant_id', 'livemode', 'created_at']), Index(fields=['subscription_id'])], 'pk_attr': 'id'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='InvoiceCounter',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=48)),
                ('value', fields.BigIntField(default=0)),
            ],
            options={'table': 'invoice_counters', 'app': 'billing', 'pk_attr': 'id', 'table_description': "The last invoice number per merchant and mode: incremented in the invoice's own"},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='MerchantProfile',
            fields=[
                ('merchant', fields.OneToOneField('core.Merchant', source_field='merchant_id', primary_key=True, db_index=True, db_constraint=True, to_field='id', related_name='profile', on_delete=OnDelete.CASCADE)),
                ('legal_name', fields.CharField(null=True, max_length=200)),
                ('address', fields.TextField(null=True, unique=False)),
                ('tax_number', fields.CharField(null=True, max_length=32)),
                ('updated_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'merchant_profiles', 'app': 'billing', 'pk_attr': 'merchant_id', 'table_description': 'The issuer block of an invoice: legal name, address, tax (VAT) number.'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='SavedCard',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=True, to_field='id', related_name='saved_cards', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('customer', fields.ForeignKeyField('payments.Customer', source_field='customer_id', db_constraint=True, to_field='id', related_name='saved_cards', on_delete=OnDelete.CASCADE)),
                ('payment_id', fields.CharField(max_length=40)),
                ('brand', fields.CharField(max_length=20)),
                ('last4', fields.CharField(max_length=4)),
                ('exp_month', fields.SmallIntField()),
                ('exp_year', fields.SmallIntField()),
                ('fingerprint', fields.CharField(max_length=64)),
                ('behaviour', fields.CharField(max_length=32)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'saved_cards', 'app': 'billing', 'indexes': [Index(fields=['customer_id', 'created_at'])], 'pk_attr': 'id', 'table_description': "The card of a customer's successful payment, as a token the sandbox can charge again:"},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='Subscription',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=40)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=True, to_field='id', related_name='subscriptions', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('customer', fields.ForeignKeyField('payments.Customer', source_field='customer_id', db_constraint=True, to_field='id', related_name='subscriptions', on_delete=OnDelete.CASCADE)),
                ('plan', fields.CharField(max_length=200)),
                ('amount', fields.BigIntField()),
                ('currency', fields.CharField(max_length=3)),
                ('interval', fields.CharField(max_length=8)),
                ('interval_count', fields.IntField(default=1)),
                ('status', fields.CharField(max_length=16)),
                ('anchor_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('period', fields.IntField(default=-1)),
                ('current_period_start', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('current_period_end', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('next_billing_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('retry_count', fields.IntField(default=0)),
                ('next_retry_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('latest_invoice_id', fields.CharField(null=True, max_length=40)),
                ('metadata', fields.JSONField(default=dict, encoder=JSON_DUMPS, decoder=loads)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('updated_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('paused_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('cancelled_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'subscriptions', 'app': 'billing', 'indexes': [Index(fields=['merchant_id', 'livemode', 'created_at']), Index(fields=['status', 'next_billing_at']), Index(fields=['status', 'next_retry_at'])], 'pk_attr': 'id'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='TestClock',
            fields=[
                ('merchant', fields.OneToOneField('core.Merchant', source_field='merchant_id', primary_key=True, db_index=True, db_constraint=True, to_field='id', related_name='test_clock', on_delete=OnDelete.CASCADE)),
                ('offset_seconds', fields.BigIntField(default=0)),
                ('updated_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'test_clocks', 'app': 'billing', 'pk_attr': 'merchant_id', 'table_description': "A merchant's test-mode time: real time plus `offset_seconds` (only ever grows)."},
            bases=['Model'],
        ),
    ]
