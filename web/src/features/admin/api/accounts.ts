/**
 * The super admin's account calls (spec section 7 "Account"): approval of pending
 * users in two steps (a role, then an organisation), the admin-side e-mail-verified
 * flag, the lockout list, and roles.
 */
import { queryOptions } from '@tanstack/react-query';

import type {
  ApproveUser,
  AssignUserOrg,
  EmailVerifiedFlag,
  LoginAttempts,
  Msg,
  RoleCreate,
  RoleRecord,
  UserSummary,
} from '@/api/generated';
import { api } from '@/lib/api-client';

/** Step one: the account becomes active with a role. */
export const approveUser = (body: ApproveUser) => api.put<Msg>('account/approve_user', body);

/** Step two: the user is linked to an organisation (their current one when they had none). */
export const assignUserOrg = (body: AssignUserOrg) => api.put<Msg>('account/assign_user_org', body);

export const setEmailVerified = (id: number, body: EmailVerifiedFlag) =>
  api.patch<UserSummary>(`account/admin-verification-email/${id}/`, body);

export const lockoutsKey = ['lockouts'] as const;

export const lockoutsQuery = () =>
  queryOptions({
    queryKey: lockoutsKey,
    queryFn: () => api.get<LoginAttempts[]>('account/lockout_list-delete/'),
    staleTime: 0,
  });

/** Lifts the lockout of an address. */
export const deleteLockout = (email: string) => api.delete<Msg>('account/lockout_list-delete/', { query: { user: email } });

export const createRole = (body: RoleCreate) => api.post<RoleRecord>('account/roles/', body);
