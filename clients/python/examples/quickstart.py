"""Create a 10000 TRY card intent, confirm it with the test method pm_card_visa, read it back, walk
the intents list (page size 2, first 5 items) and print the retrieved intent as one JSON line.

    QAFILA_API_KEY=sk_test_... QAFILA_BASE_URL=http://127.0.0.1:8000 python examples/quickstart.py
"""
import itertools
import os
import sys

from qafila import Qafila

client = Qafila(os.environ["QAFILA_API_KEY"], base_url=os.environ.get("QAFILA_BASE_URL"))

intent = client.payment_intents.create(amount=10000, currency="TRY", payment_method="card")
client.payment_intents.confirm(intent.id, payment_method_id="pm_card_visa")
intent = client.payment_intents.retrieve(intent.id)

for pi in itertools.islice(client.payment_intents.list(limit=2).auto_paging_iter(), 5):
    print(f"{pi.id} {pi.status} {pi.amount} {pi.currency}", file=sys.stderr)

print(intent.to_json())
