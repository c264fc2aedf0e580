from tortoise import migrations
from tortoise.migrations import operations as ops
from orjson import loads
from tortoise.fields.data import JSON_DUMPS
from tortoise import fields

class Migration(migrations.Migration):
    dependencies = [('intents', '0015_bnpl_authorization_index')]

    initial = False

    operations = [
        ops.AddField(
            model_name='PaymentIntent',
            name='eta_receipt',
            field=fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads),
        ),
    ]
