from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise import fields

class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial'), ('core', '0002_list_counts'), ('core', '0003_no_shared_row_keys'), ('core', '0004_require_two_factor'), ('team', '0001_team')]

    initial = False

    operations = [
        ops.AddField(
            model_name='Member',
            name='digits',
            field=fields.CharField(null=True, max_length=4),
        ),
        ops.AddField(
            model_name='Member',
            name='language',
            field=fields.CharField(null=True, max_length=2),
        ),
    ]
