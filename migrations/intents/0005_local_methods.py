from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise import fields


class Migration(migrations.Migration):
    dependencies = [('core', '0002_list_counts'), ('intents', '0004_receipt_token_locale')]

    initial = False

    operations = [
        # Sandbox behaviours are longer than 12 characters (insufficient_funds: a mada test card).
        ops.AlterField(
            model_name='PaymentMethod',
            name='test_behaviour',
            field=fields.CharField(max_length=24, default='ok'),
        ),
        ops.AddField(
            model_name='PaymentMethod',
            name='networks',
            field=fields.JSONField(null=True),
        ),
        ops.AddField(
            model_name='PaymentIntent',
            name='method_details',
            field=fields.JSONField(null=True),
        ),
        ops.AddField(
            model_name='PaymentIntent',
            name='method_reference',
            field=fields.CharField(null=True, max_length=40, unique=True),
        ),
    ]
