import { useState, type ReactNode } from 'react';
import { FormattedMessage } from 'react-intl';
import { Link, useParams } from 'react-router';
import { useQuery } from 'urql';
import { DateTimeText, Id, Money, Num } from '../app/format';
import { ErrorNote, Loading, Page, Status, linkClass } from '../app/ui';
import { useCan } from '../app/viewer';
import { PaymentDetail, PaymentInvoice } from './queries';
import RefundDialog from './RefundDialog';

function Row({ labelId, children }: { labelId: string; children: ReactNode }) {
  return (
    <div className="flex flex-wrap gap-2 border-b border-slate-100 py-2">
      <dt className="w-40 font-medium text-slate-600"><FormattedMessage id={labelId} /></dt>
      <dd className="flex-1">{children}</dd>
    </div>
  );
}

export default function PaymentPage() {
  const { id = '' } = useParams();
  const can = useCan();
  const [{ data, error, fetching }, refetch] = useQuery({ query: PaymentDetail, variables: { id } });
  const [notice, setNotice] = useState<string | null>(null);
  const p = data?.payment;
  // The invoice a payment asked for carries its e-invoice (ZATCA, GİB, ETA): read with billing_read.
  const [inv] = useQuery({ query: PaymentInvoice, variables: { id: p?.invoiceId ?? '' }, pause: !p?.invoiceId || !can('billingRead') });
  const invoice = inv.data?.invoice;
  const refundable = p ? BigInt(p.amountCaptured) - BigInt(p.amountRefunded) : 0n;
  const canRefund = p && can('refundsWrite') && refundable > 0n && ['succeeded', 'captured', 'refunded'].includes(p.status);

  return (
    <Page titleId="nav.payments" actions={canRefund && p ? (
      <RefundDialog paymentId={p.id} currency={p.currency} refundable={refundable}
        onDone={(m) => { setNotice(m); refetch({ requestPolicy: 'network-only' }); }} />
    ) : null}>
      <p className="mb-3"><Link className={linkClass} to="/payments"><FormattedMessage id="payments.back" /></Link></p>
      <ErrorNote error={error} />
      {notice && <p role="status" className="mb-3 rounded bg-emerald-50 p-3 text-emerald-900">{notice}</p>}
      {fetching && !p && <Loading />}
      {p && (
        <div className="grid gap-4 lg:grid-cols-2">
          <section className="rounded border border-slate-200 bg-white p-4" aria-labelledby="summary">
            <h2 id="summary" className="mb-2 text-lg font-semibold"><FormattedMessage id="payments.detail" values={{ id: <Id>{p.id}</Id> }} /></h2>
            <dl>
              <Row labelId="payments.col.status"><Status value={p.status} /></Row>
              <Row labelId="payments.amount"><span data-testid="amount"><Money minor={p.amount} currency={p.currency} /></span></Row>
              <Row labelId="payments.captured"><Money minor={p.amountCaptured} currency={p.currency} /></Row>
              <Row labelId="payments.refundedAmount"><span data-testid="refunded"><Money minor={p.amountRefunded} currency={p.currency} /></span></Row>
              <Row labelId="payments.refundable"><Money minor={refundable.toString()} currency={p.currency} /></Row>
              <Row labelId="payments.col.method"><bdi>{p.paymentMethodType}</bdi></Row>
              {p.card.last4 && <Row labelId="payments.col.card"><bdi dir="ltr">{p.card.brand} •••• {p.card.last4}</bdi></Row>}
              {p.wallet && <Row labelId="payments.wallet"><bdi dir="ltr">{p.wallet.type} •••• {p.wallet.dynamicLast4} ({p.wallet.authMethod})</bdi></Row>}
              {p.provider && <Row labelId="payments.provider"><bdi>{p.provider}</bdi></Row>}
              {p.customer && (
                <Row labelId="payments.customer">
                  {p.customer.email && <div><bdi>{p.customer.email}</bdi></div>}
                  {p.customer.phone && <div><bdi dir="ltr">{p.customer.phone}</bdi></div>}
                </Row>
              )}
              {p.installments && (
                <Row labelId="payments.installments">
                  <FormattedMessage id="payments.installmentsText" values={{
                    count: <Num value={p.installments.count} />,
                    amount: p.installments.installmentAmount != null ? <Money minor={p.installments.installmentAmount} currency={p.currency} /> : '—',
                    program: <bdi>{[p.installments.program, p.installments.bank].filter(Boolean).join(' · ') || p.installments.paidBy || '—'}</bdi>,
                  }} />
                </Row>
              )}
              <Row labelId="payments.receipt">
                {p.receiptUrl ? <a className={linkClass} href={p.receiptUrl} target="_blank" rel="noopener"><FormattedMessage id="payments.receiptLink" /></a> : '—'}
                {p.receipt && <div className="mt-1 flex flex-wrap items-center gap-1 text-sm text-slate-600"><FormattedMessage id="payments.receiptSent" values={{ to: <bdi>{p.receipt.sentTo}</bdi>, channel: p.receipt.channel, status: <Status value={p.receipt.status} /> }} /></div>}
              </Row>
              <Row labelId="payments.einvoice">
                {invoice?.zatca ? <span><bdi>ZATCA {invoice.number}</bdi> <Status value={invoice.zatca.status} /></span>
                  : invoice?.eta ? <span><bdi>ETA {invoice.number}</bdi> <Status value={invoice.eta.status} /></span>
                  : p.gib ? <span><bdi>GİB {p.gib.number}</bdi> <Status value={p.gib.status} /></span>
                  : p.etaReceipt ? <span><bdi>ETA {p.etaReceipt.number ?? ''}</bdi> <Status value={p.etaReceipt.status} /></span>
                  : <FormattedMessage id="payments.noEinvoice" />}
              </Row>
            </dl>
          </section>
          <section className="rounded border border-slate-200 bg-white p-4" aria-labelledby="timeline">
            <h2 id="timeline" className="mb-2 text-lg font-semibold"><FormattedMessage id="payments.timeline" /></h2>
            <ol className="border-s-2 border-emerald-200 ps-4">
              <li className="mb-3"><FormattedMessage id="payments.step.created" /> · <DateTimeText iso={p.createdAt} /></li>
              {p.capturedAt && (
                <li className="mb-3"><FormattedMessage id="payments.step.captured" values={{ amount: <Money minor={p.amountCaptured} currency={p.currency} /> }} /> · <DateTimeText iso={p.capturedAt} /></li>
              )}
              {p.voidedAt && (
                <li className="mb-3"><FormattedMessage id="payments.step.voided" /> · <DateTimeText iso={p.voidedAt} /></li>
              )}
              {p.refunds.map((r) => (
                <li key={r.id} className="mb-3" data-testid="timeline-refund">
                  <FormattedMessage id="payments.step.refunded" values={{ amount: <Money minor={r.amount} currency={r.currency} /> }} />
                  {r.reason ? <> (<bdi>{r.reason}</bdi>)</> : null} · <DateTimeText iso={r.createdAt} />
                </li>
              ))}
              {p.dispute && (
                <li className="mb-3"><Link className={linkClass} to={`/disputes/${p.dispute.id}`}><FormattedMessage id="payments.step.disputed" /></Link> · <DateTimeText iso={p.dispute.createdAt} /></li>
              )}
              {p.dispute?.closedAt && (
                <li className="mb-3"><FormattedMessage id="payments.step.disputeClosed" /> · <DateTimeText iso={p.dispute.closedAt} /></li>
              )}
              <li><FormattedMessage id="payments.step.status" values={{ status: <Status value={p.status} /> }} /></li>
            </ol>
          </section>
        </div>
      )}
    </Page>
  );
}
