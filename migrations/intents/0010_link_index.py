from tortoise import migrations
from tortoise.migrations import operations as ops

# The link's id in an intent's metadata (services/payments/links.py `_LINK_OF_INTENT` reads the same).
_LINK = {"postgres": "(metadata->>'payment_link')", "sqlite": "json_extract(metadata, '$.payment_link')"}


async def link_index(apps, editor) -> None:
    """The intents that paid a payment link (through a local method), by the link's id: a link's
    totals read them, and without it read every intent of the table."""
    link = _LINK["postgres" if editor.DIALECT == "postgres" else "sqlite"]
    # With the join's other columns: on the link's id alone the generic plan, which cannot tell
    # how many intents one link has, also read the merchant's (status) index and ANDed the two.
    await editor._run_sql(f"CREATE INDEX IF NOT EXISTS payment_intents_link ON payment_intents "
                          f"({link}, merchant_id, livemode, status) WHERE {link} IS NOT NULL")


class Migration(migrations.Migration):
    dependencies = [('intents', '0009_approved_index')]

    initial = False

    operations = [ops.RunPython(link_index)]
