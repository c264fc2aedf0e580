/** The invitation link: /dashboard/accept-invite?token=… — "Accept invitation" (teamInviteAccept), then sign-in. */
import { FormattedMessage } from 'react-intl';
import { Link, useSearchParams } from 'react-router';
import { useMutation } from 'urql';
import { ErrorNote, buttonClass, linkClass } from '../app/ui';
import AuthFrame from './AuthFrame';
import { TeamInviteAccept } from './queries';

export default function AcceptInvitePage() {
  const [params] = useSearchParams();
  const token = params.get('token');
  const [state, accept] = useMutation(TeamInviteAccept);
  const p = state.data?.teamInviteAccept;
  const accepted = p && !p.userErrors.length && p.member;
  return (
    <AuthFrame titleId="auth.acceptTitle">
      {!token && <p role="alert" className="mb-3 text-red-800"><FormattedMessage id="auth.noToken" /></p>}
      {accepted ? (
        <div role="status">
          <p className="mb-4"><FormattedMessage id="auth.accepted" values={{ merchant: <bdi>{p.merchant?.name}</bdi>, email: <bdi>{p.member?.email}</bdi> }} /></p>
          <Link className={linkClass} to={`/login?email=${encodeURIComponent(p.member?.email ?? '')}`}><FormattedMessage id="auth.signIn" /></Link>
        </div>
      ) : (
        <>
          <ErrorNote error={state.error} userErrors={p?.userErrors} />
          <button type="button" className={buttonClass} disabled={!token || state.fetching}
            onClick={() => token && accept({ input: { token } })}>
            <FormattedMessage id="auth.accept" />
          </button>
        </>
      )}
    </AuthFrame>
  );
}
