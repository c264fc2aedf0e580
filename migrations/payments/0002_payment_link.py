from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise import fields
from tortoise.indexes import Index

class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial'), ('payments', '0001_initial')]

    initial = False

    operations = [
        ops.AddField(
            model_name='Payment',
            name='payment_link',
            field=fields.CharField(null=True, max_length=40),
        ),
        ops.AddIndex(
            model_name='Payment',
            index=Index(fields=['payment_link', 'status']),
        ),
    ]
