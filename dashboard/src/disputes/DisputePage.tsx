/** A dispute: "Evidence" (text), "Attach file" (PDF, PNG, JPEG → disputeEvidenceFileAdd), "Submit evidence". */
import { useId, useState, type ChangeEvent, type FormEvent } from 'react';
import { FormattedMessage, useIntl } from 'react-intl';
import { Link, useParams } from 'react-router';
import { useMutation, useQuery } from 'urql';
import { DateTimeText, Id, Money, Num } from '../app/format';
import { ErrorNote, Loading, Page, Status, buttonClass, inputClass, linkClass } from '../app/ui';
import { useCan } from '../app/viewer';
import { DisputeDetail, DisputeEvidenceFileAdd, DisputeEvidenceSubmit } from './queries';

const TYPES = ['application/pdf', 'image/png', 'image/jpeg'];
const MAX_BYTES = 700 * 1024;

function base64(buffer: ArrayBuffer): string {
  const bytes = new Uint8Array(buffer);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export default function DisputePage() {
  const { id = '' } = useParams();
  const intl = useIntl();
  const can = useCan();
  const textId = useId();
  const fileId = useId();
  const [{ data, error, fetching }] = useQuery({ query: DisputeDetail, variables: { id } });
  const [submitState, submit] = useMutation(DisputeEvidenceSubmit);
  const [fileState, addFile] = useMutation(DisputeEvidenceFileAdd);
  const [text, setText] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const d = data?.dispute;
  const open = d?.status === 'needs_response' && can('disputesWrite');
  const files = d?.evidenceFiles ?? [];
  const submittedText = d?.evidence && typeof d.evidence === 'object' ? (d.evidence.uncategorized_text ?? d.evidence.uncategorizedText) : null;

  async function onFile(e: ChangeEvent<HTMLInputElement>) {
    const input = e.target;
    const file = input.files?.[0];
    setNotice(null); setProblem(null);
    if (!file || !d) return;
    const type = file.type || (file.name.toLowerCase().endsWith('.pdf') ? 'application/pdf' : '');
    if (!TYPES.includes(type)) { setProblem(intl.formatMessage({ id: 'disputes.fileType' }, { name: file.name })); input.value = ''; return; }
    if (file.size > MAX_BYTES) { setProblem(intl.formatMessage({ id: 'disputes.fileTooLarge' }, { name: file.name, size: 700 })); input.value = ''; return; }
    const r = await addFile({ input: { disputeId: d.id, filename: file.name, contentType: type, contentBase64: base64(await file.arrayBuffer()) } });
    input.value = '';
    if (!r.error && !r.data?.disputeEvidenceFileAdd.userErrors.length) setNotice(intl.formatMessage({ id: 'disputes.attached' }, { name: file.name }));
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (!d) return;
    setNotice(null);
    const r = await submit({ input: { id: d.id, uncategorizedText: text.trim() || null } });
    if (!r.error && !r.data?.disputeEvidenceSubmit.userErrors.length) setNotice(intl.formatMessage({ id: 'disputes.submitted' }));
  }

  return (
    <Page titleId="nav.disputes">
      <p className="mb-3"><Link className={linkClass} to="/disputes"><FormattedMessage id="disputes.back" /></Link></p>
      <ErrorNote error={error} />
      {fetching && !d && <Loading />}
      {d && (
        <div className="grid gap-4 lg:grid-cols-2">
          <section className="rounded border border-slate-200 bg-white p-4" aria-labelledby="dispute-h">
            <h2 id="dispute-h" className="mb-2 text-lg font-semibold"><FormattedMessage id="disputes.detail" values={{ id: <Id>{d.id}</Id> }} /></h2>
            <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-2">
              <dt className="font-medium text-slate-600"><FormattedMessage id="disputes.col.status" /></dt><dd><Status value={d.status} /></dd>
              <dt className="font-medium text-slate-600"><FormattedMessage id="disputes.col.payment" /></dt><dd><Link className={linkClass} to={`/payments/${d.paymentId}`}><Id>{d.paymentId}</Id></Link></dd>
              <dt className="font-medium text-slate-600"><FormattedMessage id="disputes.col.amount" /></dt><dd><Money minor={d.amount} currency={d.currency} /></dd>
              <dt className="font-medium text-slate-600"><FormattedMessage id="disputes.fee" /></dt><dd><Money minor={d.fee} currency={d.currency} /></dd>
              <dt className="font-medium text-slate-600"><FormattedMessage id="disputes.col.reason" /></dt><dd><bdi>{intl.messages[`disputes.reason.${d.reason}`] ? intl.formatMessage({ id: `disputes.reason.${d.reason}` }) : d.reason}</bdi></dd>
              <dt className="font-medium text-slate-600"><FormattedMessage id="disputes.opened" /></dt><dd><DateTimeText iso={d.createdAt} /></dd>
              <dt className="font-medium text-slate-600"><FormattedMessage id="disputes.col.due" /></dt><dd><DateTimeText iso={d.evidenceDueBy} /></dd>
            </dl>
            <h3 className="mb-1 mt-4 font-semibold"><FormattedMessage id="disputes.files" /></h3>
            {files.length ? (
              <ul className="list-disc ps-5" data-testid="evidence-files">
                {files.map((f) => <li key={f.id}><bdi>{f.filename}</bdi> · <bdi dir="ltr">{f.contentType}</bdi> · <Num value={f.size} /> B</li>)}
              </ul>
            ) : <p className="text-slate-600"><FormattedMessage id="disputes.noFiles" /></p>}
            {submittedText && (
              <>
                <h3 className="mb-1 mt-4 font-semibold"><FormattedMessage id="disputes.submittedText" /></h3>
                <p className="whitespace-pre-wrap">{String(submittedText)}</p>
              </>
            )}
          </section>
          <section className="rounded border border-slate-200 bg-white p-4">
            {notice && <p role="status" className="mb-3 rounded bg-emerald-50 p-3 text-emerald-900">{notice}</p>}
            {problem && <p role="alert" className="mb-3 text-red-800">{problem}</p>}
            <ErrorNote error={fileState.error ?? submitState.error} userErrors={[...(fileState.data?.disputeEvidenceFileAdd.userErrors ?? []), ...(submitState.data?.disputeEvidenceSubmit.userErrors ?? [])]} />
            {open ? (
              <form onSubmit={onSubmit}>
                <label htmlFor={textId} className="mb-1 block font-medium"><FormattedMessage id="disputes.evidence" /></label>
                <textarea id={textId} className={`${inputClass} mb-1 min-h-32`} value={text} onChange={(e) => setText(e.target.value)} />
                <p className="mb-3 text-sm text-slate-600"><FormattedMessage id="disputes.evidenceHint" /></p>
                <label htmlFor={fileId} className="mb-1 block font-medium"><FormattedMessage id="disputes.attachFile" /></label>
                <input id={fileId} type="file" accept="application/pdf,image/png,image/jpeg,.pdf,.png,.jpg,.jpeg" onChange={onFile}
                  disabled={fileState.fetching || files.length >= 5} className="mb-1 block" />
                <p className="mb-4 text-sm text-slate-600"><FormattedMessage id="disputes.fileHint" values={{ size: <Num value={700} />, count: <Num value={5} /> }} /></p>
                <button type="submit" className={buttonClass} disabled={submitState.fetching}><FormattedMessage id="disputes.submit" /></button>
              </form>
            ) : <p><FormattedMessage id="disputes.closed" /></p>}
          </section>
        </div>
      )}
    </Page>
  );
}
