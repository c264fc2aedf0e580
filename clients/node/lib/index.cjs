'use strict';
// Qafila server library for Node.js 18+: no dependencies (global fetch, node:crypto).
// CommonJS implementation; lib/index.mjs re-exports it for ESM. Types: types/index.d.ts.

const crypto = require('node:crypto');

const VERSION = '0.1.0';
const DEFAULT_BASE_URL = 'http://127.0.0.1:8000';
// The fields of the service's error object the errors carry (checked against /openapi.json by a test).
const ERROR_FIELDS = ['type', 'code', 'message', 'param', 'detail', 'decline_code', 'permission', 'request_id'];

// How a call may be retried:
//   'safe'   GETs, keyed POSTs, PUTs that set fields: any failure without an answer, 429,
//            409 "still being processed", 5xx.
//   'unsafe' state changes by PUT the service does not deduplicate (pause, send, ...): only when the
//            request surely did not run: could not connect, 429, 503.
const SAFE = 'safe';
const UNSAFE = 'unsafe';

// ------------------------------------------------------------------------------------------ errors

class QafilaError extends Error {
  constructor(message, fields = {}) {
    super(message);
    this.name = new.target.name;
    this.status = fields.status ?? null;
    this.type = fields.type ?? null;
    this.code = fields.code ?? null;
    this.param = fields.param ?? null;
    this.detail = fields.detail ?? null;
    this.declineCode = fields.declineCode ?? null;
    this.permission = fields.permission ?? null;   // 403 permission_denied: what the member's roles lack
    this.requestId = fields.requestId ?? null;
    this.headers = fields.headers ?? {};
    this.body = fields.body ?? null;
    this.raw = fields.raw ?? null;
    if (fields.cause) this.cause = fields.cause;
  }
  // snake_case aliases, as the service names them
  get decline_code() { return this.declineCode; }
  get request_id() { return this.requestId; }
}
class APIConnectionError extends QafilaError {}
class InvalidRequestError extends QafilaError {}
class NotFoundError extends InvalidRequestError {}
class AuthenticationError extends QafilaError {}
class CardError extends QafilaError {}
class PermissionDeniedError extends QafilaError {}
class ConflictError extends QafilaError {}
class IdempotencyError extends ConflictError {
  get inFlight() { return inFlight(this.message, this.detail); }
}
class RateLimitError extends QafilaError {
  get retryAfter() { return parseRetryAfter(this.headers['retry-after']); }
}
class APIError extends QafilaError {}
class SignatureVerificationError extends QafilaError {}

function inFlight(...texts) {
  return texts.some((t) => typeof t === 'string' && t.includes('still being processed'));
}

function parseRetryAfter(value) {
  if (value == null || value === '') return null;
  const n = Number(value);
  if (Number.isFinite(n)) return Math.max(0, n);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, (at - Date.now()) / 1000);
}

function errorFromResponse(status, body, headers, text) {
  const err = body && typeof body === 'object' && body.error && typeof body.error === 'object' ? body.error : {};
  const message = err.message || (text ? String(text).slice(0, 200) : `HTTP ${status}`);
  let Cls = QafilaError;
  if (status === 404) Cls = NotFoundError;
  else if ([400, 413, 415, 422].includes(status)) Cls = InvalidRequestError;
  else if (status === 401) Cls = AuthenticationError;
  else if (status === 402) Cls = CardError;
  else if (status === 403) Cls = PermissionDeniedError;
  else if (status === 409) Cls = err.code === 'idempotency_conflict' ? IdempotencyError : ConflictError;
  else if (status === 429) Cls = RateLimitError;
  else if (status >= 500) Cls = APIError;
  return new Cls(message, {
    status, type: err.type, code: err.code, param: err.param, detail: err.detail,
    declineCode: err.decline_code, permission: err.permission, requestId: err.request_id || headers['x-request-id'],
    headers, body, raw: Object.keys(err).length ? err : null,
  });
}

// ------------------------------------------------------------------------------------------ http

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function headersObject(h) {
  const out = {};
  if (!h) return out;
  if (typeof h.forEach === 'function' && !Array.isArray(h)) h.forEach((v, k) => { out[k.toLowerCase()] = v; });
  else for (const [k, v] of Object.entries(h)) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function connectFailure(err) {
  const codes = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'EHOSTUNREACH', 'ENETUNREACH'];
  for (let e = err, i = 0; e && i < 5; e = e.cause, i++) {
    if (codes.includes(e.code)) return true;
  }
  return false;
}

function clean(obj) {
  const out = {};
  for (const [k, v] of Object.entries(obj || {})) if (v !== undefined && v !== null) out[k] = v;
  return out;
}

function encodeId(id) {
  if (typeof id !== 'string' || id === '') throw new TypeError('an object id (a non-empty string) is required');
  return encodeURIComponent(id);
}

class Page {
  constructor(raw, fetchPage) {
    this.raw = raw;
    this.data = Array.isArray(raw.data) ? raw.data : [];
    this.hasMore = Boolean(raw.has_more);
    this.nextCursor = raw.next_cursor ?? null;
    this.total = raw.total_count ?? raw.total ?? null;
    Object.defineProperty(this, '_fetchPage', { value: fetchPage, enumerable: false });
  }
  // starting_after for the next page: the service's next_cursor, else the last item's id
  get cursor() {
    if (this.nextCursor) return this.nextCursor;
    const last = this.data[this.data.length - 1];
    return last && last.id ? last.id : null;
  }
  async nextPage() {
    if (!this.hasMore || !this.cursor) return null;
    return this._fetchPage(this.cursor);
  }
  async *autoPagingIter() {
    let page = this;
    while (page) {
      for (const item of page.data) yield item;
      page = await page.nextPage();
    }
  }
  [Symbol.iterator]() { return this.data[Symbol.iterator](); }
}

// The answer of list(): await it for the first Page, or `for await` over it for every item of every page.
class PagePromise {
  constructor(first) { this._first = first; }
  then(onFulfilled, onRejected) { return this._first.then(onFulfilled, onRejected); }
  catch(onRejected) { return this._first.catch(onRejected); }
  finally(f) { return this._first.finally(f); }
  async *[Symbol.asyncIterator]() { yield* (await this._first).autoPagingIter(); }
  async toArray(max = Infinity) {
    const out = [];
    for await (const item of this) { if (out.length >= max) break; out.push(item); }
    return out;
  }
}

class Qafila {
  constructor(apiKey, options = {}) {
    if (apiKey && typeof apiKey === 'object') { options = apiKey; apiKey = options.apiKey; }
    apiKey = apiKey || process.env.QAFILA_API_KEY;
    if (!apiKey) throw new QafilaError('no API key: pass one or set QAFILA_API_KEY');
    this.apiKey = apiKey;
    this.baseUrl = String(options.baseUrl || process.env.QAFILA_BASE_URL || DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.maxRetries = options.maxRetries ?? 3;
    this.timeout = options.timeout ?? 30000;               // ms, per attempt
    this.backoffBase = options.backoffBase ?? 500;         // ms
    this.backoffMax = options.backoffMax ?? 8000;          // ms
    this.maxRetryAfter = options.maxRetryAfter ?? 60;      // s: a longer Retry-After is raised, not waited
    this._fetch = options.fetch || globalThis.fetch;
    this._sleep = options.sleep || sleep;
    if (typeof this._fetch !== 'function') throw new QafilaError('no fetch: Node.js 18+ or options.fetch is required');

    this.paymentIntents = new PaymentIntents(this);
    this.payments = new Payments(this);
    this.customers = new Customers(this);
    this.paymentLinks = new PaymentLinks(this);
    this.subscriptions = new Subscriptions(this);
    this.invoices = new Invoices(this);
    this.balance = new BalanceResource(this);
    this.settlements = new Settlements(this);
    this.webhooks = new Webhooks(this);
    this.paymentMethodTypes = new PaymentMethodTypes(this);
    this.testHelpers = new TestHelpers(this);
    this.installments = new Installments(this);
    this.bnpl = new Bnpl(this);
  }

  _backoff(attempt) {
    const d = Math.min(this.backoffMax, this.backoffBase * 2 ** attempt);
    return d / 2 + Math.random() * (d / 2);                 // exponential, with jitter
  }

  _delayAfterError(call, err, attempt) {
    if (attempt >= this.maxRetries) return null;
    const s = err.status;
    if (s === 429 || s === 503) {
      // always retryable: the request did not run
    } else if (call.retry !== SAFE) {
      return null;
    } else if (s === 409) {
      if (!(err.code === 'idempotency_conflict' && inFlight(err.message, err.detail))) return null;
    } else if (![500, 502, 504].includes(s)) {
      return null;
    }
    const wait = parseRetryAfter(err.headers['retry-after']);
    if (wait != null) return wait > this.maxRetryAfter ? null : wait * 1000 + Math.random() * 100;
    return this._backoff(attempt);
  }

  _delayAfterException(call, exc, attempt) {
    if (attempt >= this.maxRetries) return null;
    if (call.retry !== SAFE && !connectFailure(exc)) return null;
    return this._backoff(attempt);
  }

  /** Any operation, as plain JSON, with the same retries and idempotency keys. */
  async request(method, path, { query, body, idempotencyKey, retry = SAFE } = {}) {
    method = method.toUpperCase();
    const url = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(clean(query))) url.searchParams.set(k, typeof v === 'boolean' ? String(v) : v);
    const headers = {
      Authorization: `Bearer ${this.apiKey}`,
      Accept: 'application/json',
      'User-Agent': `qafila-node/${VERSION} node/${process.versions.node}`,
    };
    // One key per logical call, made here once and sent again on every retry.
    const key = idempotencyKey || (method === 'POST' ? crypto.randomUUID() : null);
    if (key) headers['Idempotency-Key'] = key;
    let payload;
    if (body !== undefined && body !== null) {
      headers['Content-Type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const call = { method, retry };
    for (let attempt = 0; ; attempt++) {
      let res;
      let text;
      try {
        res = await this._fetch(url, { method, headers, body: payload, signal: AbortSignal.timeout(this.timeout) });
        text = await res.text();
      } catch (exc) {
        const delay = this._delayAfterException(call, exc, attempt);
        if (delay == null) {
          throw new APIConnectionError(`could not reach the service: ${exc && exc.message}`, { cause: exc });
        }
        await this._sleep(delay);
        continue;
      }
      let json = null;
      try { json = text ? JSON.parse(text) : {}; } catch { json = null; }
      const h = headersObject(res.headers);
      if (res.status < 300) {
        if (json === null) {
          throw new QafilaError(`the service answered ${res.status} with a body that is not JSON`,
            { status: res.status, requestId: h['x-request-id'] });
        }
        return json;
      }
      const err = errorFromResponse(res.status, json, h, text);
      const delay = this._delayAfterError(call, err, attempt);
      if (delay == null) throw err;
      await this._sleep(delay);
    }
  }

  _list(path, query) {
    const fetchPage = async (cursor) => {
      const q = { ...query };
      if (cursor) q.starting_after = cursor;
      return new Page(await this.request('GET', path, { query: q }), fetchPage);
    };
    return new PagePromise(fetchPage(null));
  }
}

const opts = (o) => (o && o.idempotencyKey ? { idempotencyKey: o.idempotencyKey } : {});

class Resource {
  constructor(client) { Object.defineProperty(this, '_client', { value: client, enumerable: false }); }
  _post(path, body, o) { return this._client.request('POST', path, { body: clean(body), ...opts(o) }); }
  _get(path) { return this._client.request('GET', path); }
  _put(path, body, retry) { return this._client.request('PUT', path, { body: body === undefined ? undefined : clean(body), retry }); }
}

// ------------------------------------------------------------------------------------------ /v1

class PaymentIntents extends Resource {
  create(params, o) { return this._post('/v1/payments/intent', params, o); }
  confirm(id, params, o) { return this._post(`/v1/payments/${encodeId(id)}/confirm`, params, o); }
  retrieve(id) { return this._get(`/v1/payments/${encodeId(id)}`); }
  cancel(id, params, o) { return this._post(`/v1/payments/${encodeId(id)}/cancel`, params, o); }
  /** Full refund without `amount`; partial with one. `.refund` is the refund just made. */
  refund(id, params = {}, o) { return this._post(`/v1/payments/${encodeId(id)}/refund`, params, o); }
  /** BNPL: capture `amount` (all that is still authorized without it) of a `requires_capture` intent. */
  capture(id, params = {}, o) { return this._post(`/v1/payments/${encodeId(id)}/capture`, params, o); }
  /** Filters: limit, starting_after, status, currency, payment_method, created: {gte, lte} (Unix seconds). */
  list(params = {}) {
    const q = { ...params };
    if (q.created && typeof q.created === 'object') {
      for (const [op, v] of Object.entries(q.created)) q[`created[${op}]`] = v;
      delete q.created;
    }
    return this._client._list('/v1/payments', q);
  }
}

// ------------------------------------------------------------------------------------------ /api

class Payments extends Resource {
  create(params, o) { return this._post('/api/payments/create', params, o); }
  retrieve(id) { return this._get(`/api/payments/${encodeId(id)}`); }
  list(params = {}) { return this._client._list('/api/payments/list', params); }
  capture(id, params = {}, o) { return this._post(`/api/payments/${encodeId(id)}/capture`, params, o); }
  void(id, o) { return this._post(`/api/payments/${encodeId(id)}/void`, {}, o); }
  /** Full refund without `amount`; partial with one. */
  refund(id, params = {}, o) { return this._post(`/api/payments/${encodeId(id)}/refund`, params, o); }
}

class Customers extends Resource {
  create(params, o) { return this._post('/api/customers', params, o); }
  retrieve(id) { return this._get(`/api/customers/${encodeId(id)}`); }
  update(id, params) { return this._put(`/api/customers/${encodeId(id)}`, params, SAFE); }
  list(params = {}) { return this._client._list('/api/customers', params); }
}

class PaymentLinks extends Resource {
  create(params, o) { return this._post('/api/payment-links', params, o); }
  retrieve(id) { return this._get(`/api/payment-links/${encodeId(id)}`); }
  list(params = {}) { return this._client._list('/api/payment-links', params); }
  cancel(id) { return this._put(`/api/payment-links/${encodeId(id)}/cancel`, undefined, UNSAFE); }
}

class Subscriptions extends Resource {
  create(params, o) { return this._post('/api/subscriptions', params, o); }
  retrieve(id) { return this._get(`/api/subscriptions/${encodeId(id)}`); }
  list(params = {}) { return this._client._list('/api/subscriptions', params); }
  pause(id) { return this._put(`/api/subscriptions/${encodeId(id)}/pause`, undefined, UNSAFE); }
  resume(id) { return this._put(`/api/subscriptions/${encodeId(id)}/resume`, undefined, UNSAFE); }
  cancel(id) { return this._put(`/api/subscriptions/${encodeId(id)}/cancel`, undefined, UNSAFE); }
}

class Invoices extends Resource {
  create(params, o) { return this._post('/api/invoices', params, o); }
  retrieve(id) { return this._get(`/api/invoices/${encodeId(id)}`); }
  list(params = {}) { return this._client._list('/api/invoices', params); }
  send(id, params = { channel: 'email' }) { return this._put(`/api/invoices/${encodeId(id)}/send`, params, UNSAFE); }
  markPaid(id) { return this._put(`/api/invoices/${encodeId(id)}/mark-paid`, {}, UNSAFE); }
}

class BalanceResource extends Resource {
  retrieve() { return this._get('/api/balance'); }
}

/** /v1/payment_method_types: the methods a payment in a currency can use (card first). */
class PaymentMethodTypes extends Resource {
  list(params = {}) { return this._client._list('/v1/payment_method_types', params); }
}

/** Test mode only (a live key is refused with 403). */
class TestHelpers extends Resource {
  /** The buyer pays the Fawry reference at an outlet: the intent succeeds. */
  fawryPay(reference) { return this._post('/api/test-helpers/fawry/pay', { reference }); }
}

class Settlements extends Resource {
  list(params = {}) { return this._client._list('/api/settlements', params); }
  retrieve(id) { return this._get(`/api/settlements/${encodeId(id)}`); }
  /** The payments, refunds and fees a settlement is made of. */
  listTransactions(id, params = {}) { return this._client._list(`/api/settlements/${encodeId(id)}/transactions`, params); }
}

/** Buy now, pay later: is a buyer eligible for bnpl_split4 / bnpl_split3, and the schedule. */
class Bnpl extends Resource {
  eligibility(params) { return this._client.request('GET', '/v1/bnpl/eligibility', { query: params }); }
}

/** Installments (taksit): a card's options and the merchant's plans. */
class Installments extends Resource {
  options(params) { return this._client.request('GET', '/v1/installments', { query: params }); }
  plans() { return this._get('/api/installments/plans'); }
  replacePlans(params) { return this._put('/api/installments/plans', params, SAFE); }
}

class Webhooks extends Resource {
  configure(params, o) { return this._post('/api/webhooks/configure', params, o); }
  listEndpoints(params = {}) { return this._client._list('/api/webhooks/endpoints', params); }
  disableEndpoint(id, o) { return this._post(`/api/webhooks/endpoints/${encodeId(id)}/disable`, {}, o); }
  listEvents(params = {}) { return this._client._list('/api/webhooks/events', params); }
  retrieveEvent(id) { return this._get(`/api/webhooks/events/${encodeId(id)}`); }
  retryEvent(id, o) { return this._post(`/api/webhooks/events/${encodeId(id)}/retry`, {}, o); }
  test(params, o) { return this._post('/api/webhooks/test', params, o); }
}

// ------------------------------------------------------------------------------------------ webhooks

const SIGNATURE_HEADER = 'x-service-signature';
const SIGNATURE_V2_HEADER = 'x-service-signature-v2';
const TIMESTAMP_HEADER = 'x-service-timestamp';

function toBuffer(payload) {
  if (Buffer.isBuffer(payload)) return payload;
  if (payload instanceof Uint8Array) return Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  if (payload instanceof ArrayBuffer) return Buffer.from(payload);
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  throw new SignatureVerificationError('the webhook payload must be the raw body (string, Buffer or Uint8Array), not parsed JSON');
}

function computeSignature(payload, secret) {
  return crypto.createHmac('sha256', secret).update(toBuffer(payload)).digest('hex');
}

function computeSignatureV2(payload, timestamp, secret) {
  return crypto.createHmac('sha256', secret).update(`${timestamp}.`).update(toBuffer(payload)).digest('hex');
}

function sameHex(expected, given) {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(String(given || '').trim().toLowerCase(), 'utf8');
  // timingSafeEqual needs equal lengths; compare against itself to spend the same time, then fail
  if (a.length !== b.length) { crypto.timingSafeEqual(a, a); return false; }
  return crypto.timingSafeEqual(a, b);
}

function parseEvent(body) {
  let data;
  try { data = JSON.parse(body.toString('utf8')); } catch (e) {
    throw new SignatureVerificationError(`webhook body is not JSON: ${e.message}`);
  }
  if (!data || typeof data !== 'object' || typeof data.id !== 'string' || typeof data.type !== 'string') {
    throw new SignatureVerificationError('webhook body is not an event envelope (id, type, data)');
  }
  return data;
}

/** Check x-service-signature (hex HMAC-SHA-256 of the raw body) in constant time; the parsed event, or throws. */
function verifyWebhook(payload, signature, secret) {
  if (!secret) throw new SignatureVerificationError('no webhook secret given');
  const body = toBuffer(payload);
  if (!sameHex(computeSignature(body, secret), signature)) {
    throw new SignatureVerificationError('webhook signature does not match the body and secret');
  }
  return parseEvent(body);
}

/** Check x-service-signature-v2 with x-service-timestamp; a timestamp further than `tolerance` s from now is a replay. */
function verifyWebhookV2(payload, signatureV2, timestamp, secret, { tolerance = 300, now } = {}) {
  if (!secret) throw new SignatureVerificationError('no webhook secret given');
  const ts = String(timestamp ?? '').trim();
  if (!/^\d+$/.test(ts)) throw new SignatureVerificationError('missing or malformed x-service-timestamp');
  const current = now ?? Date.now() / 1000;
  if (tolerance && Math.abs(current - Number(ts)) > tolerance) {
    throw new SignatureVerificationError('webhook timestamp is outside the tolerance (a replay?)');
  }
  const body = toBuffer(payload);
  if (!sameHex(computeSignatureV2(body, ts, secret), signatureV2)) {
    throw new SignatureVerificationError('webhook signature does not match the body and secret');
  }
  return parseEvent(body);
}

/** Verify from the request headers: v2 (timestamped) when present, else x-service-signature. */
function constructEvent(payload, headers, secret, { tolerance = 300 } = {}) {
  const h = headersObject(headers);
  if (h[SIGNATURE_V2_HEADER] && h[TIMESTAMP_HEADER]) {
    return verifyWebhookV2(payload, h[SIGNATURE_V2_HEADER], h[TIMESTAMP_HEADER], secret, { tolerance });
  }
  return verifyWebhook(payload, h[SIGNATURE_HEADER], secret);
}

module.exports = {
  Qafila, Page, PagePromise, VERSION, DEFAULT_BASE_URL, ERROR_FIELDS,
  QafilaError, APIConnectionError, InvalidRequestError, NotFoundError, AuthenticationError, CardError,
  PermissionDeniedError, ConflictError, IdempotencyError, RateLimitError, APIError, SignatureVerificationError,
  verifyWebhook, verifyWebhookV2, constructEvent, computeSignature, computeSignatureV2,
  SIGNATURE_HEADER, SIGNATURE_V2_HEADER, TIMESTAMP_HEADER,
};
module.exports.default = Qafila;
