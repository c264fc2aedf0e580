// Against a live `qafila serve`: the flows, pagination, a retried POST, typed errors, webhooks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import {
  Qafila, AuthenticationError, CardError, IdempotencyError, InvalidRequestError, NotFoundError, QafilaError,
  SignatureVerificationError, verifyWebhook, constructEvent,
} from 'qafila';
import { API_KEY, BASE_URL, CARD, SKIP_LIVE, missingRoute, parseInterfaces, uid } from './helpers.mjs';

const DECLARED = parseInterfaces(readFileSync(new URL('../types/models.d.ts', import.meta.url), 'utf8'));
const client = () => new Qafila(API_KEY, { baseUrl: BASE_URL, backoffBase: 50 });

/** Every field the live service sent is one the interface declares (catches gaps in /openapi.json too). */
function assertKnownFields(name, obj) {
  const unknown = Object.keys(obj).filter((k) => !DECLARED[name].has(k));
  assert.deepEqual(unknown, [], `${name}: the service sent fields the library does not know`);
}

const live = { skip: SKIP_LIVE };

test('intent: create -> confirm -> retrieve', live, async () => {
  const c = client();
  const intent = await c.paymentIntents.create({ amount: 10000, currency: 'TRY', payment_method: 'card',
    order_id: `node-${uid()}`, metadata: { lib: 'node' } });
  assert.match(intent.id, /^pay_/);
  assert.equal(intent.status, 'requires_payment_method');
  assert.equal(intent.amount_received, 0);
  assert.equal(intent.net_amount, 10000 - intent.fee.amount);
  assertKnownFields('PaymentIntent', intent);
  const confirmed = await c.paymentIntents.confirm(intent.id, { payment_method_id: 'pm_card_visa',
    return_url: 'https://shop.example/return' });
  assert.equal(confirmed.status, 'succeeded');
  assert.ok(confirmed.succeeded_at);
  const got = await c.paymentIntents.retrieve(intent.id);
  assert.equal(got.status, 'succeeded');
  assert.equal(got.amount_received, 10000);
  assert.deepEqual(got.metadata, { lib: 'node' });
  assertKnownFields('PaymentIntent', got);
});

test('intent: refund partly, idempotently, then fully; errors typed', live, async () => {
  const c = client();
  const intent = await c.paymentIntents.create({ amount: 10000, currency: 'TRY', payment_method: 'card' });
  await c.paymentIntents.confirm(intent.id, { payment_method_id: 'pm_card_visa' });
  const key = `node-refund-${uid()}`;
  const part = await c.paymentIntents.refund(intent.id, { amount: 2500, reason: 'damaged' }, { idempotencyKey: key });
  assert.equal(part.status, 'succeeded');
  assert.equal(part.amount_refunded, 2500);
  assert.match(part.refund.id, /^ref_/);
  assert.equal(part.refund.amount, 2500);
  assert.equal(part.refund.payment_intent, intent.id);
  assertKnownFields('PaymentIntent', part);
  assertKnownFields('IntentRefund', part.refund);
  const again = await c.paymentIntents.refund(intent.id, { amount: 2500, reason: 'damaged' }, { idempotencyKey: key });
  assert.equal(again.refund.id, part.refund.id);
  const rest = await c.paymentIntents.refund(intent.id);
  assert.equal(rest.status, 'refunded');
  assert.equal(rest.amount_refunded, 10000);
  assert.equal(rest.refund.amount, 7500);
  await assert.rejects(c.paymentIntents.refund(intent.id), (e) => e instanceof InvalidRequestError
    && e.status === 400 && e.code === 'invalid_state' && /fully refunded/.test(e.message));
  const other = await c.paymentIntents.create({ amount: 5000, currency: 'KWD', payment_method: 'card' });
  await assert.rejects(c.paymentIntents.refund(other.id), (e) => e instanceof InvalidRequestError
    && e.code === 'invalid_state');
  await c.paymentIntents.confirm(other.id, { payment_method_id: 'pm_card_visa' });
  await assert.rejects(c.paymentIntents.refund(other.id, { amount: 5001 }), (e) => e instanceof InvalidRequestError
    && e.code === 'amount_too_large' && e.param === 'amount');
});

test('intent: cancel with a reason; a second cancel is a typed 400', live, async () => {
  const c = client();
  const intent = await c.paymentIntents.create({ amount: 10000, currency: 'TRY', payment_method: 'card' });
  const canceled = await c.paymentIntents.cancel(intent.id, { cancellation_reason: 'duplicate' });
  assert.equal(canceled.status, 'canceled');
  assert.equal(canceled.cancellation_reason, 'duplicate');
  await assert.rejects(c.paymentIntents.cancel(intent.id), (e) => e instanceof InvalidRequestError
    && e.code === 'invalid_state' && /cannot be canceled/.test(e.message));
});

test('local methods: types, redirect, Fawry reference, STC Pay code', live, async () => {
  const c = client();
  const types = await c.paymentMethodTypes.list({ currency: 'SAR' });
  assert.deepEqual(types.data.slice(0, 2).map((m) => m.type), ['card', 'mada']);
  assert.equal(types.data[1].display_name.ar, 'مدى');
  const knet = await c.paymentIntents.confirm((await c.paymentIntents.create({ amount: 10000, currency: 'KWD',
    payment_method: 'knet', return_url: 'https://shop.example/back' })).id);
  assert.equal(knet.next_action.type, 'redirect');
  assertKnownFields('PaymentIntent', knet);
  const fawry = await c.paymentIntents.confirm((await c.paymentIntents.create({ amount: 10000, currency: 'EGP',
    payment_method: 'fawry' })).id);
  assert.equal(fawry.next_action.type, 'display_reference');
  assert.equal((await c.testHelpers.fawryPay(fawry.next_action.reference)).status, 'succeeded');
  const stc = await c.paymentIntents.create({ amount: 10000, currency: 'SAR', payment_method: 'stcpay',
    phone: '+966550001122' });
  assert.equal((await c.paymentIntents.confirm(stc.id)).next_action.phone_hint, '****1122');
  await assert.rejects(c.paymentIntents.confirm(stc.id, { otp: '000000' }), (e) => e instanceof CardError);
  assert.equal((await c.paymentIntents.confirm(stc.id, { otp: '123456' })).status, 'succeeded');
});

test('payment: create -> retrieve -> refund (the /api refund)', live, async () => {
  const c = client();
  const p = await c.payments.create({ amount: 10000, currency: 'TRY', payment_method: { type: 'card', card: CARD },
    customer: { email: 'node@example.com', name: 'Node' }, metadata: { order: 'node-1' } });
  assert.equal(p.status, 'succeeded');
  assert.equal(p.payment_method.card.last4, '4242');
  assert.ok(p.routing_decision.strategy);
  assertKnownFields('Payment', p);
  assert.equal((await c.payments.retrieve(p.id)).amount, 10000);
  const r = await c.payments.refund(p.id, { amount: 1500, reason: 'damaged' });
  assert.match(r.refund_id, /^ref_/);
  assert.equal(r.amount_refunded, 1500);
  assertKnownFields('Refund', r);
  const r2 = await c.payments.refund(p.id);
  assert.equal(r2.status, 'refunded');
  assert.equal(r2.amount_refunded, 10000);
});

test('payment: capture and void', live, async () => {
  const c = client();
  const a = await c.payments.create({ amount: 5000, currency: 'KWD', capture: false, payment_method: { card: CARD } });
  assert.equal(a.status, 'authorized');
  const cap = await c.payments.capture(a.id, { amount: 4000 });
  assert.equal(cap.status, 'captured');
  assert.equal(cap.amount, 4000);
  const b = await c.payments.create({ amount: 5000, currency: 'KWD', capture: false, payment_method: { card: CARD } });
  assert.equal((await c.payments.void(b.id)).status, 'voided');
});

test('customers, subscriptions, invoices', live, async () => {
  const c = client();
  let cus = await c.customers.create({ email: `node-${uid()}@example.com`, name: 'Layla' });
  cus = await c.customers.update(cus.id, { phone: '+905551112233' });
  assert.equal((await c.customers.retrieve(cus.id)).phone, '+905551112233');
  assertKnownFields('Customer', cus);
  const sub = await c.subscriptions.create({ customer_id: cus.id, plan: 'Pro', amount: 9900, currency: 'TRY', interval: 'month' });
  assert.equal(sub.status, 'active');
  assertKnownFields('Subscription', sub);
  assert.equal((await c.subscriptions.pause(sub.id)).status, 'paused');
  assert.equal((await c.subscriptions.resume(sub.id)).status, 'active');
  assert.equal((await c.subscriptions.cancel(sub.id)).status, 'cancelled');
  const inv = await c.invoices.create({ customer_id: cus.id, currency: 'SAR', tax_rate: 15,
    items: [{ name: 'Setup', amount: 50000, quantity: 1 }] });
  assert.equal(inv.total, 57500);
  assertKnownFields('Invoice', inv);
  assert.equal((await c.invoices.send(inv.id, { channel: 'email' })).status, 'sent');
  assert.equal((await c.invoices.markPaid(inv.id)).status, 'paid');
  const ids = (await c.invoices.list({ customer_id: cus.id })).data.map((i) => i.id);
  assert.ok(ids.includes(inv.id));
});

test('payment links', live, async (t) => {
  const skip = await missingRoute('POST', '/api/payment-links');
  if (skip) return t.skip(skip);
  const c = client();
  const link = await c.paymentLinks.create({ amount: 25000, currency: 'TRY', description: 'Node link' });
  assert.match(link.id, /^lnk_/);
  assertKnownFields('PaymentLink', link);
  assert.equal((await c.paymentLinks.retrieve(link.id)).url, link.url);
  assert.equal((await c.paymentLinks.cancel(link.id)).status, 'cancelled');
});

test('balance', live, async (t) => {
  const skip = await missingRoute('GET', '/api/balance');
  if (skip) return t.skip(skip);
  const bal = await client().balance.retrieve();
  assert.ok(Array.isArray(bal.available) && Array.isArray(bal.pending));
  assertKnownFields('Balance', bal);
});

test('settlements', live, async (t) => {
  const skip = await missingRoute('GET', '/api/settlements');
  if (skip) return t.skip(skip);
  const c = client();
  const p = await c.payments.create({ amount: 10000, currency: 'TRY', payment_method: { card: CARD } });
  await c.request('POST', '/api/test-helpers/advance-clock', { body: { days: 2 } });   // test mode: settle now
  let found = false;
  for await (const s of c.settlements.list({ limit: 2 })) {
    assert.match(s.id, /^set_/);
    assertKnownFields('Settlement', s);
    assert.equal((await c.settlements.retrieve(s.id)).amount, s.amount);
    const lines = await c.settlements.listTransactions(s.id, { limit: 100 }).toArray();
    assert.equal(lines.length, s.transactions);
    for (const line of lines) {
      assertKnownFields('SettlementTransaction', line);
      if (line.payment_id === p.id) found = true;
    }
  }
  assert.ok(found, 'the payment is in no settlement after two days');
});

test('auto-pagination over more than one page', live, async () => {
  const c = client();
  const created = [];
  for (let i = 0; i < 5; i++) {
    created.push((await c.paymentIntents.create({ amount: 1000 + i, currency: 'TRY', payment_method: 'card' })).id);
  }
  let page = await c.paymentIntents.list({ limit: 2 });
  assert.equal(page.data.length, 2);
  assert.ok(page.hasMore);
  let pages = 0;
  while (page) { pages++; page = await page.nextPage(); }
  assert.ok(pages >= 3, `only ${pages} pages`);
  const seen = [];
  for await (const pi of c.paymentIntents.list({ limit: 2 })) seen.push(pi.id);
  assert.equal(new Set(seen).size, seen.length, 'auto-pagination repeated an item');
  assert.deepEqual(seen.slice(0, 5), [...created].reverse());
  const filtered = await c.paymentIntents.list({ limit: 2, status: 'requires_payment_method' }).toArray();
  assert.ok(filtered.every((p) => p.status === 'requires_payment_method'));
  assert.ok(created.every((id) => filtered.some((p) => p.id === id)));
  const customers = await c.customers.list({ limit: 2 }).toArray(7);
  assert.equal(new Set(customers.map((x) => x.id)).size, customers.length);
});

/** A fetch that lets the server process the first POST, then throws its answer away. */
function dropFirstAnswer() {
  const state = { posts: [], dropped: 0 };
  state.fetch = async (url, init) => {
    const res = await fetch(url, init);
    if (init.method === 'POST') {
      state.posts.push(init.headers['Idempotency-Key']);
      if (state.dropped === 0) {
        await res.arrayBuffer();
        state.dropped++;
        throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
      }
    }
    return res;
  };
  return state;
}

test('a retried POST creates one payment', live, async () => {
  const drop = dropFirstAnswer();
  const c = new Qafila(API_KEY, { baseUrl: BASE_URL, fetch: drop.fetch, backoffBase: 50 });
  const order = `retry-${uid()}`;
  const p = await c.payments.create({ amount: 4321, currency: 'TRY', payment_method: { card: CARD }, metadata: { order } });
  assert.equal(drop.dropped, 1);
  assert.equal(drop.posts.length, 2);
  assert.ok(drop.posts[0] && drop.posts[0] === drop.posts[1], 'the retry must reuse the key');
  const mine = [];
  for await (const x of c.payments.list({ limit: 100 })) {
    if (x.amount === 4321 && (await c.payments.retrieve(x.id)).metadata.order === order) mine.push(x.id);
  }
  assert.deepEqual(mine, [p.id]);

  const drop2 = dropFirstAnswer();
  const c2 = new Qafila(API_KEY, { baseUrl: BASE_URL, fetch: drop2.fetch, backoffBase: 50 });
  const pi = await c2.paymentIntents.create({ amount: 2345, currency: 'TRY', payment_method: 'card', order_id: order });
  assert.equal(drop2.posts[0], drop2.posts[1]);
  const intents = (await c2.paymentIntents.list({ limit: 100 }).toArray()).filter((x) => x.order_id === order);
  assert.deepEqual(intents.map((x) => x.id), [pi.id]);
});

test('typed errors', live, async () => {
  const c = client();
  await assert.rejects(new Qafila('sk_test_not_a_real_key', { baseUrl: BASE_URL }).paymentIntents.list(), (e) => {
    assert.ok(e instanceof AuthenticationError && e instanceof QafilaError);
    assert.equal(e.status, 401);
    assert.equal(e.code, 'invalid_api_key');
    assert.match(e.requestId, /^req_/);
    return true;
  });
  await assert.rejects(c.payments.create({ amount: 1000, currency: 'TRY',
    payment_method: { card: { ...CARD, number: '4000000000009995' } } }), (e) => {
    assert.ok(e instanceof CardError);
    assert.equal(e.status, 402);
    assert.equal(e.declineCode, 'insufficient_funds');
    assert.equal(e.decline_code, 'insufficient_funds');
    return true;
  });
  let pi = await c.paymentIntents.create({ amount: 10000, currency: 'TRY', payment_method: 'card' });
  await assert.rejects(c.paymentIntents.confirm(pi.id, { payment_method_id: 'pm_card_insufficientFunds' }), (e) => {
    assert.ok(e instanceof CardError);
    assert.equal(e.declineCode, 'insufficient_funds');
    assert.equal(e.param, 'payment_method_id');
    return true;
  });
  assert.equal((await c.paymentIntents.retrieve(pi.id)).status, 'failed');
  pi = await c.paymentIntents.create({ amount: 10000, currency: 'TRY', payment_method: 'card' });
  pi = await c.paymentIntents.confirm(pi.id, { payment_method_id: 'pm_card_threeDSecureRequired', return_url: 'https://shop.example/return' });
  assert.equal(pi.status, 'requires_action');
  assert.equal(pi.next_action.redirect_to_url.return_url, 'https://shop.example/return');
  await assert.rejects(c.paymentIntents.retrieve('pay_doesnotexist000000000'), (e) => {
    assert.ok(e instanceof NotFoundError && e instanceof InvalidRequestError);
    assert.equal(e.code, 'resource_not_found');
    assert.ok(e.requestId);
    return true;
  });
  await assert.rejects(c.paymentIntents.create({ amount: 0, currency: 'TRY', payment_method: 'card' }), (e) => {
    assert.ok(e instanceof InvalidRequestError);
    assert.equal(e.code, 'invalid_amount');
    assert.equal(e.param, 'amount');
    return true;
  });
  const idempotencyKey = `reuse-${uid()}`;
  const first = await c.paymentIntents.create({ amount: 1500, currency: 'TRY', payment_method: 'card' }, { idempotencyKey });
  const again = await c.paymentIntents.create({ amount: 1500, currency: 'TRY', payment_method: 'card' }, { idempotencyKey });
  assert.equal(again.id, first.id);
  const started = Date.now();
  await assert.rejects(c.paymentIntents.create({ amount: 1600, currency: 'TRY', payment_method: 'card' }, { idempotencyKey }), (e) => {
    assert.ok(e instanceof IdempotencyError);
    assert.equal(e.status, 409);
    assert.equal(e.inFlight, false);
    return true;
  });
  assert.ok(Date.now() - started < 2000, 'a conflict with different parameters is not retried');
});

test('webhook: a real delivery verifies', live, async () => {
  const c = client();
  const inbox = [];
  let wake = () => {};
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (d) => chunks.push(d));
    req.on('end', () => {
      inbox.push({ body: Buffer.concat(chunks), headers: req.headers });
      res.writeHead(200).end();
      wake();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  let endpoint;
  try {
    endpoint = await c.webhooks.configure({ url: `http://127.0.0.1:${server.address().port}/qafila-hook`,
      events: ['payment.succeeded'] });
    assert.ok(endpoint.secret);
    const p = await c.payments.create({ amount: 7777, currency: 'TRY', payment_method: { card: CARD } });
    const deadline = Date.now() + 30000;
    let found = null;
    while (!found) {
      while (inbox.length && !found) {
        const d = inbox.shift();
        const event = verifyWebhook(d.body, d.headers['x-service-signature'], endpoint.secret);
        if (event.type === 'payment.succeeded' && event.data.object.id === p.id) found = { d, event };
      }
      if (found) break;
      assert.ok(Date.now() < deadline, 'no delivery for the payment within 30 s');
      await new Promise((r) => { wake = r; setTimeout(r, 500); });
    }
    const { d, event } = found;
    assert.match(event.id, /^evt_/);
    assert.equal(event.data.object.amount, 7777);
    assert.equal(constructEvent(d.body, d.headers, endpoint.secret).id, event.id);
    assert.throws(() => verifyWebhook(Buffer.from(d.body.toString().replace('7777', '7778')),
      d.headers['x-service-signature'], endpoint.secret), SignatureVerificationError);
    assert.throws(() => verifyWebhook(d.body, d.headers['x-service-signature'], 'whsec_wrong'), SignatureVerificationError);
  } finally {
    if (endpoint) await c.webhooks.disableEndpoint(endpoint.id);
    server.close();
  }
});

test('installments: options, plans, a payment in 3', live, async () => {
  const c = client();
  const opts = await c.installments.options({ bin: '554960', amount: 120000, currency: 'TRY' });
  assert.equal(opts.program, 'bonus');
  assert.equal(opts.options[2].count, 3);
  assert.equal(opts.options[2].total_amount, 124500);
  assertKnownFields('InstallmentOptions', opts);
  const plans = await c.installments.plans();
  const again = await c.installments.replacePlans({ plans: plans.data });
  assert.deepEqual(again.data, plans.data);
  const p = await c.payments.create({ amount: 120000, currency: 'TRY', installments: 3,
    payment_method: { card: { ...CARD, number: '5549600000000004' } } });
  assert.equal(p.installments.count, 3);
  assert.equal(p.amount_captured, 124500);
  await assert.rejects(c.payments.create({ amount: 120000, currency: 'TRY', installments: 4,
    payment_method: { card: { ...CARD, number: '5549600000000004' } } }),
  (e) => e instanceof InvalidRequestError && e.param === 'installments');
});

test('bnpl: eligibility, the provider page, capture in parts', live, async () => {
  const c = client();
  const e = await c.bnpl.eligibility({ method: 'bnpl_split4', amount: 100001, currency: 'SAR', phone: '+966500000001' });
  assert.equal(e.status, 'eligible');
  assert.deepEqual(e.schedule.map((p) => p.amount), [25001, 25000, 25000, 25000]);
  const intent = await c.paymentIntents.create({ amount: 100000, currency: 'SAR', payment_method: 'bnpl_split4',
    return_url: 'https://shop.example/back', buyer: { phone: '+966500000001', email: 'b@example.com', name: 'Sara' },
    items: [{ name: 'Abaya', quantity: 1, unit_amount: 100000 }],
    shipping_address: { line1: 'King Fahd Rd 12', city: 'Riyadh', country: 'SA', postal_code: '12271' } });
  assert.equal(intent.capture_method, 'manual');
  const confirmed = await c.paymentIntents.confirm(intent.id);
  const page = new URL(confirmed.next_action.url);
  const r = await fetch(BASE_URL + page.pathname, { method: 'POST', redirect: 'manual',
    body: new URLSearchParams({ token: page.searchParams.get('token'), action: 'approve' }) });
  assert.equal(r.status, 303);
  const part = await c.paymentIntents.capture(intent.id, { amount: 40000 });
  assert.equal(part.status, 'requires_capture');
  assert.equal(part.amount_received, 40000);
  assertKnownFields('PaymentIntent', part);
  const done = await c.paymentIntents.capture(intent.id);
  assert.equal(done.status, 'succeeded');
});
