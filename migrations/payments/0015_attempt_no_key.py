from tortoise import migrations
from tortoise.fields.base import OnDelete
from tortoise import fields

from migrations._keys import DropForeignKey

# A payment's attempt is written in the payment's own statement (docs/decisions.md, "Issue 48: the
# keys within one write").


class Migration(migrations.Migration):
    dependencies = [('payments', '0014_customer_address')]

    initial = False

    operations = [
        DropForeignKey(
            model_name='PaymentAttempt',
            name='payment',
            field=fields.ForeignKeyField('payments.Payment', source_field='payment_id', db_constraint=False, to_field='id', related_name='attempts', on_delete=OnDelete.CASCADE),
        ),
    ]
