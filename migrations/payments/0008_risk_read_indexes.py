from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise.indexes import Index

class Migration(migrations.Migration):
    dependencies = [('payments', '0007_attempts_payment_index')]

    initial = False

    # The risk reads of a payment create walk these indexes backwards from now with every one of
    # their equalities in the index (issue 26): the amount history by currency, the card and the
    # client address by mode. The two they replace left `livemode` to a filter.
    operations = [
        ops.RemoveIndex(
            model_name='Payment',
            name=None,
            fields=['card_fingerprint', 'created_at'],
        ),
        ops.RemoveIndex(
            model_name='Payment',
            name=None,
            fields=['merchant_id', 'client_address', 'created_at'],
        ),
        ops.AddIndex(
            model_name='Payment',
            index=Index(fields=['merchant_id', 'livemode', 'currency', 'created_at']),
        ),
        ops.AddIndex(
            model_name='Payment',
            index=Index(fields=['card_fingerprint', 'livemode', 'created_at']),
        ),
        ops.AddIndex(
            model_name='Payment',
            index=Index(fields=['merchant_id', 'livemode', 'client_address', 'created_at']),
        ),
    ]
