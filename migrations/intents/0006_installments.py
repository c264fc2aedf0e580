from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise import fields

class Migration(migrations.Migration):
    dependencies = [('intents', '0005_local_methods')]

    initial = False

    operations = [
        ops.AddField(
            model_name='PaymentIntent',
            name='installments',
            field=fields.JSONField(null=True),
        ),
        ops.AddField(
            model_name='PaymentMethod',
            name='issuer',
            field=fields.JSONField(null=True),
        ),
    ]
