import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Toaster } from 'sonner';

import { TOAST_DEFAULT_MS, TOAST_LIMIT } from '@/config/constants';
import { SiteContext, type SiteInfo } from '@/lib/site';

/** Data, the site, and the toasts (top-right, at most 3 at once, 5 s by default). */
export function AppProvider({ queryClient, site, children }: { queryClient: QueryClient; site: SiteInfo; children: ReactNode }) {
  return (
    <QueryClientProvider client={queryClient}>
      <SiteContext value={site}>
        {children}
        <Toaster position="top-right" visibleToasts={TOAST_LIMIT} duration={TOAST_DEFAULT_MS} richColors closeButton />
      </SiteContext>
    </QueryClientProvider>
  );
}
