from tortoise import migrations
from tortoise.migrations import operations as ops


class RemoveIndexIfThere(ops.RemoveIndex):
    """RemoveIndex that does not fail where the index was never made (an embedded SQLite database
    made by the early migrations has none of the model's plain indexes)."""

    async def database_forward(self, app_label, old_state, new_state, state_editor=None) -> None:
        if not state_editor:
            return
        model = old_state.apps.get_model(f"{app_label}.{self.model_name}")
        index = self._find_index(old_state.models[(app_label, self.model_name)])
        await state_editor._run_sql(f'DROP INDEX IF EXISTS "{state_editor._index_name_for_model(model, index)}"')


class Migration(migrations.Migration):
    dependencies = [('intents', '0008_open_expiry_index')]

    initial = False

    operations = [
        # The Fawry expiry reads the open intents' partial index (0008) now, as the other expiry
        # reads do: this index cost every intent written and every status change an entry.
        RemoveIndexIfThere(
            model_name='PaymentIntent',
            name=None,
            fields=['status', 'expires_at'],
        ),
        # The approved intents of a merchant's window, in succeeded_at order: analytics by method
        # and by installment count (services/payments/method_analytics.py, installments.py), which
        # read every intent of the table without it. Unpaid intents, most of the writes, are not in it.
        ops.RunSQL(
            "CREATE INDEX IF NOT EXISTS payment_intents_approved ON payment_intents "
            "(merchant_id, livemode, currency, succeeded_at) WHERE succeeded_at IS NOT NULL"),
    ]
