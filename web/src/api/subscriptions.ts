/**
 * The features the signed-in user's organisation holds an unsuppressed subscription to
 * (section 6): what the sidebar's gated entries need.
 */
import { queryOptions, useQuery } from '@tanstack/react-query';

import type { SubscribedFeature } from '@/api/generated';
import { api } from '@/lib/api-client';

export function getSubscribedFeatures(organization: number): Promise<SubscribedFeature[]> {
  return api.get<SubscribedFeature[]>('feature_control/subscribed_feature/', { query: { organization } });
}

export const subscribedFeaturesQuery = (organization: number | null) =>
  queryOptions({
    queryKey: ['subscribed-features', organization],
    queryFn: () => getSubscribedFeatures(organization!),
    enabled: organization !== null,
    select: (rows) => new Set(rows.filter((r) => !r.is_suppressed).map((r) => r.feature_name)),
  });

/** The organisation's active features; empty while loading or without an organisation. */
export function useActiveFeatures(organization: number | null): ReadonlySet<string> {
  const q = useQuery(subscribedFeaturesQuery(organization));
  return q.data ?? EMPTY;
}

const EMPTY: ReadonlySet<string> = new Set();

/** Whether the organisation holds `feature` (unsuppressed): `loading` until known; a failed
 * lookup counts as not held. */
export function useFeatureCheck(organization: number | null, feature: string | null): 'loading' | 'yes' | 'no' {
  const q = useQuery(subscribedFeaturesQuery(feature ? organization : null));
  if (!feature) return 'yes';
  if (organization === null || q.isError) return 'no';
  if (!q.data) return 'loading';
  return q.data.has(feature) ? 'yes' : 'no';
}
