/**
 * What the organisation's Users screen calls beyond the shared user list
 * (`lib/users.ts`): setting a workstation user's password.
 */
import type { Msg, WorkstationPasswordRequest } from '@/api/generated';
import { api } from '@/lib/api-client';

/** An organisation admin or support user sets a workstation user's password; the user
 * must change it at their next sign-in. */
export const resetWorkstationPassword = (body: WorkstationPasswordRequest) =>
  api.patch<Msg>('account/reset_workstation_user_password/', body);
