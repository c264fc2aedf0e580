/**
 * /dashboard/settings/security: two-factor sign-in (enrol: QR code and the secret as text; confirm
 * with a code: the recovery codes shown once; turn off), the member's sessions (revoke one, sign
 * out the others), and the dashboard's language and digits (memberPreferencesUpdate).
 */
import { useState, type FormEvent } from 'react';
import { FormattedMessage, useIntl } from 'react-intl';
import { useClient, useMutation, useQuery } from 'urql';
import { PreferencesMutation, ViewerQuery } from '../app/queries';
import { DateTimeText, Num } from '../app/format';
import { ErrorNote, Field, Loading, Page, buttonClass, inputClass, secondaryButtonClass, tableClass, tdClass, thClass } from '../app/ui';
import { useViewer } from '../app/viewer';
import type { Digits, Lang } from '../format/locale';
import { useLocale } from '../i18n/LocaleProvider';
import { SessionRevoke, SessionsList, SessionsRevokeOthers, TwoFactorConfirm, TwoFactorDisable, TwoFactorEnroll } from './queries';

function TwoFactor() {
  const intl = useIntl();
  const viewer = useViewer();
  const client = useClient();
  const enabled = Boolean(viewer.member?.twoFactorEnabled);
  const [enrollState, enroll] = useMutation(TwoFactorEnroll);
  const [confirmState, confirm] = useMutation(TwoFactorConfirm);
  const [disableState, disable] = useMutation(TwoFactorDisable);
  const [code, setCode] = useState('');
  const [recovery, setRecovery] = useState<string[] | null>(null);
  const enrolled = enrollState.data?.twoFactorEnroll;
  const refreshViewer = () => client.query(ViewerQuery, {}, { requestPolicy: 'network-only' }).toPromise();

  async function submitConfirm(e: FormEvent) {
    e.preventDefault();
    const r = await confirm({ input: { code: code.trim() } });
    const p = r.data?.twoFactorConfirm;
    if (p?.enabled && !p.userErrors.length) { setCode(''); setRecovery(p.recoveryCodes ?? []); }
  }

  async function submitDisable(e: FormEvent) {
    e.preventDefault();
    const r = await disable({ input: { code: code.trim() } });
    const p = r.data?.twoFactorDisable;
    if (p && p.enabled === false && !p.userErrors.length) { setCode(''); await refreshViewer(); }
  }

  return (
    <section aria-labelledby="tfa-heading" className="mb-8 rounded border border-slate-200 bg-white p-4">
      <h2 id="tfa-heading" className="mb-2 text-xl font-semibold"><FormattedMessage id="settings.twoFactor" /></h2>
      {recovery ? (
        <div data-testid="recovery-codes">
          <p className="mb-2 font-medium text-emerald-900" role="status"><FormattedMessage id="settings.twoFactorOn" /></p>
          <p className="mb-2"><FormattedMessage id="settings.recoveryOnce" /></p>
          <ul className="mb-3 grid grid-cols-2 gap-1 font-mono text-sm sm:grid-cols-4" dir="ltr">
            {recovery.map((c) => <li key={c}><bdi>{c}</bdi></li>)}
          </ul>
          <button type="button" className={buttonClass} onClick={() => { setRecovery(null); void refreshViewer(); }}>
            <FormattedMessage id="settings.savedCodes" />
          </button>
        </div>
      ) : enabled ? (
        <form onSubmit={submitDisable}>
          <p className="mb-3"><FormattedMessage id="settings.twoFactorOn" /></p>
          <Field labelId="settings.authenticatorCode" name="code" inputMode="numeric" autoComplete="one-time-code" dir="ltr"
            value={code} onChange={(e) => setCode(e.target.value)} />
          <ErrorNote error={disableState.error} userErrors={disableState.data?.twoFactorDisable.userErrors} />
          <button type="submit" className={secondaryButtonClass} disabled={disableState.fetching}><FormattedMessage id="settings.twoFactorDisable" /></button>
        </form>
      ) : enrolled?.secret ? (
        <form onSubmit={submitConfirm}>
          <p className="mb-3"><FormattedMessage id="settings.scanHint" /></p>
          {enrolled.qrCode && (
            <img src={enrolled.qrCode} width={192} height={192} className="mb-3 rounded border border-slate-200 bg-white p-2"
              alt={intl.formatMessage({ id: 'settings.qrAlt' })} />
          )}
          <p className="mb-1 text-sm font-medium"><FormattedMessage id="settings.secret" /></p>
          <p className="mb-3 break-all rounded bg-slate-100 p-2"><bdi dir="ltr" className="font-mono" data-testid="totp-secret">{enrolled.secret}</bdi></p>
          <Field labelId="settings.authenticatorCode" name="code" inputMode="numeric" autoComplete="one-time-code" dir="ltr"
            value={code} onChange={(e) => setCode(e.target.value)} />
          <ErrorNote error={confirmState.error} userErrors={confirmState.data?.twoFactorConfirm.userErrors} />
          <button type="submit" className={buttonClass} disabled={confirmState.fetching}><FormattedMessage id="settings.twoFactorConfirm" /></button>
        </form>
      ) : (
        <div>
          <p className="mb-3"><FormattedMessage id="settings.twoFactorOff" /></p>
          <ErrorNote error={enrollState.error} userErrors={enrolled?.userErrors} />
          <button type="button" className={buttonClass} disabled={enrollState.fetching} onClick={() => void enroll({})}>
            <FormattedMessage id="settings.twoFactorEnroll" />
          </button>
        </div>
      )}
    </section>
  );
}

function Sessions() {
  const intl = useIntl();
  const [{ data, error, fetching }, refetch] = useQuery({ query: SessionsList, requestPolicy: 'network-only' });
  const [revokeState, revoke] = useMutation(SessionRevoke);
  const [othersState, revokeOthers] = useMutation(SessionsRevokeOthers);
  const reload = () => refetch({ requestPolicy: 'network-only' });
  const rows = data?.sessions ?? [];
  const ended = othersState.data?.sessionsRevokeOthers.revoked;
  return (
    <section aria-labelledby="sessions-heading" className="mb-8">
      <div className="mb-2 flex flex-wrap items-center justify-between gap-2">
        <h2 id="sessions-heading" className="text-xl font-semibold"><FormattedMessage id="settings.sessions" /></h2>
        <button type="button" className={secondaryButtonClass} disabled={othersState.fetching || rows.filter((s) => !s.current).length === 0}
          onClick={async () => { await revokeOthers({}); reload(); }}>
          <FormattedMessage id="settings.signOutOthers" />
        </button>
      </div>
      {ended != null && <p role="status" className="mb-2 text-emerald-900"><FormattedMessage id="settings.signedOut" values={{ count: ended, n: <Num value={ended} /> }} /></p>}
      <ErrorNote error={error} />
      <ErrorNote error={revokeState.error} userErrors={revokeState.data?.sessionRevoke.userErrors} />
      <ErrorNote error={othersState.error} userErrors={othersState.data?.sessionsRevokeOthers.userErrors} />
      {fetching && !data ? <Loading /> : (
        <div className="overflow-x-auto rounded border border-slate-200 bg-white">
          <table className={tableClass}>
            <thead>
              <tr>
                {['device', 'ip', 'created', 'lastSeen'].map((c) => <th key={c} scope="col" className={thClass}><FormattedMessage id={`settings.col.${c}`} /></th>)}
                <th scope="col" className={thClass}><span className="sr-only"><FormattedMessage id="settings.col.actions" /></span></th>
              </tr>
            </thead>
            <tbody>
              {rows.map((s) => (
                <tr key={s.id} data-session-id={s.id} data-current={s.current || undefined}>
                  <td className={tdClass}>
                    <bdi dir="ltr">{s.device}</bdi>
                    {s.current && <span className="ms-2 rounded bg-emerald-100 px-2 py-0.5 text-sm text-emerald-900"><FormattedMessage id="settings.thisSession" /></span>}
                  </td>
                  <td className={tdClass}>{s.ip ? <bdi dir="ltr" className="font-mono text-sm">{s.ip}</bdi> : null}</td>
                  <td className={`${tdClass} min-w-40`}><DateTimeText iso={s.createdAt} /></td>
                  <td className={`${tdClass} min-w-40`}><DateTimeText iso={s.lastSeenAt} /></td>
                  <td className={tdClass}>
                    {!s.current && (
                      <button type="button" className={secondaryButtonClass} disabled={revokeState.fetching}
                        aria-label={intl.formatMessage({ id: 'settings.revokeSession' }, { device: s.device })}
                        onClick={async () => { const r = await revoke({ input: { id: s.id } }); if (r.data?.sessionRevoke.session) reload(); }}>
                        <FormattedMessage id="settings.signOut" />
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function Preferences() {
  const locale = useLocale();
  const [state, save] = useMutation(PreferencesMutation);
  const [lang, setLang] = useState<Lang>(locale.lang);
  const [digits, setDigits] = useState<Digits | ''>(locale.digits ?? '');
  const [saved, setSaved] = useState(false);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setSaved(false);
    const r = await save({ input: { language: lang, digits: digits || null } });
    const p = r.data?.memberPreferencesUpdate;
    if (p?.member && !p.userErrors.length) {
      locale.setLang(lang);
      locale.setDigits(digits || null);
      setSaved(true);
    }
  }
  return (
    <section aria-labelledby="prefs-heading" className="rounded border border-slate-200 bg-white p-4">
      <h2 id="prefs-heading" className="mb-3 text-xl font-semibold"><FormattedMessage id="settings.preferences" /></h2>
      <form onSubmit={submit} className="flex flex-wrap items-end gap-3">
        <label className="block">
          <span className="mb-1 block text-sm font-medium"><FormattedMessage id="settings.language" /></span>
          <select className={inputClass} name="language" value={lang} onChange={(e) => setLang(e.target.value as Lang)}>
            <option value="ar" lang="ar">العربية</option>
            <option value="en" lang="en">English</option>
            <option value="tr" lang="tr">Türkçe</option>
          </select>
        </label>
        <label className="block">
          <span className="mb-1 block text-sm font-medium"><FormattedMessage id="settings.digits" /></span>
          <select className={inputClass} name="digits" value={digits} onChange={(e) => setDigits(e.target.value as Digits | '')}>
            <option value=""><FormattedMessage id="settings.digitsDefault" /></option>
            <option value="arab"><FormattedMessage id="shell.digits.arab" /></option>
            <option value="latn"><FormattedMessage id="shell.digits.latn" /></option>
          </select>
        </label>
        <button type="submit" className={buttonClass} disabled={state.fetching}><FormattedMessage id="settings.save" /></button>
      </form>
      {saved && <p role="status" className="mt-2 text-emerald-900"><FormattedMessage id="settings.saved" /></p>}
      <ErrorNote error={state.error} userErrors={state.data?.memberPreferencesUpdate.userErrors} />
    </section>
  );
}

export default function SecurityPage() {
  return (
    <Page titleId="nav.security">
      <TwoFactor />
      <Sessions />
      <Preferences />
    </Page>
  );
}
