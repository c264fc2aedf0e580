from tortoise import migrations
from tortoise.migrations import operations as ops

# Issue 48: no read asks for an object's events by its id; every event paid an entry in this index
# (docs/decisions.md, "Issue 48: the entries no read uses").


class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial'), ('core', '0002_list_counts'), ('core', '0003_no_shared_row_keys'), ('core', '0004_require_two_factor'), ('events', '0007_waiting_no_key')]

    initial = False

    operations = [
        ops.RemoveIndex(
            model_name='Event',
            name=None,
            fields=['object_id'],
        ),
    ]
