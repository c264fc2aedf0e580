// No service needed: retry rules, idempotency keys, error mapping, the webhook helper, both module formats.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import * as esm from 'qafila';
import {
  Qafila, APIConnectionError, APIError, IdempotencyError, QafilaError, RateLimitError, SignatureVerificationError,
  verifyWebhook, verifyWebhookV2, constructEvent,
} from 'qafila';

const INTENT = { id: 'pay_1', object: 'payment_intent', status: 'requires_payment_method', amount: 100, currency: 'TRY' };

const json = (status, body, headers = {}) => new Response(JSON.stringify(body), {
  status, headers: { 'content-type': 'application/json', ...headers } });
const err = (status, code, message, detail, headers) => json(status,
  { error: { type: 'x', code, message, param: null, request_id: 'req_t', ...(detail ? { detail } : {}) } }, headers);
const netError = (code) => new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) });

function scripted(...answers) {
  const seen = [];
  const sleeps = [];
  const fetchFn = async (url, init) => {
    seen.push({ url: new URL(url), init });
    const a = answers.shift();
    if (a instanceof Error) throw a;
    return a;
  };
  const c = new Qafila('sk_test_x', { baseUrl: 'http://svc.test', fetch: fetchFn, sleep: async (ms) => { sleeps.push(ms); } });
  return { c, seen, sleeps };
}

test('one idempotency key per call, sent again on every retry; backoff grows', async () => {
  const { c, seen, sleeps } = scripted(netError('ECONNREFUSED'), err(500, 'api_error', 'boom'),
    err(503, 'unavailable', 'down'), json(201, INTENT));
  const pi = await c.paymentIntents.create({ amount: 100, currency: 'TRY', payment_method: 'card' });
  assert.equal(pi.id, 'pay_1');
  const keys = new Set(seen.map((s) => s.init.headers['Idempotency-Key']));
  assert.equal(seen.length, 4);
  assert.equal(keys.size, 1);
  assert.ok(sleeps[0] <= sleeps[1] && sleeps[1] <= sleeps[2], `backoff ${sleeps}`);
  assert.deepEqual(JSON.parse(seen[0].init.body), { amount: 100, currency: 'TRY', payment_method: 'card' });
  assert.equal(seen[0].init.headers.Authorization, 'Bearer sk_test_x');
});

test('a new call gets a new key; a given key is used', async () => {
  const { c, seen } = scripted(json(201, INTENT), json(201, INTENT), json(201, INTENT));
  await c.paymentIntents.create({ amount: 100, currency: 'TRY', payment_method: 'card' });
  await c.paymentIntents.create({ amount: 100, currency: 'TRY', payment_method: 'card' });
  await c.paymentIntents.create({ amount: 100, currency: 'TRY', payment_method: 'card' }, { idempotencyKey: 'order-1' });
  const k = seen.map((s) => s.init.headers['Idempotency-Key']);
  assert.notEqual(k[0], k[1]);
  assert.equal(k[2], 'order-1');
});

test('429 honours Retry-After, then gives up after maxRetries', async () => {
  const { c, seen, sleeps } = scripted(err(429, 'rate_limit_exceeded', 'slow', null, { 'Retry-After': '3' }),
    json(200, { object: 'list', data: [], has_more: false }));
  await c.paymentIntents.list();
  assert.equal(seen.length, 2);
  assert.ok(sleeps[0] >= 3000 && sleeps[0] < 3200);
  const s2 = scripted(...Array(4).fill(0).map(() => err(429, 'rate_limit_exceeded', 'slow', null, { 'Retry-After': '1' })));
  await assert.rejects(s2.c.paymentIntents.list(), (e) => e instanceof RateLimitError && e.retryAfter === 1);
  assert.equal(s2.seen.length, 4);
});

test('409 in flight is retried; 409 with different parameters is not', async () => {
  const a = scripted(err(409, 'idempotency_conflict', 'Conflict',
    'A request with this idempotency key is still being processed; retry shortly'), json(201, INTENT));
  assert.equal((await a.c.paymentIntents.create({ amount: 1 })).id, 'pay_1');
  assert.equal(a.seen.length, 2);
  const b = scripted(err(409, 'idempotency_conflict', 'This idempotency key was already used with different parameters'));
  await assert.rejects(b.c.paymentIntents.create({ amount: 1 }), (e) => e instanceof IdempotencyError && !e.inFlight);
  assert.equal(b.seen.length, 1);
});

test('4xx answers are not retried and carry their fields', async () => {
  for (const status of [400, 401, 402, 404]) {
    const { c, seen } = scripted(err(status, 'x', 'no'));
    await assert.rejects(c.payments.retrieve('pay_1'), (e) => e instanceof QafilaError && e.status === status && e.requestId === 'req_t');
    assert.equal(seen.length, 1);
  }
});

test('network failures exhaust into APIConnectionError', async () => {
  const { c, seen } = scripted(...Array(4).fill(0).map(() => netError('ECONNRESET')));
  await assert.rejects(c.paymentIntents.retrieve('pay_1'), APIConnectionError);
  assert.equal(seen.length, 4);
});

test('a state-change PUT is retried only when the request surely did not run', async () => {
  const a = scripted(netError('ECONNRESET'));
  await assert.rejects(a.c.subscriptions.pause('sub_1'), APIConnectionError);
  assert.equal(a.seen.length, 1);
  const b = scripted(netError('ECONNREFUSED'), json(200, { id: 'sub_1', status: 'paused' }));
  assert.equal((await b.c.subscriptions.pause('sub_1')).status, 'paused');
  const d = scripted(err(500, 'api_error', 'boom'));
  await assert.rejects(d.c.subscriptions.pause('sub_1'), APIError);
  assert.equal(d.seen.length, 1);
});

test('v1 list: created filters and pagination cursors', async () => {
  const { c, seen } = scripted(
    json(200, { object: 'list', data: [{ id: 'pay_a' }, { id: 'pay_b' }], has_more: true, next_cursor: 'pay_b' }),
    json(200, { object: 'list', data: [{ id: 'pay_c' }], has_more: false, next_cursor: null }));
  const all = await c.paymentIntents.list({ limit: 2, created: { gte: 1767225600 }, status: 'succeeded' }).toArray();
  assert.deepEqual(all.map((x) => x.id), ['pay_a', 'pay_b', 'pay_c']);
  assert.deepEqual(Object.fromEntries(seen[0].url.searchParams), { limit: '2', status: 'succeeded', 'created[gte]': '1767225600' });
  assert.equal(seen[1].url.searchParams.get('starting_after'), 'pay_b');
  assert.equal(seen[1].url.searchParams.get('created[gte]'), '1767225600');
});

const BODY = '{"id":"evt_1","type":"payment.succeeded","created":1,"livemode":false,"data":{"object":{"id":"pay_1"}},"merchant_id":"mer_1"}';

test('verifyWebhook', () => {
  const sig = crypto.createHmac('sha256', 'whsec_1').update(BODY).digest('hex');
  const ev = verifyWebhook(Buffer.from(BODY), sig, 'whsec_1');
  assert.equal(ev.type, 'payment.succeeded');
  assert.equal(ev.data.object.id, 'pay_1');
  assert.equal(verifyWebhook(BODY, sig.toUpperCase(), 'whsec_1').id, 'evt_1');
  for (const bad of [sig.slice(0, -1) + (sig.endsWith('0') ? '1' : '0'), '', undefined, 'zz']) {
    assert.throws(() => verifyWebhook(BODY, bad, 'whsec_1'), SignatureVerificationError);
  }
  assert.throws(() => verifyWebhook(`${BODY} `, sig, 'whsec_1'), SignatureVerificationError);
  assert.throws(() => verifyWebhook(JSON.parse(BODY), sig, 'whsec_1'), SignatureVerificationError);
});

test('verifyWebhookV2 and replays', () => {
  const ts = Math.floor(Date.now() / 1000);
  const sig2 = crypto.createHmac('sha256', 'whsec_1').update(`${ts}.${BODY}`).digest('hex');
  assert.equal(verifyWebhookV2(BODY, sig2, ts, 'whsec_1').id, 'evt_1');
  assert.equal(constructEvent(BODY, new Headers({ 'X-Service-Signature-V2': sig2, 'X-Service-Timestamp': String(ts) }), 'whsec_1').id, 'evt_1');
  assert.throws(() => verifyWebhookV2(BODY, sig2, ts, 'whsec_1', { now: ts + 301 }), SignatureVerificationError);
});

test('CommonJS and ESM export the same library', () => {
  const cjs = createRequire(import.meta.url)('qafila');
  assert.equal(cjs.Qafila, esm.Qafila);
  assert.equal(cjs.verifyWebhook, esm.verifyWebhook);
  assert.equal(esm.default, esm.Qafila);
  for (const name of Object.keys(cjs)) assert.ok(name === 'default' || name in esm, `ESM lacks ${name}`);
});
