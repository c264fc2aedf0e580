/** Languages and numbering systems of the dashboard, and the BCP 47 tag Intl gets for them. */
export type Lang = 'ar' | 'en' | 'tr';
export type Digits = 'arab' | 'latn';
export const LANGS: readonly Lang[] = ['ar', 'en', 'tr'];

export interface LocaleSpec {
  lang: Lang;
  /** The member's choice; null: the language's default (Arabic-Indic in Arabic, Latin otherwise). */
  digits?: Digits | null;
}

/** The digits of the page: the member's choice applies to Arabic (Arabic-Indic by default); English and Turkish use Latin digits. */
export function numberingSystem(spec: LocaleSpec): Digits {
  if (spec.lang !== 'ar') return 'latn';
  return spec.digits === 'latn' ? 'latn' : 'arab';
}

/** 'ar-u-nu-arab', 'en-u-nu-latn', 'tr-u-nu-latn'. */
export function localeTag(spec: LocaleSpec): string {
  return `${spec.lang}-u-nu-${numberingSystem(spec)}`;
}

export function isLang(value: unknown): value is Lang {
  return typeof value === 'string' && (LANGS as readonly string[]).includes(value);
}

/**
 * The language to show: `?lang=` first, then the member's saved language, then the browser's
 * (navigator.languages, i.e. Accept-Language) and Arabic when none of them is ours.
 */
export function chooseLang(query: string | null | undefined, saved: string | null | undefined,
                           browser: readonly string[] | null | undefined): Lang {
  const q = query?.toLowerCase();
  if (isLang(q)) return q;
  const s = saved?.toLowerCase();
  if (isLang(s)) return s;
  for (const tag of browser ?? []) {
    const primary = tag.toLowerCase().split(/[-_]/)[0];
    if (isLang(primary)) return primary;
  }
  return 'ar';
}

export function direction(lang: Lang): 'rtl' | 'ltr' {
  return lang === 'ar' ? 'rtl' : 'ltr';
}
