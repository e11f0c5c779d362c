import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { allOrganizationsQuery } from '@/api/organizations';
import { usersKey } from '@/api/users';
import { DialogActions } from '@/components/ui/dialog';
import { SelectField } from '@/components/ui/field';
import { ASSIGN_ORG_FAILED, DATA_UPDATED } from '@/config/messages';
import { notify } from '@/lib/toast';
import { checkChosen } from '@/lib/validate';

import { assignUserOrg } from '../api/accounts';

/**
 * Assigns an organisation to the user with `email` (step two of the approval, and the
 * All Users screen's "Assign organization"): `PUT account/assign_user_org`.
 */
export function AssignOrgForm({
  email,
  cancelLabel,
  onCancel,
  onDone,
}: {
  email: string;
  cancelLabel: string;
  onCancel: () => void;
  onDone: () => void;
}) {
  const qc = useQueryClient();
  const orgs = useQuery(allOrganizationsQuery());
  const [org, setOrg] = useState('');
  const [error, setError] = useState<string | null>(null);

  const m = useMutation({
    mutationFn: (organization: number) => assignUserOrg({ email, organization }),
    onSuccess: async () => {
      notify.successShort(DATA_UPDATED);
      onDone();
      await qc.invalidateQueries({ queryKey: usersKey });
    },
    onError: (err) => notify.failure(err, 'post', ASSIGN_ORG_FAILED),
  });

  function submit(e: React.FormEvent) {
    e.preventDefault();
    if (m.isPending) return;
    const problem = checkChosen(org, 'Organization');
    setError(problem);
    if (problem) return;
    m.mutate(Number(org));
  }

  return (
    <form onSubmit={submit} noValidate>
      <SelectField
        label="Organization"
        value={org}
        error={error}
        onChange={(e) => {
          setOrg(e.target.value);
          setError(null);
        }}
      >
        <option value="">{orgs.isPending ? 'Loading organizations…' : 'Select an organization'}</option>
        {(orgs.data ?? []).map((o) => (
          <option key={o.id} value={o.id}>
            {o.org_name_to_display}
          </option>
        ))}
      </SelectField>
      {orgs.isError ? <p className="query-error">The organizations could not be loaded.</p> : null}
      {orgs.data?.length === 0 ? <p className="muted">There is no organization yet: create one first.</p> : null}
      <DialogActions onCancel={onCancel} cancelLabel={cancelLabel} submitLabel="Assign" pending={m.isPending} />
    </form>
  );
}
