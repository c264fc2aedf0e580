/** /dashboard/invoices: number, customer, total, status, e-invoice status, a "PDF" link (pdfUrl), credit notes. */
import { useEffect, useState } from 'react';
import { FormattedMessage, useIntl } from 'react-intl';
import { useSearchParams } from 'react-router';
import { useQuery } from 'urql';
import { DateTimeText, DayText, Money, Num } from '../app/format';
import { ErrorNote, Loading, Page, Status, inputClass, linkClass, secondaryButtonClass, tableClass, tdClass, thClass } from '../app/ui';
import type { InvoicesQuery } from '../gql/graphql';
import { InvoicesList } from './queries';

const PAGE = 50;
const STATUSES = ['draft', 'sent', 'paid'] as const;

type InvoiceRow = InvoicesQuery['invoices']['edges'][number]['node'];

/** The e-invoice of the invoice, whichever authority it went to. */
function einvoice(inv: { zatca?: { status: string } | null; gib?: { status: string } | null; eta?: { status: string } | null }) {
  if (inv.zatca) return { authority: 'ZATCA', status: inv.zatca.status };
  if (inv.gib) return { authority: 'GİB', status: inv.gib.status };
  if (inv.eta) return { authority: 'ETA', status: inv.eta.status };
  return null;
}

function Notes({ inv }: { inv: InvoiceRow }) {
  const intl = useIntl();
  if (!inv.notes.length) return <span className="text-slate-500">{intl.formatMessage({ id: 'shell.none' })}</span>;
  return (
    <ul className="space-y-1">
      {inv.notes.map((n) => {
        const e = einvoice(n);
        return (
          <li key={n.id} data-note-id={n.id} className="text-sm">
            <span className="font-medium">{intl.formatMessage({ id: `invoices.note.${n.kind}` })}</span>{' '}
            <bdi dir="ltr">{n.number}</bdi>{' '}
            <Money minor={n.amount} currency={inv.currency} />
            {e && <> <Status value={e.status} /></>}
            {n.createdAt && <div className="text-slate-600"><DateTimeText iso={n.createdAt} /></div>}
          </li>
        );
      })}
    </ul>
  );
}

export default function InvoicesPage() {
  const intl = useIntl();
  const [params, setParams] = useSearchParams();
  const status = params.get('status') || null;
  const [after, setAfter] = useState<string | null>(null);
  useEffect(() => setAfter(null), [status]);
  const [{ data, error, fetching }] = useQuery({ query: InvoicesList, variables: { first: PAGE, after, status } });
  const rows = data?.invoices.edges.map((e) => e.node) ?? [];

  return (
    <Page titleId="nav.invoices">
      <div className="mb-4 flex flex-wrap items-end gap-2">
        <label className="block">
          <span className="mb-1 block text-sm font-medium"><FormattedMessage id="invoices.status" /></span>
          <select className={inputClass} value={status ?? ''} name="status"
            onChange={(e) => setParams(e.target.value ? new URLSearchParams({ status: e.target.value }) : new URLSearchParams())}>
            <option value="">{intl.formatMessage({ id: 'invoices.any' })}</option>
            {STATUSES.map((s) => <option key={s} value={s}>{intl.formatMessage({ id: `status.${s}` })}</option>)}
          </select>
        </label>
      </div>
      <ErrorNote error={error} />
      {fetching && !data ? <Loading /> : (
        <>
          <p className="mb-2 text-sm text-slate-600" aria-live="polite">
            <FormattedMessage id="invoices.count" values={{ count: data?.invoices.totalCount ?? 0, n: <Num value={data?.invoices.totalCount ?? 0} /> }} />
          </p>
          {rows.length ? (
            <div className="overflow-x-auto rounded border border-slate-200 bg-white">
              <table className={tableClass}>
                <thead>
                  <tr>
                    {['number', 'customer', 'total', 'status', 'einvoice', 'due', 'pdf', 'notes'].map((c) => (
                      <th key={c} scope="col" className={thClass}><FormattedMessage id={`invoices.col.${c}`} /></th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {rows.map((inv) => {
                    const e = einvoice(inv);
                    return (
                      <tr key={inv.id} data-invoice-id={inv.id}>
                        <td className={tdClass}><bdi dir="ltr" className="font-mono text-sm">{inv.number}</bdi></td>
                        <td className={tdClass}>
                          {inv.customer?.name && <div><bdi>{inv.customer.name}</bdi></div>}
                          {inv.customer?.email && <div className="text-sm text-slate-600"><bdi>{inv.customer.email}</bdi></div>}
                        </td>
                        <td className={tdClass} data-testid="invoice-total"><Money minor={inv.total} currency={inv.currency} /></td>
                        <td className={tdClass}><Status value={inv.status} /></td>
                        <td className={tdClass}>
                          {e ? <span className="inline-flex flex-wrap items-center gap-1"><span className="text-sm">{e.authority}</span><Status value={e.status} /></span>
                            : <span className="text-slate-500">{intl.formatMessage({ id: 'shell.none' })}</span>}
                        </td>
                        <td className={`${tdClass} min-w-32`}><DayText date={inv.dueDate} /></td>
                        <td className={tdClass}>
                          <a className={linkClass} href={inv.pdfUrl} target="_blank" rel="noopener noreferrer" aria-describedby={`inv-${inv.id}`}>PDF</a>
                          <span id={`inv-${inv.id}`} className="sr-only">{inv.number}</span>
                        </td>
                        <td className={tdClass}><Notes inv={inv} /></td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          ) : <p className="rounded border border-slate-200 bg-white p-4"><FormattedMessage id="invoices.empty" /></p>}
          <div className="mt-3 flex gap-2">
            {after && <button type="button" className={secondaryButtonClass} onClick={() => setAfter(null)}><FormattedMessage id="shell.previous" /></button>}
            {data?.invoices.pageInfo.hasNextPage && (
              <button type="button" className={secondaryButtonClass} onClick={() => setAfter(data.invoices.pageInfo.endCursor ?? null)}>
                <FormattedMessage id="shell.next" />
              </button>
            )}
          </div>
        </>
      )}
    </Page>
  );
}
