import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import type { RoleRecord, UserSummary } from '@/api/generated';
import { fullName, roleLabel, rolesQuery, usersKey } from '@/api/users';
import { Dialog, DialogActions } from '@/components/ui/dialog';
import { SelectField } from '@/components/ui/field';
import { RoleOptions } from '@/components/ui/role-options';
import { APPROVE_FAILED, USER_APPROVED } from '@/config/messages';
import { needsOrganization, parseRole } from '@/lib/access/roles';
import { notify } from '@/lib/toast';
import { checkChosen } from '@/lib/validate';

import { approveUser } from '../api/accounts';
import { AssignOrgForm } from './assign-org-form';

/**
 * The two-step approval of spec section 4: step 1 approves the account with a role
 * (`PUT account/approve_user`); step 2 assigns an organisation (`PUT
 * account/assign_user_org`). A user whose role needs an organisation cannot sign in
 * before step 2; "Later" leaves it for the All Users screen.
 */
export function ApproveDialog({ user, onClose }: { user: UserSummary; onClose: () => void }) {
  const [approvedAs, setApprovedAs] = useState<RoleRecord | null>(null);
  const name = fullName(user);
  return (
    <Dialog title={`Approve ${name}`} onClose={onClose}>
      <ol className="steps" aria-label="Approval steps">
        <li aria-current={approvedAs ? undefined : 'step'}>1. Role</li>
        <li aria-current={approvedAs ? 'step' : undefined}>2. Organization</li>
      </ol>
      {!user.is_email_verified ? (
        <p className="muted">{user.email} has not verified this address yet; they cannot sign in until it is verified.</p>
      ) : null}
      {approvedAs ? (
        <>
          <p>
            {name} is approved as {roleLabel(approvedAs.name)}.{' '}
            {needsOrganization(parseRole(approvedAs.name) ?? 'user')
              ? 'They can sign in once an organization is assigned.'
              : 'This role works without an organization; assigning one is optional.'}
          </p>
          <AssignOrgForm email={user.email} cancelLabel="Later" onCancel={onClose} onDone={onClose} />
        </>
      ) : (
        <RoleStep email={user.email} onCancel={onClose} onApproved={setApprovedAs} />
      )}
    </Dialog>
  );
}

function RoleStep({ email, onCancel, onApproved }: { email: string; onCancel: () => void; onApproved: (r: RoleRecord) => void }) {
  const qc = useQueryClient();
  const roles = useQuery(rolesQuery());
  const [roleId, setRoleId] = useState('');
  const [error, setError] = useState<string | null>(null);

  const m = useMutation({
    mutationFn: (r: RoleRecord) => approveUser({ email, roleId: r.id }),
    onSuccess: async (_, r) => {
      notify.successShort(USER_APPROVED);
      onApproved(r);
      await qc.invalidateQueries({ queryKey: usersKey });
    },
    onError: (err) => notify.failure(err, 'post', APPROVE_FAILED),
  });

  function submit(e: React.FormEvent) {
    e.preventDefault();
    if (m.isPending) return;
    const role = roles.data?.find((r) => String(r.id) === roleId);
    const problem = checkChosen(role ? roleId : '', 'Role');
    setError(problem);
    if (problem || !role) return;
    m.mutate(role);
  }

  return (
    <form onSubmit={submit} noValidate>
      <SelectField
        label="Role"
        value={roleId}
        error={error}
        onChange={(e) => {
          setRoleId(e.target.value);
          setError(null);
        }}
      >
        <option value="">{roles.isPending ? 'Loading roles…' : 'Select a role'}</option>
        <RoleOptions roles={roles.data ?? []} by="id" />
      </SelectField>
      {roles.isError ? <p className="query-error">The roles could not be loaded.</p> : null}
      <DialogActions onCancel={onCancel} submitLabel="Approve" pending={m.isPending} />
    </form>
  );
}
