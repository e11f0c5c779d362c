import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';

import { canTakeWork, orgDevicesQuery } from '@/api/training';
import { videosKey } from '@/api/videos';
import { Field, FormError, SelectField } from '@/components/ui/field';
import { RECORD_SECONDS_MAX, RECORD_SECONDS_MIN } from '@/config/constants';
import { formErrors } from '@/lib/api-errors';
import { notify } from '@/lib/toast';
import { wholeNumber } from '@/lib/validate';

import { recordOnDevice } from '../api/recording';

/** The message for seconds out of range (the server's words too). */
export const SECONDS_RANGE = `Record between ${RECORD_SECONDS_MIN} and ${RECORD_SECONDS_MAX} seconds.`;

/** Seconds as typed, or the message saying what is wrong. */
export function readSeconds(value: string): { ok: true; value: number } | { ok: false; message: string } {
  const n = wholeNumber(value, RECORD_SECONDS_MIN, RECORD_SECONDS_MAX);
  return n === null ? { ok: false, message: SECONDS_RANGE } : { ok: true, value: n };
}

/**
 * Record on a device: an online device of the organisation records one of its cameras
 * for some seconds (while the camera runs its task, or on its own) and uploads it; the
 * video shows in the list as recording until it arrives (or failed, with the device's
 * words).
 */
export function DeviceRecorder({ task, org }: { task: number; org: number }) {
  const qc = useQueryClient();
  const devices = useQuery(orgDevicesQuery(org));
  const [device, setDevice] = useState('');
  const [camera, setCamera] = useState('');
  const [seconds, setSeconds] = useState('30');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const chosen = devices.data?.find((d) => String(d.id) === device);
  const cameras = chosen?.status?.cameras ?? [];

  const send = useMutation({
    mutationFn: (s: number) => recordOnDevice(task, { device: Number(device), camera, seconds: s }),
    onSuccess: async (v) => {
      setErrors({});
      notify.successShort(`${chosen?.display_name ?? 'The device'} is recording ${v.file_name}.`);
      await qc.invalidateQueries({ queryKey: videosKey });
    },
    onError: (err) => setErrors(formErrors(err)),
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (send.isPending) return;
    const s = readSeconds(seconds);
    const next: Record<string, string> = {};
    if (!chosen) next.device = 'Choose a device.';
    else if (!cameras.some((c) => c.camera === camera)) next.camera = 'Choose one of the device\'s cameras.';
    if (!s.ok) next.seconds = s.message;
    setErrors(next);
    if (Object.keys(next).length > 0 || !s.ok) return;
    send.mutate(s.value);
  };

  return (
    <form aria-label="Record on a device" onSubmit={submit} className="upload-panel" noValidate>
      <h2>Record on a device</h2>
      <SelectField
        label="Device"
        value={device}
        error={errors.device}
        disabled={send.isPending}
        onChange={(e) => {
          setDevice(e.target.value);
          const d = devices.data?.find((x) => String(x.id) === e.target.value);
          setCamera(d?.status?.cameras[0]?.camera ?? '');
        }}
      >
        <option value="">{devices.isPending ? 'Loading devices…' : 'Choose a device'}</option>
        {(devices.data ?? []).map((d) => (
          <option key={d.id} value={d.id} disabled={!canTakeWork(d)}>
            {d.display_name}
            {canTakeWork(d) ? '' : ' (offline)'}
          </option>
        ))}
      </SelectField>
      <SelectField
        label="Camera"
        value={camera}
        error={errors.camera}
        disabled={send.isPending || cameras.length === 0}
        onChange={(e) => setCamera(e.target.value)}
      >
        {cameras.length === 0 ? <option value="">—</option> : null}
        {cameras.map((c) => {
          // The task's name from what the device is set to run, else its id.
          const task = c.task === null ? null : (chosen?.tasks.find((t) => t.camera === c.camera && t.task === c.task)?.task_name ?? `#${c.task}`);
          return (
            <option key={c.camera} value={c.camera}>
              {c.camera}
              {task !== null ? ` (runs ${task})` : ''}
            </option>
          );
        })}
      </SelectField>
      <Field
        label="Seconds"
        type="number"
        inputMode="numeric"
        min={RECORD_SECONDS_MIN}
        max={RECORD_SECONDS_MAX}
        value={seconds}
        error={errors.seconds}
        disabled={send.isPending}
        onChange={(e) => setSeconds(e.target.value)}
      />
      <FormError message={errors.non_field_errors} />
      <button type="submit" disabled={send.isPending}>
        {send.isPending ? 'Asking…' : 'Record on device'}
      </button>
    </form>
  );
}
