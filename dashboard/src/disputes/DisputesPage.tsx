import { FormattedMessage, useIntl } from 'react-intl';
import { Link } from 'react-router';
import { useQuery } from 'urql';
import { DateTimeText, Id, Money } from '../app/format';
import { ErrorNote, Loading, Page, Status, linkClass, tableClass, tdClass, thClass } from '../app/ui';
import { DisputesList } from './queries';

/** Disputes by evidence due date, soonest first. */
export default function DisputesPage() {
  const intl = useIntl();
  const [{ data, error, fetching }] = useQuery({ query: DisputesList });
  const rows = [...(data?.disputes.edges.map((e) => e.node) ?? [])].sort((a, b) => a.evidenceDueBy.localeCompare(b.evidenceDueBy));
  return (
    <Page titleId="nav.disputes">
      <ErrorNote error={error} />
      {fetching && !data ? <Loading /> : rows.length === 0 ? <p className="rounded border border-slate-200 bg-white p-4"><FormattedMessage id="disputes.empty" /></p> : (
        <div className="overflow-x-auto rounded border border-slate-200 bg-white">
          <table className={tableClass}>
            <thead><tr>{['id', 'payment', 'amount', 'reason', 'status', 'due'].map((c) => <th key={c} scope="col" className={thClass}><FormattedMessage id={`disputes.col.${c}`} /></th>)}</tr></thead>
            <tbody>
              {rows.map((d) => (
                <tr key={d.id} data-dispute-id={d.id}>
                  <td className={tdClass}><Link className={linkClass} to={`/disputes/${d.id}`}><Id>{d.id}</Id></Link></td>
                  <td className={tdClass}><Link className={linkClass} to={`/payments/${d.paymentId}`}><Id>{d.paymentId}</Id></Link></td>
                  <td className={tdClass}><Money minor={d.amount} currency={d.currency} /></td>
                  <td className={tdClass}><bdi>{intl.messages[`disputes.reason.${d.reason}`] ? intl.formatMessage({ id: `disputes.reason.${d.reason}` }) : d.reason}</bdi></td>
                  <td className={tdClass}><Status value={d.status} /></td>
                  <td className={tdClass}><DateTimeText iso={d.evidenceDueBy} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Page>
  );
}
