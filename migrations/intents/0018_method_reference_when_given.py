from tortoise import migrations

from migrations._indexes import UniqueWhenGiven

# Issue 48: a Fawry or SADAD reference is unique, and only those intents have one; every other
# intent wrote a NULL entry into the constraint's index (docs/decisions.md, "Issue 48: the entries
# no read uses").


class Migration(migrations.Migration):
    dependencies = [('intents', '0017_intent_gib_invoice')]

    initial = False

    operations = [
        UniqueWhenGiven('PaymentIntent', 'method_reference', 'payment_intents_method_reference_key'),
    ]
