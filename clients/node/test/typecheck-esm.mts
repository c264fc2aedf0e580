// The ESM view of the declarations (compiled, not run, by test/types.test.mjs).
import Qafila, { Qafila as Named, PaymentIntent, verifyWebhook } from 'qafila';

const client: Named = new Qafila('sk_test_...', { baseUrl: 'http://127.0.0.1:8000' });
export async function run(): Promise<string> {
  const intent: PaymentIntent = await client.paymentIntents.create({ amount: 10000, currency: 'TRY', payment_method: 'card' });
  for await (const pi of client.paymentIntents.list({ limit: 2 })) { void pi.id; }
  return verifyWebhook('{}', 'sig', 'secret').type + intent.id;
}
