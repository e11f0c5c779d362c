import { QueryClient } from '@tanstack/react-query';

import { ApiError } from '@/lib/api-client';

/** Client errors (4xx) are answers, not hiccups: only network and 5xx failures retry. */
export function createQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: (count, err) => !(err instanceof ApiError && err.status < 500) && count < 2,
        refetchOnWindowFocus: false,
        staleTime: 30_000,
      },
      mutations: { retry: false },
    },
  });
}
