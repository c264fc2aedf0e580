from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise.indexes import Index

class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial'), ('core', '0002_list_counts'), ('events', '0003_events_waiting')]

    initial = False

    operations = [
        ops.AlterModelOptions(
            name='EventWaiting',
            options={'table': 'events_waiting', 'app': 'events', 'indexes': [Index(fields=['created_at'])], 'pk_attr': 'event_id', 'table_description': 'An event the webhook fan-out has not taken yet: written with the event (services/events.py'},
        ),
    ]
