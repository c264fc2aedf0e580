from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise import fields

class Migration(migrations.Migration):
    dependencies = [('payments', '0005_card_networks')]

    initial = False

    operations = [
        ops.AddField(
            model_name='Payment',
            name='installments',
            field=fields.JSONField(null=True),
        ),
        ops.AddField(
            model_name='Payment',
            name='installment_count',
            field=fields.SmallIntField(default=1, null=True),
        ),
        # Rows already there were paid in one go (a NOT NULL column without a database default
        # cannot be added to a table with rows).
        ops.RunSQL("UPDATE payments SET installment_count = 1 WHERE installment_count IS NULL"),
    ]
