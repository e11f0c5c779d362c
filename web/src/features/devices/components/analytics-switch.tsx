import { useMutation, useQueryClient } from '@tanstack/react-query';

import type { DeviceDetails } from '@/api/generated';
import { DATA_UPDATED } from '@/config/messages';
import { notify } from '@/lib/toast';

import { putDevice, setFetchAnalytics } from '../api/devices';

/** What the device does with its cycles, as a fact's text; with how many wait on it when kept. */
export function analyticsText(device: DeviceDetails): string {
  if (device.fetch_analytics) return 'Sent to the cloud';
  const waiting = device.status?.outbox ?? null;
  return waiting === null ? 'Kept on the device' : `Kept on the device (${waiting} cycles waiting)`;
}

/**
 * Whether the device sends its analytics (cycles) to the cloud now, or keeps them on the
 * device until switched on again, when it sends what it kept, in order
 * (`POST device/set_fetch_analytics/{id}/`, issue 31). A switch for the roles that
 * operate devices; the text alone for the others.
 */
export function AnalyticsSwitch({ device, operate }: { device: DeviceDetails; operate: boolean }) {
  const qc = useQueryClient();
  const m = useMutation({
    mutationFn: (on: boolean) => setFetchAnalytics(device.id, on),
    onSuccess: async (d) => {
      notify.successShort(DATA_UPDATED);
      await putDevice(qc, d);
    },
    onError: (err) => notify.failure(err, 'post'),
  });
  if (!operate) return <>{analyticsText(device)}</>;
  const checked = m.isPending ? (m.variables ?? device.fetch_analytics) : device.fetch_analytics;
  return (
    <label className="checkbox">
      <input
        type="checkbox"
        role="switch"
        aria-label="Send analytics to the cloud"
        checked={checked}
        disabled={m.isPending}
        onChange={(e) => m.mutate(e.target.checked)}
      />
      {analyticsText({ ...device, fetch_analytics: checked })}
    </label>
  );
}
