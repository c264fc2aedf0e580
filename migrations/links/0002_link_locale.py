from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise import fields


class Migration(migrations.Migration):
    dependencies = [('links', '0001_initial')]

    initial = False

    operations = [
        # The pages' language when the merchant sets one (issue 22); null: the buyer's.
        ops.AddField(
            model_name='PaymentLink',
            name='locale',
            field=fields.CharField(null=True, max_length=2),
        ),
    ]
