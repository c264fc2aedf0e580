from tortoise import migrations
from tortoise.migrations import operations as ops


class Migration(migrations.Migration):
    dependencies = [('intents', '0007_installment_count')]

    initial = False

    # The intents expiry may still cancel, in expires_at order (services/payments/expiry_due.py,
    # whose statements repeat this predicate as literals so PostgreSQL can use the index under a
    # generic plan): terminal intents, nearly all of a busy table, are not in it.
    operations = [
        ops.RunSQL(
            "CREATE INDEX IF NOT EXISTS payment_intents_open_expiry ON payment_intents (expires_at, id) WHERE "
            "(status IN ('requires_payment_method', 'requires_confirmation', 'requires_action') "
            "OR (status = 'failed' AND COALESCE(failure_code, '') <> 'expired') "
            "OR (status = 'processing' AND payment_method = 'crypto'))"),
    ]
