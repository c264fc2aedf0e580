from tortoise import migrations
from tortoise.migrations import operations as ops

class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial'), ('events', '0002_event_fanned_out'), ('webhooks', '0001_initial')]

    initial = False

    operations = [
        # Events fanned out before events.fanned_out existed are marked, so the fan-out does not
        # look at them again.
        ops.RunSQL("UPDATE events SET fanned_out = TRUE WHERE id IN (SELECT event_id FROM webhook_fanouts)"),
        ops.AlterModelOptions(
            name='WebhookFanout',
            options={'table': 'webhook_fanouts', 'app': 'webhooks', 'pk_attr': 'event_id', 'table_description': 'Marks an event whose deliveries were created: the primary key makes fan-out happen once'},
        ),
    ]
