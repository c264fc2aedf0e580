from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise.fields.base import OnDelete
from tortoise import fields

class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial')]

    initial = False

    operations = [
        ops.CreateModel(
            name='ListCount',
            fields=[
                ('id', fields.BigIntField(generated=True, primary_key=True, unique=True, db_index=True)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=True, to_field='id', related_name='list_counts', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('kind', fields.CharField(max_length=16)),
                ('slot', fields.SmallIntField()),
                ('n', fields.BigIntField(default=0)),
            ],
            options={'table': 'list_counts', 'app': 'core', 'unique_together': (('merchant_id', 'livemode', 'kind', 'slot'),), 'pk_attr': 'id', 'table_description': 'How many rows one tenant\'s list holds (`kind`: "intents", "payments"), added to in the same'},
            bases=['Model'],
        ),
    ]
