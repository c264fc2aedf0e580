"""Verify a webhook delivery: the raw body on stdin, the x-service-signature header in
QAFILA_SIGNATURE, the endpoint's secret in QAFILA_WEBHOOK_SECRET. Prints the event's type.

    QAFILA_SIGNATURE=... QAFILA_WEBHOOK_SECRET=... python examples/verify_webhook.py < body.json
"""
import os
import sys

from qafila import SignatureVerificationError, verify_webhook

body = sys.stdin.buffer.read()
try:
    event = verify_webhook(body, os.environ.get("QAFILA_SIGNATURE", ""), os.environ.get("QAFILA_WEBHOOK_SECRET", ""))
except SignatureVerificationError as e:
    print(f"webhook rejected: {e}", file=sys.stderr)
    sys.exit(1)
print(event.type)
