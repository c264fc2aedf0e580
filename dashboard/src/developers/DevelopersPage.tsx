/**
 * /dashboard/developers: API keys ("Create API key" → "Name" → "Create": the secret shown once;
 * revoke), webhook endpoints, webhook events with each delivery's attempts and "Retry", and a
 * link to GraphiQL (/graphql).
 */
import { useState, type FormEvent } from 'react';
import { FormattedMessage, useIntl } from 'react-intl';
import { useClient, useMutation, useQuery } from 'urql';
import { DateTimeText, Id, Num } from '../app/format';
import { Dialog, ErrorNote, Field, Loading, Page, Status, buttonClass, linkClass, secondaryButtonClass, tableClass, tdClass, thClass } from '../app/ui';
import { useCan } from '../app/viewer';
import { STEP_UP_REQUIRED, StepUpDialog, needsStepUp } from '../settings/StepUp';
import { ApiKeyCreate, ApiKeyRevoke, ApiKeysList, WebhookEndpointsList, WebhookEventAttempts, WebhookEventRetry, WebhookEventsList } from './queries';

function CreateKey({ onCreated }: { onCreated: () => void }) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const [state, create] = useMutation(ApiKeyCreate);
  const [stepUp, setStepUp] = useState(false);

  function show() { setName(''); setSecret(null); setCopied(false); setOpen(true); }
  function close() { setSecret(null); setOpen(false); }

  async function submit(e?: FormEvent) {
    e?.preventDefault();
    const r = await create({ input: { name: name.trim() || null } });
    const p = r.data?.apiKeyCreate;
    // A live key asks a member with two-factor sign-in for an authenticator code first.
    if (needsStepUp(r.error, p?.userErrors)) { setStepUp(true); return; }
    if (p?.key && !p.userErrors.length) { setSecret(p.key); onCreated(); }
  }

  async function copy() {
    if (!secret) return;
    try { await navigator.clipboard.writeText(secret); setCopied(true); } catch { setCopied(false); }
  }

  return (
    <>
      <button type="button" className={buttonClass} onClick={show}><FormattedMessage id="developers.createKey" /></button>
      <StepUpDialog open={stepUp} onClose={() => setStepUp(false)} onConfirmed={() => { setStepUp(false); void submit(); }} />
      <Dialog open={open && !stepUp} onClose={close} titleId={secret ? 'developers.secretTitle' : 'developers.createKey'}>
        {secret ? (
          <div>
            <p className="mb-2"><FormattedMessage id="developers.secretOnce" /></p>
            <p className="mb-3 break-all rounded bg-slate-100 p-3"><bdi dir="ltr" className="font-mono text-sm" data-testid="api-key-secret">{secret}</bdi></p>
            {copied && <p role="status" className="mb-2 text-emerald-900"><FormattedMessage id="developers.copied" /></p>}
            <div className="flex justify-end gap-2">
              <button type="button" className={secondaryButtonClass} onClick={copy}><FormattedMessage id="developers.copy" /></button>
              <button type="button" className={buttonClass} onClick={close}><FormattedMessage id="developers.done" /></button>
            </div>
          </div>
        ) : (
          <form onSubmit={submit}>
            <Field labelId="developers.name" name="name" autoComplete="off" value={name} onChange={(e) => setName(e.target.value)} />
            <ErrorNote error={needsStepUp(state.error) ? undefined : state.error} userErrors={state.data?.apiKeyCreate.userErrors.filter((x) => x.code !== STEP_UP_REQUIRED)} />
            <div className="flex justify-end gap-2">
              <button type="button" className={secondaryButtonClass} onClick={close}><FormattedMessage id="shell.cancel" /></button>
              <button type="submit" className={buttonClass} disabled={state.fetching}><FormattedMessage id="developers.create" /></button>
            </div>
          </form>
        )}
      </Dialog>
    </>
  );
}

function ApiKeys({ write }: { write: boolean }) {
  const intl = useIntl();
  const [{ data, error, fetching }, refetch] = useQuery({ query: ApiKeysList });
  const [revokeState, revoke] = useMutation(ApiKeyRevoke);
  const keys = data?.apiKeys.edges.map((e) => e.node) ?? [];
  return (
    <section aria-labelledby="keys-heading" className="mb-8">
      <div className="mb-2 flex flex-wrap items-center justify-between gap-2">
        <h2 id="keys-heading" className="text-xl font-semibold"><FormattedMessage id="developers.keys" /></h2>
        {write && <CreateKey onCreated={() => refetch({ requestPolicy: 'network-only' })} />}
      </div>
      <ErrorNote error={error} />
      <ErrorNote error={revokeState.error} userErrors={revokeState.data?.apiKeyRevoke.userErrors} />
      {fetching && !data ? <Loading /> : (
        <div className="overflow-x-auto rounded border border-slate-200 bg-white">
          <table className={tableClass}>
            <thead>
              <tr>
                {['name', 'prefix', 'type', 'mode', 'status', 'created', 'lastUsed'].map((c) => (
                  <th key={c} scope="col" className={thClass}><FormattedMessage id={`developers.col.${c}`} /></th>
                ))}
                {write && <th scope="col" className={thClass}><span className="sr-only"><FormattedMessage id="developers.col.actions" /></span></th>}
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id} data-key-id={k.id}>
                  <td className={tdClass}><bdi>{k.name}</bdi></td>
                  <td className={tdClass}><Id>{k.prefix}</Id></td>
                  <td className={tdClass}>{intl.formatMessage({ id: `developers.type.${k.type}`, defaultMessage: k.type })}</td>
                  <td className={tdClass}>{intl.formatMessage({ id: `developers.mode.${k.mode}`, defaultMessage: k.mode })}</td>
                  <td className={tdClass}><Status value={k.status} /></td>
                  <td className={`${tdClass} min-w-40`}><DateTimeText iso={k.createdAt} /></td>
                  <td className={`${tdClass} min-w-40`}>{k.lastUsed ? <DateTimeText iso={k.lastUsed} /> : intl.formatMessage({ id: 'developers.never' })}</td>
                  {write && (
                    <td className={tdClass}>
                      {k.status === 'active' && (
                        <button type="button" className={secondaryButtonClass} disabled={revokeState.fetching}
                          aria-label={intl.formatMessage({ id: 'developers.revokeKey' }, { name: k.name })}
                          onClick={() => { if (window.confirm(intl.formatMessage({ id: 'developers.revokeConfirm' }, { name: k.name }))) void revoke({ input: { id: k.id } }); }}>
                          <FormattedMessage id="developers.revoke" />
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function Endpoints() {
  const intl = useIntl();
  const [{ data, error }] = useQuery({ query: WebhookEndpointsList });
  const endpoints = data?.webhookEndpoints.edges.map((e) => e.node) ?? [];
  return (
    <section aria-labelledby="endpoints-heading" className="mb-8">
      <h2 id="endpoints-heading" className="mb-2 text-xl font-semibold"><FormattedMessage id="developers.endpoints" /></h2>
      <ErrorNote error={error} />
      {endpoints.length ? (
        <ul className="space-y-2">
          {endpoints.map((ep) => (
            <li key={ep.id} data-endpoint-id={ep.id} className="rounded border border-slate-200 bg-white p-3">
              <div className="flex flex-wrap items-center gap-2"><bdi dir="ltr" className="font-mono text-sm">{ep.url}</bdi> <Status value={ep.status} /></div>
              <div className="mt-1 text-sm text-slate-600"><bdi dir="ltr">{ep.events.join(', ')}</bdi></div>
            </li>
          ))}
        </ul>
      ) : data && <p className="rounded border border-slate-200 bg-white p-4">{intl.formatMessage({ id: 'developers.noEndpoints' })}</p>}
    </section>
  );
}

type Attempts = {
  id: string; endpointId: string; state: string;
  attemptLog?: { number: number; createdAt: string; statusCode?: number | null; latencyMs: number; error?: string | null; manual: boolean }[] | null;
}[];

function AttemptLog({ deliveries }: { deliveries: Attempts }) {
  const intl = useIntl();
  return (
    <div className="mt-2 space-y-2">
      {deliveries.map((d) => (
        <table key={d.id} className={`${tableClass} text-sm`} data-delivery-id={d.id}>
          <caption className="text-start text-slate-600"><Id>{d.endpointId}</Id> · <Status value={d.state} /></caption>
          <thead>
            <tr>{['number', 'time', 'statusCode', 'latency', 'error'].map((c) => <th key={c} scope="col" className={thClass}><FormattedMessage id={`developers.attempt.${c}`} /></th>)}</tr>
          </thead>
          <tbody>
            {(d.attemptLog ?? []).map((a) => (
              <tr key={a.number} data-attempt={a.number}>
                <td className={tdClass}><Num value={a.number} />{a.manual && <span className="ms-1 text-slate-600">({intl.formatMessage({ id: 'developers.manual' })})</span>}</td>
                <td className={`${tdClass} min-w-40`}><DateTimeText iso={a.createdAt} /></td>
                <td className={tdClass}>{a.statusCode != null ? <Num value={a.statusCode} /> : '—'}</td>
                <td className={tdClass}><FormattedMessage id="developers.ms" values={{ ms: <Num value={a.latencyMs} /> }} /></td>
                <td className={tdClass}>{a.error ? <bdi>{a.error}</bdi> : null}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ))}
    </div>
  );
}

function Events({ write }: { write: boolean }) {
  const intl = useIntl();
  const client = useClient();
  const [after, setAfter] = useState<string | null>(null);
  const [{ data, error, fetching }] = useQuery({ query: WebhookEventsList, variables: { first: 25, after } });
  const [retryState, retry] = useMutation(WebhookEventRetry);
  const [logs, setLogs] = useState<Record<string, Attempts>>({});
  const events = data?.webhookEvents.edges.map((e) => e.node) ?? [];

  async function showAttempts(id: string) {
    if (logs[id]) { setLogs(({ [id]: _, ...rest }) => rest); return; }
    const r = await client.query(WebhookEventAttempts, { id }, { requestPolicy: 'network-only' }).toPromise();
    const node = r.data?.node;
    if (node && 'deliveries' in node) setLogs((l) => ({ ...l, [id]: node.deliveries ?? [] }));
  }

  async function doRetry(id: string) {
    const r = await retry({ input: { id } });
    const ev = r.data?.webhookEventRetry.webhookEvent;
    if (ev?.deliveries) setLogs((l) => ({ ...l, [id]: ev.deliveries ?? [] }));
  }

  return (
    <section aria-labelledby="events-heading" className="mb-8">
      <h2 id="events-heading" className="mb-2 text-xl font-semibold"><FormattedMessage id="developers.events" /></h2>
      <ErrorNote error={error} />
      <ErrorNote error={retryState.error} userErrors={retryState.data?.webhookEventRetry.userErrors} />
      {fetching && !data ? <Loading /> : events.length ? (
        <ul className="space-y-2">
          {events.map((ev) => (
            <li key={ev.id} data-event-id={ev.id} className="rounded border border-slate-200 bg-white p-3">
              <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
                <bdi dir="ltr" className="font-mono text-sm font-medium">{ev.event}</bdi>
                <Status value={ev.status} />
                <span className="text-sm text-slate-600"><FormattedMessage id="developers.attempts" values={{ n: <Num value={ev.attempts} /> }} /></span>
                <span className="text-sm text-slate-600"><DateTimeText iso={ev.createdAt} /></span>
                <span className="text-sm"><Id>{ev.id}</Id></span>
                <span className="ms-auto flex gap-2">
                  <button type="button" className={secondaryButtonClass} aria-expanded={Boolean(logs[ev.id])} onClick={() => void showAttempts(ev.id)}>
                    <FormattedMessage id="developers.showAttempts" />
                  </button>
                  {write && (
                    <button type="button" className={secondaryButtonClass} disabled={retryState.fetching} onClick={() => void doRetry(ev.id)}
                      aria-describedby={`ev-${ev.id}`}>
                      <FormattedMessage id="developers.retry" />
                    </button>
                  )}
                  <span id={`ev-${ev.id}`} className="sr-only">{ev.event} {ev.id}</span>
                </span>
              </div>
              {ev.deliveries && ev.deliveries.some((d) => d.lastError) && (
                <p className="mt-1 text-sm text-red-800">{ev.deliveries.filter((d) => d.lastError).map((d) => <bdi key={d.id}>{d.lastError}</bdi>)}</p>
              )}
              {logs[ev.id] && <AttemptLog deliveries={logs[ev.id]} />}
            </li>
          ))}
        </ul>
      ) : <p className="rounded border border-slate-200 bg-white p-4">{intl.formatMessage({ id: 'developers.noEvents' })}</p>}
      <div className="mt-3 flex gap-2">
        {after && <button type="button" className={secondaryButtonClass} onClick={() => setAfter(null)}><FormattedMessage id="shell.previous" /></button>}
        {data?.webhookEvents.pageInfo.hasNextPage && (
          <button type="button" className={secondaryButtonClass} onClick={() => setAfter(data.webhookEvents.pageInfo.endCursor ?? null)}><FormattedMessage id="shell.next" /></button>
        )}
      </div>
    </section>
  );
}

export default function DevelopersPage() {
  const can = useCan();
  const write = can('developersWrite');
  return (
    <Page titleId="nav.developers" actions={<a className={`${secondaryButtonClass} ${linkClass}`} href="/graphql">GraphiQL</a>}>
      <ApiKeys write={write} />
      <Endpoints />
      <Events write={write} />
    </Page>
  );
}
