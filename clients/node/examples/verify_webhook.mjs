// Verify a webhook delivery: the raw body on stdin, the x-service-signature header in QAFILA_SIGNATURE,
// the endpoint's secret in QAFILA_WEBHOOK_SECRET. Prints the event's type; exit 1 when it does not match.
//   QAFILA_SIGNATURE=... QAFILA_WEBHOOK_SECRET=... node examples/verify_webhook.mjs < body.json
import { verifyWebhook, SignatureVerificationError } from 'qafila';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const body = Buffer.concat(chunks);

try {
  const event = verifyWebhook(body, process.env.QAFILA_SIGNATURE, process.env.QAFILA_WEBHOOK_SECRET);
  console.log(event.type);
} catch (e) {
  if (!(e instanceof SignatureVerificationError)) throw e;
  console.error(`webhook rejected: ${e.message}`);
  process.exit(1);
}
