from tortoise import migrations
from tortoise.migrations import operations as ops
from models.money import WhereIndex

# Issue 48: a link's payments are indexed when they have a link (most payments are the API's), and
# no read asks for the attempts by provider (docs/decisions.md, "Issue 48: the entries no read uses").


class Migration(migrations.Migration):
    dependencies = [('core', '0001_initial'), ('core', '0002_list_counts'), ('core', '0003_no_shared_row_keys'), ('core', '0004_require_two_factor'), ('payments', '0015_attempt_no_key')]

    initial = False

    operations = [
        ops.RemoveIndex(
            model_name='Payment',
            name=None,
            fields=['payment_link', 'status'],
        ),
        ops.AddIndex(
            model_name='Payment',
            index=WhereIndex(fields=['payment_link', 'status'], name='payments_of_links', where='"payment_link" IS NOT NULL'),
        ),
        ops.RemoveIndex(
            model_name='PaymentAttempt',
            name=None,
            fields=['provider', 'created_at'],
        ),
    ]
