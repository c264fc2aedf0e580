import { useEffect, type ReactNode } from 'react';
import { useIntl } from 'react-intl';
import { LANGS, type Lang } from '../format/locale';
import { useLocale } from '../i18n/LocaleProvider';

const NAMES: Record<Lang, string> = { ar: 'العربية', en: 'English', tr: 'Türkçe' };

/** The signed-out pages' frame: one h1, a language choice, the form. */
export default function AuthFrame({ titleId, children }: { titleId: string; children: ReactNode }) {
  const intl = useIntl();
  const { lang, setLang } = useLocale();
  const title = intl.formatMessage({ id: titleId });
  useEffect(() => { document.title = `${title} · Qafila`; }, [title]);
  return (
    <main className="flex min-h-screen items-start justify-center bg-slate-50 px-4 pt-16 text-slate-900">
      <div className="w-full max-w-sm rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <p className="mb-2 text-lg font-bold text-emerald-800">Qafila</p>
        <h1 className="mb-4 text-2xl font-semibold">{title}</h1>
        {children}
        <ul className="mt-6 flex gap-3 text-sm" aria-label={intl.formatMessage({ id: 'shell.language' })}>
          {LANGS.map((l) => (
            <li key={l}>
              <button type="button" lang={l} aria-pressed={l === lang} onClick={() => setLang(l)}
                className={`underline ${l === lang ? 'font-semibold text-emerald-900' : 'text-slate-600'}`}>{NAMES[l]}</button>
            </li>
          ))}
        </ul>
      </div>
    </main>
  );
}
