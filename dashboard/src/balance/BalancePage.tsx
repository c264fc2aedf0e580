/** Available and pending per currency; settlements on their way with their arrival dates (the market's calendar); payouts. */
import { FormattedMessage } from 'react-intl';
import { useQuery } from 'urql';
import { DateTimeText, DayText, Id, Money, Num } from '../app/format';
import { ErrorNote, Loading, Page, Status, tableClass, tdClass, thClass } from '../app/ui';
import type { BalancePageQuery } from '../gql/graphql';
import { BalanceQuery } from './queries';

type Row = BalancePageQuery['paid']['edges'][number]['node'] | BalancePageQuery['inTransit']['edges'][number]['node'];

function Settlements({ rows, titleId, paid }: { rows: Row[]; titleId: string; paid?: boolean }) {
  return (
    <section className="mb-6" aria-labelledby={`${titleId}-h`}>
      <h2 id={`${titleId}-h`} className="mb-2 text-lg font-semibold"><FormattedMessage id={titleId} /></h2>
      {rows.length === 0 ? <p className="rounded border border-slate-200 bg-white p-4"><FormattedMessage id="balance.none" /></p> : (
        <div className="overflow-x-auto rounded border border-slate-200 bg-white">
          <table className={tableClass}>
            <thead><tr>
              {['id', 'amount', 'gross', 'fee', 'transactions', 'settledOn', 'arrival', 'status', ...(paid ? ['paidAt'] : [])].map((c) => (
                <th key={c} scope="col" className={thClass}><FormattedMessage id={`balance.col.${c}`} /></th>
              ))}
            </tr></thead>
            <tbody>
              {rows.map((s) => (
                <tr key={s.id} data-settlement-id={s.id}>
                  <td className={tdClass}><Id>{s.id}</Id></td>
                  <td className={tdClass}><Money minor={s.amount} currency={s.currency} /></td>
                  <td className={tdClass}><Money minor={s.gross} currency={s.currency} /></td>
                  <td className={tdClass}><Money minor={s.fee} currency={s.currency} /></td>
                  <td className={tdClass}><Num value={s.transactions} /></td>
                  <td className={tdClass}><DayText date={s.settledOn} /></td>
                  <td className={tdClass}><DayText date={s.arrivalDate} /></td>
                  <td className={tdClass}><Status value={s.status} /></td>
                  {paid && <td className={tdClass}>{'paidAt' in s && s.paidAt ? <DateTimeText iso={s.paidAt} /> : '—'}</td>}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export default function BalancePage() {
  const [{ data, error, fetching }] = useQuery({ query: BalanceQuery });
  const currencies = Array.from(new Set([...(data?.balance.available ?? []), ...(data?.balance.pending ?? [])].map((b) => b.currency))).sort();
  const amount = (list: { amount: number | string; currency: string }[] | undefined, c: string) => list?.find((b) => b.currency === c)?.amount ?? 0;
  return (
    <Page titleId="nav.balance">
      <ErrorNote error={error} />
      {fetching && !data ? <Loading /> : data && (
        <>
          <div className="mb-6 overflow-x-auto rounded border border-slate-200 bg-white">
            <table className={tableClass} data-testid="balance">
              <thead><tr>
                <th scope="col" className={thClass}><FormattedMessage id="balance.currency" /></th>
                <th scope="col" className={thClass}><FormattedMessage id="balance.available" /></th>
                <th scope="col" className={thClass}><FormattedMessage id="balance.pending" /></th>
              </tr></thead>
              <tbody>
                {currencies.length === 0 && <tr><td className={tdClass} colSpan={3}><FormattedMessage id="balance.none" /></td></tr>}
                {currencies.map((c) => (
                  <tr key={c} data-currency={c}>
                    <th scope="row" className={thClass}><bdi>{c}</bdi></th>
                    <td className={tdClass}><Money minor={amount(data.balance.available, c)} currency={c} /></td>
                    <td className={tdClass}><Money minor={amount(data.balance.pending, c)} currency={c} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Settlements titleId="balance.settlements" rows={[...data.inTransit.edges.map((e) => e.node)].sort((a, b) => a.arrivalDate.localeCompare(b.arrivalDate))} />
          <Settlements titleId="balance.payouts" rows={data.paid.edges.map((e) => e.node)} paid />
        </>
      )}
    </Page>
  );
}
