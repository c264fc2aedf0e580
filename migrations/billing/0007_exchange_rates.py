from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise import fields

class Migration(migrations.Migration):
    dependencies = [('billing', '0006_einvoice_notes'), ('core', '0003_no_shared_row_keys'), ('payments', '0013_payment_eta_receipt')]

    initial = False

    operations = [
        ops.AddField(
            model_name='Invoice',
            name='exchange_rate',
            field=fields.CharField(null=True, max_length=24),
        ),
        ops.AddField(
            model_name='MerchantProfile',
            name='crm_company_id',
            field=fields.CharField(null=True, max_length=40),
        ),
    ]
