// Create a 10000 TRY card intent, confirm it with the test method pm_card_visa, read it back, walk
// the intents list (page size 2, first 5 items) and print the retrieved intent as one JSON line.
//   QAFILA_API_KEY=sk_test_... QAFILA_BASE_URL=http://127.0.0.1:8000 node examples/quickstart.mjs
import { Qafila } from 'qafila';

const client = new Qafila(process.env.QAFILA_API_KEY, { baseUrl: process.env.QAFILA_BASE_URL });

let intent = await client.paymentIntents.create({ amount: 10000, currency: 'TRY', payment_method: 'card' });
await client.paymentIntents.confirm(intent.id, { payment_method_id: 'pm_card_visa' });
intent = await client.paymentIntents.retrieve(intent.id);

let n = 0;
for await (const pi of client.paymentIntents.list({ limit: 2 })) {
  console.error(pi.id, pi.status, pi.amount, pi.currency);
  if (++n === 5) break;
}

console.log(JSON.stringify(intent));
