import { describe, expect, it } from 'vitest';
import { matches, readFilters, toVariables } from './filters';

const row = {
  id: 'pay_1', status: 'succeeded', amount: 12345, currency: 'KWD', paymentMethodType: 'card',
  createdAt: '2026-03-01T10:00:00.000Z', card: { last4: '4242' },
  customer: { email: 'Layla@Example.com', phone: '+965 5012 3456' },
};

describe('payments filters', () => {
  it('reads the address and turns local days into UTC bounds in the merchant zone', () => {
    const f = readFilters(new URLSearchParams('status=succeeded&from=2026-03-01&to=2026-03-01&amount_gte=100&amount_lte=x&q=%20layla%20&zzz=1'));
    expect(f).toEqual({ status: 'succeeded', from: '2026-03-01', to: '2026-03-01', amount_gte: '100', amount_lte: 'x', q: 'layla' });
    expect(toVariables(f, 'Asia/Kuwait')).toEqual({
      status: 'succeeded', method: undefined, currency: undefined, query: 'layla', amountGte: 100, amountLte: undefined,
      createdGte: '2026-02-28T21:00:00.000Z', createdLte: '2026-03-01T20:59:59.999Z',
    });
  });
  it('tells whether a pushed payment belongs in the list', () => {
    expect(matches(row, {}, 'Asia/Kuwait')).toBe(true);
    expect(matches(row, { currency: 'kwd', method: 'card', amount_gte: '12345', amount_lte: '12345' }, 'Asia/Kuwait')).toBe(true);
    expect(matches(row, { amount_gte: '12346' }, 'Asia/Kuwait')).toBe(false);
    expect(matches(row, { currency: 'SAR' }, 'Asia/Kuwait')).toBe(false);
    expect(matches(row, { q: 'layla@example.com' }, 'Asia/Kuwait')).toBe(true);
    expect(matches(row, { q: '4242' }, 'Asia/Kuwait')).toBe(true);
    expect(matches(row, { q: '+96550123456' }, 'Asia/Kuwait')).toBe(true);
    expect(matches(row, { q: 'pay_2' }, 'Asia/Kuwait')).toBe(false);
    expect(matches(row, { from: '2026-03-02' }, 'Asia/Kuwait')).toBe(false);
    expect(matches(row, { to: '2026-03-01' }, 'Asia/Kuwait')).toBe(true);
  });
});
