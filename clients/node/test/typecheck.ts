// Compiled (not run) by test/types.test.mjs with `tsc --noEmit`: the declarations describe the API.
import Qafila, { CardError, PaymentIntent, Payment, verifyWebhook, WebhookEvent, Page } from 'qafila';

async function main(): Promise<void> {
  const client = new Qafila('sk_test_...', { baseUrl: 'http://127.0.0.1:8000', maxRetries: 2 });
  const intent: PaymentIntent = await client.paymentIntents.create({ amount: 10000, currency: 'TRY', payment_method: 'card' });
  const status: 'succeeded' | string = (await client.paymentIntents.confirm(intent.id, { payment_method_id: 'pm_card_visa' })).status;
  const fee: number = intent.fee.breakdown.processing;
  const refunded: PaymentIntent = await client.paymentIntents.refund(intent.id, { amount: 500, reason: 'damaged' },
    { idempotencyKey: 'k' });
  const refundedSoFar: number = refunded.amount_refunded;
  const refundId: string | undefined = refunded.refund?.id;
  await client.paymentIntents.cancel(intent.id, { cancellation_reason: 'duplicate' });
  // @ts-expect-error: a refund amount is a number
  await client.paymentIntents.refund(intent.id, { amount: '500' });
  const page: Page<PaymentIntent> = await client.paymentIntents.list({ limit: 2, created: { gte: 1767225600 } });
  for await (const pi of client.paymentIntents.list({ limit: 2 })) { const id: string = pi.id; void id; }
  try {
    const p: Payment = await client.payments.create({ amount: 1000, currency: 'TRY',
      payment_method: { card: { number: '4242424242424242', exp_month: 12, exp_year: 2030 } } });
    await client.payments.refund(p.id, { amount: 500 });
  } catch (e) {
    if (e instanceof CardError) { const d: string | null = e.declineCode; void d; }
  }
  const ev: WebhookEvent<PaymentIntent> = verifyWebhook<PaymentIntent>('{}', 'sig', 'secret');
  const amount: number = ev.data.object.amount;
  // @ts-expect-error: an unknown field is a compile error
  await client.paymentIntents.create({ amount: 1, currency: 'TRY', payment_method: 'card', surcharge: 5 });
  void status; void fee; void page; void amount; void refundedSoFar; void refundId;
}
void main;
