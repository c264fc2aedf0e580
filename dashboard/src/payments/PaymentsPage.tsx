import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { FormattedMessage, useIntl } from 'react-intl';
import { Link, useSearchParams } from 'react-router';
import { useClient, useQuery, useSubscription } from 'urql';
import { DateTimeText, Id, Money, Num } from '../app/format';
import { ErrorNote, Loading, Page, Status, buttonClass, inputClass, linkClass, secondaryButtonClass, tableClass, tdClass, thClass } from '../app/ui';
import { useViewer } from '../app/viewer';
import type { PaymentRowFragment } from '../gql/graphql';
import { CURRENCIES, FILTER_KEYS, METHODS, STATUSES, matches, readFilters, toVariables, type Filters } from './filters';
import { PaymentEventsSubscription, PaymentsExportQuery, PaymentsList } from './queries';

const PAGE = 50;

function FilterBar({ filters, onApply }: { filters: Filters; onApply: (f: Filters) => void }) {
  const intl = useIntl();
  const [draft, setDraft] = useState<Filters>(filters);
  useEffect(() => setDraft(filters), [filters]);
  const set = (k: keyof Filters) => (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [k]: e.target.value }));
  const submit = (e: FormEvent) => { e.preventDefault(); onApply(draft); };
  const select = (k: 'status' | 'method' | 'currency', options: readonly string[], label: string, words = false) => (
    <label className="block">
      <span className="mb-1 block text-sm font-medium"><FormattedMessage id={label} /></span>
      <select className={inputClass} value={draft[k] ?? ''} onChange={set(k)} name={k}>
        <option value="">{intl.formatMessage({ id: 'payments.any' })}</option>
        {options.map((o) => <option key={o} value={o}>{words && intl.messages[`status.${o}`] ? intl.formatMessage({ id: `status.${o}` }) : o}</option>)}
      </select>
    </label>
  );
  const input = (k: 'from' | 'to' | 'amount_gte' | 'amount_lte', label: string, type: string) => (
    <label className="block">
      <span className="mb-1 block text-sm font-medium"><FormattedMessage id={label} /></span>
      <input className={inputClass} type={type} name={k} value={draft[k] ?? ''} onChange={set(k)} dir="ltr"
        {...(type === 'text' ? { inputMode: 'numeric' as const, pattern: '[0-9]*' } : {})} />
    </label>
  );
  return (
    <form onSubmit={submit} className="mb-4 rounded border border-slate-200 bg-white p-4" role="search">
      <div className="mb-3 flex flex-wrap items-end gap-2">
        <label className="min-w-64 flex-1">
          <span className="sr-only"><FormattedMessage id="payments.search" /></span>
          <input className={inputClass} type="search" name="q" value={draft.q ?? ''} onChange={set('q')}
            aria-label={intl.formatMessage({ id: 'payments.search' })}
            placeholder={intl.formatMessage({ id: 'payments.searchHint' })} />
        </label>
        <button type="submit" className={buttonClass}><FormattedMessage id="payments.search" /></button>
      </div>
      <fieldset className="grid grid-cols-2 gap-3 md:grid-cols-4">
        <legend className="sr-only"><FormattedMessage id="payments.filters" /></legend>
        {select('status', STATUSES, 'payments.status', true)}
        {select('method', METHODS, 'payments.method')}
        {select('currency', CURRENCIES, 'payments.currency')}
        {input('from', 'payments.from', 'date')}
        {input('to', 'payments.to', 'date')}
        {input('amount_gte', 'payments.amountGte', 'text')}
        {input('amount_lte', 'payments.amountLte', 'text')}
        <div className="flex items-end gap-2">
          <button type="submit" className={secondaryButtonClass}><FormattedMessage id="payments.apply" /></button>
          <button type="button" className={secondaryButtonClass} onClick={() => onApply({})}><FormattedMessage id="payments.clear" /></button>
        </div>
      </fieldset>
    </form>
  );
}

export function PaymentRows({ rows, fresh }: { rows: PaymentRowFragment[]; fresh?: Set<string> }) {
  const intl = useIntl();
  return (
    <div className="overflow-x-auto rounded border border-slate-200 bg-white">
      <table className={tableClass}>
        <thead>
          <tr>
            {['id', 'amount', 'status', 'method', 'card', 'customer', 'date'].map((c) => (
              <th key={c} scope="col" className={thClass}><FormattedMessage id={`payments.col.${c}`} /></th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((p) => (
            <tr key={p.id} data-payment-id={p.id} className={fresh?.has(p.id) ? 'bg-emerald-50' : undefined}>
              <td className={tdClass}>
                <Link className={linkClass} to={`/payments/${p.id}`}><Id>{p.id}</Id></Link>
                {fresh?.has(p.id) && <span className="ms-2 rounded bg-emerald-200 px-1 text-xs"><FormattedMessage id="payments.new" /></span>}
              </td>
              <td className={tdClass}><Money minor={p.amount} currency={p.currency} /></td>
              <td className={tdClass}><Status value={p.status} /></td>
              <td className={tdClass}><bdi>{p.paymentMethodType}</bdi></td>
              <td className={`${tdClass} whitespace-nowrap`}>
                {p.card.last4 ? <bdi dir="ltr">{p.card.brand ?? ''} •••• {p.card.last4}</bdi>
                  : p.wallet ? <bdi dir="ltr">{p.wallet.type} •••• {p.wallet.dynamicLast4}</bdi> : intl.formatMessage({ id: 'shell.none' })}
              </td>
              <td className={tdClass}>
                {p.customer?.email && <div><bdi>{p.customer.email}</bdi></div>}
                {p.customer?.phone && <div><bdi dir="ltr">{p.customer.phone}</bdi></div>}
              </td>
              <td className={`${tdClass} min-w-40`}><DateTimeText iso={p.createdAt} /></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export default function PaymentsPage() {
  const viewer = useViewer();
  const client = useClient();
  const intl = useIntl();
  const [params, setParams] = useSearchParams();
  const filters = useMemo(() => readFilters(params), [params]);
  const variables = useMemo(() => toVariables(filters, viewer.timeZone), [filters, viewer.timeZone]);
  const [after, setAfter] = useState<string | null>(null);
  useEffect(() => setAfter(null), [variables]);
  const [{ data, error, fetching }] = useQuery({ query: PaymentsList, variables: { ...variables, first: PAGE, after } });
  const [live, setLive] = useState<PaymentRowFragment[]>([]);
  useEffect(() => setLive([]), [variables, after]);
  const [exportState, setExportState] = useState<{ busy: boolean; count?: number; error?: string }>({ busy: false });

  useSubscription({ query: PaymentEventsSubscription, pause: after !== null }, (_prev: unknown, event) => {
    const p = event.paymentEvents.payment;
    if (p && matches(p, filters, viewer.timeZone)) {
      setLive((rows) => [p, ...rows.filter((r) => r.id !== p.id)]);
    }
    return event;
  });

  // New payments on top (newest first); a listed payment an event changed is updated in place.
  const listed = data?.payments.edges.map((e) => e.node) ?? [];
  const listedIds = new Set(listed.map((r) => r.id));
  const latest = new Map(live.map((r) => [r.id, r]));
  const added = live.filter((r) => !listedIds.has(r.id));
  const rows = [...added, ...listed.map((r) => latest.get(r.id) ?? r)];
  const fresh = new Set(added.map((r) => r.id));

  function apply(f: Filters) {
    const next = new URLSearchParams();
    for (const k of FILTER_KEYS) if (f[k]?.trim()) next.set(k, f[k]!.trim());
    setParams(next);
  }

  async function exportCsv() {
    setExportState({ busy: true });
    const r = await client.query(PaymentsExportQuery, variables, { requestPolicy: 'network-only' }).toPromise();
    const p = r.data?.paymentsExport;
    if (!p || r.error || p.userErrors.length || p.csv == null) {
      setExportState({ busy: false, error: p?.userErrors[0]?.message ?? r.error?.message ?? 'export failed' });
      return;
    }
    const blob = new Blob([p.csv], { type: 'text/csv;charset=utf-8' });
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = p.filename || 'payments.csv';
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    setExportState({ busy: false, count: p.rowCount ?? 0 });
  }

  return (
    <Page titleId="nav.payments" actions={
      <button type="button" className={secondaryButtonClass} onClick={exportCsv} disabled={exportState.busy}>
        <FormattedMessage id="payments.exportCsv" />
      </button>
    }>
      <FilterBar filters={filters} onApply={apply} />
      {exportState.count !== undefined && (
        <p role="status" className="mb-3 text-emerald-900"><FormattedMessage id="payments.exported" values={{ count: <Num value={exportState.count} /> }} /></p>
      )}
      {exportState.error && <ErrorNote error={{ message: exportState.error }} />}
      <ErrorNote error={error} />
      {fetching && !data ? <Loading /> : (
        <>
          <p className="mb-2 text-sm text-slate-600" aria-live="polite">
            {intl.formatMessage({ id: 'payments.count' }, { count: (data?.payments.totalCount ?? 0) + fresh.size })}
          </p>
          {rows.length ? <PaymentRows rows={rows} fresh={fresh} /> : <p className="rounded border border-slate-200 bg-white p-4"><FormattedMessage id="payments.empty" /></p>}
          <div className="mt-3 flex gap-2">
            {after && <button type="button" className={secondaryButtonClass} onClick={() => setAfter(null)}><FormattedMessage id="shell.previous" /></button>}
            {data?.payments.pageInfo.hasNextPage && (
              <button type="button" className={secondaryButtonClass} onClick={() => setAfter(data.payments.pageInfo.endCursor ?? null)}>
                <FormattedMessage id="shell.next" />
              </button>
            )}
          </div>
        </>
      )}
    </Page>
  );
}
