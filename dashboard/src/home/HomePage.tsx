/** The merchant's local today (test clock in test mode), most used currency: volume and success rate (= GET /api/analytics?from=today&to=today), next settlement, disputes to answer, e-invoices to fix. */
import type { ReactNode } from 'react';
import { FormattedMessage } from 'react-intl';
import { Link } from 'react-router';
import { useQuery } from 'urql';
import { DateText, DayText, Money, Num, Percent } from '../app/format';
import { ErrorNote, Loading, Page, linkClass } from '../app/ui';
import { useCan, useViewer } from '../app/viewer';
import { HomeAnalytics, HomeDisputes, HomeInvoices, HomeSettlements } from './queries';

function Card({ titleId, children, testId }: { titleId: string; children: ReactNode; testId: string }) {
  return (
    <section className="rounded border border-slate-200 bg-white p-4" data-testid={testId} aria-labelledby={`${testId}-h`}>
      <h2 id={`${testId}-h`} className="mb-2 text-sm font-semibold text-slate-600"><FormattedMessage id={titleId} /></h2>
      {children}
    </section>
  );
}

const BAD: Record<'zatca' | 'gib' | 'eta', string[]> = { zatca: ['rejected'], gib: ['rejected'], eta: ['invalid', 'rejected'] };

export default function HomePage() {
  const viewer = useViewer();
  const can = useCan();
  const [a] = useQuery({ query: HomeAnalytics, variables: { today: viewer.today }, pause: !can('paymentsRead') });
  const [s] = useQuery({ query: HomeSettlements, pause: !can('balanceRead') });
  const [d] = useQuery({ query: HomeDisputes, pause: !can('disputesRead') });
  const [i] = useQuery({ query: HomeInvoices, pause: !can('billingRead') });
  const error = a.error ?? s.error ?? d.error ?? i.error;
  const fetching = a.fetching && !a.data;
  const next = s.data?.settlements.edges.map((e) => e.node).filter((s) => s.arrivalDate >= viewer.today)
    .sort((a, b) => a.arrivalDate.localeCompare(b.arrivalDate))[0];
  const due = d.data?.disputes.edges.map((e) => e.node.evidenceDueBy).sort()[0];
  const toFix = (['zatca', 'gib', 'eta'] as const).map((a) => ({
    authority: a,
    count: (i.data?.invoices.edges ?? []).filter((e) => e.node[a] && BAD[a].includes(e.node[a]!.status)).length,
  })).filter((x) => x.count > 0);

  return (
    <Page titleId="nav.home">
      <p className="mb-4 text-slate-700"><FormattedMessage id="home.today" values={{ date: <DayText date={viewer.today} /> }} /></p>
      <ErrorNote error={error} />
      {fetching ? <Loading /> : (
        <div className="grid gap-4 md:grid-cols-2 xl:grid-cols-3">
          {a.data && (
            <>
              <Card titleId="home.volume" testId="volume">
                <p className="text-2xl font-semibold"><Money minor={a.data.analytics.volume} currency={a.data.analytics.currency} /></p>
              </Card>
              <Card titleId="home.successRate" testId="success-rate">
                <p className="text-2xl font-semibold"><Percent value={a.data.analytics.approvalRate} /></p>
                <p className="text-sm text-slate-600"><FormattedMessage id="home.transactions" values={{ approved: <Num value={a.data.analytics.approved} />, count: <Num value={a.data.analytics.transactions} /> }} /></p>
              </Card>
            </>
          )}
          {s.data && <Card titleId="home.nextSettlement" testId="next-settlement">
            {next ? (
              <>
                <p className="text-2xl font-semibold"><Money minor={next.amount} currency={next.currency} /></p>
                <p className="text-sm text-slate-600"><DayText date={next.arrivalDate} /></p>
              </>
            ) : <p><FormattedMessage id="home.noSettlement" /></p>}
          </Card>}
          {d.data && <Card titleId="home.disputes" testId="disputes">
            {d.data.disputes.totalCount > 0 ? (
              <>
                <p className="text-2xl font-semibold"><Link className={linkClass} to="/disputes"><Num value={d.data.disputes.totalCount} /></Link></p>
                {due && <p className="text-sm text-slate-600"><FormattedMessage id="home.disputesDue" values={{ date: <DateText iso={due} /> }} /></p>}
              </>
            ) : <p><FormattedMessage id="home.noDisputes" /></p>}
          </Card>}
          {i.data && <Card titleId="home.einvoices" testId="einvoices">
            {toFix.length ? (
              <ul>{toFix.map((x) => <li key={x.authority}><FormattedMessage id={`home.authority.${x.authority}`} />: <Num value={x.count} /></li>)}</ul>
            ) : <p><FormattedMessage id="home.noEinvoices" /></p>}
          </Card>}
        </div>
      )}
    </Page>
  );
}
