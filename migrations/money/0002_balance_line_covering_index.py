from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise.indexes import Index

class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial'), ('money', '0001_initial')]

    initial = False

    operations = [
        ops.RemoveIndex(
            model_name='BalanceLine',
            name=None,
            fields=['settlement_id', 'merchant_id', 'livemode', 'currency', 'created_at'],
        ),
        ops.AddIndex(
            model_name='BalanceLine',
            index=Index(fields=['settlement_id', 'merchant_id', 'livemode', 'currency', 'created_at', 'net']),
        ),
    ]
