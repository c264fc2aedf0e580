from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise.indexes import Index

class Migration(migrations.Migration):
    dependencies = [('core', '0002_list_counts'), ('intents', '0001_initial')]

    initial = False

    operations = [
        ops.RemoveIndex(
            model_name='PaymentIntent',
            name=None,
            fields=['merchant_id', 'livemode', 'created_at'],
        ),
        ops.AddIndex(
            model_name='PaymentIntent',
            index=Index(fields=['merchant_id', 'livemode', 'created_at', 'id']),
        ),
        # The list's total for the rows already there (new rows add to it in their own write).
        ops.RunSQL("INSERT INTO list_counts (merchant_id, livemode, kind, slot, n) "
                   "SELECT merchant_id, livemode, 'intents', 0, COUNT(*) FROM payment_intents GROUP BY merchant_id, livemode"),
    ]
