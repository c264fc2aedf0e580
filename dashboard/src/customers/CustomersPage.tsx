/** /dashboard/customers: the merchant's customers (name, e-mail, phone, created), a search by e-mail (?email=). */
import { useEffect, useState, type FormEvent } from 'react';
import { FormattedMessage, useIntl } from 'react-intl';
import { useSearchParams } from 'react-router';
import { useQuery } from 'urql';
import { DateTimeText, Id, Num } from '../app/format';
import { ErrorNote, Loading, Page, buttonClass, inputClass, secondaryButtonClass, tableClass, tdClass, thClass } from '../app/ui';
import { CustomersList } from './queries';

const PAGE = 50;

export default function CustomersPage() {
  const intl = useIntl();
  const [params, setParams] = useSearchParams();
  const email = params.get('email')?.trim() || null;
  const [draft, setDraft] = useState(email ?? '');
  useEffect(() => setDraft(email ?? ''), [email]);
  const [after, setAfter] = useState<string | null>(null);
  useEffect(() => setAfter(null), [email]);
  const [{ data, error, fetching }] = useQuery({ query: CustomersList, variables: { first: PAGE, after, email } });
  const rows = data?.customers.edges.map((e) => e.node) ?? [];

  function search(e: FormEvent) {
    e.preventDefault();
    const next = new URLSearchParams(params);
    if (draft.trim()) next.set('email', draft.trim()); else next.delete('email');
    setParams(next);
  }

  return (
    <Page titleId="nav.customers">
      <form role="search" onSubmit={search} className="mb-4 flex flex-wrap items-end gap-2 rounded border border-slate-200 bg-white p-4">
        <label className="min-w-64 flex-1">
          <span className="mb-1 block text-sm font-medium"><FormattedMessage id="customers.searchEmail" /></span>
          <input className={inputClass} type="search" name="email" dir="ltr" value={draft} onChange={(e) => setDraft(e.target.value)} />
        </label>
        <button type="submit" className={buttonClass}><FormattedMessage id="customers.search" /></button>
        {email && (
          <button type="button" className={secondaryButtonClass} onClick={() => setParams(new URLSearchParams())}>
            <FormattedMessage id="customers.clear" />
          </button>
        )}
      </form>
      <ErrorNote error={error} />
      {fetching && !data ? <Loading /> : (
        <>
          <p className="mb-2 text-sm text-slate-600" aria-live="polite" data-testid="customers-count">
            <FormattedMessage id="customers.count" values={{ count: data?.customers.totalCount ?? 0, n: <Num value={data?.customers.totalCount ?? 0} /> }} />
          </p>
          {rows.length ? (
            <div className="overflow-x-auto rounded border border-slate-200 bg-white">
              <table className={tableClass}>
                <thead>
                  <tr>
                    {['name', 'email', 'phone', 'created', 'id'].map((c) => (
                      <th key={c} scope="col" className={thClass}><FormattedMessage id={`customers.col.${c}`} /></th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {rows.map((c) => (
                    <tr key={c.id} data-customer-id={c.id}>
                      <td className={tdClass}>{c.name ? <bdi>{c.name}</bdi> : intl.formatMessage({ id: 'shell.none' })}</td>
                      <td className={tdClass}>{c.email ? <bdi>{c.email}</bdi> : null}</td>
                      <td className={tdClass}>{c.phone ? <bdi dir="ltr">{c.phone}</bdi> : null}</td>
                      <td className={`${tdClass} min-w-40`}><DateTimeText iso={c.createdAt} /></td>
                      <td className={tdClass}><Id>{c.id}</Id></td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : <p className="rounded border border-slate-200 bg-white p-4"><FormattedMessage id="customers.empty" /></p>}
          <div className="mt-3 flex gap-2">
            {after && <button type="button" className={secondaryButtonClass} onClick={() => setAfter(null)}><FormattedMessage id="shell.previous" /></button>}
            {data?.customers.pageInfo.hasNextPage && (
              <button type="button" className={secondaryButtonClass} onClick={() => setAfter(data.customers.pageInfo.endCursor ?? null)}>
                <FormattedMessage id="shell.next" />
              </button>
            )}
          </div>
        </>
      )}
    </Page>
  );
}
