import { Suspense, lazy, useMemo } from 'react';
import { createBrowserRouter, Outlet, RouterProvider } from 'react-router';
import { Provider } from 'urql';
import { LocaleProvider } from '../i18n/LocaleProvider';
import { makeClient } from './client';
import Layout, { NotAllowed } from './Layout';
import { ROUTES, type PageRoute } from './routes';
import { Loading } from './ui';
import { useCan, ViewerProvider } from './viewer';

const LoginPage = lazy(() => import('../auth/LoginPage'));
const AcceptInvitePage = lazy(() => import('../auth/AcceptInvitePage'));
const NotFound = lazy(() => import('./NotFound'));

function Guard({ route }: { route: PageRoute }) {
  const can = useCan();
  if (!can(route.permission)) return <NotAllowed titleId={route.titleId} />;
  const Component = route.component;
  return <Component />;
}

function Signed() {
  return (
    <ViewerProvider>
      <Layout />
    </ViewerProvider>
  );
}

function Public() {
  return <Suspense fallback={<Loading />}><Outlet /></Suspense>;
}

const router = createBrowserRouter([
  {
    element: <Public />,
    children: [
      { path: 'login', element: <LoginPage /> },
      { path: 'accept-invite', element: <AcceptInvitePage /> },
    ],
  },
  {
    element: <Signed />,
    children: [
      ...ROUTES.map((r) => (r.path === '' ? { index: true, element: <Guard route={r} /> } : { path: r.path, element: <Guard route={r} /> })),
      { path: '*', element: <NotFound /> },
    ],
  },
], { basename: '/dashboard' });

export default function App() {
  const client = useMemo(makeClient, []);
  return (
    <Provider value={client}>
      <LocaleProvider>
        <RouterProvider router={router} />
      </LocaleProvider>
    </Provider>
  );
}
