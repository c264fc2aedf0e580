/**
 * Money from integer minor units, never through a float: the amount is split into its integer and
 * fraction digits with BigInt, and Intl only lays out the exact decimal string (grouping, the
 * decimal sign, the digits of the numbering system and the currency's sign).
 */
import { localeTag, type LocaleSpec } from './locale';

const THREE_DECIMALS = new Set(['KWD', 'BHD', 'OMR', 'JOD', 'IQD']);

/** Decimals of a currency's minor unit: 3 for KWD, BHD, OMR, JOD, IQD; 2 for the rest. */
export function currencyDecimals(currency: string): number {
  return THREE_DECIMALS.has(currency.toUpperCase()) ? 3 : 2;
}

/** An integer amount (a number, a string of digits or a BigInt) as a BigInt; throws otherwise. */
export function toBigInt(minor: number | string | bigint): bigint {
  if (typeof minor === 'bigint') return minor;
  if (typeof minor === 'number') {
    if (!Number.isSafeInteger(minor)) throw new RangeError(`not an integer amount: ${minor}`);
    return BigInt(minor);
  }
  if (!/^-?\d+$/.test(minor.trim())) throw new RangeError(`not an integer amount: ${minor}`);
  return BigInt(minor.trim());
}

/** Minor units as the exact decimal string in major units: 123456 KWD -> "123.456". */
export function minorToDecimalString(minor: number | string | bigint, currency: string): string {
  const d = currencyDecimals(currency);
  const v = toBigInt(minor);
  const neg = v < 0n;
  const abs = neg ? -v : v;
  const scale = 10n ** BigInt(d);
  const int = (abs / scale).toString();
  const frac = (abs % scale).toString().padStart(d, '0');
  return `${neg ? '-' : ''}${int}.${frac}`;
}

const cache = new Map<string, Intl.NumberFormat>();
function nf(tag: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = tag + JSON.stringify(options);
  let f = cache.get(key);
  if (!f) {
    f = new Intl.NumberFormat(tag, options);
    cache.set(key, f);
  }
  return f;
}

type Formattable = Parameters<Intl.NumberFormat['format']>[0];

/** Lays out an exact decimal string: integer and fraction digits come from the string itself. */
function layout(format: Intl.NumberFormat, decimal: string, zeroDigit: string): string {
  const neg = decimal.startsWith('-');
  const [int, frac = ''] = decimal.replace('-', '').split('.');
  // formatToParts of a value with the same sign and shape gives the literal parts (currency sign,
  // minus, spaces, bidi marks) in the locale's order; the digits are then ours, not Intl's.
  const sample = `${neg ? '-' : ''}${int.replace(/\d/g, '1')}${frac ? '.' + frac.replace(/\d/g, '1') : ''}`;
  const parts = format.formatToParts(sample as unknown as Formattable);
  const digit = (s: string) => s.replace(/\d/g, (c) => String.fromCharCode(zeroDigit.charCodeAt(0) + Number(c)));
  // Regroup our integer digits the way Intl grouped the sample's.
  const intSizes = parts.filter((p) => p.type === 'integer').map((p) => p.value.length);
  const groups: string[] = [];
  let pos = 0;
  for (const size of intSizes) {
    groups.push(int.slice(pos, pos + size));
    pos += size;
  }
  let gi = 0;
  return parts.map((p) => {
    if (p.type === 'integer') return digit(groups[gi++] ?? '');
    if (p.type === 'fraction') return digit(frac);
    return p.value;
  }).join('');
}

function zeroOf(tag: string): string {
  return nf(tag, { useGrouping: false }).format(0);
}

/** 123456 KWD in ar -> "١٢٣٫٤٥٦ د.ك.‏"; in en "KWD 123.456"; 123456 TRY in tr -> "₺1.234,56". */
export function formatMoney(minor: number | string | bigint, currency: string, spec: LocaleSpec): string {
  const d = currencyDecimals(currency);
  const tag = localeTag(spec);
  const format = nf(tag, { style: 'currency', currency: currency.toUpperCase(), currencyDisplay: spec.lang === 'en' ? 'code' : 'symbol',
                           minimumFractionDigits: d, maximumFractionDigits: d });
  return layout(format, minorToDecimalString(minor, currency), zeroOf(tag));
}

/** The amount without the currency sign (inputs, tables with a currency column). */
export function formatMinorPlain(minor: number | string | bigint, currency: string, spec: LocaleSpec): string {
  const d = currencyDecimals(currency);
  const tag = localeTag(spec);
  const format = nf(tag, { minimumFractionDigits: d, maximumFractionDigits: d });
  return layout(format, minorToDecimalString(minor, currency), zeroOf(tag));
}

/** An integer count with grouping and the numbering system's digits. */
export function formatInteger(value: number | string | bigint, spec: LocaleSpec): string {
  const tag = localeTag(spec);
  const v = toBigInt(value);
  return layout(nf(tag, { maximumFractionDigits: 0 }), v.toString(), zeroOf(tag));
}

/** A percentage given in percent (the API's 75 or 66.67): "75%", "٧٥٪", "%75". */
export function formatPercent(percent: number, spec: LocaleSpec): string {
  const tag = localeTag(spec);
  // The API rounds the rate to 2 decimals: keep those, from the number's shortest string.
  const s = Number.isFinite(percent) ? String(Math.round(percent * 100) / 100) : '0';
  const [int, frac = ''] = s.replace('-', '').split('.');
  const decimal = `${s.startsWith('-') ? '-' : ''}${int}${frac ? '.' + frac : ''}`;
  const format = nf(tag, { style: 'percent', minimumFractionDigits: frac.length, maximumFractionDigits: frac.length });
  // Percent style multiplies by 100: lay out the digits ourselves on a sample of the same shape.
  const neg = decimal.startsWith('-');
  const sampleValue = `${neg ? '-' : ''}${int.replace(/\d/g, '1')}${frac ? '.' + frac.replace(/\d/g, '1') : ''}`;
  const parts = format.formatToParts((Number(sampleValue) / 100) as Formattable);
  const zero = zeroOf(tag);
  const digit = (x: string) => x.replace(/\d/g, (c) => String.fromCharCode(zero.charCodeAt(0) + Number(c)));
  const intSizes = parts.filter((p) => p.type === 'integer').map((p) => p.value.length);
  const groups: string[] = [];
  let pos = 0;
  for (const size of intSizes) { groups.push(int.slice(pos, pos + size)); pos += size; }
  let gi = 0;
  return parts.map((p) => (p.type === 'integer' ? digit(groups[gi++] ?? '') : p.type === 'fraction' ? digit(frac) : p.value)).join('');
}

const ARABIC_INDIC = /[\u0660-\u0669]/g;
const EXTENDED_ARABIC_INDIC = /[\u06F0-\u06F9]/g;

export type ParseResult = { ok: true; minor: number } | { ok: false; error: 'invalid' | 'too_many_decimals' | 'not_positive' | 'too_large' };

/**
 * A typed amount in major units (as a person writes it: "12.5", "12,5", "١٢٫٥", "1.234,56" in tr)
 * to minor units, exactly. Negative, zero or more decimals than the currency has: an error.
 */
export function parseMajorAmount(input: string, currency: string, lang: 'ar' | 'en' | 'tr' = 'en'): ParseResult {
  const d = currencyDecimals(currency);
  let s = input.trim()
    .replace(ARABIC_INDIC, (c) => String(c.charCodeAt(0) - 0x0660))
    .replace(EXTENDED_ARABIC_INDIC, (c) => String(c.charCodeAt(0) - 0x06f0))
    .replace(/[\u066B]/g, '.')          // Arabic decimal separator
    .replace(/[\u066C\s\u00A0\u202F']/g, ''); // Arabic thousands separator, spaces
  // Turkish writes 1.234,56: the comma is the decimal sign, dots group. Elsewhere a lone comma
  // with no dot is a decimal sign too; commas beside a dot group.
  if (lang === 'tr') s = s.replace(/\./g, '').replace(',', '.');
  else if (s.includes(',') && !s.includes('.') && /^\d+,\d+$/.test(s) && !/^\d{1,3}(,\d{3})+$/.test(s)) s = s.replace(',', '.');
  else s = s.replace(/,/g, '');
  const m = /^(\d+)(?:\.(\d*))?$/.exec(s);
  if (!m) return { ok: false, error: 'invalid' };
  const frac = m[2] ?? '';
  if (frac.length > d) return { ok: false, error: 'too_many_decimals' };
  const minor = BigInt(m[1]) * 10n ** BigInt(d) + BigInt((frac + '0'.repeat(d)).slice(0, d) || '0');
  if (minor <= 0n) return { ok: false, error: 'not_positive' };
  if (minor > BigInt(Number.MAX_SAFE_INTEGER)) return { ok: false, error: 'too_large' };
  return { ok: true, minor: Number(minor) };
}

/** Minor units as the plain major-unit string an input shows ("12.500" for 12500 KWD). */
export function minorToInput(minor: number | string | bigint, currency: string): string {
  return minorToDecimalString(minor, currency);
}
