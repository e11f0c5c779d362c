import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import type { DeviceDetails, DeviceSchedule, Task } from '@/api/generated';
import { allOrganizationsQuery } from '@/api/organizations';
import { remoteCamsQuery } from '@/api/remote-cams';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { QueryStatus } from '@/components/ui/query-status';
import { DATA_DELETED } from '@/config/messages';
import { notify } from '@/lib/toast';

import { deviceKey } from '../api/devices';
import { deleteSchedule, schedulesKey, schedulesQuery } from '../api/schedules';
import { daysText } from '../schedules';
import { ScheduleDialog } from './schedule-dialog';
import { ScheduleGrid, blockName } from './schedule-grid';

/** How a schedule is named in the list's buttons: "cam0 Mon, Tue 06:00–14:00". */
const scheduleName = (s: DeviceSchedule) => `${s.camera} ${daysText(s.days)} ${s.start}–${s.end}`;

/**
 * A device's schedules: the week as a grid and as a list, in the organisation's time
 * zone (said above them). `operate` roles add schedules, change one (from its block or
 * its row) and delete one (confirmed). The cameras to choose from are the device's
 * (its status's) and its remote cameras.
 */
export function ScheduleEditor({ device, operate, tasks }: { device: DeviceDetails; operate: boolean; tasks: readonly Task[] | undefined }) {
  const qc = useQueryClient();
  const q = useQuery(schedulesQuery(device.id));
  const remote = useQuery(remoteCamsQuery(device.id));
  const orgs = useQuery(allOrganizationsQuery());
  const [editing, setEditing] = useState<DeviceSchedule | 'new' | null>(null);
  const [deleting, setDeleting] = useState<DeviceSchedule | null>(null);
  const timeZone = orgs.data?.find((o) => o.id === device.organization)?.time_zone ?? q.data?.[0]?.time_zone ?? null;
  const cameras = [...new Set([...(device.status?.cameras ?? []).map((c) => c.camera), ...(remote.data ?? []).map((c) => c.name)])];
  const remove = useMutation({
    mutationFn: (s: DeviceSchedule) => deleteSchedule(s.id),
    onSuccess: async () => {
      notify.successShort(DATA_DELETED);
      setDeleting(null);
      await Promise.all([qc.invalidateQueries({ queryKey: schedulesKey(device.id) }), qc.invalidateQueries({ queryKey: deviceKey(device.id) })]);
    },
    onError: (err) => {
      notify.failure(err, 'delete');
      setDeleting(null);
    },
  });

  return (
    <>
      <p className="muted">
        The device starts each task at its start time and stops it at its end, on its own clock, online or not. Times are in
        the organisation's time zone{timeZone ? <strong>: {timeZone}</strong> : null}.
      </p>
      {operate ? (
        <div className="toolbar">
          <button type="button" className="secondary" onClick={() => setEditing('new')}>
            Add a schedule
          </button>
        </div>
      ) : null}
      {!q.data ? (
        <QueryStatus pending={q.isPending} error={q.error} what="Schedules" />
      ) : (
        <>
          <ScheduleGrid schedules={q.data} cameras={cameras} {...(operate ? { onOpen: setEditing } : {})} />
          {q.data.length === 0 ? (
            <p className="muted">No schedules: the device's cameras run only what is started on them.</p>
          ) : (
            <ScheduleTable schedules={q.data} operate={operate} onEdit={setEditing} onDelete={setDeleting} />
          )}
        </>
      )}
      {editing ? (
        <ScheduleDialog
          device={device.id}
          schedule={editing === 'new' ? null : editing}
          cameras={cameras}
          tasks={tasks}
          timeZone={timeZone}
          onClose={() => setEditing(null)}
        />
      ) : null}
      {deleting ? (
        <ConfirmDialog
          title="Delete the schedule?"
          confirmLabel="Delete"
          busy={remove.isPending}
          onConfirm={() => remove.mutate(deleting)}
          onCancel={() => setDeleting(null)}
        >
          <p>
            {deleting.camera} stops running {deleting.task_name || `task ${deleting.task}`} on {daysText(deleting.days)} from{' '}
            {deleting.start} to {deleting.end}.
          </p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}

function ScheduleTable({
  schedules,
  operate,
  onEdit,
  onDelete,
}: {
  schedules: readonly DeviceSchedule[];
  operate: boolean;
  onEdit: (s: DeviceSchedule) => void;
  onDelete: (s: DeviceSchedule) => void;
}) {
  return (
    <table className="data-table" aria-label="Schedules">
      <thead>
        <tr>
          <th scope="col">Camera</th>
          <th scope="col">Task</th>
          <th scope="col">Weekdays</th>
          <th scope="col">Time</th>
          {operate ? <th scope="col">Actions</th> : null}
        </tr>
      </thead>
      <tbody>
        {schedules.map((s) => (
          <tr key={s.id} title={blockName(s)}>
            <td>{s.camera}</td>
            <td>{s.task_name || `Task ${s.task} (deleted)`}</td>
            <td>{daysText(s.days)}</td>
            <td>
              {s.start}–{s.end}
            </td>
            {operate ? (
              <td className="actions">
                <button type="button" className="secondary small" aria-label={`Edit ${scheduleName(s)}`} onClick={() => onEdit(s)}>
                  Edit
                </button>
                <button type="button" className="danger small" aria-label={`Delete ${scheduleName(s)}`} onClick={() => onDelete(s)}>
                  Delete
                </button>
              </td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
