from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise.indexes import Index


class Migration(migrations.Migration):
    dependencies = [('intents', '0010_link_index')]

    initial = False

    # The list filtered by status (`GET /v1/payments?status=...`, GraphQL paymentIntents(status:)):
    # its page and its capped total read the intents of that status only. On the keyset index
    # alone they read every intent of the merchant when the status is rare (1-3.3 s at 1,000,000).
    operations = [
        ops.AddIndex(
            model_name='PaymentIntent',
            index=Index(fields=['merchant_id', 'livemode', 'status', 'created_at', 'id']),
        ),
    ]
