/** The urql client: POST /graphql with the session cookie and X-CSRF-Token; paymentEvents over graphql-transport-ws on the same /graphql. */
import { Client, cacheExchange, fetchExchange, mapExchange, subscriptionExchange } from 'urql';
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';
import { csrfToken } from './csrf';

let ws: WsClient | null = null;

function wsClient(): WsClient {
  if (!ws) {
    const proto = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
    // The cookie session rides on the upgrade request (same origin); no key in connection_init.
    ws = createWsClient({ url: `${proto}//${window.location.host}/graphql`, lazy: true, retryAttempts: 3 });
  }
  return ws;
}

export function resetWs(): void {
  ws?.dispose();
  ws = null;
}

export function makeClient(): Client {
  return new Client({
    url: '/graphql',
    preferGetMethod: false,
    requestPolicy: 'cache-and-network',
    fetchOptions: (): RequestInit => {
      const token = csrfToken();
      const headers: Record<string, string> = {};
      if (token) headers['X-CSRF-Token'] = token;
      return { credentials: 'same-origin', headers };
    },
    exchanges: [
      mapExchange({
        onError(error) {
          // The session ended (expired, revoked, signed out elsewhere): back to the sign-in, then here.
          const path = window.location.pathname;
          if (isUnauthenticated(error) && !/^\/dashboard\/(login|accept-invite)/.test(path)) {
            window.location.assign(`/dashboard/login?next=${encodeURIComponent(path + window.location.search)}`);
          }
        },
      }),
      cacheExchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription(request) {
          const input = { ...request, query: request.query || '' };
          return {
            subscribe(sink) {
              const unsubscribe = wsClient().subscribe(input, sink);
              return { unsubscribe };
            },
          };
        },
      }),
    ],
  });
}

/** Is this GraphQL error "not signed in" (401)? */
export function isUnauthenticated(error: { graphQLErrors?: { extensions?: Record<string, unknown> }[]; response?: { status?: number } } | undefined): boolean {
  if (!error) return false;
  if (error.response?.status === 401) return true;
  return (error.graphQLErrors ?? []).some((e) => e.extensions?.status === 401);
}
