from tortoise import migrations
from tortoise.migrations import operations as ops
from orjson import loads
from tortoise.fields.data import JSON_DUMPS
from tortoise import fields

from models.money import WhereIndex

# Issue 36: a payment that asks for an invoice (invoice: true) is made one by the scheduler; the
# rows still waiting for theirs are a partial index's.

class Migration(migrations.Migration):
    dependencies = [('payments', '0011_payment_wallet')]

    initial = False

    operations = [
        ops.AddField(
            model_name='Payment',
            name='invoice_requested',
            field=fields.BooleanField(default=False, null=True),     # null on the rows that were there
        ),
        ops.AddField(
            model_name='Payment',
            name='invoice_id',
            field=fields.CharField(null=True, max_length=40),
        ),
        ops.AddField(
            model_name='Payment',
            name='gib',
            field=fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads),
        ),
        ops.AddIndex(
            model_name='Payment',
            index=WhereIndex(fields=['livemode', 'created_at'], name='payments_invoice_wanted',
                             where='"invoice_requested" AND "invoice_id" IS NULL'),
        ),
    ]
