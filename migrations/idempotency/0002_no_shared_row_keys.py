from tortoise import migrations
from tortoise.fields.base import OnDelete
from tortoise import fields

from migrations._keys import DropForeignKey

class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial'), ('core', '0002_list_counts'), ('idempotency', '0001_initial')]

    initial = False

    operations = [
        DropForeignKey(
            model_name='IdempotencyKey',
            name='merchant',
            field=fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=False, to_field='id', related_name='idempotency_keys', on_delete=OnDelete.CASCADE),
        ),
    ]
