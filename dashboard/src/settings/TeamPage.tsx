/**
 * /dashboard/settings/team: the members (e-mail, roles; change roles, remove) and the invites
 * (invite by e-mail with roles, revoke). Writes are hidden without teamWrite.
 */
import { useState, type FormEvent } from 'react';
import { FormattedMessage, useIntl } from 'react-intl';
import { useMutation, useQuery } from 'urql';
import { DateTimeText } from '../app/format';
import { Dialog, ErrorNote, Field, Loading, Page, Status, buttonClass, secondaryButtonClass, tableClass, tdClass, thClass } from '../app/ui';
import { useCan, useViewer } from '../app/viewer';
import { ROLES } from './roles';
import { StepUpDialog, needsStepUp } from './StepUp';
import { TeamInviteCreate, TeamInviteRevoke, TeamInvitesList, TeamMemberRemove, TeamMemberUpdate, TeamMembersList } from './queries';

function RoleNames({ roles }: { roles: readonly string[] }) {
  const intl = useIntl();
  return <>{roles.map((r) => intl.formatMessage({ id: `settings.role.${r}`, defaultMessage: r })).join(intl.locale.startsWith('ar') ? '، ' : ', ')}</>;
}

function RolePicker({ value, onChange, legendId }: { value: string[]; onChange: (roles: string[]) => void; legendId: string }) {
  const intl = useIntl();
  return (
    <fieldset className="mb-3">
      <legend className="mb-1 font-medium"><FormattedMessage id={legendId} /></legend>
      <div className="grid grid-cols-1 gap-1 sm:grid-cols-2">
        {ROLES.map((r) => (
          <label key={r} className="inline-flex items-center gap-2">
            <input type="checkbox" name="roles" value={r} checked={value.includes(r)}
              onChange={(e) => onChange(e.target.checked ? [...value, r] : value.filter((x) => x !== r))} />
            {intl.formatMessage({ id: `settings.role.${r}` })}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

function EditRoles({ member, onDone }: { member: { id: string; email: string; roles: string[] }; onDone: () => void }) {
  const intl = useIntl();
  const [open, setOpen] = useState(false);
  const [roles, setRoles] = useState<string[]>(member.roles);
  const [stepUp, setStepUp] = useState(false);
  const [state, update] = useMutation(TeamMemberUpdate);
  async function save(e?: FormEvent) {
    e?.preventDefault();
    const r = await update({ input: { id: member.id, roles } });
    const p = r.data?.teamMemberUpdate;
    if (needsStepUp(r.error, p?.userErrors)) { setStepUp(true); return; }
    if (p?.member && !p.userErrors.length) { setOpen(false); onDone(); }
  }
  const errors = state.data?.teamMemberUpdate.userErrors.filter((e) => e.code !== 'step_up_required');
  const error = needsStepUp(state.error) ? undefined : state.error;
  return (
    <>
      <button type="button" className={secondaryButtonClass} onClick={() => { setRoles(member.roles); setOpen(true); }}
        aria-label={intl.formatMessage({ id: 'settings.editRolesOf' }, { email: member.email })}>
        <FormattedMessage id="settings.editRoles" />
      </button>
      <Dialog open={open && !stepUp} onClose={() => setOpen(false)} titleId="settings.editRoles">
        <form onSubmit={save}>
          <p className="mb-3"><bdi>{member.email}</bdi></p>
          <RolePicker value={roles} onChange={setRoles} legendId="settings.roles" />
          <ErrorNote error={error} userErrors={errors} />
          <div className="flex justify-end gap-2">
            <button type="button" className={secondaryButtonClass} onClick={() => setOpen(false)}><FormattedMessage id="shell.cancel" /></button>
            <button type="submit" className={buttonClass} disabled={state.fetching || !roles.length}><FormattedMessage id="settings.save" /></button>
          </div>
        </form>
      </Dialog>
      <StepUpDialog open={stepUp} onClose={() => setStepUp(false)} onConfirmed={() => { setStepUp(false); void save(); }} />
    </>
  );
}

function InviteForm({ onDone }: { onDone: () => void }) {
  const [email, setEmail] = useState('');
  const [roles, setRoles] = useState<string[]>(['view_only']);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [state, invite] = useMutation(TeamInviteCreate);
  async function submit(e: FormEvent) {
    e.preventDefault();
    const r = await invite({ input: { email: email.trim(), roles } });
    const p = r.data?.teamInviteCreate;
    if (p?.invite && !p.userErrors.length) { setSentTo(p.invite.email); setEmail(''); onDone(); }
  }
  return (
    <form onSubmit={submit} className="mb-4 rounded border border-slate-200 bg-white p-4" aria-labelledby="invite-heading">
      <h3 id="invite-heading" className="mb-3 text-lg font-semibold"><FormattedMessage id="settings.inviteTitle" /></h3>
      <Field labelId="settings.email" name="email" type="email" dir="ltr" autoComplete="off" required value={email} onChange={(e) => setEmail(e.target.value)} />
      <RolePicker value={roles} onChange={setRoles} legendId="settings.roles" />
      <ErrorNote error={state.error} userErrors={state.data?.teamInviteCreate.userErrors} />
      {sentTo && <p role="status" className="mb-3 text-emerald-900"><FormattedMessage id="settings.invited" values={{ email: <bdi>{sentTo}</bdi> }} /></p>}
      <button type="submit" className={buttonClass} disabled={state.fetching || !roles.length}><FormattedMessage id="settings.invite" /></button>
    </form>
  );
}

export default function TeamPage() {
  const intl = useIntl();
  const can = useCan();
  const viewer = useViewer();
  const write = can('teamWrite');
  const [members, refetchMembers] = useQuery({ query: TeamMembersList });
  const [invites, refetchInvites] = useQuery({ query: TeamInvitesList });
  const [removeState, remove] = useMutation(TeamMemberRemove);
  const [revokeState, revoke] = useMutation(TeamInviteRevoke);
  const reloadMembers = () => refetchMembers({ requestPolicy: 'network-only' });
  const reloadInvites = () => refetchInvites({ requestPolicy: 'network-only' });
  const memberRows = members.data?.teamMembers.edges.map((e) => e.node) ?? [];
  const inviteRows = invites.data?.teamInvites.edges.map((e) => e.node) ?? [];

  return (
    <Page titleId="nav.team">
      <section aria-labelledby="members-heading" className="mb-8">
        <h2 id="members-heading" className="mb-2 text-xl font-semibold"><FormattedMessage id="settings.members" /></h2>
        <ErrorNote error={members.error} />
        <ErrorNote error={removeState.error} userErrors={removeState.data?.teamMemberRemove.userErrors} />
        {members.fetching && !members.data ? <Loading /> : (
          <div className="overflow-x-auto rounded border border-slate-200 bg-white">
            <table className={tableClass}>
              <thead>
                <tr>
                  {['email', 'roles', 'twoFactor', 'since'].map((c) => <th key={c} scope="col" className={thClass}><FormattedMessage id={`settings.col.${c}`} /></th>)}
                  {write && <th scope="col" className={thClass}><span className="sr-only"><FormattedMessage id="settings.col.actions" /></span></th>}
                </tr>
              </thead>
              <tbody>
                {memberRows.map((m) => (
                  <tr key={m.id} data-member-id={m.id}>
                    <td className={tdClass}><bdi>{m.email}</bdi>{m.id === viewer.member?.id && <span className="ms-2 text-sm text-slate-600">(<FormattedMessage id="settings.you" />)</span>}</td>
                    <td className={tdClass} data-testid="member-roles"><RoleNames roles={m.roles} /></td>
                    <td className={tdClass}>{intl.formatMessage({ id: m.twoFactorEnabled ? 'settings.on' : 'settings.off' })}</td>
                    <td className={`${tdClass} min-w-40`}><DateTimeText iso={m.createdAt} /></td>
                    {write && (
                      <td className={`${tdClass} whitespace-nowrap`}>
                        <span className="flex flex-wrap gap-2">
                          <EditRoles member={m} onDone={reloadMembers} />
                          {m.id !== viewer.member?.id && (
                            <button type="button" className={secondaryButtonClass} disabled={removeState.fetching}
                              aria-label={intl.formatMessage({ id: 'settings.removeMember' }, { email: m.email })}
                              onClick={async () => {
                                if (!window.confirm(intl.formatMessage({ id: 'settings.removeConfirm' }, { email: m.email }))) return;
                                const r = await remove({ input: { id: m.id } });
                                if (r.data?.teamMemberRemove.member) reloadMembers();
                              }}>
                              <FormattedMessage id="settings.remove" />
                            </button>
                          )}
                        </span>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section aria-labelledby="invites-heading">
        <h2 id="invites-heading" className="mb-2 text-xl font-semibold"><FormattedMessage id="settings.invites" /></h2>
        {write && <InviteForm onDone={reloadInvites} />}
        <ErrorNote error={invites.error} />
        <ErrorNote error={revokeState.error} userErrors={revokeState.data?.teamInviteRevoke.userErrors} />
        {invites.fetching && !invites.data ? <Loading /> : inviteRows.length ? (
          <div className="overflow-x-auto rounded border border-slate-200 bg-white">
            <table className={tableClass}>
              <thead>
                <tr>
                  {['email', 'roles', 'status', 'expires'].map((c) => <th key={c} scope="col" className={thClass}><FormattedMessage id={`settings.col.${c}`} /></th>)}
                  {write && <th scope="col" className={thClass}><span className="sr-only"><FormattedMessage id="settings.col.actions" /></span></th>}
                </tr>
              </thead>
              <tbody>
                {inviteRows.map((i) => (
                  <tr key={i.id} data-invite-id={i.id}>
                    <td className={tdClass}><bdi>{i.email}</bdi></td>
                    <td className={tdClass}><RoleNames roles={i.roles} /></td>
                    <td className={tdClass}><Status value={i.status} /></td>
                    <td className={`${tdClass} min-w-40`}><DateTimeText iso={i.expiresAt} /></td>
                    {write && (
                      <td className={tdClass}>
                        {i.status === 'pending' && (
                          <button type="button" className={secondaryButtonClass} disabled={revokeState.fetching}
                            aria-label={intl.formatMessage({ id: 'settings.revokeInvite' }, { email: i.email })}
                            onClick={async () => { const r = await revoke({ input: { id: i.id } }); if (r.data?.teamInviteRevoke.invite) reloadInvites(); }}>
                            <FormattedMessage id="settings.revoke" />
                          </button>
                        )}
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : <p className="rounded border border-slate-200 bg-white p-4"><FormattedMessage id="settings.noInvites" /></p>}
      </section>
    </Page>
  );
}
