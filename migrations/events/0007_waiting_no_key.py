from tortoise import migrations
from tortoise.fields.base import OnDelete
from tortoise import fields

from migrations._keys import DropForeignKey

# An event's waiting row is written in the event's own statement: its foreign key checked a row
# the statement had just written, and the check's plan, made per connection while the events table
# was small, read the whole table until the next ANALYZE (docs/decisions.md, "Issue 48: the keys
# within one write").


class Migration(migrations.Migration):
    dependencies = [('events', '0006_no_shared_row_keys')]

    initial = False

    operations = [
        DropForeignKey(
            model_name='EventWaiting',
            name='event',
            field=fields.OneToOneField('events.Event', source_field='event_id', primary_key=True, db_index=True, db_constraint=False, to_field='id', related_name='waiting', on_delete=OnDelete.CASCADE),
        ),
    ]
