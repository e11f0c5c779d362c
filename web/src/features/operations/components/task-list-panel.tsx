import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import type { Task } from '@/api/generated';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { QueryStatus } from '@/components/ui/query-status';
import { SearchForm } from '@/components/ui/search-form';
import { DATA_DELETED } from '@/config/messages';
import { notify } from '@/lib/toast';

import { deleteTask, patchTask, putTask, taskListQuery, taskListsKeys, taskQuery } from '../api/tasks';
import { CloneTaskDialog } from './clone-task-dialog';

/**
 * The operations of the organisation, starred first (the server's order), with a search
 * on the name; a star per operation (the caller's own mark); New, Import, and Clone and
 * Delete of the selected operation.
 */
export function TaskListPanel({
  search,
  onSearch,
  selected,
  onSelect,
  manage,
  onNew,
  onImport,
}: {
  search: string;
  onSearch: (text: string) => void;
  selected: number | null;
  onSelect: (id: number | null) => void;
  manage: boolean;
  onNew: () => void;
  onImport: () => void;
}) {
  const q = useQuery(taskListQuery(search));
  // The selected task may be outside the search: its own query (shared with the detail).
  const current = useQuery({ ...taskQuery(selected ?? 0), enabled: selected !== null });
  const task = selected !== null ? current.data : undefined;
  const [open, setOpen] = useState<'clone' | 'delete' | null>(null);
  const tasks = q.data;

  return (
    <aside className="task-list" aria-label="Operations">
      <SearchForm label="Search operations" value={search} onSearch={onSearch} />
      {manage ? (
        <div className="toolbar">
          <button type="button" onClick={onNew}>
            New
          </button>
          <button type="button" className="secondary" onClick={onImport}>
            Import
          </button>
          <button type="button" className="secondary" disabled={!task} onClick={() => setOpen('clone')}>
            Clone
          </button>
          <button type="button" className="danger" disabled={!task} onClick={() => setOpen('delete')}>
            Delete
          </button>
        </div>
      ) : null}
      <QueryStatus pending={q.isPending} error={q.error} what="Operations" />
      {tasks && tasks.length === 0 ? (
        <p className="muted">{search ? `No operation matches "${search}".` : 'No operation yet.'}</p>
      ) : null}
      {tasks && tasks.length > 0 ? (
        <ul className="task-items">
          {tasks.map((t) => (
            <TaskItem key={t.id} task={t} selected={t.id === selected} onSelect={() => onSelect(t.id)} />
          ))}
        </ul>
      ) : null}
      {open === 'clone' && task ? (
        <CloneTaskDialog
          task={task}
          onClose={() => setOpen(null)}
          onCloned={(id) => {
            setOpen(null);
            onSelect(id);
          }}
        />
      ) : null}
      {open === 'delete' && task ? (
        <DeleteTaskDialog
          task={task}
          onClose={() => setOpen(null)}
          onDeleted={() => {
            setOpen(null);
            onSelect(null);
          }}
        />
      ) : null}
    </aside>
  );
}

function TaskItem({ task, selected, onSelect }: { task: Task; selected: boolean; onSelect: () => void }) {
  const qc = useQueryClient();
  const star = useMutation({
    mutationFn: () => patchTask(task.id, { starred: !task.starred }),
    onSuccess: (t) => putTask(qc, t),
    onError: (err) => notify.failure(err, 'post'),
  });
  return (
    <li className={selected ? 'selected' : undefined}>
      <button type="button" className="task-name link-button" aria-current={selected ? 'true' : undefined} onClick={onSelect}>
        {task.taskName}
      </button>
      <button
        type="button"
        className="star link-button"
        aria-label={`${task.starred ? 'Unstar' : 'Star'} ${task.taskName}`}
        aria-pressed={task.starred}
        title={task.starred ? 'Starred: listed first' : 'Star to list it first'}
        disabled={star.isPending}
        onClick={() => star.mutate()}
      >
        {task.starred ? '★' : '☆'}
      </button>
    </li>
  );
}

/** Delete asks first; the task is marked deleted (`is_deleted`), its history kept. */
function DeleteTaskDialog({ task, onClose, onDeleted }: { task: Task; onClose: () => void; onDeleted: () => void }) {
  const qc = useQueryClient();
  const m = useMutation({
    mutationFn: () => deleteTask(task.id),
    onSuccess: async () => {
      notify.successShort(DATA_DELETED);
      onDeleted();
      // Not the task's own queries: it is gone, and its detail is closing.
      await Promise.all(taskListsKeys.map((queryKey) => qc.invalidateQueries({ queryKey })));
    },
    onError: (err) => notify.failure(err, 'delete'),
  });
  return (
    <ConfirmDialog title="Delete operation" confirmLabel="Delete" busy={m.isPending} onConfirm={() => m.mutate()} onCancel={onClose}>
      <p>
        Delete <strong>{task.taskName}</strong>? It leaves the list of operations.
      </p>
    </ConfirmDialog>
  );
}
