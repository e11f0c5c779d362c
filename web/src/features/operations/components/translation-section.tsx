import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';

import type { Task } from '@/api/generated';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { Dialog, DialogActions } from '@/components/ui/dialog';
import { Field, FormError } from '@/components/ui/field';
import { DATA_CREATED, DATA_DELETED, DATA_UPDATED } from '@/config/messages';
import { notify } from '@/lib/toast';

import { patchTask, putTask, type TaskChanges } from '../api/tasks';
import { readTranslation, translatableNames } from '../rules';

/**
 * The task's translation: one language, a translated name per step and sub-step (keyed by
 * the English name; a name left blank shows in English). Added, edited or deleted (an
 * empty translation deletes it and its language).
 */
export function TranslationSection({ task, manage }: { task: Task; manage: boolean }) {
  const titleId = useId();
  const qc = useQueryClient();
  const [open, setOpen] = useState<'edit' | 'delete' | null>(null);
  const names = translatableNames({ name: task.taskName, processes: task.processes });
  const has = Object.keys(task.translation).length > 0;

  const remove = useMutation({
    mutationFn: () => patchTask(task.id, { translation: {} }),
    onSuccess: async (t) => {
      notify.successShort(DATA_DELETED);
      setOpen(null);
      await putTask(qc, t);
    },
    onError: (err) => notify.failure(err, 'post'),
  });

  return (
    <section className="section" aria-labelledby={titleId}>
      <h3 id={titleId}>Translation</h3>
      {has ? (
        <table className="data-table" aria-label="Translated names">
          <thead>
            <tr>
              <th scope="col">English</th>
              <th scope="col">{task.translation_name}</th>
            </tr>
          </thead>
          <tbody>
            {names.map((n) => (
              <tr key={n.name}>
                <td className={n.kind}>{n.name}</td>
                <td>{task.translation[n.name] ?? <span className="muted">(English)</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted">No translation: the names show in English.</p>
      )}
      {manage ? (
        <div className="toolbar">
          <button type="button" className={has ? 'secondary' : undefined} onClick={() => setOpen('edit')}>
            {has ? 'Edit translation' : 'Add translation'}
          </button>
          {has ? (
            <button type="button" className="danger" onClick={() => setOpen('delete')}>
              Delete translation
            </button>
          ) : null}
        </div>
      ) : null}
      {open === 'edit' ? <TranslationDialog task={task} onClose={() => setOpen(null)} /> : null}
      {open === 'delete' ? (
        <ConfirmDialog title="Delete translation" confirmLabel="Delete" busy={remove.isPending} onConfirm={() => remove.mutate()} onCancel={() => setOpen(null)}>
          <p>
            Delete the <strong>{task.translation_name}</strong> translation of {task.taskName}? The names then show in English only.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

/** Add or edit the translation: the language and a field per step and sub-step name. */
function TranslationDialog({ task, onClose }: { task: Task; onClose: () => void }) {
  const qc = useQueryClient();
  const adding = Object.keys(task.translation).length === 0;
  const names = translatableNames({ name: task.taskName, processes: task.processes });
  const [language, setLanguage] = useState(task.translation_name ?? '');
  const [fields, setFields] = useState<Record<string, string>>(() => Object.fromEntries(names.map((n) => [n.name, task.translation[n.name] ?? ''])));
  const [error, setError] = useState<{ field: 'language' | 'names'; message: string } | null>(null);

  const m = useMutation({
    mutationFn: (body: TaskChanges) => patchTask(task.id, body),
    onSuccess: async (t) => {
      notify.successShort(adding ? DATA_CREATED : DATA_UPDATED);
      onClose();
      await putTask(qc, t);
    },
    onError: (err) => notify.failure(err, 'post'),
  });

  function submit(e: React.FormEvent) {
    e.preventDefault();
    if (m.isPending) return;
    const read = readTranslation(language, fields);
    if (!read.ok) {
      setError({ field: read.field, message: read.message });
      return;
    }
    setError(null);
    m.mutate({ translation: read.translation, translation_name: read.language });
  }

  return (
    <Dialog title={adding ? 'Add translation' : 'Edit translation'} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <Field
          label="Language"
          value={language}
          placeholder="e.g. Deutsch"
          error={error?.field === 'language' ? error.message : null}
          onChange={(e) => {
            setLanguage(e.target.value);
            setError(null);
          }}
        />
        <p className="muted">A name left empty shows in English.</p>
        <div className="translation-fields">
          {names.map((n) => (
            <div key={n.name} className={`translation-${n.kind}`}>
              <Field
                label={n.name}
                value={fields[n.name] ?? ''}
                onChange={(e) => {
                  setFields({ ...fields, [n.name]: e.target.value });
                  setError(null);
                }}
              />
            </div>
          ))}
        </div>
        <FormError message={error?.field === 'names' ? error.message : null} />
        <DialogActions onCancel={onClose} pending={m.isPending} />
      </form>
    </Dialog>
  );
}
