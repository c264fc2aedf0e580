from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise.fields.base import OnDelete
from tortoise import fields
from tortoise.indexes import Index

class Migration(migrations.Migration):
    dependencies = [('events', '0002_event_fanned_out'), ('webhooks', '0002_mark_fanned_out_events')]

    initial = False

    operations = [
        ops.CreateModel(
            name='EventWaiting',
            fields=[
                ('event', fields.OneToOneField('events.Event', source_field='event_id', primary_key=True, db_index=True, db_constraint=True, to_field='id', related_name='waiting', on_delete=OnDelete.CASCADE)),
                ('merchant_id', fields.CharField(max_length=40)),
                ('livemode', fields.BooleanField()),
                ('type', fields.CharField(max_length=64)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'events_waiting', 'app': 'events', 'indexes': [Index(fields=['created_at'])], 'pk_attr': 'event_id', 'table_description': 'An event the webhook fan-out has not taken yet: written with the event (services/events.py'},
            bases=['Model'],
        ),
        # The events not fanned out yet wait in the new table (no event is lost on the way).
        ops.RunSQL("INSERT INTO events_waiting (event_id, merchant_id, livemode, type, created_at) "
                   "SELECT id, merchant_id, livemode, type, created_at FROM events WHERE NOT fanned_out"),
        ops.RemoveIndex(
            model_name='Event',
            name=None,
            fields=['fanned_out', 'created_at'],
        ),
        ops.RemoveField(model_name='Event', name='fanned_out'),
    ]
