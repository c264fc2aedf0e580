/** Small shared pieces: the page frame (its one h1), a focus-trapping dialog, fields, errors. */
import { useEffect, useId, useRef, type ReactNode, type InputHTMLAttributes } from 'react';
import { FormattedMessage, useIntl } from 'react-intl';

export function Loading() {
  return <p role="status" data-loading="" className="p-6 text-slate-500"><FormattedMessage id="shell.loading" /></p>;
}

type ErrorLike = { message?: string; graphQLErrors?: { message: string }[] } | null | undefined;

/** A GraphQL or network error, or the userErrors of a payload. */
export function ErrorNote({ error, userErrors }: { error?: ErrorLike; userErrors?: readonly { message: string; field?: string | null }[] | null }) {
  const messages = [
    ...(error?.graphQLErrors?.length ? error.graphQLErrors.map((e) => e.message) : error?.message ? [error.message.replace(/^\[(GraphQL|Network)\] /, '')] : []),
    ...(userErrors ?? []).map((e) => e.message),
  ];
  if (!messages.length) return null;
  return (
    <div role="alert" className="my-3 rounded border border-red-300 bg-red-50 p-3 text-red-800">
      {messages.map((m, i) => <p key={i}><FormattedMessage id="shell.error" values={{ message: m }} /></p>)}
    </div>
  );
}

/** A page: its one h1 (the menu word), then its content. */
export function Page({ titleId, children, actions }: { titleId: string; children: ReactNode; actions?: ReactNode }) {
  const intl = useIntl();
  const title = intl.formatMessage({ id: titleId });
  useEffect(() => {
    document.title = `${title} · Qafila`;
  }, [title]);
  return (
    <section className="p-4 md:p-6">
      <div className="mb-4 flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-semibold">{title}</h1>
        {actions && <div className="flex flex-wrap gap-2">{actions}</div>}
      </div>
      {children}
    </section>
  );
}

export const buttonClass = 'inline-flex items-center gap-2 rounded bg-emerald-700 px-4 py-2 font-medium text-white hover:bg-emerald-800 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-700 disabled:opacity-50';
export const secondaryButtonClass = 'inline-flex items-center gap-2 rounded border border-slate-300 bg-white px-4 py-2 font-medium text-slate-800 hover:bg-slate-50 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-700 disabled:opacity-50';
export const inputClass = 'block w-full rounded border border-slate-300 bg-white px-3 py-2 text-start focus-visible:outline focus-visible:outline-2 focus-visible:outline-emerald-700';
export const linkClass = 'text-emerald-800 underline hover:text-emerald-950';

export function Field({ labelId, hint, ...input }: { labelId: string; hint?: ReactNode } & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <div className="mb-3">
      <label htmlFor={id} className="mb-1 block font-medium"><FormattedMessage id={labelId} /></label>
      <input id={id} className={inputClass} {...input} />
      {hint && <p className="mt-1 text-sm text-slate-600">{hint}</p>}
    </div>
  );
}

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * A modal dialog (<dialog> with showModal: the rest of the page is inert); Tab and Shift+Tab
 * cycle inside it, Escape closes it, and focus returns to what opened it.
 */
export function Dialog({ open, onClose, titleId, children }: { open: boolean; onClose: () => void; titleId: string; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const headingId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      const opener = document.activeElement as HTMLElement | null;
      d.showModal();
      d.querySelector<HTMLElement>('[autofocus], input, select, textarea, button')?.focus();
      return () => opener?.focus?.();
    }
    if (!open && d.open) d.close();
  }, [open]);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    const cancel = (e: Event) => { e.preventDefault(); onClose(); };
    const keydown = (e: KeyboardEvent) => {
      if (e.key !== 'Tab') return;
      const items = Array.from(d.querySelectorAll<HTMLElement>(FOCUSABLE));
      if (!items.length) return;
      const first = items[0], last = items[items.length - 1];
      if (e.shiftKey && document.activeElement === first) { e.preventDefault(); last.focus(); }
      else if (!e.shiftKey && document.activeElement === last) { e.preventDefault(); first.focus(); }
    };
    d.addEventListener('cancel', cancel);
    d.addEventListener('keydown', keydown);
    return () => { d.removeEventListener('cancel', cancel); d.removeEventListener('keydown', keydown); };
  }, [onClose]);
  return (
    <dialog ref={ref} aria-labelledby={headingId} className="m-auto w-full max-w-md rounded-lg p-6 shadow-xl backdrop:bg-slate-900/50">
      {open && (
        <>
          <h2 id={headingId} className="mb-4 text-xl font-semibold"><FormattedMessage id={titleId} /></h2>
          {children}
        </>
      )}
    </dialog>
  );
}

export function Status({ value }: { value: string }) {
  const intl = useIntl();
  const id = `status.${value}`;
  const text = intl.messages[id] ? intl.formatMessage({ id }) : value;
  const tone = /succeeded|paid|won|accepted|valid|active|sent/.test(value) ? 'bg-emerald-100 text-emerald-900'
    : /fail|declin|lost|reject|invalid|needs_response|canceled|cancelled|revoked/.test(value) ? 'bg-red-100 text-red-900'
    : 'bg-slate-100 text-slate-800';
  return <span className={`whitespace-nowrap rounded px-2 py-0.5 text-sm ${tone}`}>{text}</span>;
}

export const tableClass = 'w-full border-collapse text-start';
export const thClass = 'border-b border-slate-300 px-3 py-2 text-start font-semibold text-slate-700';
export const tdClass = 'border-b border-slate-200 px-3 py-2 text-start align-top';
