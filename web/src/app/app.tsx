import { useState } from 'react';
import { RouterProvider } from 'react-router';

import { setNavigator } from '@/lib/api-client';
import { createQueryClient } from '@/lib/query-client';
import type { SiteInfo } from '@/lib/site';

import { AppProvider } from './provider';
import { createRouter } from './router';

export function App({ site }: { site: SiteInfo }) {
  const [queryClient] = useState(createQueryClient);
  const [router] = useState(() => {
    const r = createRouter({ queryClient, site: site.site });
    // The API client sends the user to /login or /change-password through the router.
    setNavigator((path) => void r.navigate(path));
    return r;
  });
  return (
    <AppProvider queryClient={queryClient} site={site}>
      <RouterProvider router={router} />
    </AppProvider>
  );
}
