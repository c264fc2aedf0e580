from tortoise import migrations
from tortoise.migrations import operations as ops

class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial'), ('core', '0002_list_counts'), ('installments', '0001_initial')]

    initial = False

    operations = [
        ops.AlterModelOptions(
            name='InstallmentPlanSet',
            options={'table': 'installment_plans', 'app': 'installments', 'pk_attr': 'id', 'table_description': 'The plans of one merchant and mode: [{program, paid_by, options: [{count, commission_bps}]}].'},
        ),
    ]
