from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise import fields
from tortoise.migrations.constraints import UniqueConstraint

class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial'), ('core', '0002_list_counts'), ('core', '0003_no_shared_row_keys'), ('core', '0004_require_two_factor'), ('marketplace', '0001_marketplace')]

    initial = False

    operations = [
        ops.AddField(
            model_name='PayoutBatch',
            name='run_day',
            field=fields.DateField(null=True),
        ),
        ops.AddConstraint(
            model_name='PayoutBatch',
            constraint=UniqueConstraint(fields=('merchant_id', 'livemode', 'currency', 'run_day'), name=None),
        ),
        ops.AddField(
            model_name='SubMerchant',
            name='customer_id',
            field=fields.CharField(null=True, max_length=40),
        ),
    ]
