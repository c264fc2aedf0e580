from tortoise import migrations

from migrations._indexes import RestoreIndexes


class Migration(migrations.Migration):
    dependencies = [('intents', '0012_model_options')]

    initial = False

    # On SQLite the column changes of the intents and their saved payment methods remade both
    # tables and lost their list indexes: every list page read and sorted the whole table.
    operations = [RestoreIndexes('PaymentIntent'), RestoreIndexes('PaymentMethod')]
