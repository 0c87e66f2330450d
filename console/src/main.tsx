/** The console's entry: the active language's catalogue, the query cache, the router. */
import { i18n } from '@lingui/core';
import { I18nProvider } from '@lingui/react';
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createRouter, RouterProvider } from '@tanstack/react-router';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { session } from './auth/session.ts';
import { ApiError, isTokenError } from './gql/errors.ts';
import { activate, initialLocale } from './i18n/i18n.ts';
import { routeTree } from './routeTree.gen.ts';
import { ErrorPage } from './ui/error-page.tsx';
import { NotFoundPage } from './ui/not-found-page.tsx';
import './ui/styles.css';

/** Token errors anywhere (console.md §2): drop the token, sign in again, come back here after. */
function onError(error: unknown): void {
  if (!isTokenError(error)) return;
  session.clear();
  queryClient.clear();
  const { href, pathname } = router.state.location;
  if (pathname !== '/login') void router.navigate({ to: '/login', search: { redirect: href } });
}

const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: {
    queries: {
      // The service's coded answers are final; only a lost connection is worth another try.
      retry: (failures, error) => error instanceof ApiError && error.code === 'NETWORK' && failures < 2,
      staleTime: 10_000,
    },
  },
});

const router = createRouter({
  routeTree,
  basepath: '/admin',
  context: { queryClient },
  defaultPreload: 'intent',
  defaultErrorComponent: ErrorPage,
  defaultNotFoundComponent: NotFoundPage,
  scrollRestoration: true,
});

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}

await activate(initialLocale());

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <I18nProvider i18n={i18n}>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </I18nProvider>
  </StrictMode>,
);
