import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';

import type { DeviceCreate, EnrolmentCode } from '@/api/generated';
import { EmptyState } from '@/components/ui/empty-state';
import { Field } from '@/components/ui/field';
import { ScreenHeader } from '@/components/ui/screen-header';
import { DATA_CREATED } from '@/config/messages';
import { paths } from '@/config/paths';
import { can } from '@/lib/access/roles';
import { fieldErrors } from '@/lib/api-errors';
import { useSession } from '@/lib/session';
import { notify } from '@/lib/toast';
import { BODY_LIMITS, requiredMessage, trimWs } from '@/lib/validate';

import { createDevice, devicesKey } from '../api/devices';
import { EnrolmentCodePanel } from './enrolment-code-panel';

type Errors = { display_name?: string | null; Serial_number?: string | null };

/**
 * `/user/add-device` (Add Device): a device's name (required) and serial number. The
 * answer carries the device's one-time enrolment code: shown here large, with its expiry
 * and the command that enrols the agent on the workstation (to copy), and a link to the
 * device's page. A 400's messages show next to their fields; other failures (a 403
 * without the 'Devices' subscription) as a toast. Only roles holding `ManageDevices`
 * add devices; the others are told so.
 */
export default function AddDeviceScreen() {
  const s = useSession();
  const manage = s.role !== null && can(s.role, 'ManageDevices');
  return (
    <section>
      <ScreenHeader title="Add Device" />
      {manage ? (
        <AddDeviceForm />
      ) : (
        <EmptyState title="Your role does not add devices.">
          <p>
            An organisation admin or support user adds them. <Link to={paths.user.devices}>See the devices</Link>.
          </p>
        </EmptyState>
      )}
    </section>
  );
}

function AddDeviceForm() {
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [serial, setSerial] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [added, setAdded] = useState<EnrolmentCode | null>(null);

  const m = useMutation({
    mutationFn: (body: DeviceCreate) => createDevice(body),
    onSuccess: async (code) => {
      notify.successShort(DATA_CREATED);
      setAdded(code);
      setName('');
      setSerial('');
      await qc.invalidateQueries({ queryKey: devicesKey });
    },
    onError: (err) => {
      const f = fieldErrors(err);
      setErrors({ display_name: f.display_name ?? null, Serial_number: f.Serial_number ?? null });
      // Messages for the fields show next to them; anything else as a toast.
      if (!f.display_name && !f.Serial_number) notify.failure(err, 'post');
    },
  });

  function submit(e: React.FormEvent) {
    e.preventDefault();
    if (m.isPending) return;
    const next: Errors = { display_name: trimWs(name) === '' ? requiredMessage('Device name') : null };
    setErrors(next);
    if (next.display_name) return;
    setAdded(null);
    m.mutate({ display_name: trimWs(name), Serial_number: trimWs(serial) });
  }

  return (
    <>
      <form className="device-form" aria-label="Add device" onSubmit={submit} noValidate>
        <Field
          label="Device name"
          maxLength={BODY_LIMITS.DeviceCreate.display_name}
          value={name}
          error={errors.display_name}
          onChange={(e) => {
            setName(e.target.value);
            setErrors((x) => ({ ...x, display_name: null }));
          }}
        />
        <Field
          label="Serial number"
          maxLength={BODY_LIMITS.DeviceCreate.Serial_number}
          value={serial}
          error={errors.Serial_number}
          onChange={(e) => {
            setSerial(e.target.value);
            setErrors((x) => ({ ...x, Serial_number: null }));
          }}
        />
        <div className="form-actions">
          <button type="submit" disabled={m.isPending}>
            {m.isPending ? 'Adding…' : 'Add device'}
          </button>
        </div>
      </form>
      {added ? <EnrolmentCodePanel enrolment={added} linkToDevice /> : null}
    </>
  );
}
