from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise import fields

class Migration(migrations.Migration):
    dependencies = [('payments', '0003_list_keyset')]

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
            field=fields.SmallIntField(default=1),
        ),
    ]
