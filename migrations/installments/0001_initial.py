from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise.fields.base import OnDelete
from tortoise import fields

class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial')]

    initial = True

    operations = [
        ops.CreateModel(
            name='InstallmentPlanSet',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=60)),
                ('merchant', fields.ForeignKeyField('core.Merchant', source_field='merchant_id', db_constraint=True, to_field='id', related_name='installment_plans', on_delete=OnDelete.CASCADE)),
                ('livemode', fields.BooleanField()),
                ('plans', fields.JSONField(default=list)),
                ('updated_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'installment_plans', 'app': 'installments', 'pk_attr': 'id', 'table_description': "The plans of one merchant and mode"},
            bases=['Model'],
        ),
    ]
