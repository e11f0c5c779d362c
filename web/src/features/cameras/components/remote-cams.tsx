import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import type { Device, RemoteCam } from '@/api/generated';
import { remoteCamsKey, remoteCamsQuery } from '@/api/remote-cams';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DATA_DELETED, REMOTE_CAMS_FETCH_FAILED, REMOTE_CAM_DELETE_FAILED } from '@/config/messages';
import { errorMessage } from '@/lib/api-errors';
import { notify } from '@/lib/toast';

import { deleteRemoteCam } from '../api/remote-cams';
import { loginText } from '../remote-cam-form';
import { remoteCamState } from './live-bits';
import { RemoteCamDialog } from './remote-cam-dialog';

/**
 * A device's remote (RTSP, HTTP) cameras: name, URL (its password never shown), login,
 * and what the camera does from the device's status (live through the device stream).
 * `editable` (the role may operate devices and the organisation holds 'Devices', as the
 * server asks) adds Add, Edit and Delete (confirmed).
 */
export function RemoteCams({ device, editable }: { device: Device; editable: boolean }) {
  const qc = useQueryClient();
  const q = useQuery(remoteCamsQuery(device.id));
  const [editing, setEditing] = useState<RemoteCam | 'new' | null>(null);
  const [deleting, setDeleting] = useState<RemoteCam | null>(null);
  const remove = useMutation({
    mutationFn: (cam: RemoteCam) => deleteRemoteCam(cam.id),
    onSuccess: async () => {
      notify.successShort(DATA_DELETED);
      setDeleting(null);
      await qc.invalidateQueries({ queryKey: remoteCamsKey(device.id) });
    },
    onError: (err) => {
      notify.failure(err, 'delete', REMOTE_CAM_DELETE_FAILED);
      setDeleting(null);
    },
  });
  const label = `Remote cameras of ${device.display_name}`;

  return (
    <div className="remote-cams">
      <div className="toolbar">
        <h3 className="form-title">
          Remote cameras
        </h3>
        {editable ? (
          <button type="button" className="secondary small" aria-label={`Add remote camera to ${device.display_name}`} onClick={() => setEditing('new')}>
            Add remote camera
          </button>
        ) : null}
      </div>
      {q.error ? (
        <p role="alert" className="query-error">
          {REMOTE_CAMS_FETCH_FAILED} {errorMessage(q.error, 'account')}
        </p>
      ) : !q.data ? (
        <p className="muted">Loading remote cameras…</p>
      ) : q.data.length === 0 ? (
        <p className="muted">No remote cameras.</p>
      ) : (
        <table className="data-table" aria-label={label}>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">URL</th>
              <th scope="col">Login</th>
              <th scope="col">State</th>
              {editable ? <th scope="col">Actions</th> : null}
            </tr>
          </thead>
          <tbody>
            {q.data.map((c) => (
              <tr key={c.id}>
                <td>{c.name}</td>
                <td className="remote-cam-url">{c.url}</td>
                <td>{loginText(c)}</td>
                <td>{remoteCamState(c.name, device)}</td>
                {editable ? (
                  <td className="actions">
                    <button type="button" className="secondary small" aria-label={`Edit ${c.name}`} onClick={() => setEditing(c)}>
                      Edit
                    </button>
                    <button type="button" className="danger small" aria-label={`Delete ${c.name}`} onClick={() => setDeleting(c)}>
                      Delete
                    </button>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {editing ? <RemoteCamDialog device={device} cam={editing === 'new' ? null : editing} onClose={() => setEditing(null)} /> : null}
      {deleting ? (
        <ConfirmDialog
          title={`Delete ${deleting.name}?`}
          confirmLabel="Delete"
          busy={remove.isPending}
          onConfirm={() => remove.mutate(deleting)}
          onCancel={() => setDeleting(null)}
        >
          <p>
            {device.display_name} stops reading <strong>{deleting.url}</strong> as its camera {deleting.name}.
          </p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
