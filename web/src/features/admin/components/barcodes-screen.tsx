import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router';

import type { Barcode } from '@/api/generated';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DataTable } from '@/components/ui/data-table';
import { Dialog } from '@/components/ui/dialog';
import { EmptyState } from '@/components/ui/empty-state';
import { Field, FormError, SelectField } from '@/components/ui/field';
import { OrganizationSelect } from '@/components/ui/organization-select';
import {
  BARCODE_ADDED,
  BARCODE_ADD_FAILED,
  BARCODE_DELETED,
  BARCODE_DELETE_FAILED,
  BARCODE_REMOVE_FAILED,
  DATA_UPDATED,
} from '@/config/messages';
import { errorMessage, fieldErrors } from '@/lib/api-errors';
import { notify } from '@/lib/toast';

import {
  associateBarcode,
  barcodesKey,
  barcodesQuery,
  createCustomBarcode,
  deleteBarcode,
  generateBarcode,
  orgTasksQuery,
  removeAssociation,
  updateBarcodeValue,
} from '../api/barcodes';

/** The server's longest value (`MAX_BARCODE_CHARS`). */
export const MAX_BARCODE_CHARS = 100;

/** What is wrong with a barcode value, or null: 1 to 100 characters, none a control character. */
export function valueProblem(value: string): string | null {
  const v = value.trim();
  if (v === '') return 'Barcode value is required!';
  if ([...v].length > MAX_BARCODE_CHARS) return `Barcode value must be at most ${MAX_BARCODE_CHARS} characters.`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(v)) return 'A barcode value cannot contain control characters (line breaks, tabs).';
  return null;
}

/**
 * `/admin/barcode` (super admin): an organisation's barcodes (chosen in the address,
 * `?organization=ID`), each with the operation it starts when a camera reads it. Adding
 * one with a typed value or a value the server makes up, changing a value in place,
 * deleting one (confirmed), associating one with an operation (found by name) and
 * removing that association. Success and failure toasts are the spec's: 'Barcode added
 * successfully' / 'Unable to add barcode' (adding, associating), 'Barcode deleted
 * successfully' / 'Unable to delete barcode', 'Error in Removing Barcode'; the server's
 * reason shows under a failure's title.
 */
export default function BarcodesScreen() {
  const [params, setParams] = useSearchParams();
  const org = Number(params.get('organization')) || null;
  return (
    <section>
      <div className="screen-header">
        <h1>Barcode</h1>
      </div>
      <OrganizationSelect value={org} none="Choose an organization…" onChange={(o) => setParams(o !== null ? { organization: String(o) } : {})} />
      {org === null ? <EmptyState title="Choose an organization to see its barcodes." /> : <OrgBarcodes key={org} org={org} />}
    </section>
  );
}

function OrgBarcodes({ org }: { org: number }) {
  const qc = useQueryClient();
  const q = useQuery(barcodesQuery(org));
  const [value, setValue] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [editing, setEditing] = useState<{ id: number; value: string; problem: string | null } | null>(null);
  const [deleting, setDeleting] = useState<Barcode | null>(null);
  const [associating, setAssociating] = useState<Barcode | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: barcodesKey });
  const added = async () => {
    notify.successShort(BARCODE_ADDED);
    await refresh();
  };
  const create = useMutation({
    mutationFn: (v: string) => createCustomBarcode(org, v),
    onSuccess: async () => {
      setValue('');
      await added();
    },
    onError: (err) => {
      setProblem(fieldErrors(err).barcode_value ?? null);
      notify.failure(err, 'post', BARCODE_ADD_FAILED);
    },
  });
  const generate = useMutation({
    mutationFn: () => generateBarcode(org),
    onSuccess: added,
    onError: (err) => notify.failure(err, 'post', BARCODE_ADD_FAILED),
  });
  const save = useMutation({
    mutationFn: (e: { id: number; value: string }) => updateBarcodeValue(e.id, e.value),
    onSuccess: async () => {
      notify.successShort(DATA_UPDATED);
      setEditing(null);
      await refresh();
    },
    onError: (err) => {
      const message = fieldErrors(err).barcode_value ?? errorMessage(err, 'post');
      setEditing((e) => (e ? { ...e, problem: message } : e));
    },
  });
  const remove = useMutation({
    mutationFn: (b: Barcode) => deleteBarcode(b.id),
    onSuccess: async () => {
      notify.successShort(BARCODE_DELETED);
      setDeleting(null);
      await refresh();
    },
    onError: (err) => notify.failure(err, 'delete', BARCODE_DELETE_FAILED),
  });
  const unlink = useMutation({
    mutationFn: (association: number) => removeAssociation(association),
    onSuccess: async (m) => {
      notify.successShort(m.msg);
      await refresh();
    },
    onError: (err) => notify.failure(err, 'delete', BARCODE_REMOVE_FAILED),
  });

  return (
    <>
      <form
        aria-label="Add barcode"
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          const p = valueProblem(value);
          setProblem(p);
          if (p === null) create.mutate(value.trim());
        }}
      >
        <Field label="Barcode value" value={value} maxLength={MAX_BARCODE_CHARS} error={problem} onChange={(e) => setValue(e.target.value)} />
        <button type="submit" disabled={create.isPending}>
          Add
        </button>{' '}
        <button type="button" className="secondary" disabled={generate.isPending} onClick={() => generate.mutate()}>
          Generate a barcode
        </button>
      </form>
      <DataTable
        label="Barcodes"
        query={{ isPending: q.isPending, error: q.error, data: q.data }}
        empty={<EmptyState title="No barcodes yet." />}
        columns={['Barcode', 'Operation', 'Actions']}
        row={(b) => {
          const link = b.tasks[0];
          if (editing?.id === b.id) {
            const submit = () => {
              const p = valueProblem(editing.value);
              if (p !== null) setEditing({ ...editing, problem: p });
              else save.mutate({ id: b.id, value: editing.value.trim() });
            };
            return (
              <tr key={b.id}>
                <td>
                  <input
                    aria-label={`Value of ${b.barcode_value}`}
                    aria-invalid={editing.problem !== null ? true : undefined}
                    maxLength={MAX_BARCODE_CHARS}
                    value={editing.value}
                    onChange={(e) => setEditing({ ...editing, value: e.target.value })}
                    onKeyDown={(e) => {
                      if (e.key === 'Enter') submit();
                    }}
                  />
                  {editing.problem !== null ? (
                    <p className="field-error" role="alert">
                      {editing.problem}
                    </p>
                  ) : null}
                </td>
                <td>{link?.task_name ?? '—'}</td>
                <td className="actions">
                  <button type="button" disabled={save.isPending} aria-label={`Save ${b.barcode_value}`} onClick={submit}>
                    Save
                  </button>{' '}
                  <button type="button" className="secondary" onClick={() => setEditing(null)}>
                    Cancel
                  </button>
                </td>
              </tr>
            );
          }
          return (
            <tr key={b.id}>
              <td>
                <code>{b.barcode_value}</code>
              </td>
              <td>{link?.task_name ?? '—'}</td>
              <td className="actions">
                <button
                  type="button"
                  className="secondary"
                  aria-label={`Edit ${b.barcode_value}`}
                  onClick={() => {
                    save.reset();
                    setEditing({ id: b.id, value: b.barcode_value, problem: null });
                  }}
                >
                  Edit
                </button>{' '}
                {link ? (
                  <button
                    type="button"
                    className="secondary"
                    aria-label={`Remove ${b.barcode_value} from ${link.task_name}`}
                    disabled={unlink.isPending}
                    onClick={() => unlink.mutate(link.id)}
                  >
                    Remove from operation
                  </button>
                ) : (
                  <button type="button" className="secondary" aria-label={`Associate ${b.barcode_value}`} onClick={() => setAssociating(b)}>
                    Associate
                  </button>
                )}{' '}
                <button type="button" className="danger" aria-label={`Delete ${b.barcode_value}`} onClick={() => setDeleting(b)}>
                  Delete
                </button>
              </td>
            </tr>
          );
        }}
      />
      {deleting ? (
        <ConfirmDialog
          title="Delete barcode"
          confirmLabel="Delete"
          busy={remove.isPending}
          onConfirm={() => remove.mutate(deleting)}
          onCancel={() => setDeleting(null)}
        >
          Delete barcode {deleting.barcode_value}
          {deleting.tasks[0] ? `? It no longer starts ${deleting.tasks[0].task_name}.` : '?'}
        </ConfirmDialog>
      ) : null}
      {associating ? (
        <AssociateDialog
          org={org}
          barcode={associating}
          onDone={async () => {
            setAssociating(null);
            await added();
          }}
          onClose={() => setAssociating(null)}
        />
      ) : null}
    </>
  );
}

/** Choose the operation (found by name) a barcode starts. */
function AssociateDialog({ org, barcode, onDone, onClose }: { org: number; barcode: Barcode; onDone: () => Promise<void>; onClose: () => void }) {
  const [search, setSearch] = useState('');
  const [typed, setTyped] = useState('');
  const [task, setTask] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const tasks = useQuery(orgTasksQuery(org, search));
  const associate = useMutation({
    mutationFn: () => associateBarcode(Number(task), barcode.id),
    onSuccess: onDone,
    onError: (err) => {
      const f = fieldErrors(err);
      setProblem(f.barcode_id ?? f.task ?? errorMessage(err, 'post'));
      notify.failure(err, 'post', BARCODE_ADD_FAILED);
    },
  });
  return (
    <Dialog title={`Associate ${barcode.barcode_value}`} onClose={onClose}>
      <form
        aria-label="Find operation"
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setSearch(typed.trim());
          setTask('');
        }}
      >
        <Field label="Operation name" value={typed} onChange={(e) => setTyped(e.target.value)} />
        <button type="submit" className="secondary">
          Search
        </button>
      </form>
      <form
        aria-label="Associate barcode"
        onSubmit={(e) => {
          e.preventDefault();
          if (task === '') setProblem('Operation is required!');
          else {
            setProblem(null);
            associate.mutate();
          }
        }}
      >
        <SelectField label="Operation" value={task} onChange={(e) => setTask(e.target.value)}>
          <option value="">{tasks.isPending ? 'Loading…' : 'Choose an operation…'}</option>
          {(tasks.data?.results ?? []).map((t) => (
            <option key={t.id} value={t.id}>
              {t.taskName}
            </option>
          ))}
        </SelectField>
        {tasks.data && tasks.data.count > tasks.data.results.length ? <p className="hint">Showing the first {tasks.data.results.length} of {tasks.data.count}: search to narrow.</p> : null}
        <FormError message={problem} />
        <div className="actions">
          <button type="submit" disabled={associate.isPending}>
            Associate
          </button>{' '}
          <button type="button" className="secondary" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
