from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise import fields

from migrations._receipt_tokens import backfill


async def _backfill(apps, schema_editor):
    await backfill(schema_editor.client, "payment_intents", ("succeeded", "refunded"))


class Migration(migrations.Migration):
    dependencies = [('core', '0002_list_counts'), ('intents', '0003_intent_refunds')]

    initial = False

    operations = [
        # receipt_url = {pay_url}/{id}/receipt/{receipt_token}: the id alone opens no receipt (issue 22).
        ops.AddField(
            model_name='PaymentIntent',
            name='receipt_token',
            field=fields.CharField(null=True, max_length=64),
        ),
        # An intent created without `locale` keeps none: its pages follow the buyer (issue 22).
        ops.AlterField(
            model_name='PaymentIntent',
            name='locale',
            field=fields.CharField(null=True, max_length=2),
        ),
        ops.RunPython(_backfill, ops.RunPython.noop),
    ]
