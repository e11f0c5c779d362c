import { useQuery } from '@tanstack/react-query';

import type { Task } from '@/api/generated';
import { EmptyState } from '@/components/ui/empty-state';
import { SelectField } from '@/components/ui/field';
import { api } from '@/lib/api-client';

const tasksQuery = { queryKey: ['media', 'tasks'], queryFn: () => api.get<Task[]>('organization/task/'), staleTime: 0 };

/** The media screens' heading and their choice of operation (kept in the URL by the caller). */
export function OperationPicker({
  title,
  organizationName,
  task,
  onTask,
}: {
  title: string;
  organizationName: string | null;
  task: number | null;
  onTask: (task: number | null) => void;
}) {
  const tasks = useQuery(tasksQuery);
  return (
    <>
      <div className="screen-header">
        <h1>{title}</h1>
        {organizationName ? <span className="muted">{organizationName}</span> : null}
      </div>
      <SelectField label="Operation" value={task ?? ''} onChange={(e) => onTask(Number(e.target.value) || null)}>
        <option value="">Choose an operation…</option>
        {(tasks.data ?? []).map((t) => (
          <option key={t.id} value={t.id}>
            {t.taskName}
          </option>
        ))}
      </SelectField>
      {tasks.data && tasks.data.length === 0 ? (
        <EmptyState title="No operations yet.">
          <p>Define an operation first; its videos are recorded and labelled here.</p>
        </EmptyState>
      ) : null}
    </>
  );
}
