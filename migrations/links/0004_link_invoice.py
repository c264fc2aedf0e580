from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise import fields

# Issue 36: a payment link whose payments ask for an invoice (a Turkish e-invoice).


class Migration(migrations.Migration):
    dependencies = [('links', '0003_no_shared_row_keys')]

    initial = False

    operations = [
        ops.AddField(
            model_name='PaymentLink',
            name='invoice',
            field=fields.BooleanField(default=False, null=True),     # null on the rows that were there
        ),
    ]
