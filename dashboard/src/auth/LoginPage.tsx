/**
 * Sign-in over /graphql only: otpRequest (e-mailed code), otpVerify with session COOKIE (the
 * server sets qafila_session and answers the CSRF token), then twoFactorVerify when the member
 * has an authenticator. Then `next` (a /dashboard path) or /dashboard, with a full load.
 */
import { useState, type FormEvent } from 'react';
import { FormattedMessage } from 'react-intl';
import { useSearchParams } from 'react-router';
import { useMutation } from 'urql';
import { setCsrfToken } from '../app/csrf';
import { ErrorNote, Field, buttonClass } from '../app/ui';
import { useLocale } from '../i18n/LocaleProvider';
import { OtpRequest, OtpVerify, TwoFactorVerify } from './queries';
import AuthFrame from './AuthFrame';

export function safeNext(next: string | null): string {
  if (next && /^\/dashboard(\/|$|\?)/.test(next) && !next.startsWith('//')) return next;
  return '/dashboard';
}

type Step = { kind: 'email' } | { kind: 'code'; requestId: string } | { kind: 'totp'; challengeId: string };

export default function LoginPage() {
  const [params] = useSearchParams();
  const locale = useLocale();
  const challenge = params.get('challenge');
  const [step, setStep] = useState<Step>(challenge ? { kind: 'totp', challengeId: challenge } : { kind: 'email' });
  const [email, setEmail] = useState(params.get('email') ?? '');
  const [code, setCode] = useState('');
  const [totp, setTotp] = useState('');
  const [request, doRequest] = useMutation(OtpRequest);
  const [verify, doVerify] = useMutation(OtpVerify);
  const [second, doSecond] = useMutation(TwoFactorVerify);

  function done(csrf: string | null | undefined) {
    setCsrfToken(csrf);
    let next = safeNext(params.get('next'));
    if (locale.fromQuery) next += `${next.includes('?') ? '&' : '?'}lang=${locale.lang}`;
    window.location.assign(next);
  }

  async function sendCode(e: FormEvent) {
    e.preventDefault();
    const r = await doRequest({ input: { email: email.trim() } });
    const p = r.data?.otpRequest;
    if (p?.requestId && !p.userErrors.length) setStep({ kind: 'code', requestId: p.requestId });
  }

  async function signIn(e: FormEvent) {
    e.preventDefault();
    if (step.kind !== 'code') return;
    const r = await doVerify({ input: { requestId: step.requestId, otp: code.trim(), session: 'COOKIE' } });
    const p = r.data?.otpVerify;
    if (!p || p.userErrors.length || r.error) return;
    if (p.twoFactor === 'challenge' && p.challengeId) setStep({ kind: 'totp', challengeId: p.challengeId });
    else done(p.csrfToken);
  }

  async function verifyTotp(e: FormEvent) {
    e.preventDefault();
    if (step.kind !== 'totp') return;
    const r = await doSecond({ input: { challengeId: step.challengeId, code: totp.trim() } });
    const p = r.data?.twoFactorVerify;
    if (p && !p.userErrors.length && !r.error) done(p.csrfToken);
  }

  return (
    <AuthFrame titleId="auth.title">
      {step.kind === 'email' && (
        <form onSubmit={sendCode} noValidate>
          <Field labelId="auth.email" type="email" name="email" autoComplete="email" required dir="ltr"
            value={email} onChange={(e) => setEmail(e.target.value)} autoFocus />
          <ErrorNote error={request.error} userErrors={request.data?.otpRequest.userErrors} />
          <button type="submit" className={buttonClass} disabled={request.fetching || !email.trim()}>
            <FormattedMessage id="auth.sendCode" />
          </button>
        </form>
      )}
      {step.kind === 'code' && (
        <form onSubmit={signIn} noValidate>
          <p className="mb-3 text-slate-700" role="status"><FormattedMessage id="auth.codeSent" values={{ email: <bdi>{email}</bdi> }} /></p>
          <Field labelId="auth.code" name="code" inputMode="numeric" autoComplete="one-time-code" required dir="ltr"
            value={code} onChange={(e) => setCode(e.target.value)} autoFocus />
          <ErrorNote error={verify.error} userErrors={verify.data?.otpVerify.userErrors} />
          <button type="submit" className={buttonClass} disabled={verify.fetching || !code.trim()}>
            <FormattedMessage id="auth.signIn" />
          </button>
        </form>
      )}
      {step.kind === 'totp' && (
        <form onSubmit={verifyTotp} noValidate>
          <Field labelId="auth.authenticator" name="totp" inputMode="numeric" autoComplete="one-time-code" required dir="ltr"
            value={totp} onChange={(e) => setTotp(e.target.value)} autoFocus
            hint={<FormattedMessage id="auth.authenticatorHint" />} />
          <ErrorNote error={second.error} userErrors={second.data?.twoFactorVerify.userErrors} />
          <button type="submit" className={buttonClass} disabled={second.fetching || !totp.trim()}>
            <FormattedMessage id="auth.signIn" />
          </button>
        </form>
      )}
    </AuthFrame>
  );
}
