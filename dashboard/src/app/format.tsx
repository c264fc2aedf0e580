/** Formatting bound to the page's language/digits and the merchant's zone: components render numbers and ids inside <bdi>. */
import { useContext, useMemo } from 'react';
import { formatDate, formatDateTime, formatDay, type DateParts } from '../format/dates';
import { formatInteger, formatMinorPlain, formatMoney, formatPercent } from '../format/money';
import { useLocale } from '../i18n/LocaleProvider';
import { ViewerContext } from './viewerContext';

export function useFormat() {
  const { lang, digits } = useLocale();
  const viewer = useContext(ViewerContext);
  const timeZone = viewer?.timeZone || 'UTC';
  return useMemo(() => {
    const spec = { lang, digits };
    return {
      spec,
      timeZone,
      money: (minor: number | string, currency: string) => formatMoney(minor, currency, spec),
      plain: (minor: number | string, currency: string) => formatMinorPlain(minor, currency, spec),
      int: (n: number | string) => formatInteger(n, spec),
      percent: (p: number) => formatPercent(p, spec),
      date: (iso: string) => formatDate(iso, timeZone, spec),
      dateTime: (iso: string) => formatDateTime(iso, timeZone, spec),
      day: (date: string) => formatDay(date, spec),
    };
  }, [lang, digits, timeZone]);
}

export function Money({ minor, currency }: { minor: number | string; currency: string }) {
  const f = useFormat();
  return <bdi className="tabular-nums whitespace-nowrap">{f.money(minor, currency)}</bdi>;
}

export function Num({ value }: { value: number | string }) {
  const f = useFormat();
  return <bdi className="tabular-nums">{f.int(value)}</bdi>;
}

export function Percent({ value }: { value: number }) {
  const f = useFormat();
  return <bdi className="tabular-nums">{f.percent(value)}</bdi>;
}

function Dated({ parts, iso }: { parts: DateParts; iso: string }) {
  return (
    <span className="inline-flex flex-wrap items-baseline gap-x-2">
      <time dateTime={iso} className="whitespace-nowrap"><bdi>{parts.text}</bdi></time>
      {parts.hijri && <span className="whitespace-nowrap text-sm text-slate-600" data-calendar="islamic-umalqura"><bdi>{parts.hijri}</bdi></span>}
    </span>
  );
}

export function DateText({ iso }: { iso: string }) {
  const f = useFormat();
  return <Dated parts={f.date(iso)} iso={iso} />;
}

export function DateTimeText({ iso }: { iso: string }) {
  const f = useFormat();
  return <Dated parts={f.dateTime(iso)} iso={iso} />;
}

export function DayText({ date }: { date: string }) {
  const f = useFormat();
  return <Dated parts={f.day(date)} iso={date} />;
}

/** An id or code, isolated from the surrounding direction. */
export function Id({ children }: { children: string | null | undefined }) {
  return <bdi className="font-mono text-sm" dir="ltr">{children}</bdi>;
}
