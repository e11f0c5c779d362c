import { useState } from 'react';
import { useSearchParams } from 'react-router';

import type { Operation } from '@/api/generated';
import { EmptyState } from '@/components/ui/empty-state';
import { ScreenHeader } from '@/components/ui/screen-header';
import { can } from '@/lib/access/roles';
import { useSession } from '@/lib/session';

import { ImportOperationDialog } from './import-operation-dialog';
import { NewTaskForm } from './new-task-form';
import { TaskDetail } from './task-detail';
import { TaskListPanel } from './task-list-panel';

/** The task chosen in the address (`?task=7`), else null. */
function taskParam(v: string | null): number | null {
  const n = Number(v);
  return v !== null && Number.isSafeInteger(n) && n > 0 ? n : null;
}

/**
 * `/user/process` (Define Operation, gated by the 'Define Operation' subscription): the
 * organisation's operations (tasks) on the left, with a search, stars, New, Import,
 * Clone and Delete; on the right the chosen one (`?task=ID`, so the Tasks screen and a
 * reload open it) with its operation (edited through the phases of spec section 4), its
 * parameters, model, translation and history, or the form defining a new one.
 *
 * Selecting a task resets the editor, translation and parameter edits (spec section 4):
 * the detail is keyed by the task's id.
 */
export default function DefineOperationScreen() {
  const s = useSession();
  const manage = s.role !== null && can(s.role, 'ManageTasks');
  const [params, setParams] = useSearchParams();
  const selected = taskParam(params.get('task'));
  const search = params.get('search') ?? '';
  // A new operation being defined (from New or Import); `key` restarts its form.
  const [creating, setCreating] = useState<{ key: number; op: Operation } | null>(null);
  const [importing, setImporting] = useState(false);

  const setParam = (name: string, value: string | null) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        if (value === null || value === '') next.delete(name);
        else next.set(name, value);
        return next;
      },
      { replace: name === 'search' },
    );
  const select = (id: number | null) => {
    setCreating(null);
    setParam('task', id === null ? null : String(id));
  };
  const startNew = (op: Operation) => {
    setParam('task', null);
    setCreating((c) => ({ key: (c?.key ?? 0) + 1, op }));
  };

  return (
    <section className="define-operation">
      <ScreenHeader title="Define Operation" />
      <div className="operation-layout">
        <TaskListPanel
          search={search}
          onSearch={(text) => setParam('search', text.trim())}
          selected={creating ? null : selected}
          onSelect={select}
          manage={manage}
          onNew={() => startNew({ name: '', processes: [] })}
          onImport={() => setImporting(true)}
        />
        <div className="operation-main">
          {creating ? (
            <NewTaskForm key={creating.key} initial={creating.op} onCreated={select} onCancel={() => setCreating(null)} />
          ) : selected !== null ? (
            <TaskDetail key={selected} id={selected} manage={manage} />
          ) : (
            <EmptyState title="No operation selected.">
              <p>Choose an operation from the list{manage ? ', or define a new one with New or Import' : ''}.</p>
            </EmptyState>
          )}
        </div>
      </div>
      {importing ? (
        <ImportOperationDialog
          onImport={(op) => {
            setImporting(false);
            startNew(op);
          }}
          onClose={() => setImporting(false)}
        />
      ) : null}
    </section>
  );
}
