/** The shell: header (merchant switcher, e-mail, Test mode, language and digits), the menu from ROUTES, the page. */
import { Suspense, useState } from 'react';
import { NavLink, Outlet } from 'react-router';
import { FormattedMessage, useIntl } from 'react-intl';
import { useClient, useMutation } from 'urql';
import { LANGS, type Lang } from '../format/locale';
import { useLocale } from '../i18n/LocaleProvider';
import { setCsrfToken } from './csrf';
import { CurrentSessionQuery, PreferencesMutation, SignOutMutation, SwitchMerchantMutation } from './queries';
import { ROUTES } from './routes';
import { ErrorNote, Loading, inputClass, secondaryButtonClass } from './ui';
import { useCan, useViewer } from './viewer';

const LANG_NAMES: Record<Lang, string> = { ar: 'العربية', en: 'English', tr: 'Türkçe' };

function MerchantSwitcher() {
  const viewer = useViewer();
  const [state, switchMerchant] = useMutation(SwitchMerchantMutation);
  const memberships = viewer.member?.memberships ?? [];
  const [notice, setNotice] = useState<string | null>(null);
  if (memberships.length <= 1) {
    return <span className="font-medium"><span className="sr-only"><FormattedMessage id="shell.merchant" />: </span><bdi>{viewer.name}</bdi></span>;
  }
  return (
    <label className="flex items-center gap-2">
      <span className="sr-only"><FormattedMessage id="shell.merchant" /></span>
      <select className={`${inputClass} py-1`} value={viewer.id} disabled={state.fetching}
        onChange={async (e) => {
          const r = await switchMerchant({ input: { merchantId: e.target.value } });
          const p = r.data?.sessionSwitchMerchant;
          if (p?.twoFactor === 'challenge' && p.challengeId) {
            window.location.assign(`/dashboard/login?challenge=${encodeURIComponent(p.challengeId)}`);
            return;
          }
          if (p && !p.userErrors.length && !r.error) {
            setCsrfToken(p.csrfToken);
            window.location.assign('/dashboard');
          } else {
            setNotice(p?.userErrors[0]?.message ?? r.error?.message ?? null);
          }
        }}>
        {memberships.map((m) => <option key={m.merchantId} value={m.merchantId}>{m.merchantName}</option>)}
      </select>
      {notice && <span role="alert" className="text-sm text-red-700">{notice}</span>}
    </label>
  );
}

function LanguagePicker() {
  const { lang, digits, setLang, setDigits } = useLocale();
  const [, save] = useMutation(PreferencesMutation);
  const effective = digits ?? (lang === 'ar' ? 'arab' : 'latn');
  return (
    <div className="flex items-center gap-2">
      <label className="flex items-center gap-1">
        <span className="text-sm text-slate-600"><FormattedMessage id="shell.language" /></span>
        <select className={`${inputClass} py-1`} value={lang}
          onChange={(e) => { const l = e.target.value as Lang; setLang(l); void save({ input: { language: l } }); }}>
          {LANGS.map((l) => <option key={l} value={l} lang={l}>{LANG_NAMES[l]}</option>)}
        </select>
      </label>
      {lang === 'ar' && (
        <label className="flex items-center gap-1">
          <span className="text-sm text-slate-600"><FormattedMessage id="shell.digits" /></span>
          <select className={`${inputClass} py-1`} value={effective}
            onChange={(e) => { const d = e.target.value as 'arab' | 'latn'; setDigits(d); void save({ input: { digits: d } }); }}>
            <option value="arab"><FormattedMessage id="shell.digits.arab" /></option>
            <option value="latn"><FormattedMessage id="shell.digits.latn" /></option>
          </select>
        </label>
      )}
    </div>
  );
}

/** Ends this session (sessionRevoke of the current one), then the sign-in page. */
function SignOut() {
  const client = useClient();
  return (
    <button type="button" className={`${secondaryButtonClass} py-1`} onClick={async () => {
      const r = await client.query(CurrentSessionQuery, {}, { requestPolicy: 'network-only' }).toPromise();
      const current = r.data?.sessions.find((s) => s.current);
      if (current) await client.mutation(SignOutMutation, { input: { id: current.id } }).toPromise();
      setCsrfToken(null);
      window.location.assign('/dashboard/login');
    }}>
      <FormattedMessage id="auth.signOut" />
    </button>
  );
}

export default function Layout() {
  const viewer = useViewer();
  const can = useCan();
  const intl = useIntl();
  return (
    <div className="min-h-screen bg-slate-50 text-slate-900">
      <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:start-2 focus:top-2 focus:z-10 focus:rounded focus:bg-white focus:p-2">
        <FormattedMessage id="shell.skip" />
      </a>
      <header className="flex flex-wrap items-center gap-4 border-b border-slate-200 bg-white px-4 py-3">
        <span className="text-lg font-bold text-emerald-800">Qafila</span>
        <MerchantSwitcher />
        {!viewer.livemode && (
          <span className="rounded bg-amber-200 px-2 py-0.5 text-sm font-semibold text-amber-950"><FormattedMessage id="shell.testMode" /></span>
        )}
        <span className="ms-auto text-sm text-slate-700"><bdi>{viewer.member?.email}</bdi></span>
        <LanguagePicker />
        <SignOut />
      </header>
      <div className="flex flex-col md:flex-row">
        <nav aria-label={intl.formatMessage({ id: 'nav.label' })} className="border-e border-slate-200 bg-white md:min-h-screen md:w-56">
          <ul className="flex flex-wrap gap-1 p-2 md:flex-col">
            {ROUTES.filter((r) => r.menu && can(r.permission)).map((r) => (
              <li key={r.path}>
                <NavLink to={`/${r.path}`} end={r.path === ''}
                  className={({ isActive }) => `block rounded px-3 py-2 ${isActive ? 'bg-emerald-100 font-semibold text-emerald-900' : 'text-slate-700 hover:bg-slate-100'}`}>
                  <FormattedMessage id={r.titleId} />
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" className="min-w-0 flex-1">
          <Suspense fallback={<Loading />}>
            <Outlet />
          </Suspense>
        </main>
      </div>
    </div>
  );
}

export function NotAllowed({ titleId }: { titleId: string }) {
  const intl = useIntl();
  return (
    <section className="p-6">
      <h1 className="text-2xl font-semibold">{intl.formatMessage({ id: titleId })}</h1>
      <ErrorNote error={{ message: intl.formatMessage({ id: 'shell.notAllowed' }) }} />
    </section>
  );
}
