from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise.indexes import Index

class Migration(migrations.Migration):
    dependencies = [('payments', '0006_installments')]

    initial = False

    operations = [
        # Deleting a merchant cascades to its payments and their attempts: without an index on
        # payment_attempts.payment_id every deleted payment scanned the whole table.
        ops.AddIndex(
            model_name='PaymentAttempt',
            index=Index(fields=['payment_id', 'number']),
        ),
    ]
