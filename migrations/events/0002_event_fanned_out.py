from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise import fields
from tortoise.indexes import Index

class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial'), ('events', '0001_initial')]

    initial = False

    operations = [
        ops.AddField(
            model_name='Event',
            name='fanned_out',
            field=fields.BooleanField(default=False, db_default=False),
        ),
        ops.AddIndex(
            model_name='Event',
            index=Index(fields=['fanned_out', 'created_at']),
        ),
    ]
