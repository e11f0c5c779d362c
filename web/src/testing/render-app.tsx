/** Renders the whole portal (providers, routes, guard) at `path` in memory. */
import { render } from '@testing-library/react';
import { StrictMode } from 'react';
import { RouterProvider, createMemoryRouter } from 'react-router';

import { AppProvider } from '@/app/provider';
import { routesWith } from '@/app/router';
import { setNavigator } from '@/lib/api-client';
import { createQueryClient } from '@/lib/query-client';
import { NO_HOSTS, type SiteInfo } from '@/lib/site';

export function renderApp(path: string, site: SiteInfo = NO_HOSTS, { strict = false }: { strict?: boolean } = {}) {
  const queryClient = createQueryClient();
  const router = createMemoryRouter(routesWith({ queryClient, site: site.site }), { initialEntries: [path] });
  setNavigator((p) => void router.navigate(p));
  const app = (
    <AppProvider queryClient={queryClient} site={site}>
      <RouterProvider router={router} />
    </AppProvider>
  );
  // `strict`: as in the browser build (main.tsx), React mounts twice, runs effects twice.
  const view = render(strict ? <StrictMode>{app}</StrictMode> : app);
  return { router, ...view };
}
