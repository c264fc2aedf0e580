/** "Refund" → a dialog: "Amount" (major units, default what is left, parsed exactly), reason, "Confirm refund" (paymentRefund). Nothing is sent before the confirmation. */
import { useState, type FormEvent } from 'react';
import { FormattedMessage, useIntl } from 'react-intl';
import { useMutation } from 'urql';
import { useFormat } from '../app/format';
import { Dialog, ErrorNote, Field, buttonClass, inputClass, secondaryButtonClass } from '../app/ui';
import { currencyDecimals, minorToInput, parseMajorAmount } from '../format/money';
import { useLocale } from '../i18n/LocaleProvider';
import { PaymentRefund } from './queries';

const REASONS = ['requested_by_customer', 'duplicate', 'fraudulent'] as const;

export default function RefundDialog({ paymentId, currency, refundable, onDone }: {
  paymentId: string; currency: string; refundable: bigint; onDone: (message: string) => void;
}) {
  const intl = useIntl();
  const f = useFormat();
  const { lang } = useLocale();
  const [open, setOpen] = useState(false);
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState<string>('requested_by_customer');
  const [problem, setProblem] = useState<string | null>(null);
  const [state, refund] = useMutation(PaymentRefund);

  function show() {
    setAmount(minorToInput(refundable, currency));
    setProblem(null);
    setOpen(true);
  }

  async function confirm(e: FormEvent) {
    e.preventDefault();
    const parsed = parseMajorAmount(amount, currency, lang);
    if (!parsed.ok) {
      const id = parsed.error === 'too_many_decimals' ? 'payments.amountDecimals' : parsed.error === 'not_positive' ? 'payments.amountPositive'
        : parsed.error === 'too_large' ? 'payments.amountTooLarge' : 'payments.amountInvalid';
      setProblem(intl.formatMessage({ id }, { currency, decimals: currencyDecimals(currency) }));
      return;
    }
    if (BigInt(parsed.minor) > refundable) {
      setProblem(intl.formatMessage({ id: 'payments.amountTooLarge' }));
      return;
    }
    setProblem(null);
    const r = await refund({ input: { id: paymentId, amount: parsed.minor, reason } });
    const p = r.data?.paymentRefund;
    if (p && !p.userErrors.length && !r.error) {
      setOpen(false);
      onDone(intl.formatMessage({ id: 'payments.refunded' }, { amount: f.money(p.amount ?? parsed.minor, currency) }));
    }
  }

  return (
    <>
      <button type="button" className={buttonClass} onClick={show}><FormattedMessage id="payments.refund" /></button>
      <Dialog open={open} onClose={() => setOpen(false)} titleId="payments.refundTitle">
        <form onSubmit={confirm} noValidate>
          <Field labelId="payments.refundAmount" name="amount" inputMode="decimal" dir="ltr" value={amount}
            onChange={(e) => setAmount(e.target.value)} aria-invalid={problem ? true : undefined}
            hint={<FormattedMessage id="payments.refundAmountHint" values={{ currency, max: <bdi>{f.money(refundable.toString(), currency)}</bdi> }} />} />
          <label className="mb-3 block">
            <span className="mb-1 block font-medium"><FormattedMessage id="payments.reason" /></span>
            <select className={inputClass} value={reason} onChange={(e) => setReason(e.target.value)}>
              {REASONS.map((r) => <option key={r} value={r}>{intl.formatMessage({ id: `payments.reason.${r}` })}</option>)}
            </select>
          </label>
          {problem && <p role="alert" className="mb-3 text-red-800">{problem}</p>}
          <ErrorNote error={state.error} userErrors={state.data?.paymentRefund.userErrors} />
          <div className="flex justify-end gap-2">
            <button type="button" className={secondaryButtonClass} onClick={() => setOpen(false)}><FormattedMessage id="shell.cancel" /></button>
            <button type="submit" className={buttonClass} disabled={state.fetching}><FormattedMessage id="payments.confirmRefund" /></button>
          </div>
        </form>
      </Dialog>
    </>
  );
}
