/**
 * Step-up: a member with two-factor sign-in confirms an authenticator code before some actions
 * (changing roles, live keys): when a payload answers `step_up_required`, this dialog asks for the
 * code (stepUp) and then runs the action again.
 */
import { useState, type FormEvent } from 'react';
import { FormattedMessage } from 'react-intl';
import { useMutation } from 'urql';
import { Dialog, ErrorNote, Field, buttonClass, secondaryButtonClass } from '../app/ui';
import { StepUp } from './queries';

export const STEP_UP_REQUIRED = 'step_up_required';

type GqlError = { graphQLErrors?: readonly { extensions?: Record<string, unknown> }[] } | null | undefined;

/** The answer asks for a step-up: a 403 `step_up_required` (a top-level error) or such a userError. */
export function needsStepUp(error: GqlError, userErrors?: readonly { code: string }[] | null): boolean {
  return Boolean((error?.graphQLErrors ?? []).some((e) => e.extensions?.code === STEP_UP_REQUIRED)
    || userErrors?.some((e) => e.code === STEP_UP_REQUIRED));
}

export function StepUpDialog({ open, onClose, onConfirmed }: { open: boolean; onClose: () => void; onConfirmed: () => void }) {
  const [code, setCode] = useState('');
  const [state, stepUp] = useMutation(StepUp);
  async function submit(e: FormEvent) {
    e.preventDefault();
    const r = await stepUp({ input: { code: code.trim() } });
    if (r.data?.stepUp.stepUpExpiresAt && !r.data.stepUp.userErrors.length) {
      setCode('');
      onConfirmed();
    }
  }
  return (
    <Dialog open={open} onClose={onClose} titleId="settings.stepUpTitle">
      <form onSubmit={submit}>
        <p className="mb-3"><FormattedMessage id="settings.stepUpHint" /></p>
        <Field labelId="settings.authenticatorCode" name="code" inputMode="numeric" autoComplete="one-time-code" dir="ltr"
          value={code} onChange={(e) => setCode(e.target.value)} />
        <ErrorNote error={state.error} userErrors={state.data?.stepUp.userErrors} />
        <div className="flex justify-end gap-2">
          <button type="button" className={secondaryButtonClass} onClick={onClose}><FormattedMessage id="shell.cancel" /></button>
          <button type="submit" className={buttonClass} disabled={state.fetching}><FormattedMessage id="settings.confirm" /></button>
        </div>
      </form>
    </Dialog>
  );
}
