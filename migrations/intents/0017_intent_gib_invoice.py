from tortoise import migrations
from tortoise.migrations import operations as ops
from orjson import loads
from tortoise.fields.data import JSON_DUMPS
from tortoise import fields

# A /v1 payment intent that asks for an invoice (invoice: true) is made one by the scheduler
# (gib.intent_invoice); the rows still waiting for theirs are a partial index's, as the payments'.


class Migration(migrations.Migration):
    dependencies = [('intents', '0016_intent_eta_receipt')]

    initial = False

    operations = [
        ops.AddField(
            model_name='PaymentIntent',
            name='invoice_requested',
            field=fields.BooleanField(default=False, null=True),     # null on the rows that were there
        ),
        ops.AddField(
            model_name='PaymentIntent',
            name='invoice_id',
            field=fields.CharField(null=True, max_length=40),
        ),
        ops.AddField(
            model_name='PaymentIntent',
            name='gib',
            field=fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads),
        ),
        ops.RunSQL(
            'CREATE INDEX IF NOT EXISTS payment_intents_invoice_wanted ON payment_intents (livemode, created_at) '
            'WHERE "invoice_requested" AND "invoice_id" IS NULL'),
    ]
