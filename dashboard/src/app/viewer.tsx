/** The signed-in member and merchant (viewer), its permissions, and the formatting bound to its zone and language. */
import { useContext, useEffect, useMemo, useRef, type ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useMutation, useQuery } from 'urql';
import { ViewerContext as Ctx, type Viewer } from './viewerContext';
import { useLocale } from '../i18n/LocaleProvider';
import { isUnauthenticated } from './client';
import { csrfToken } from './csrf';
import { PreferencesMutation, ViewerQuery } from './queries';
import { Loading, ErrorNote } from './ui';

export type { Viewer };
export type Permission = keyof NonNullable<Viewer['member']>['permissions'] & string;

export function ViewerProvider({ children }: { children: ReactNode }) {
  // A cookie session always has its JS-readable `qafila_csrf` beside it: without one the member is
  // signed out, and the sign-in page opens without a request that could only answer 401.
  const signedIn = csrfToken() !== null;
  const [{ data, error, fetching }] = useQuery({ query: ViewerQuery, requestPolicy: 'network-only', pause: !signedIn });
  const [, savePreferences] = useMutation(PreferencesMutation);
  const locale = useLocale();
  const location = useLocation();
  const saved = useRef(false);
  const member = data?.viewer.member;

  useEffect(() => {
    if (!member) return;
    locale.applySaved(member.language, member.digits);
    if (!saved.current && locale.fromQuery && member.language !== locale.lang) {
      saved.current = true;
      void savePreferences({ input: { language: locale.lang } });
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [member?.id]);

  const next = encodeURIComponent('/dashboard' + location.pathname + location.search);
  if (!signedIn) return <Navigate to={`/login?next=${next}`} replace />;
  // Signed out (an expired session): the client's error exchange (app/client.ts) loads the sign-in page.
  if (error && isUnauthenticated(error)) return <Loading />;
  if (error && !data) return <main className="p-6"><ErrorNote error={error} /></main>;
  if (fetching && !data) return <Loading />;
  if (!data) return <Loading />;
  if (!data.viewer.member) {
    return <Navigate to={`/login?next=${next}`} replace />;
  }
  return <Ctx.Provider value={data.viewer}>{children}</Ctx.Provider>;
}

export function useViewer(): Viewer {
  const v = useContext(Ctx);
  if (!v) throw new Error('useViewer outside ViewerProvider');
  return v;
}

/** Whether the signed-in member may do `permission` (e.g. 'refundsWrite'). */
export function useCan(): (permission: Permission | null | undefined) => boolean {
  const viewer = useContext(Ctx);
  return useMemo(() => (permission) => {
    if (!permission) return true;
    return Boolean(viewer?.member?.permissions[permission]);
  }, [viewer]);
}
