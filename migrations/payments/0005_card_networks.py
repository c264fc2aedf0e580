from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise import fields


class Migration(migrations.Migration):
    dependencies = [('core', '0002_list_counts'), ('payments', '0004_receipt_token')]

    initial = False

    operations = [
        ops.AddField(
            model_name='Payment',
            name='card_networks',
            field=fields.JSONField(null=True),
        ),
    ]
