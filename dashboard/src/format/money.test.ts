import { describe, expect, it } from 'vitest';
import { currencyDecimals, formatInteger, formatMinorPlain, formatMoney, formatPercent, minorToDecimalString, parseMajorAmount } from './money';

const en = { lang: 'en' as const };
const ar = { lang: 'ar' as const };
const arLatn = { lang: 'ar' as const, digits: 'latn' as const };
const tr = { lang: 'tr' as const };

describe('currencyDecimals', () => {
  it('has 3 decimals for KWD BHD OMR JOD IQD and 2 for the rest', () => {
    for (const c of ['KWD', 'BHD', 'OMR', 'JOD', 'IQD', 'kwd']) expect(currencyDecimals(c)).toBe(3);
    for (const c of ['SAR', 'AED', 'TRY', 'EGP', 'USD', 'QAR']) expect(currencyDecimals(c)).toBe(2);
  });
});

describe('minorToDecimalString', () => {
  it('splits exactly, with BigInt', () => {
    expect(minorToDecimalString(123456, 'KWD')).toBe('123.456');
    expect(minorToDecimalString(5, 'KWD')).toBe('0.005');
    expect(minorToDecimalString(-1050, 'SAR')).toBe('-10.50');
    expect(minorToDecimalString('900719925474099312', 'SAR')).toBe('9007199254740993.12');
    expect(minorToDecimalString(0, 'IQD')).toBe('0.000');
  });
  it('refuses a non-integer', () => {
    expect(() => minorToDecimalString(1.5, 'SAR')).toThrow();
    expect(() => minorToDecimalString('12.5', 'SAR')).toThrow();
  });
});

describe('formatMoney', () => {
  it('uses the currency decimals', () => {
    expect(formatMoney(123456, 'KWD', en)).toBe('KWD\u00a0123.456');
    expect(formatMoney(123456, 'SAR', en)).toBe('SAR\u00a01,234.56');
    expect(formatMoney(1, 'BHD', en)).toBe('BHD\u00a00.001');
  });
  it('writes Turkish as 1.234,56', () => {
    expect(formatMoney(123456, 'TRY', tr)).toBe('₺1.234,56');
    expect(formatMinorPlain(123456789, 'TRY', tr)).toBe('1.234.567,89');
  });
  it('uses Arabic-Indic digits in Arabic by default and Latin ones on request', () => {
    const s = formatMoney(123456, 'KWD', ar);
    expect(s).toContain('١٢٣٫٤٥٦');
    expect(s).not.toMatch(/[0-9]/);
    expect(formatMoney(123456, 'KWD', arLatn)).toContain('123.456');
    expect(formatMinorPlain(123456789, 'SAR', ar)).toBe('١٬٢٣٤٬٥٦٧٫٨٩');
  });
  it('keeps amounts beyond 2^53 exact', () => {
    expect(formatMinorPlain('900719925474099312', 'SAR', en)).toBe('9,007,199,254,740,993.12');
    expect(formatMinorPlain(9007199254740991n * 10n + 7n, 'KWD', en)).toBe('90,071,992,547,409.917');
  });
  it('writes negatives', () => {
    expect(formatMinorPlain(-1050, 'SAR', en)).toBe('-10.50');
  });
});

describe('formatInteger and formatPercent', () => {
  it('groups counts', () => {
    expect(formatInteger(1234567, en)).toBe('1,234,567');
    expect(formatInteger(1234567, tr)).toBe('1.234.567');
    expect(formatInteger(12, ar)).toBe('١٢');
  });
  it('writes the rate as the API gives it', () => {
    expect(formatPercent(75, en)).toBe('75%');
    expect(formatPercent(66.67, en)).toBe('66.67%');
    expect(formatPercent(75, tr)).toBe('%75');
    expect(formatPercent(75, ar)).toMatch(/^\u0667\u0665/);
    expect(formatPercent(100, en)).toBe('100%');
  });
});

describe('parseMajorAmount', () => {
  it('parses a decimal exactly', () => {
    expect(parseMajorAmount('12.5', 'SAR')).toEqual({ ok: true, minor: 1250 });
    expect(parseMajorAmount('0.29', 'SAR')).toEqual({ ok: true, minor: 29 });   // a float would give 28.999...
    expect(parseMajorAmount('1.005', 'KWD')).toEqual({ ok: true, minor: 1005 });
    expect(parseMajorAmount('12', 'KWD')).toEqual({ ok: true, minor: 12000 });
    expect(parseMajorAmount('1,234.56', 'SAR')).toEqual({ ok: true, minor: 123456 });
    expect(parseMajorAmount('12,5', 'SAR')).toEqual({ ok: true, minor: 1250 });
  });
  it('reads Arabic-Indic digits and the Turkish decimal comma', () => {
    expect(parseMajorAmount('١٢٫٥', 'SAR', 'ar')).toEqual({ ok: true, minor: 1250 });
    expect(parseMajorAmount('1.234,56', 'TRY', 'tr')).toEqual({ ok: true, minor: 123456 });
  });
  it('refuses what is not an amount', () => {
    expect(parseMajorAmount('1.2345', 'KWD')).toEqual({ ok: false, error: 'too_many_decimals' });
    expect(parseMajorAmount('1.234', 'SAR')).toEqual({ ok: false, error: 'too_many_decimals' });
    expect(parseMajorAmount('-5', 'SAR')).toEqual({ ok: false, error: 'invalid' });
    expect(parseMajorAmount('0', 'SAR')).toEqual({ ok: false, error: 'not_positive' });
    expect(parseMajorAmount('abc', 'SAR')).toEqual({ ok: false, error: 'invalid' });
    expect(parseMajorAmount('1e3', 'SAR')).toEqual({ ok: false, error: 'invalid' });
  });
});
