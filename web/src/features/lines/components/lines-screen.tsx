import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';

import type { Line, Station } from '@/api/generated';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DataTable } from '@/components/ui/data-table';
import { Dialog, DialogActions } from '@/components/ui/dialog';
import { EmptyState } from '@/components/ui/empty-state';
import { Field, FormError } from '@/components/ui/field';
import { ScreenHeader } from '@/components/ui/screen-header';
import { paths } from '@/config/paths';
import { DATA_CREATED, DATA_DELETED, DATA_UPDATED } from '@/config/messages';
import { formErrors } from '@/lib/api-errors';
import { useSession } from '@/lib/session';
import { notify } from '@/lib/toast';

import { createLine, deleteLine, deviceChoicesQuery, linesKey, linesQuery, patchLine, stationText, taskChoicesQuery } from '../api/lines';
import { BODY_LIMITS } from '@/lib/validate';

/**
 * `/user/line` (Line): the organisation's production lines, each its stations in the
 * order a part passes them (an operation on a device) and a takt time; a line is
 * created, changed (stations added, removed, moved) and deleted here, and opens on Line
 * Analytics.
 */
export default function LinesScreen() {
  const qc = useQueryClient();
  const q = useQuery(linesQuery());
  const [editing, setEditing] = useState<Line | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Line | null>(null);
  const remove = useMutation({
    mutationFn: (id: number) => deleteLine(id),
    onSuccess: async () => {
      notify.successShort(DATA_DELETED);
      setDeleting(null);
      await qc.invalidateQueries({ queryKey: linesKey });
    },
    onError: (err) => notify.failure(err, 'delete'),
  });
  return (
    <section>
      <ScreenHeader title="Line" />
      <div className="toolbar">
        <button type="button" onClick={() => setEditing('new')}>
          Create Line
        </button>
      </div>
      <DataTable
        label="Lines"
        query={{ isPending: q.isPending, error: q.error, data: q.data }}
        empty={<EmptyState title="No lines yet: create one from the stations a part passes." />}
        columns={['Line', 'Stations', 'Takt time', 'Actions']}
        row={(l) => (
          <tr key={l.id}>
            <td>
              <Link to={`${paths.user.lineAnalytics}?line=${l.id}`}>{l.name}</Link>
            </td>
            <td>
              <ol className="stations">
                {l.stations.map((s, i) => (
                  <li key={i}>{stationText(s)}</li>
                ))}
              </ol>
            </td>
            <td>{l.takt_time_s === null ? '—' : `${l.takt_time_s} s`}</td>
            <td className="actions">
              <button type="button" className="secondary" onClick={() => setEditing(l)} aria-label={`Edit ${l.name}`}>
                Edit
              </button>{' '}
              <button type="button" className="danger" onClick={() => setDeleting(l)} aria-label={`Delete ${l.name}`}>
                Delete
              </button>
            </td>
          </tr>
        )}
      />
      {editing ? <LineDialog line={editing === 'new' ? null : editing} onClose={() => setEditing(null)} /> : null}
      {deleting ? (
        <ConfirmDialog
          title={`Delete ${deleting.name}?`}
          confirmLabel="Delete"
          busy={remove.isPending}
          onConfirm={() => remove.mutate(deleting.id)}
          onCancel={() => setDeleting(null)}
        >
          The line goes; its stations' cycles stay.
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

/** Create a line, or change one: its name, takt time and stations in order. */
function LineDialog({ line, onClose }: { line: Line | null; onClose: () => void }) {
  const qc = useQueryClient();
  const org = useSession().organization;
  const tasks = useQuery(taskChoicesQuery());
  const devices = useQuery({ ...deviceChoicesQuery(org ?? 0), enabled: org !== null });
  const [name, setName] = useState(line?.name ?? '');
  const [takt, setTakt] = useState(line?.takt_time_s === null || line === null ? '' : String(line.takt_time_s));
  const [stations, setStations] = useState<Station[]>(line?.stations.map((s) => ({ task: s.task, device: s.device })) ?? []);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const m = useMutation({
    mutationFn: () => {
      const body = { name: name.trim(), takt_time_s: takt.trim() === '' ? 0 : Number(takt), stations };
      return line ? patchLine(line.id, body) : createLine(body);
    },
    onSuccess: async () => {
      notify.successShort(line ? DATA_UPDATED : DATA_CREATED);
      onClose();
      await qc.invalidateQueries({ queryKey: linesKey });
    },
    onError: (err) => setErrors(formErrors(err)),
  });
  const firstTask = tasks.data?.[0]?.id;
  const firstDevice = devices.data?.[0]?.id;
  const move = (i: number, by: number) =>
    setStations((s) => {
      const n = [...s];
      const [x] = n.splice(i, 1);
      n.splice(i + by, 0, x!);
      return n;
    });
  const set = (i: number, change: Partial<Station>) => setStations((s) => s.map((x, k) => (k === i ? { ...x, ...change } : x)));

  function submit(e: React.FormEvent) {
    e.preventDefault();
    if (m.isPending) return;
    const problems: Record<string, string> = {};
    if (name.trim() === '') problems.name = 'Name the line in 1 to 100 characters.';
    const t = takt.trim() === '' ? 0 : Number(takt);
    if (!Number.isFinite(t) || t < 0 || t > 86400) problems.takt_time_s = 'The takt time is in seconds, from 0 (none) to 86400.';
    if (stations.length === 0) problems.stations = 'A line has 1 to 20 stations.';
    setErrors(problems);
    if (Object.keys(problems).length === 0) m.mutate();
  }

  return (
    <Dialog title={line ? `Edit ${line.name}` : 'Create Line'} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <Field label="Line name" value={name} maxLength={BODY_LIMITS.LineBody.name} error={errors.name} onChange={(e) => setName(e.target.value)} />
        <Field label="Takt time (s)" inputMode="decimal" value={takt} error={errors.takt_time_s} onChange={(e) => setTakt(e.target.value)} />
        <fieldset>
          <legend>Stations, in the order a part passes them</legend>
          <ol className="station-editor">
            {stations.map((s, i) => (
              <li key={i}>
                <select aria-label={`Station ${i + 1} operation`} value={s.task} onChange={(e) => set(i, { task: Number(e.target.value) })}>
                  {(tasks.data ?? []).map((t) => (
                    <option key={t.id} value={t.id}>
                      {t.taskName}
                    </option>
                  ))}
                </select>{' '}
                on{' '}
                <select aria-label={`Station ${i + 1} device`} value={s.device} onChange={(e) => set(i, { device: Number(e.target.value) })}>
                  {(devices.data ?? []).map((d) => (
                    <option key={d.id} value={d.id}>
                      {d.display_name}
                    </option>
                  ))}
                </select>{' '}
                <button type="button" className="secondary" disabled={i === 0} onClick={() => move(i, -1)} aria-label={`Move station ${i + 1} up`}>
                  ↑
                </button>
                <button type="button" className="secondary" disabled={i === stations.length - 1} onClick={() => move(i, 1)} aria-label={`Move station ${i + 1} down`}>
                  ↓
                </button>
                <button type="button" className="secondary" onClick={() => setStations((x) => x.filter((_, k) => k !== i))} aria-label={`Remove station ${i + 1}`}>
                  Remove
                </button>
              </li>
            ))}
          </ol>
          <button
            type="button"
            className="secondary"
            disabled={firstTask === undefined || firstDevice === undefined || stations.length >= 20}
            onClick={() => setStations((x) => [...x, { task: firstTask!, device: firstDevice! }])}
          >
            Add station
          </button>
          {firstTask === undefined || firstDevice === undefined ? (
            <p className="muted">A station needs an operation and a device: define them first.</p>
          ) : null}
          <FormError message={errors.stations} />
        </fieldset>
        <FormError message={errors.non_field_errors} />
        <DialogActions onCancel={onClose} submitLabel={line ? 'Save' : 'Create'} pending={m.isPending} />
      </form>
    </Dialog>
  );
}
