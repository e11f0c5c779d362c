import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';

import type { DeviceSchedule, Task } from '@/api/generated';
import { Dialog, DialogActions } from '@/components/ui/dialog';
import { FormError, SelectField } from '@/components/ui/field';
import { DATA_CREATED, DATA_UPDATED } from '@/config/messages';
import { formErrors } from '@/lib/api-errors';
import { notify } from '@/lib/toast';

import { deviceKey } from '../api/devices';
import { createSchedule, patchSchedule, schedulesKey } from '../api/schedules';
import {
  type ScheduleField,
  type ScheduleValues,
  WEEKDAYS,
  checkSchedule,
  createBody,
  initialValues,
  patchBody,
  timeChoices,
} from '../schedules';

type Errors = Partial<Record<ScheduleField | 'end' | 'form', string>>;
const FIELDS: readonly string[] = ['camera', 'task', 'days', 'start', 'end'];

/**
 * Add a schedule to a device, or change one (`schedule`): a camera of the device, one
 * of the organisation's tasks, weekdays, and a start and end time (quarter hours, the
 * end up to 24:00). A missing field or time range is refused before sending; the
 * server's refusals (an overlap with another schedule of the camera, on `days`) show
 * next to their fields, with the toast.
 */
export function ScheduleDialog({
  device,
  schedule,
  cameras,
  tasks,
  timeZone,
  onClose,
}: {
  device: number;
  schedule: DeviceSchedule | null;
  cameras: readonly string[];
  tasks: readonly Task[] | undefined;
  timeZone: string | null;
  onClose: () => void;
}) {
  const qc = useQueryClient();
  const daysId = useId();
  const [values, setValues] = useState<ScheduleValues>(() => initialValues(schedule, cameras[0] ?? ''));
  const [errors, setErrors] = useState<Errors>({});
  const change = schedule ? patchBody(schedule, values) : null;
  const cameraChoices = schedule && !cameras.includes(schedule.camera) ? [...cameras, schedule.camera] : cameras;

  const m = useMutation({
    mutationFn: () => (schedule ? patchSchedule(schedule.id, change ?? {}) : createSchedule(createBody(device, values))),
    onSuccess: async () => {
      notify.successShort(schedule ? DATA_UPDATED : DATA_CREATED);
      onClose();
      await Promise.all([qc.invalidateQueries({ queryKey: schedulesKey(device) }), qc.invalidateQueries({ queryKey: deviceKey(device) })]);
    },
    onError: (err) => {
      const shown: Errors = {};
      for (const [f, message] of Object.entries(formErrors(err))) {
        if (FIELDS.includes(f)) shown[f as ScheduleField | 'end'] = message;
        else shown.form ??= message;
      }
      setErrors(shown);
      notify.failure(err, 'post');
    },
  });

  function submit(e: React.FormEvent) {
    e.preventDefault();
    if (m.isPending) return;
    const found = checkSchedule(values);
    setErrors(found);
    if (Object.keys(found).length === 0) m.mutate();
  }

  const set = (patch: Partial<ScheduleValues>, clear: (ScheduleField | 'end')[]) => {
    setValues((old) => ({ ...old, ...patch }));
    setErrors((old) => ({ ...old, ...Object.fromEntries(clear.map((f) => [f, undefined])) }));
  };
  const toggleDay = (day: number, on: boolean) =>
    set({ days: on ? [...values.days, day] : values.days.filter((d) => d !== day) }, ['days']);

  return (
    <Dialog title={schedule ? 'Edit schedule' : 'Add a schedule'} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <SelectField label="Camera" value={values.camera} error={errors.camera} onChange={(e) => set({ camera: e.target.value }, ['camera', 'days'])}>
          <option value="">{cameraChoices.length === 0 ? 'The device has no cameras yet' : 'Choose a camera'}</option>
          {cameraChoices.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </SelectField>
        <SelectField label="Task" value={values.task} error={errors.task} disabled={!tasks} onChange={(e) => set({ task: e.target.value }, ['task'])}>
          <option value="">{tasks && tasks.length === 0 ? 'No task defined yet' : 'Choose a task'}</option>
          {schedule && !tasks?.some((t) => t.id === schedule.task) ? (
            <option value={schedule.task}>{schedule.task_name || `Task ${schedule.task}`}</option>
          ) : null}
          {(tasks ?? []).map((t) => (
            <option key={t.id} value={t.id}>
              {t.taskName}
            </option>
          ))}
        </SelectField>
        <fieldset aria-describedby={errors.days ? `${daysId}-error` : undefined}>
          <legend>Weekdays</legend>
          <div className="weekday-choices">
            {WEEKDAYS.map((name, day) => (
              <label key={name} className="checkbox">
                <input type="checkbox" checked={values.days.includes(day)} onChange={(e) => toggleDay(day, e.target.checked)} />
                {name}
              </label>
            ))}
          </div>
          {errors.days ? (
            <p id={`${daysId}-error`} className="field-error" role="alert">
              {errors.days}
            </p>
          ) : null}
        </fieldset>
        <div className="time-range">
          <div>
            <SelectField label="Start" value={values.start} error={errors.start} onChange={(e) => set({ start: e.target.value }, ['start', 'days'])}>
              <option value="">—</option>
              {timeChoices('start', schedule?.start).map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </SelectField>
          </div>
          <div>
            <SelectField label="End" value={values.end} error={errors.end} onChange={(e) => set({ end: e.target.value }, ['start', 'end', 'days'])}>
              <option value="">—</option>
              {timeChoices('end', schedule?.end).map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </SelectField>
          </div>
        </div>
        <p className="muted">{timeZone ? `Times are in the organisation's time zone, ${timeZone}.` : "Times are in the organisation's time zone."}</p>
        <FormError message={errors.form} />
        <DialogActions
          onCancel={onClose}
          submitLabel={schedule ? 'Save' : 'Add'}
          pending={m.isPending}
          disabled={change !== null && Object.keys(change).length === 0}
        />
      </form>
    </Dialog>
  );
}
