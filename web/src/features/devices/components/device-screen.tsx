import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link, useParams } from 'react-router';

import type { DeviceCommand, DeviceDetails, DeviceTask, EnrolmentCode } from '@/api/generated';
import { useDeviceStream } from '@/api/use-device-stream';
import { CHANNELS, type Channel, setUpdateChannel } from '@/api/update-channel';
import { RecentCycles } from '@/components/cycles/recent-cycles';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { EmptyState } from '@/components/ui/empty-state';
import { QueryStatus } from '@/components/ui/query-status';
import { ScreenHeader } from '@/components/ui/screen-header';
import { StreamBadge } from '@/components/ui/stream-badge';
import { DATA_CREATED, DATA_UPDATED } from '@/config/messages';
import { paths } from '@/config/paths';
import { ApiError } from '@/lib/api-client';
import { can } from '@/lib/access/roles';
import { cameraState } from '@/lib/camera-state';
import { formatDateTime } from '@/lib/format';
import { useSession } from '@/lib/session';
import { notify } from '@/lib/toast';

import { deviceQuery, deviceTasksQuery, newEnrolmentCode, putDevice, revokeDevice, stopTask } from '../api/devices';
import { AnalyticsSwitch } from './analytics-switch';
import { CameraEvents, UnsureNotices, certainty } from './camera-drift';
import { OnlineBadge } from './device-bits';
import { EnrolmentCodePanel } from './enrolment-code-panel';
import { ScheduleEditor } from './schedule-editor';
import { StartTaskForm } from './start-task-form';

/** The device id in the address, else null (not a positive integer). */
function idParam(v: string | undefined): number | null {
  const n = Number(v);
  return v !== undefined && /^\d+$/.test(v) && Number.isSafeInteger(n) && n > 0 ? n : null;
}

/**
 * `/user/devices/{id}` (Device, gated by the 'Devices' subscription): one device, its
 * status live through the device stream (and asked again every 5 s): name, serial number, online or offline with when it
 * was last seen, the agent's version, whether it sends its analytics to the cloud now or keeps them
 * on the device (a switch: `analytics-switch.tsx`), and each camera's state (running or starting, with
 * a warning about its source if any, or failed with why, since when and when the agent
 * tries again), frame rate, model and how sure the model is of what the camera sees
 * (the share of unsure frames, the brightness) from its last status message; while a
 * camera's model is unsure, a warning saying since when, with the figures now and when
 * it was sure, and the record of such events (`camera-drift.tsx`) (a start the device refused says why among the camera tasks); what keeps it from working that the cloud knows (`notice`: the demo station
 * whose agent could not start, with the fix); what its cameras are set to run, each with Stop, and a form starting a task
 * on a camera (a 400's messages next to the fields); its weekly schedules (the grid and
 * the list, added, changed and deleted there: `schedule-editor.tsx`); its latest cycles (cycle time, steps
 * as a coloured bar, good or bad and why); the commands last sent and how the
 * device acknowledged them. Roles holding `ManageDevices` also get a new enrolment code
 * (to enrol it again) and revoke its credentials (after a confirmation). An unknown
 * device (404) shows the not-found state.
 */
export default function DeviceScreen() {
  const id = idParam(useParams().id);
  const q = useQuery({ ...deviceQuery(id ?? 0), enabled: id !== null });
  const notFound = id === null || (q.error instanceof ApiError && q.error.status === 404);

  if (notFound) {
    return (
      <section>
        <h1>Device</h1>
        <EmptyState title="Device not found.">
          <p>
            It does not exist or is not your organisation's. <Link to={paths.user.devices}>See the devices</Link>.
          </p>
        </EmptyState>
      </section>
    );
  }
  if (!q.data) {
    return (
      <section>
        <h1>Device</h1>
        <QueryStatus pending={q.isPending} error={q.error} what="Device" />
      </section>
    );
  }
  return <DeviceView device={q.data} />;
}

function DeviceView({ device }: { device: DeviceDetails }) {
  const s = useSession();
  const manage = s.role !== null && can(s.role, 'ManageDevices');
  const operate = s.role !== null && can(s.role, 'OperateDevices');
  const tasks = useQuery(deviceTasksQuery());
  const stream = useDeviceStream(s.organization, [device.id]);
  const agentVersion = device.status?.agent_version || null;
  const cameras = device.status?.cameras ?? [];
  const taskName = (id: number | null) =>
    id === null ? '—' : (device.tasks.find((t) => t.task === id)?.task_name ?? tasks.data?.find((t) => t.id === id)?.taskName ?? `Task ${id}`);

  return (
    <section>
      <ScreenHeader title={device.display_name}>
        <StreamBadge state={stream} />
        <Link to={paths.user.devices}>All devices</Link>
      </ScreenHeader>
      {device.notice ? (
        <p role="status" className="warning">
          {device.notice}
        </p>
      ) : null}
      <UnsureNotices device={device} />
      <dl className="facts">
        <dt>Serial number</dt>
        <dd>{device.Serial_number || '—'}</dd>
        <dt>Status</dt>
        <dd>
          <OnlineBadge online={device.online} />{' '}
          <span className="muted">{device.last_seen !== null ? `last seen ${formatDateTime(device.last_seen)}` : 'never seen'}</span>
        </dd>
        <dt>Enrolled</dt>
        <dd>{device.enrolled ? 'Enrolled' : 'Not enrolled'}</dd>
        <dt>Agent version</dt>
        <dd>{agentVersion ?? '—'}</dd>
        <dt>Update channel</dt>
        <dd>{manage ? <ChannelSelect device={device} /> : device.update_channel}</dd>
        <dt>Analytics</dt>
        <dd>
          <AnalyticsSwitch device={device} operate={operate} />
        </dd>
      </dl>

      <Part title="Cameras">
        {cameras.length === 0 ? (
          <p className="muted">The device has reported no cameras.</p>
        ) : (
          <table className="data-table" aria-label="Cameras">
            <thead>
              <tr>
                <th scope="col">Camera</th>
                <th scope="col">Task</th>
                <th scope="col">State</th>
                <th scope="col">Frames per second</th>
                <th scope="col">Model version</th>
                <th scope="col">Model certainty</th>
              </tr>
            </thead>
            <tbody>
              {cameras.map((c) => (
                <tr key={c.camera}>
                  <td>{c.camera}</td>
                  <td>{taskName(c.task)}</td>
                  <td>{cameraState(c, device)}</td>
                  <td>{c.fps.toFixed(1)}</td>
                  <td>{c.model_version ?? '—'}</td>
                  <td>{certainty(c)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Part>

      <Part title="Camera events">
        <CameraEvents events={device.camera_events} />
      </Part>

      <Part title="Camera tasks">
        <CameraTaskTable device={device} operate={operate} />
        {operate ? <StartTaskForm device={device.id} tasks={tasks.data} tasksError={tasks.error} /> : null}
      </Part>

      <Part title="Schedules">
        <ScheduleEditor device={device} operate={operate} tasks={tasks.data} />
      </Part>

      <Part title="Latest cycles">
        <RecentCycles cycles={device.recent_cycles} taskSteps={device.task_steps} taskName={taskName} />
      </Part>

      <Part title="Recent commands">
        <CommandTable commands={device.commands} taskName={taskName} />
      </Part>

      {manage ? <Credentials device={device} /> : null}
    </section>
  );
}

/** A titled part of the page (a region named by its heading). */
function Part({ title, children }: { title: string; children: React.ReactNode }) {
  const id = useId();
  return (
    <section className="section" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

function CameraTaskTable({ device, operate }: { device: DeviceDetails; operate: boolean }) {
  if (device.tasks.length === 0) return <p className="muted">No camera is set to run a task.</p>;
  return (
    <table className="data-table" aria-label="Camera tasks">
      <thead>
        <tr>
          <th scope="col">Camera</th>
          <th scope="col">Task</th>
          <th scope="col">State</th>
          {operate ? <th scope="col">Actions</th> : null}
        </tr>
      </thead>
      <tbody>
        {device.tasks.map((t) => (
          <tr key={t.camera}>
            <td>{t.camera}</td>
            <td>{t.task_name}</td>
            <td>{taskState(t)}</td>
            {operate ? <td className="actions">{t.running ? <StopButton device={device.id} camera={t.camera} /> : null}</td> : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** What a camera is set to do, or why the device refused it. */
function taskState(t: DeviceTask): string {
  if (t.refused != null) {
    const at = t.refused_at != null ? ` (${formatDateTime(t.refused_at)})` : '';
    return `Refused${at}: ${t.refused}`;
  }
  return t.running ? 'Running' : 'Stopped';
}

function StopButton({ device, camera }: { device: number; camera: string }) {
  const qc = useQueryClient();
  const m = useMutation({
    mutationFn: () => stopTask(device, { camera }),
    onSuccess: async (d) => {
      notify.successShort(DATA_UPDATED);
      await putDevice(qc, d);
    },
    onError: (err) => notify.failure(err, 'post'),
  });
  return (
    <button type="button" className="small danger" aria-label={`Stop ${camera}`} disabled={m.isPending} onClick={() => m.mutate()}>
      Stop
    </button>
  );
}

/** How the device acknowledged a command. */
function acknowledgement(c: DeviceCommand): string {
  if (c.ok === null) return 'Waiting';
  const at = c.acked_at !== null ? ` (${formatDateTime(c.acked_at)})` : '';
  return c.ok ? `OK${at}` : `Failed${at}${c.message ? `: ${c.message}` : ''}`;
}

function CommandTable({ commands, taskName }: { commands: readonly DeviceCommand[]; taskName: (id: number | null) => string }) {
  if (commands.length === 0) return <p className="muted">No command sent yet.</p>;
  return (
    <table className="data-table" aria-label="Recent commands">
      <thead>
        <tr>
          <th scope="col">Type</th>
          <th scope="col">Camera</th>
          <th scope="col">Task</th>
          <th scope="col">Sent</th>
          <th scope="col">Acknowledged</th>
        </tr>
      </thead>
      <tbody>
        {commands.map((c) => (
          <tr key={c.id}>
            <td>{c.command.type}</td>
            <td>{'camera' in c.command ? c.command.camera : '—'}</td>
            <td>{c.command.type === 'start_task' ? taskName(c.command.task) : '—'}</td>
            <td>{formatDateTime(c.created_at)}</td>
            <td>{acknowledgement(c)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A new enrolment code (to enrol the device again) and revoking its credentials. */
function Credentials({ device }: { device: DeviceDetails }) {
  const qc = useQueryClient();
  const [code, setCode] = useState<EnrolmentCode | null>(null);
  const [confirming, setConfirming] = useState(false);
  const issue = useMutation({
    mutationFn: () => newEnrolmentCode(device.id),
    onSuccess: async (c) => {
      notify.successShort(DATA_CREATED);
      setCode(c);
      await putDevice(qc, c.device);
    },
    onError: (err) => notify.failure(err, 'post'),
  });
  const revoke = useMutation({
    mutationFn: () => revokeDevice(device.id),
    onSuccess: async (d) => {
      notify.successShort(DATA_UPDATED);
      setConfirming(false);
      await putDevice(qc, d);
    },
    onError: (err) => {
      notify.failure(err, 'post');
      setConfirming(false);
    },
  });
  return (
    <Part title="Credentials">
      <p className="muted">
        A new code enrols the device again (on a new computer); its current credentials keep working until the code is
        used. Revoking ends them at once: the cloud refuses the device's messages until it is enrolled again.
      </p>
      <div className="toolbar">
        <button type="button" className="secondary" disabled={issue.isPending} onClick={() => issue.mutate()}>
          New enrolment code
        </button>
        <button type="button" className="danger" disabled={!device.enrolled} onClick={() => setConfirming(true)}>
          Revoke credentials
        </button>
      </div>
      {code ? <EnrolmentCodePanel enrolment={code} /> : null}
      {confirming ? (
        <ConfirmDialog
          title="Revoke credentials"
          confirmLabel="Revoke"
          busy={revoke.isPending}
          onConfirm={() => revoke.mutate()}
          onCancel={() => setConfirming(false)}
        >
          <p>
            Revoke the credentials of <strong>{device.display_name}</strong>? The cloud refuses its messages until it is
            enrolled again with a new code.
          </p>
        </ConfirmDialog>
      ) : null}
    </Part>
  );
}

/** The release environment the device's agent follows, changed at once (issue 30). */
function ChannelSelect({ device }: { device: DeviceDetails }) {
  const qc = useQueryClient();
  const m = useMutation({
    mutationFn: (to: Channel) => setUpdateChannel(device.id, to),
    onSuccess: async (d) => {
      notify.successShort(DATA_UPDATED);
      await putDevice(qc, d);
    },
    onError: (err) => notify.failure(err, 'post'),
  });
  return (
    <select
      aria-label="Update channel"
      value={device.update_channel}
      disabled={m.isPending}
      onChange={(e) => m.mutate(e.target.value as Channel)}
    >
      {CHANNELS.map((c) => (
        <option key={c} value={c}>
          {c}
        </option>
      ))}
    </select>
  );
}
