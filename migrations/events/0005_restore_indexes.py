from tortoise import migrations

from migrations._indexes import RestoreIndexes


class Migration(migrations.Migration):
    dependencies = [('events', '0004_model_options')]

    initial = False

    # On SQLite the fanned_out column's add and drop (0002, 0003) remade the events table and lost
    # its list index and its per-object index: the events list and an object's events read the
    # whole table.
    operations = [RestoreIndexes('Event')]
