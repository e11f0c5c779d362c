import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';

import type { Task } from '@/api/generated';
import { tasksQuery } from '@/api/tasks';
import { EmptyState } from '@/components/ui/empty-state';
import { SelectField } from '@/components/ui/field';
import { ScreenHeader } from '@/components/ui/screen-header';

/** The operation the media screens work on: `?task=` in the address (choosing another
 * drops the rest of the query, such as the chosen video). */
export function useTaskParam(): [number | null, (task: number | null) => void] {
  const [params, setParams] = useSearchParams();
  const task = Number(params.get('task')) || null;
  return [task, (t) => setParams(t === null ? {} : { task: String(t) })];
}

/** The media screens' heading, with the organisation, and their choice of operation. */
export function OperationPicker({ title }: { title: string }) {
  const [task, onTask] = useTaskParam();
  const tasks = useQuery(tasksQuery());
  return (
    <>
      <ScreenHeader title={title} />
      <OperationSelect tasks={tasks.data} value={task === null ? '' : String(task)} onChange={(v) => onTask(Number(v) || null)} />
      {tasks.data && tasks.data.length === 0 ? (
        <EmptyState title="No operations yet.">
          <p>Define an operation first; its videos are recorded and labelled here.</p>
        </EmptyState>
      ) : null}
    </>
  );
}

/** A choice of one of `tasks` (an operation) by its id, as text ('' for none). */
export function OperationSelect({
  tasks,
  value,
  onChange,
  error,
  disabled,
}: {
  tasks: readonly Task[] | undefined;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  disabled?: boolean;
}) {
  return (
    <SelectField label="Operation" value={value} error={error} disabled={disabled} onChange={(e) => onChange(e.target.value)}>
      <option value="">Choose an operation…</option>
      {(tasks ?? []).map((t) => (
        <option key={t.id} value={t.id}>
          {t.taskName}
        </option>
      ))}
    </SelectField>
  );
}
