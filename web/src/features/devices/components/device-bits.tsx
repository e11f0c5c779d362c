import type { DeviceTask } from '@/api/generated';

/** Online or Offline, as the device last said (its last will says offline). */
export function OnlineBadge({ online }: { online: boolean }) {
  return <span className={`badge ${online ? 'status-online' : 'status-offline'}`}>{online ? 'Online' : 'Offline'}</span>;
}

/** What a device's cameras are set to run: "cam0: Assemble pump (running)", one a line. */
export function CameraTasks({ tasks }: { tasks: readonly DeviceTask[] }) {
  if (tasks.length === 0) return <span className="muted">Nothing</span>;
  return (
    <ul className="plain-list">
      {tasks.map((t) => (
        <li key={t.camera}>
          {t.camera}: {t.task_name} ({t.running ? 'running' : 'stopped'})
        </li>
      ))}
    </ul>
  );
}
