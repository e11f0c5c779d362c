import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import type { Device, RemoteCam } from '@/api/generated';
import { remoteCamsKey } from '@/api/remote-cams';
import { Dialog, DialogActions } from '@/components/ui/dialog';
import { Field, FormError } from '@/components/ui/field';
import { DATA_CREATED, DATA_UPDATED, REMOTE_CAM_CREATE_FAILED, REMOTE_CAM_UPDATE_FAILED } from '@/config/messages';
import { formErrors } from '@/lib/api-errors';
import { notify } from '@/lib/toast';
import { BODY_LIMITS } from '@/lib/validate';

import { createRemoteCam, patchRemoteCam } from '../api/remote-cams';
import { type RemoteCamField, type RemoteCamValues, checkRemoteCam, createBody, initialValues, patchBody } from '../remote-cam-form';

type Errors = Partial<Record<RemoteCamField | 'form', string>>;
const FIELDS: readonly string[] = ['name', 'url', 'username', 'password'];
const LIMITS = BODY_LIMITS.RemoteCamCreate;

/**
 * Add a remote camera to a device, or change one (`cam`): its name on the device, its
 * URL and login. The password is never shown back: a change leaves it empty to keep
 * the kept one, or removes it. Wrong fields are refused before sending; a 400's
 * messages show next to their fields, with the spec's failure message as the toast.
 */
export function RemoteCamDialog({ device, cam, onClose }: { device: Device; cam: RemoteCam | null; onClose: () => void }) {
  const qc = useQueryClient();
  const [values, setValues] = useState<RemoteCamValues>(() => initialValues(cam));
  const [errors, setErrors] = useState<Errors>({});
  const change = cam ? patchBody(cam, values) : null;

  const m = useMutation({
    mutationFn: () => (cam ? patchRemoteCam(cam.id, change ?? {}) : createRemoteCam(device.id, createBody(values))),
    onSuccess: async () => {
      notify.successShort(cam ? DATA_UPDATED : DATA_CREATED);
      onClose();
      await qc.invalidateQueries({ queryKey: remoteCamsKey(device.id) });
    },
    onError: (err) => {
      const shown: Errors = {};
      for (const [f, message] of Object.entries(formErrors(err))) {
        if (FIELDS.includes(f)) shown[f as RemoteCamField] = message;
        else shown.form ??= message;
      }
      setErrors(shown);
      notify.failure(err, 'post', cam ? REMOTE_CAM_UPDATE_FAILED : REMOTE_CAM_CREATE_FAILED);
    },
  });

  function submit(e: React.FormEvent) {
    e.preventDefault();
    if (m.isPending) return;
    const found = checkRemoteCam(values);
    setErrors(found);
    if (Object.keys(found).length === 0) m.mutate();
  }

  const field = (f: RemoteCamField) => ({
    value: values[f],
    error: errors[f],
    maxLength: LIMITS[f],
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => {
      const v = e.target.value;
      setValues((old) => ({ ...old, [f]: v }));
      setErrors((old) => (old[f] ? { ...old, [f]: undefined } : old));
    },
  });

  return (
    <Dialog title={cam ? `Edit ${cam.name} on ${device.display_name}` : `Add a remote camera to ${device.display_name}`} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <Field label="Name" autoComplete="off" {...field('name')} />
        <Field label="URL" inputMode="url" autoComplete="off" placeholder="rtsp://10.0.0.5:554/stream1" {...field('url')} />
        <p className="muted">
          A login goes in the URL (rtsp://user:password@host/…) or below, not both. The password is kept for the device
          and never shown again.
        </p>
        <Field label="Username" autoComplete="off" {...field('username')} />
        <Field
          label="Password"
          type="password"
          autoComplete="new-password"
          placeholder={cam?.has_password ? 'Kept: leave empty to keep it' : ''}
          disabled={values.clearPassword}
          {...field('password')}
        />
        {cam?.has_password ? (
          <label className="checkbox">
            <input
              type="checkbox"
              checked={values.clearPassword}
              onChange={(e) => {
                const on = e.target.checked;
                setValues((old) => ({ ...old, clearPassword: on, password: on ? '' : old.password }));
              }}
            />
            Remove the kept password
          </label>
        ) : null}
        <FormError message={errors.form} />
        <DialogActions
          onCancel={onClose}
          submitLabel={cam ? 'Save' : 'Add'}
          pending={m.isPending}
          disabled={change !== null && Object.keys(change).length === 0}
        />
      </form>
    </Dialog>
  );
}
