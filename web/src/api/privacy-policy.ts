/**
 * The privacy policy (`GET privacy_policy/`, no sign-in): the operator's Markdown text
 * or the cloud's default one, and whom to ask about one's data.
 */
import { queryOptions } from '@tanstack/react-query';

import type { PrivacyPolicy } from '@/api/generated';
import { api } from '@/lib/api-client';

export const privacyPolicyQuery = () =>
  queryOptions({
    queryKey: ['privacy-policy'],
    queryFn: () => api.get<PrivacyPolicy>('privacy_policy/'),
    staleTime: 5 * 60_000,
  });
