import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { DeviceDetails, FetchAnalytics } from '@/api/generated';
import { fail, signInAs } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { SEEN, details, device, deviceConfigApi, devicesFeature } from './fixtures';

let d: DeviceDetails;
let sent: FetchAnalytics[];
beforeEach(() => {
  d = details(
    device(7, 'Bench 7', {
      online: true,
      last_seen: SEEN,
      status: { v: 1, online: true, ts_ms: SEEN, agent_version: '0.3.1', cameras: [], outbox: 12, disk_free_mb: null, temperature_c: null },
    }),
  );
  sent = [];
  server.use(
    devicesFeature(),
    ...deviceConfigApi(),
    http.get(apiUrl('organization/task/'), () => HttpResponse.json([])),
    http.get(apiUrl('device/7/device_details/'), () => HttpResponse.json(d)),
    http.post(apiUrl('device/set_fetch_analytics/7/'), async ({ request }) => {
      const body = (await request.json()) as FetchAnalytics;
      sent.push(body);
      if (sent.length > 2) return fail(403, { detail: 'You do not have permission to perform this action.', msg: 'You do not have permission to perform this action.' });
      d = { ...d, fetch_analytics: body.fetch_analytics };
      const { commands, recent_cycles, task_steps, notice, camera_events, ...rest } = d;
      void [commands, recent_cycles, task_steps, notice, camera_events];
      return HttpResponse.json(rest);
    }),
  );
});

const fact = (name: string) => screen.getByText(name, { selector: 'dt' }).nextElementSibling?.textContent;

test("a device's analytics are switched off (kept on the device, with the cycles waiting) and on again", async () => {
  signInAs('org_user', 1);
  const user = userEvent.setup();
  renderApp('/user/devices/7');
  const sw = await screen.findByRole('switch', { name: 'Send analytics to the cloud' });
  expect(sw).toBeChecked();
  expect(fact('Analytics')).toBe('Sent to the cloud');

  await user.click(sw);
  await waitFor(() => expect(sent).toEqual([{ fetch_analytics: false }]));
  expect(await screen.findByText('Data updated successfully!')).toBeInTheDocument();
  await waitFor(() => expect(screen.getByRole('switch', { name: 'Send analytics to the cloud' })).not.toBeChecked());
  expect(fact('Analytics')).toBe('Kept on the device (12 cycles waiting)');

  await user.click(screen.getByRole('switch', { name: 'Send analytics to the cloud' }));
  await waitFor(() => expect(sent).toEqual([{ fetch_analytics: false }, { fetch_analytics: true }]));
  await waitFor(() => expect(screen.getByRole('switch', { name: 'Send analytics to the cloud' })).toBeChecked());
  expect(fact('Analytics')).toBe('Sent to the cloud');

  // A refusal says so and leaves the switch as the server has it.
  await user.click(screen.getByRole('switch', { name: 'Send analytics to the cloud' }));
  expect(await screen.findByText(/permission/i)).toBeInTheDocument();
  await waitFor(() => expect(screen.getByRole('switch', { name: 'Send analytics to the cloud' })).toBeChecked());
});
