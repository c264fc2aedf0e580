from tortoise import migrations
from tortoise.migrations import operations as ops
from orjson import loads
from tortoise.fields.data import JSON_DUMPS
from tortoise import fields


class Migration(migrations.Migration):
    dependencies = [('billing', '0002_invoice_deliveries')]

    initial = False

    operations = [
        ops.AddField(
            model_name='Invoice',
            name='zatca',
            field=fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads),
        ),
    ]
