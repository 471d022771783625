import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { RouterProvider as AriaRouterProvider } from 'react-aria-components';
import { isTransient } from './api/client';
import { createAppRouter } from './app/router';
import { applyTheme, storedTheme } from './lib/theme';
import './app/styles.css';

// boot.ts applied it already when it ran first; it is async, so here too.
applyTheme(storedTheme());

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      // The service's refusals are final; network trouble, timeouts, rate limits and 5xx are worth another try.
      retry: (count, error) => count < 2 && isTransient(error),
    },
  },
});
const router = createAppRouter(queryClient);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      {/* React Aria's links and menu items navigate through the app's router, not a page load. */}
      <AriaRouterProvider
        navigate={(to) => void router.navigate({ to })}
        useHref={(to) => router.buildLocation({ to }).href}
      >
        <RouterProvider router={router} />
      </AriaRouterProvider>
    </QueryClientProvider>
  </StrictMode>,
);
