import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import type { Organization } from '@/api/generated';
import { Dialog } from '@/components/ui/dialog';
import { Field } from '@/components/ui/field';
import { QueryStatus } from '@/components/ui/query-status';
import { DATA_CREATED } from '@/config/messages';
import { notify } from '@/lib/toast';
import { BODY_LIMITS, checkName } from '@/lib/validate';

import { createDepartment, departmentsKey, departmentsQuery } from '../api/organizations';

/** An organisation's departments: the list, and a form to add one. */
export function DepartmentsDialog({ org, onClose }: { org: Organization; onClose: () => void }) {
  const qc = useQueryClient();
  const q = useQuery(departmentsQuery(org.id));
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);

  const m = useMutation({
    mutationFn: (n: string) => createDepartment(org.id, { name: n }),
    onSuccess: async () => {
      notify.successShort(DATA_CREATED);
      setName('');
      await qc.invalidateQueries({ queryKey: departmentsKey(org.id) });
    },
    onError: (err) => notify.failure(err, 'post'),
  });

  function submit(e: React.FormEvent) {
    e.preventDefault();
    if (m.isPending) return;
    const problem = checkName(name, 'Department name');
    setError(problem);
    if (problem) return;
    m.mutate(name.trim());
  }

  return (
    <Dialog title={`Departments of ${org.org_name_to_display}`} onClose={onClose}>
      <form onSubmit={submit} noValidate className="inline-form">
        <Field
          label="Department name"
          maxLength={BODY_LIMITS.DepartmentCreate.name}
          value={name}
          error={error}
          onChange={(e) => {
            setName(e.target.value);
            setError(null);
          }}
        />
        <button type="submit" disabled={m.isPending}>
          Add
        </button>
      </form>
      <QueryStatus pending={q.isPending} error={q.error} what="Departments" />
      {q.data && q.data.length === 0 ? <p className="muted">No departments yet.</p> : null}
      {q.data && q.data.length > 0 ? (
        <ul aria-label="Departments">
          {q.data.map((d) => (
            <li key={d.id}>{d.name}</li>
          ))}
        </ul>
      ) : null}
      <div className="dialog-actions">
        <button type="button" className="secondary" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
