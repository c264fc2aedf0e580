/** The payments list's filters live in the address (?status=&method=&currency=&from=&to=&amount_gte=&amount_lte=&q=). */
import { endOfLocalDay, startOfLocalDay } from '../format/dates';

export const STATUSES = ['succeeded', 'authorized', 'captured', 'refunded', 'failed', 'voided', 'disputed'] as const;
export const METHODS = ['card', 'apple_pay', 'google_pay', 'mada', 'troy', 'meeza', 'knet', 'benefit', 'fawry', 'eg_wallet',
  'naps', 'omannet', 'stcpay', 'sadad', 'cliq', 'aani', 'bnpl_split4', 'bnpl_split3', 'tap_to_pay', 'qr', 'cod', 'crypto'] as const;
export const CURRENCIES = ['SAR', 'AED', 'KWD', 'QAR', 'BHD', 'OMR', 'JOD', 'IQD', 'EGP', 'TRY', 'USD'] as const;

export const FILTER_KEYS = ['status', 'method', 'currency', 'from', 'to', 'amount_gte', 'amount_lte', 'q'] as const;
export type Filters = Partial<Record<(typeof FILTER_KEYS)[number], string>>;

export function readFilters(params: URLSearchParams): Filters {
  const f: Filters = {};
  for (const k of FILTER_KEYS) {
    const v = params.get(k)?.trim();
    if (v) f[k] = v;
  }
  return f;
}

function minor(v: string | undefined): number | undefined {
  if (!v || !/^\d+$/.test(v)) return undefined;
  return Number(v);
}

function day(v: string | undefined): string | undefined {
  return v && /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : undefined;
}

/** The GraphQL variables of `payments`/`paymentsExport` for these filters; local dates in the merchant's zone. */
export function toVariables(f: Filters, timeZone: string) {
  const from = day(f.from), to = day(f.to);
  return {
    status: f.status || undefined,
    method: f.method || undefined,
    currency: f.currency || undefined,
    query: f.q || undefined,
    amountGte: minor(f.amount_gte),
    amountLte: minor(f.amount_lte),
    createdGte: from ? startOfLocalDay(from, timeZone) : undefined,
    createdLte: to ? endOfLocalDay(to, timeZone) : undefined,
  };
}

export interface RowLike {
  id: string;
  status: string;
  amount: number | string;
  currency: string;
  paymentMethodType: string;
  createdAt: string;
  card: { last4?: string | null };
  customer?: { email?: string | null; phone?: string | null } | null;
}

/** Whether a payment pushed by paymentEvents belongs in the filtered list (the server's rules, on one row). */
export function matches(p: RowLike, f: Filters, timeZone: string): boolean {
  const v = toVariables(f, timeZone);
  if (v.status && p.status !== v.status) return false;
  if (v.method && p.paymentMethodType !== v.method) return false;
  if (v.currency && p.currency !== v.currency.toUpperCase()) return false;
  const amount = BigInt(p.amount);
  if (v.amountGte !== undefined && amount < BigInt(v.amountGte)) return false;
  if (v.amountLte !== undefined && amount > BigInt(v.amountLte)) return false;
  if (v.createdGte && p.createdAt < v.createdGte) return false;
  if (v.createdLte && p.createdAt > v.createdLte) return false;
  if (v.query) {
    const q = v.query.trim();
    const phone = (s: string) => s.replace(/[\s()-]/g, '');
    const hit = p.id === q
      || (p.customer?.email ?? '').toLowerCase() === q.toLowerCase()
      || (p.customer?.phone ? phone(p.customer.phone) === phone(q) : false)
      || (/^\d{4}$/.test(q) && p.card.last4 === q);
    if (!hit) return false;
  }
  return true;
}
