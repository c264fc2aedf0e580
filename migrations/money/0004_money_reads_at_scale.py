from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise.indexes import Index

from models.money import WhereIndex

# Issue 26 (balance and analytics at 1,000,000 payments): the balance read scans only the
# unsettled lines' own partial index, and the providers read sums latency counts from an index
# that holds them (index-only scans, docs/decisions.md).


class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial'), ('money', '0003_rollup_slots')]

    initial = False

    operations = [
        ops.AddIndex(
            model_name='BalanceLine',
            index=WhereIndex(fields=['merchant_id', 'livemode', 'currency', 'created_at', 'net'],
                             name='balance_lines_unsettled', where='"settlement_id" IS NULL'),
        ),
        ops.AddIndex(
            model_name='LatencyRollup',
            index=Index(fields=['merchant_id', 'livemode', 'currency', 'day', 'provider', 'bucket', 'count'],
                        name='latency_rollups_window'),
        ),
    ]
