/**
 * Feature Control (spec section 7 "Feature control", super admin): the features
 * (`feature_control/feature/`) and which organisations hold them
 * (`feature_control/subscribed_feature/`, each possibly suppressed). A gated screen of
 * section 6 shows for an organisation once it holds an unsuppressed subscription.
 */
import { queryOptions } from '@tanstack/react-query';

import type { Feature, FeatureCreate, Msg, SubscribedFeature, SubscribedFeatureCreate } from '@/api/generated';
import { api } from '@/lib/api-client';

export const featureControlKey = ['feature-control'] as const;

export const featuresQuery = () =>
  queryOptions({
    queryKey: [...featureControlKey, 'features'],
    queryFn: () => api.get<Feature[]>('feature_control/feature/'),
    staleTime: 0,
  });

/** Every organisation's subscriptions, or `organization`'s. */
export const subscriptionsQuery = (organization: number | null) =>
  queryOptions({
    queryKey: [...featureControlKey, 'subscriptions', organization],
    queryFn: () =>
      api.get<SubscribedFeature[]>('feature_control/subscribed_feature/', { query: { organization: organization ?? undefined } }),
    staleTime: 0,
  });

export const createFeature = (body: FeatureCreate) => api.post<Feature>('feature_control/feature/', body);

/** Deletes a feature and every subscription to it. */
export const deleteFeature = (id: number) => api.delete<Msg>('feature_control/feature/', { query: { id } });

/** Subscribes an organisation, or sets an existing subscription's `is_suppressed`. */
export const subscribe = (body: SubscribedFeatureCreate) => api.post<SubscribedFeature>('feature_control/subscribed_feature/', body);

export const unsubscribe = (id: number) => api.delete<Msg>('feature_control/subscribed_feature/', { query: { id } });
