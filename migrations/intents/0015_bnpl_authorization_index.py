from tortoise import migrations
from tortoise.migrations import operations as ops


class Migration(migrations.Migration):
    dependencies = [('intents', '0014_no_shared_row_keys')]

    initial = False

    # The BNPL authorizations still open (requires_capture), in expires_at order: the scheduler's
    # release reads them (services/payments/bnpl.py, whose statement repeats this predicate as a
    # literal so PostgreSQL can use the index under a generic plan); every other intent is left out.
    operations = [
        ops.RunSQL(
            "CREATE INDEX IF NOT EXISTS payment_intents_authorized_expiry ON payment_intents (expires_at, id) "
            "WHERE status = 'requires_capture'"),
    ]
