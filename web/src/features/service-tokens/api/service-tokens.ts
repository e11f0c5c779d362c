/**
 * Service tokens, the spec's cloud-function token (`generic/userpool/`): the super
 * admin's list, creating one (its secret answered once) and revoking one
 * (`DELETE generic/userpool/{id}/`). An integration sends the secret as
 * `Authorization: Bearer …` and acts in one organisation as one role.
 */
import { queryOptions } from '@tanstack/react-query';

import type { ServiceToken, ServiceTokenCreate, ServiceTokenCreated } from '@/api/generated';
import { api } from '@/lib/api-client';

export const serviceTokensKey = ['service-tokens'] as const;

export const serviceTokensQuery = () =>
  queryOptions({
    queryKey: [...serviceTokensKey],
    queryFn: () => api.get<ServiceToken[]>('generic/userpool/'),
  });

export const createServiceToken = (body: ServiceTokenCreate) => api.post<ServiceTokenCreated>('generic/userpool/', body);

export const revokeServiceToken = (id: number) => api.delete<unknown>(`generic/userpool/${id}/`);

/** The longest life of a token, in days (`gemba_shared::api::v1::service_token::MAX_EXPIRY_DAYS`). */
export const MAX_EXPIRY_DAYS = 365;

/** A token's state at `now`: revoked, expired or active. */
export function tokenState(t: Pick<ServiceToken, 'revoked_at' | 'expires_at'>, now: number): 'Revoked' | 'Expired' | 'Active' {
  if (t.revoked_at !== null) return 'Revoked';
  if (t.expires_at <= now) return 'Expired';
  return 'Active';
}

export type TokenForm = { name: string; organization: string; role: string; days: string };

/** What is wrong with the form, by field (the server's rules), or null. */
export function formProblems(f: TokenForm): Partial<Record<keyof TokenForm, string>> | null {
  const out: Partial<Record<keyof TokenForm, string>> = {};
  if (f.name.trim() === '') out.name = 'This field is required.';
  if (f.organization === '') out.organization = 'Choose an organization.';
  if (f.role === '') out.role = 'Choose a role.';
  else if (f.role === 'admin') out.role = 'A service token cannot act as the super admin.';
  const days = Number(f.days);
  if (!/^\d+$/.test(f.days.trim()) || days < 1 || days > MAX_EXPIRY_DAYS) {
    out.days = `Enter a number of days from 1 to ${MAX_EXPIRY_DAYS}.`;
  }
  return Object.keys(out).length > 0 ? out : null;
}
