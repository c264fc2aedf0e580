/**
 * /dashboard/settings/audit: the audit log (auditEvents), newest first: time, actor, action, object.
 * The filters (action, object type and id, actor id, from/to local dates) live in the address.
 */
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { FormattedMessage, useIntl } from 'react-intl';
import { Link, useSearchParams } from 'react-router';
import { useQuery } from 'urql';
import { DateTimeText, Id, Num } from '../app/format';
import { ErrorNote, Loading, Page, buttonClass, inputClass, linkClass, secondaryButtonClass, tableClass, tdClass, thClass } from '../app/ui';
import { useViewer } from '../app/viewer';
import { endOfLocalDay, startOfLocalDay } from '../format/dates';
import { AuditEventsList } from './queries';

const PAGE = 50;
const ACTIONS = [
  'member.signed_in', 'member.sign_in_failed', 'member.two_factor_enabled', 'member.two_factor_disabled',
  'member.recovery_code_used', 'member.roles_updated', 'member.removed',
  'invite.created', 'invite.accepted', 'invite.revoked',
  'api_key.created', 'api_key.revoked',
  'webhook_endpoint.created', 'webhook_endpoint.disabled',
  'session.revoked', 'refund.created', 'dispute.evidence_submitted', 'dispute.evidence_file_added', 'payout_settings.updated',
  'merchant.updated',
] as const;
const KEYS = ['action', 'object_type', 'object_id', 'actor', 'from', 'to'] as const;
type Key = (typeof KEYS)[number];
type Filters = Partial<Record<Key, string>>;

function read(params: URLSearchParams): Filters {
  const f: Filters = {};
  for (const k of KEYS) { const v = params.get(k)?.trim(); if (v) f[k] = v; }
  return f;
}

export default function AuditPage() {
  const intl = useIntl();
  const viewer = useViewer();
  const [params, setParams] = useSearchParams();
  const filters = useMemo(() => read(params), [params]);
  const [draft, setDraft] = useState<Filters>(filters);
  useEffect(() => setDraft(filters), [filters]);
  const [after, setAfter] = useState<string | null>(null);
  useEffect(() => setAfter(null), [filters]);
  const variables = useMemo(() => ({
    first: PAGE, after,
    action: filters.action ?? null, objectType: filters.object_type ?? null, objectId: filters.object_id ?? null,
    actor: filters.actor ?? null,
    createdGte: filters.from ? startOfLocalDay(filters.from, viewer.timeZone) : null,
    createdLte: filters.to ? endOfLocalDay(filters.to, viewer.timeZone) : null,
  }), [filters, after, viewer.timeZone]);
  const [{ data, error, fetching }] = useQuery({ query: AuditEventsList, variables });
  const rows = data?.auditEvents.edges.map((e) => e.node) ?? [];
  const set = (k: Key) => (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [k]: e.target.value }));

  function apply(e: FormEvent) {
    e.preventDefault();
    const next = new URLSearchParams();
    for (const k of KEYS) if (draft[k]?.trim()) next.set(k, draft[k]!.trim());
    setParams(next);
  }
  const text = (k: 'object_type' | 'object_id' | 'actor' | 'from' | 'to', type = 'text') => (
    <label className="block">
      <span className="mb-1 block text-sm font-medium"><FormattedMessage id={`settings.audit.${k}`} /></span>
      <input className={inputClass} type={type} name={k} dir="ltr" value={draft[k] ?? ''} onChange={set(k)} />
    </label>
  );

  return (
    <Page titleId="nav.audit">
      <form onSubmit={apply} className="mb-4 rounded border border-slate-200 bg-white p-4" aria-label={intl.formatMessage({ id: 'settings.audit.filters' })}>
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3">
          <label className="block">
            <span className="mb-1 block text-sm font-medium"><FormattedMessage id="settings.audit.action" /></span>
            <select className={inputClass} name="action" value={draft.action ?? ''} onChange={set('action')}>
              <option value="">{intl.formatMessage({ id: 'settings.audit.any' })}</option>
              {ACTIONS.map((a) => <option key={a} value={a}>{intl.formatMessage({ id: `settings.action.${a}` })}</option>)}
            </select>
          </label>
          {text('object_type')}
          {text('object_id')}
          {text('actor')}
          {text('from', 'date')}
          {text('to', 'date')}
        </div>
        <div className="mt-3 flex gap-2">
          <button type="submit" className={buttonClass}><FormattedMessage id="settings.audit.apply" /></button>
          <button type="button" className={secondaryButtonClass} onClick={() => setParams(new URLSearchParams())}><FormattedMessage id="settings.audit.clear" /></button>
        </div>
      </form>
      <ErrorNote error={error} />
      {fetching && !data ? <Loading /> : (
        <>
          <p className="mb-2 text-sm text-slate-600" aria-live="polite">
            <FormattedMessage id="settings.audit.count" values={{ count: data?.auditEvents.totalCount ?? 0, n: <Num value={data?.auditEvents.totalCount ?? 0} /> }} />
          </p>
          {rows.length ? (
            <div className="overflow-x-auto rounded border border-slate-200 bg-white">
              <table className={tableClass}>
                <thead>
                  <tr>{['time', 'actor', 'action', 'object', 'ip'].map((c) => <th key={c} scope="col" className={thClass}><FormattedMessage id={`settings.audit.col.${c}`} /></th>)}</tr>
                </thead>
                <tbody>
                  {rows.map((ev) => (
                    <tr key={ev.id} data-audit-id={ev.id} data-action={ev.action}>
                      <td className={`${tdClass} min-w-40`}><DateTimeText iso={ev.createdAt} /></td>
                      <td className={tdClass}>
                        {ev.actor.email
                          ? (ev.actor.id
                            ? <Link className={linkClass} to={{ search: `?actor=${encodeURIComponent(ev.actor.id)}` }} title={intl.formatMessage({ id: 'settings.audit.byActor' })}><bdi>{ev.actor.email}</bdi></Link>
                            : <bdi>{ev.actor.email}</bdi>)
                          : <span>{intl.formatMessage({ id: `settings.actor.${ev.actor.type}`, defaultMessage: ev.actor.type })}</span>}
                        {!ev.actor.email && ev.actor.id && <div><Id>{ev.actor.id}</Id></div>}
                      </td>
                      <td className={tdClass}>
                        <div>{intl.messages[`settings.action.${ev.action}`] ? intl.formatMessage({ id: `settings.action.${ev.action}` }) : ev.action}</div>
                        <div className="text-sm text-slate-600"><bdi dir="ltr" className="font-mono">{ev.action}</bdi></div>
                      </td>
                      <td className={tdClass}>{ev.object ? <><span className="text-sm">{ev.object.type}</span> <Id>{ev.object.id}</Id></> : null}</td>
                      <td className={tdClass}>{ev.ip ? <bdi dir="ltr" className="font-mono text-sm">{ev.ip}</bdi> : null}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : <p className="rounded border border-slate-200 bg-white p-4"><FormattedMessage id="settings.audit.empty" /></p>}
          <div className="mt-3 flex gap-2">
            {after && <button type="button" className={secondaryButtonClass} onClick={() => setAfter(null)}><FormattedMessage id="shell.previous" /></button>}
            {data?.auditEvents.pageInfo.hasNextPage && (
              <button type="button" className={secondaryButtonClass} onClick={() => setAfter(data.auditEvents.pageInfo.endCursor ?? null)}><FormattedMessage id="shell.next" /></button>
            )}
          </div>
        </>
      )}
    </Page>
  );
}
