from tortoise import migrations
from tortoise.fields.base import OnDelete
from tortoise import fields

from migrations._keys import DropForeignKey

class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial'), ('core', '0002_list_counts'), ('events', '0005_restore_indexes'), ('webhooks', '0001_initial'), ('webhooks', '0002_mark_fanned_out_events')]

    initial = False

    operations = [
        DropForeignKey(
            model_name='WebhookDelivery',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='webhook_deliveries', on_delete=OnDelete.CASCADE),
        ),
        DropForeignKey(
            model_name='WebhookEndpoint',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='webhook_endpoints', on_delete=OnDelete.CASCADE),
        ),
    ]
