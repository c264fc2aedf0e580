/**
 * Dates and times in the merchant's market zone (viewer.timeZone), never the browser's. In
 * Arabic each date carries its Hijri (Umm al-Qura) date in long form beside it.
 */
import { localeTag, numberingSystem, type LocaleSpec } from './locale';

const cache = new Map<string, Intl.DateTimeFormat>();
function dtf(tag: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = tag + JSON.stringify(options);
  let f = cache.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(tag, options);
    cache.set(key, f);
  }
  return f;
}

/** A `Date` scalar (YYYY-MM-DD, a calendar day) as an instant at noon UTC, for formatting in UTC. */
function civil(date: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) throw new RangeError(`not a date: ${date}`);
  return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), 12));
}

/** The Hijri date in long form: "١٥ جمادى الآخرة ١٤٤٨ هـ" (Arabic only). */
export function hijriDate(instant: Date, timeZone: string, spec: LocaleSpec): string {
  const tag = `ar-u-ca-islamic-umalqura-nu-${numberingSystem(spec)}`;
  return dtf(tag, { timeZone, day: 'numeric', month: 'long', year: 'numeric' }).format(instant);
}

export interface DateParts {
  /** The date in the page's language. */
  text: string;
  /** Its Hijri date in Arabic; null in other languages. */
  hijri: string | null;
}

/** An instant (DateTime, ISO 8601 UTC) as a date in `timeZone`. */
export function formatDate(iso: string, timeZone: string, spec: LocaleSpec): DateParts {
  const d = new Date(iso);
  return {
    text: dtf(localeTag(spec), { timeZone, year: 'numeric', month: 'short', day: 'numeric' }).format(d),
    hijri: spec.lang === 'ar' ? hijriDate(d, timeZone, spec) : null,
  };
}

/** An instant as date and time (hours and minutes, 24 h in tr) in `timeZone`. */
export function formatDateTime(iso: string, timeZone: string, spec: LocaleSpec): DateParts {
  const d = new Date(iso);
  return {
    text: dtf(localeTag(spec), { timeZone, year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }).format(d),
    hijri: spec.lang === 'ar' ? hijriDate(d, timeZone, spec) : null,
  };
}

/** A calendar day (Date scalar: a settlement's arrival, "today") as written in the language. */
export function formatDay(date: string, spec: LocaleSpec): DateParts {
  const d = civil(date);
  return {
    text: dtf(localeTag(spec), { timeZone: 'UTC', year: 'numeric', month: 'short', day: 'numeric' }).format(d),
    hijri: spec.lang === 'ar' ? hijriDate(d, 'UTC', spec) : null,
  };
}

/** The offset of `timeZone` from UTC at `instant`, in minutes (Asia/Kuwait: +180). */
export function zoneOffsetMinutes(instant: Date, timeZone: string): number {
  const parts = dtf('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit',
                               hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(instant);
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour') % 24, get('minute'), get('second'));
  return Math.round((asUtc - Math.floor(instant.getTime() / 1000) * 1000) / 60000);
}

/** The first instant of a local day in `timeZone`, as ISO 8601 UTC: ('2026-03-01', 'Asia/Kuwait') -> '2026-02-28T21:00:00.000Z'. */
export function startOfLocalDay(date: string, timeZone: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) throw new RangeError(`not a date: ${date}`);
  const midnightUtc = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  let guess = midnightUtc - zoneOffsetMinutes(new Date(midnightUtc), timeZone) * 60000;
  // Once more with the offset at the guess (a DST change between the two).
  guess = midnightUtc - zoneOffsetMinutes(new Date(guess), timeZone) * 60000;
  return new Date(guess).toISOString();
}

/** The last millisecond of a local day in `timeZone`, as ISO 8601 UTC. */
export function endOfLocalDay(date: string, timeZone: string): string {
  const next = civil(date);
  next.setUTCDate(next.getUTCDate() + 1);
  const nextDay = next.toISOString().slice(0, 10);
  return new Date(new Date(startOfLocalDay(nextDay, timeZone)).getTime() - 1).toISOString();
}

/** The local calendar day of an instant in `timeZone` (YYYY-MM-DD). */
export function localDay(iso: string, timeZone: string): string {
  return dtf('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(iso));
}
