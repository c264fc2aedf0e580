from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise.migrations.constraints import UniqueConstraint
from tortoise import fields

# The daily rollups spread over slot rows (models._rows.counter_slot), summed when read: every
# payment of a merchant added to the same row, so concurrent creates queued on its row lock
# until each commit. The rows already there keep their figures as slot 0.


class RemoveUniqueTogether(ops.RemoveConstraint):
    """RemoveConstraint of a unique_together, also on SQLite: there the constraint is part of the
    table's CREATE TABLE (its index cannot be dropped), so the table is made again from the new
    state of the model, as SQLite's schema editor does for any change it cannot ALTER (the
    rollup tables have no other index to make again)."""

    async def database_forward(self, app_label, old_state, new_state, state_editor=None) -> None:
        if state_editor is not None and state_editor.DIALECT == "sqlite":
            await state_editor._remake_table(new_state.apps.get_model(f"{app_label}.{self.model_name}"))
            return
        await super().database_forward(app_label, old_state, new_state, state_editor)


class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial'), ('money', '0002_balance_line_covering_index')]

    initial = False

    operations = [
        ops.AddField(
            model_name='PaymentRollup',
            name='slot',
            field=fields.SmallIntField(default=0, db_default=0),
        ),
        RemoveUniqueTogether(
            model_name='PaymentRollup',
            fields=['merchant_id', 'livemode', 'currency', 'day', 'provider'],
        ),
        ops.AddConstraint(
            model_name='PaymentRollup',
            constraint=UniqueConstraint(fields=('merchant_id', 'livemode', 'currency', 'day', 'provider', 'slot')),
        ),
        ops.AddField(
            model_name='LatencyRollup',
            name='slot',
            field=fields.SmallIntField(default=0, db_default=0),
        ),
        RemoveUniqueTogether(
            model_name='LatencyRollup',
            fields=['merchant_id', 'livemode', 'currency', 'day', 'provider', 'bucket'],
        ),
        ops.AddConstraint(
            model_name='LatencyRollup',
            constraint=UniqueConstraint(fields=('merchant_id', 'livemode', 'currency', 'day', 'provider', 'bucket',
                                                'slot')),
        ),
    ]
