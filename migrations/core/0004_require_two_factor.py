from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise import fields

class Migration(migrations.Migration):
    dependencies = [('core', '0003_no_shared_row_keys')]

    initial = False

    operations = [
        ops.AddField(
            model_name='Merchant',
            name='require_two_factor',
            field=fields.BooleanField(default=False),
        ),
    ]
