from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise import fields

class Migration(migrations.Migration):
    dependencies = [('intents', '0006_installments')]

    initial = False

    operations = [
        ops.AddField(
            model_name='PaymentIntent',
            name='installment_count',
            field=fields.SmallIntField(default=1, null=True),
        ),
        # Rows already there were paid in one go (a NOT NULL column without a database default
        # cannot be added to a table with rows).
        ops.RunSQL("UPDATE payment_intents SET installment_count = 1 WHERE installment_count IS NULL"),
    ]
