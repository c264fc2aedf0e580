from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise import fields

class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial'), ('core', '0002_list_counts'), ('core', '0003_no_shared_row_keys'), ('core', '0004_require_two_factor'), ('marketplace', '0002_payouts')]

    initial = False

    operations = [
        ops.AddField(
            model_name='SubMerchant',
            name='past_due_notified_at',
            field=fields.DatetimeField(null=True, auto_now=False, auto_now_add=False),
        ),
    ]
