/**
 * The page's language and digits: `?lang=` first, then the member's saved language (applied by
 * the viewer context once it has loaded), then the browser's languages. Sets <html lang dir>.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { IntlProvider } from 'react-intl';
import { chooseLang, direction, isLang, localeTag, type Digits, type Lang, type LocaleSpec } from '../format/locale';
import { MESSAGES } from './messages';

interface LocaleState extends LocaleSpec {
  lang: Lang;
  digits: Digits | null;
  /** The language came from ?lang= (it wins over the saved one, and gets saved). */
  fromQuery: boolean;
  setLang(lang: Lang): void;
  setDigits(digits: Digits | null): void;
  /** The member's saved preferences, once known: applied unless ?lang= chose. */
  applySaved(lang: string | null | undefined, digits: string | null | undefined): void;
}

const Ctx = createContext<LocaleState | null>(null);

function initial(): { lang: Lang; fromQuery: boolean } {
  const q = new URLSearchParams(window.location.search).get('lang');
  const lang = chooseLang(q, null, navigator.languages ?? [navigator.language]);
  return { lang, fromQuery: isLang(q?.toLowerCase()) };
}

export function LocaleProvider({ children }: { children: ReactNode }) {
  const [{ lang, fromQuery }, setState] = useState(initial);
  const [digits, setDigits] = useState<Digits | null>(null);
  const setLang = useCallback((l: Lang) => setState({ lang: l, fromQuery: true }), []);
  const applySaved = useCallback((savedLang: string | null | undefined, savedDigits: string | null | undefined) => {
    setState((s) => (s.fromQuery ? s : { lang: chooseLang(null, savedLang, navigator.languages ?? []), fromQuery: false }));
    if (savedDigits === 'arab' || savedDigits === 'latn') setDigits(savedDigits);
  }, []);
  useEffect(() => {
    document.documentElement.lang = lang;
    document.documentElement.dir = direction(lang);
  }, [lang]);
  const value = useMemo(() => ({ lang, digits, fromQuery, setLang, setDigits, applySaved }), [lang, digits, fromQuery, setLang, applySaved]);
  return (
    <Ctx.Provider value={value}>
      <IntlProvider locale={localeTag({ lang, digits })} messages={MESSAGES[lang]} defaultLocale="en">
        {children}
      </IntlProvider>
    </Ctx.Provider>
  );
}

export function useLocale(): LocaleState {
  const v = useContext(Ctx);
  if (!v) throw new Error('useLocale outside LocaleProvider');
  return v;
}
