// Types of the Qafila Node.js library. The resource and parameter interfaces (./models) are
// generated from the service's /openapi.json by clients/codegen/generate.py.
import type {
  Balance, Customer, CustomerCreateParams, CustomerListParams, CustomerUpdateParams, Invoice, InvoiceCreateParams,
  InvoiceListParams, InvoiceSendParams, Payment, PaymentCapture, PaymentCaptureParams, PaymentCreateParams,
  PaymentIntent, PaymentIntentCancelParams, PaymentIntentConfirmParams, PaymentIntentCreateParams,
  PaymentIntentListParams, PaymentIntentRefundParams, PaymentIntentCaptureParams, BnplEligibility, BnplEligibilityParams, PaymentLink, PaymentLinkCreateParams, PaymentLinkListParams, PaymentListParams,
  PaymentRefundParams, PaymentVoid, Refund, Settlement, SettlementListParams, SettlementTransaction,
  SettlementTransactionListParams, Subscription, SubscriptionCreateParams, PaymentMethodType,
  PaymentMethodTypeListParams,
  SubscriptionListParams, WebhookConfigureParams, WebhookEndpoint, WebhookEventListParams, WebhookEventRecord,
  WebhookTestResult, InstallmentOptions, InstallmentOptionsParams, InstallmentPlans,
  InstallmentPlansReplaceParams,
} from './models';

export * from './models';

export declare const VERSION: string;
export declare const DEFAULT_BASE_URL: string;
/** The fields of the service's error object that QafilaError carries. */
export declare const ERROR_FIELDS: readonly string[];
export declare const SIGNATURE_HEADER: 'x-service-signature';
export declare const SIGNATURE_V2_HEADER: 'x-service-signature-v2';
export declare const TIMESTAMP_HEADER: 'x-service-timestamp';

export type FetchLike = (input: any, init?: any) => Promise<{
  status: number; headers: { forEach(cb: (value: string, key: string) => void): void }; text(): Promise<string>;
}>;

export interface QafilaOptions {
  apiKey?: string;
  /** Default: QAFILA_BASE_URL, else http://127.0.0.1:8000 */
  baseUrl?: string;
  /** Retries after the first attempt (default 3). */
  maxRetries?: number;
  /** Per attempt, in milliseconds (default 30000). */
  timeout?: number;
  /** First backoff in ms (default 500), doubled each retry up to backoffMax (8000), with jitter. */
  backoffBase?: number;
  backoffMax?: number;
  /** A Retry-After longer than this many seconds (default 60) is raised rather than waited. */
  maxRetryAfter?: number;
  /** A fetch implementation (default: the global fetch of Node.js 18+). */
  fetch?: FetchLike;
  sleep?: (ms: number) => Promise<void>;
}

export interface RequestOptions {
  /** Default: a new UUID per call, sent again on each retry of that call. */
  idempotencyKey?: string;
}

export declare class Page<T> implements Iterable<T> {
  readonly raw: Record<string, unknown>;
  readonly data: T[];
  readonly hasMore: boolean;
  readonly nextCursor: string | null;
  readonly total: number | null;
  /** starting_after for the next page: next_cursor, else the last item's id. */
  readonly cursor: string | null;
  nextPage(): Promise<Page<T> | null>;
  autoPagingIter(): AsyncGenerator<T, void, undefined>;
  [Symbol.iterator](): Iterator<T>;
}

/** Await it for the first page, or iterate it with `for await` for every item of every page. */
export declare class PagePromise<T> implements PromiseLike<Page<T>>, AsyncIterable<T> {
  then<A = Page<T>, B = never>(onfulfilled?: ((value: Page<T>) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: any) => B | PromiseLike<B>) | null): Promise<A | B>;
  catch<B = never>(onrejected?: ((reason: any) => B | PromiseLike<B>) | null): Promise<Page<T> | B>;
  finally(onfinally?: (() => void) | null): Promise<Page<T>>;
  [Symbol.asyncIterator](): AsyncGenerator<T, void, undefined>;
  toArray(max?: number): Promise<T[]>;
}

type V1ListParams = Omit<PaymentIntentListParams, 'created[gte]' | 'created[lte]'> & {
  'created[gte]'?: string | number;
  'created[lte]'?: string | number;
  /** Unix seconds (or ISO 8601): sent as created[gte] / created[lte]. */
  created?: { gte?: string | number; lte?: string | number };
};

declare class PaymentIntents {
  create(params: PaymentIntentCreateParams, options?: RequestOptions): Promise<PaymentIntent>;
  confirm(id: string, params?: PaymentIntentConfirmParams, options?: RequestOptions): Promise<PaymentIntent>;
  retrieve(id: string): Promise<PaymentIntent>;
  cancel(id: string, params?: PaymentIntentCancelParams, options?: RequestOptions): Promise<PaymentIntent>;
  /** Full refund without `amount`; partial with one: `succeeded` while partly refunded, then `refunded`. */
  refund(id: string, params?: PaymentIntentRefundParams, options?: RequestOptions): Promise<PaymentIntent>;
  /** BNPL: capture `amount` (all that is still authorized without it) of a `requires_capture` intent. */
  capture(id: string, params?: PaymentIntentCaptureParams, options?: RequestOptions): Promise<PaymentIntent>;
  list(params?: V1ListParams): PagePromise<PaymentIntent>;
}

declare class Payments {
  create(params: PaymentCreateParams, options?: RequestOptions): Promise<Payment>;
  retrieve(id: string): Promise<Payment>;
  list(params?: PaymentListParams): PagePromise<Payment>;
  capture(id: string, params?: PaymentCaptureParams, options?: RequestOptions): Promise<PaymentCapture>;
  void(id: string, options?: RequestOptions): Promise<PaymentVoid>;
  /** Full refund without `amount`; partial with one. */
  refund(id: string, params?: PaymentRefundParams, options?: RequestOptions): Promise<Refund>;
}

declare class Customers {
  create(params: CustomerCreateParams, options?: RequestOptions): Promise<Customer>;
  retrieve(id: string): Promise<Customer>;
  update(id: string, params: CustomerUpdateParams): Promise<Customer>;
  list(params?: CustomerListParams): PagePromise<Customer>;
}

declare class PaymentLinks {
  create(params: PaymentLinkCreateParams, options?: RequestOptions): Promise<PaymentLink>;
  retrieve(id: string): Promise<PaymentLink>;
  list(params?: PaymentLinkListParams): PagePromise<PaymentLink>;
  cancel(id: string): Promise<PaymentLink>;
}

declare class Subscriptions {
  create(params: SubscriptionCreateParams, options?: RequestOptions): Promise<Subscription>;
  retrieve(id: string): Promise<Subscription>;
  list(params?: SubscriptionListParams): PagePromise<Subscription>;
  pause(id: string): Promise<Subscription>;
  resume(id: string): Promise<Subscription>;
  cancel(id: string): Promise<Subscription>;
}

declare class Invoices {
  create(params: InvoiceCreateParams, options?: RequestOptions): Promise<Invoice>;
  retrieve(id: string): Promise<Invoice>;
  list(params?: InvoiceListParams): PagePromise<Invoice>;
  send(id: string, params?: InvoiceSendParams): Promise<Invoice>;
  markPaid(id: string): Promise<Invoice>;
}

declare class BalanceResource {
  retrieve(): Promise<Balance>;
}

declare class PaymentMethodTypes {
  list(params?: PaymentMethodTypeListParams): PagePromise<PaymentMethodType>;
}

declare class TestHelpers {
  /** Test mode only: the buyer pays the Fawry reference at an outlet. */
  fawryPay(reference: string): Promise<PaymentIntent>;
}

declare class Settlements {
  list(params?: SettlementListParams): PagePromise<Settlement>;
  retrieve(id: string): Promise<Settlement>;
  /** The payments, refunds and fees a settlement is made of. */
  listTransactions(id: string, params?: SettlementTransactionListParams): PagePromise<SettlementTransaction>;
}

declare class Webhooks {
  /** The answer carries the signing `secret` (only here). */
  configure(params: WebhookConfigureParams, options?: RequestOptions): Promise<WebhookEndpoint>;
  listEndpoints(params?: { limit?: number; starting_after?: string }): PagePromise<WebhookEndpoint>;
  disableEndpoint(id: string, options?: RequestOptions): Promise<WebhookEndpoint>;
  listEvents(params?: WebhookEventListParams): PagePromise<WebhookEventRecord>;
  retrieveEvent(id: string): Promise<WebhookEventRecord>;
  retryEvent(id: string, options?: RequestOptions): Promise<WebhookEventRecord>;
  test(params: { event: string; endpoint?: string }, options?: RequestOptions): Promise<WebhookTestResult>;
}

/** Buy now, pay later: is a buyer eligible for bnpl_split4 / bnpl_split3, and the schedule. */
declare class Bnpl {
  eligibility(params: BnplEligibilityParams): Promise<BnplEligibility>;
}

/** Installments (taksit): a card's options and the merchant's plans. */
declare class Installments {
  /** GET /v1/installments: the counts a card (its first 6 or 8 digits) gets for an amount. */
  options(params: InstallmentOptionsParams): Promise<InstallmentOptions>;
  plans(): Promise<InstallmentPlans>;
  /** Replaces every plan (a program left out offers none). */
  replacePlans(params: InstallmentPlansReplaceParams): Promise<InstallmentPlans>;
}

export declare class Qafila {
  constructor(apiKey?: string, options?: QafilaOptions);
  constructor(options: QafilaOptions);
  readonly apiKey: string;
  readonly baseUrl: string;
  readonly paymentIntents: PaymentIntents;
  readonly payments: Payments;
  readonly customers: Customers;
  readonly paymentLinks: PaymentLinks;
  readonly subscriptions: Subscriptions;
  readonly invoices: Invoices;
  readonly balance: BalanceResource;
  readonly settlements: Settlements;
  readonly webhooks: Webhooks;
  readonly paymentMethodTypes: PaymentMethodTypes;
  readonly testHelpers: TestHelpers;
  readonly installments: Installments;
  readonly bnpl: Bnpl;
  /** Any other operation, as plain JSON (same retries and idempotency keys). */
  request<T = unknown>(method: string, path: string, options?: {
    query?: Record<string, unknown>; body?: unknown; idempotencyKey?: string; retry?: 'safe' | 'unsafe';
  }): Promise<T>;
}
export default Qafila;

export interface QafilaErrorFields {
  status?: number | null; type?: string | null; code?: string | null; param?: string | null;
  detail?: string | null; declineCode?: string | null; permission?: string | null; requestId?: string | null;
  headers?: Record<string, string>; body?: unknown; raw?: Record<string, unknown> | null; cause?: unknown;
}

export declare class QafilaError extends Error {
  constructor(message: string, fields?: QafilaErrorFields);
  /** HTTP status; null when no answer arrived. */
  readonly status: number | null;
  readonly type: string | null;
  readonly code: string | null;
  readonly param: string | null;
  readonly detail: string | null;
  readonly declineCode: string | null;
  /** 403 permission_denied: the permission the member's roles lack (refunds_write, ...). */
  readonly permission: string | null;
  readonly requestId: string | null;
  readonly decline_code: string | null;
  readonly request_id: string | null;
  readonly headers: Record<string, string>;
  readonly body: unknown;
  /** The service's error object as sent. */
  readonly raw: Record<string, unknown> | null;
}
export declare class APIConnectionError extends QafilaError {}
export declare class InvalidRequestError extends QafilaError {}
export declare class NotFoundError extends InvalidRequestError {}
export declare class AuthenticationError extends QafilaError {}
export declare class CardError extends QafilaError {}
export declare class PermissionDeniedError extends QafilaError {}
export declare class ConflictError extends QafilaError {}
export declare class IdempotencyError extends ConflictError {
  /** true: the first request with this key is still running (retried automatically). */
  readonly inFlight: boolean;
}
export declare class RateLimitError extends QafilaError {
  /** Retry-After, in seconds. */
  readonly retryAfter: number | null;
}
export declare class APIError extends QafilaError {}
export declare class SignatureVerificationError extends QafilaError {}

/** The delivery envelope. */
export interface WebhookEvent<T = Record<string, unknown>> {
  id: string;
  type: string;
  created: number;
  livemode: boolean;
  data: { object: T };
  merchant_id: string;
}

export type RawBody = string | Uint8Array | ArrayBuffer;   // a Buffer is a Uint8Array
export type HeadersLike = Record<string, string | string[] | undefined> | { forEach(cb: (value: string, key: string) => void): void };

/** Checks x-service-signature (hex HMAC-SHA-256 of the raw body) in constant time; throws SignatureVerificationError. */
export declare function verifyWebhook<T = Record<string, unknown>>(payload: RawBody, signature: string | null | undefined, secret: string): WebhookEvent<T>;
export declare function verifyWebhookV2<T = Record<string, unknown>>(payload: RawBody, signatureV2: string | null | undefined,
  timestamp: string | number | null | undefined, secret: string, options?: { tolerance?: number; now?: number }): WebhookEvent<T>;
/** v2 (timestamped, replays refused) when the headers carry it, else x-service-signature. */
export declare function constructEvent<T = Record<string, unknown>>(payload: RawBody, headers: HeadersLike, secret: string,
  options?: { tolerance?: number }): WebhookEvent<T>;
export declare function computeSignature(payload: RawBody, secret: string): string;
export declare function computeSignatureV2(payload: RawBody, timestamp: string | number, secret: string): string;
