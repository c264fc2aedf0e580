from tortoise import migrations
from tortoise.migrations import operations as ops

class Migration(migrations.Migration):
    dependencies = [('billing', '0003_zatca_invoice'), ('core', '0001_initial'), ('core', '0002_list_counts'), ('payments', '0008_risk_read_indexes')]

    initial = False

    operations = [
        ops.AlterModelOptions(
            name='MerchantProfile',
            options={'table': 'merchant_profiles', 'app': 'billing', 'pk_attr': 'merchant_id', 'table_description': 'The issuer block of an invoice: legal name, address, tax (VAT) number.'},
        ),
        ops.AlterModelOptions(
            name='TestClock',
            options={'table': 'test_clocks', 'app': 'billing', 'pk_attr': 'merchant_id', 'table_description': "A merchant's test-mode time: real time plus `offset_seconds` (only ever grows)."},
        ),
    ]
