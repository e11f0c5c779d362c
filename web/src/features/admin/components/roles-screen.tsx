import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { rolesKey, rolesQuery } from '@/api/users';
import { Field } from '@/components/ui/field';
import { DataTable } from '@/components/ui/data-table';
import { DATA_CREATED } from '@/config/messages';
import { ROLES, ROLE_LABELS, parseRole } from '@/lib/access/roles';
import { notify } from '@/lib/toast';
import { BODY_LIMITS, requiredMessage } from '@/lib/validate';

import { createRole } from '../api/accounts';

/**
 * The check of a new role's name before it is sent. Roles are the spec's nine (defined
 * in `gemba-shared`): `POST account/roles/` only restores one of them that is missing,
 * so any other name, or one already listed, is refused here with the server's words.
 */
function checkRoleName(value: string, existing: readonly string[]): string | null {
  const v = value.trim();
  if (v === '') return requiredMessage('Role name');
  if (!parseRole(v)) return `Unknown role "${v}". A role is one of: ${ROLES.join(', ')}.`;
  if (existing.includes(v)) return 'role with this name already exists.';
  return null;
}

/** `/admin/roles` (super admin): the roles, and adding one. */
export default function RolesScreen() {
  const qc = useQueryClient();
  const q = useQuery(rolesQuery());
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);

  const m = useMutation({
    mutationFn: (n: string) => createRole({ name: n }),
    onSuccess: async () => {
      notify.successShort(DATA_CREATED);
      setName('');
      await qc.invalidateQueries({ queryKey: rolesKey });
    },
    onError: (err) => notify.failure(err, 'post'),
  });

  function submit(e: React.FormEvent) {
    e.preventDefault();
    if (m.isPending) return;
    const problem = checkRoleName(name, (q.data ?? []).map((r) => r.name));
    setError(problem);
    if (problem) return;
    m.mutate(name.trim());
  }

  return (
    <section>
      <h1>Roles</h1>
      <form onSubmit={submit} noValidate className="inline-form toolbar" aria-label="Create Role">
        <Field
          label="Role name"
          maxLength={BODY_LIMITS.RoleCreate.name}
          value={name}
          error={error}
          list="role-names"
          onChange={(e) => {
            setName(e.target.value);
            setError(null);
          }}
        />
        <datalist id="role-names">
          {ROLES.map((r) => (
            <option key={r} value={r} />
          ))}
        </datalist>
        <button type="submit" disabled={m.isPending}>
          Create Role
        </button>
      </form>
      <DataTable
        label="Roles"
        query={q}
        empty={<p className="muted">No roles yet.</p>}
        columns={['Id', 'Name', 'Label']}
        row={(r) => {
          const role = parseRole(r.name);
          return (
            <tr key={r.id}>
              <td>{r.id}</td>
              <td>{r.name}</td>
              <td>{role ? ROLE_LABELS[role] : '—'}</td>
            </tr>
          );
        }}
      />
    </section>
  );
}
