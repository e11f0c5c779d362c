import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { Instance, Page } from '@/api/generated';
import { fail, signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

const instance = (device: number, name: string, org: string, extra: Partial<Instance> = {}): Instance => ({
  device,
  display_name: name,
  organization: org === 'ACME' ? 1 : 2,
  organization_name: org,
  online: true,
  agent_version: '1.4.0',
  target: 'x86_64',
  update_channel: 'prod',
  updatable: true,
  update: null,
  ...extra,
});

let rows: Instance[];
let asked: URLSearchParams[];
let changes: { device: string; body: unknown }[];
beforeEach(() => {
  rows = [
    instance(7, 'Bench 7', 'ACME', { update: { release: 3, version: '1.4.0', state: 'done' } }),
    instance(9, 'Press 9', 'Globex', {
      online: false,
      agent_version: '1.3.0',
      target: 'aarch64',
      update_channel: 'dev',
      updatable: false,
      update: { release: 4, version: '1.4.1', state: 'rolled_back', detail: 'It did not come back within 120 s.' },
    }),
  ];
  asked = [];
  changes = [];
  server.use(
    http.get(apiUrl('binary_deployment/instances/'), ({ request }) => {
      const q = new URL(request.url).searchParams;
      asked.push(q);
      const s = (q.get('search') ?? '').toLowerCase();
      const hits = rows.filter((r) => `${r.display_name} ${r.organization_name}`.toLowerCase().includes(s));
      return HttpResponse.json({ results: hits, count: hits.length } satisfies Page<Instance>);
    }),
    http.patch(apiUrl('device/:id/update_channel/'), async ({ params, request }) => {
      const body = (await request.json()) as { update_channel: string };
      changes.push({ device: String(params.id), body });
      if (params.id === '9') return fail(400, { update_channel: ['Choose one of dev, prod.'] });
      rows = rows.map((r) => (r.device === Number(params.id) ? { ...r, update_channel: body.update_channel } : r));
      return HttpResponse.json({});
    }),
  );
  signInAs('admin', null);
});

const table = () => screen.getByRole('table', { name: 'Instances' });

test("every organisation's devices with their version, channel and latest update; searched; a channel changed in its row", async () => {
  const user = userEvent.setup();
  renderApp('/admin/instances');
  expect(await screen.findByRole('heading', { level: 1, name: 'Instances' })).toBeInTheDocument();
  await waitFor(() => expect(tableRows(table())).toHaveLength(2));
  const [bench, press] = tableRows(table());
  expect(bench).toEqual(['Bench 7', 'ACME', 'Online', '1.4.0', 'x86_64', expect.anything(), 'Yes', 'Done: 1.4.0', '—']);
  expect(press).toEqual(['Press 9', 'Globex', 'Offline', '1.3.0', 'aarch64', expect.anything(), 'No', 'Rolled back: 1.4.1', 'It did not come back within 120 s.']);
  expect(screen.getByRole('combobox', { name: 'Update channel of Press 9' })).toHaveValue('dev');

  await user.type(screen.getByRole('searchbox', { name: 'Search devices' }), 'globex');
  await user.click(screen.getByRole('button', { name: 'Search' }));
  await waitFor(() => expect(tableRows(table())).toHaveLength(1));
  expect(asked.at(-1)?.get('search')).toBe('globex');
  await user.clear(screen.getByRole('searchbox', { name: 'Search devices' }));
  await user.click(screen.getByRole('button', { name: 'Search' }));
  await waitFor(() => expect(tableRows(table())).toHaveLength(2));

  const select = screen.getByRole('combobox', { name: 'Update channel of Bench 7' });
  await user.selectOptions(select, 'dev');
  await waitFor(() => expect(changes).toEqual([{ device: '7', body: { update_channel: 'dev' } }]));
  expect(await screen.findByText('Data updated successfully!')).toBeInTheDocument();
  await waitFor(() => expect(screen.getByRole('combobox', { name: 'Update channel of Bench 7' })).toHaveValue('dev'));

  // A refusal says why and the row keeps its channel.
  await user.selectOptions(screen.getByRole('combobox', { name: 'Update channel of Press 9' }), 'prod');
  expect(await screen.findByText('Choose one of dev, prod.')).toBeInTheDocument();
  expect(screen.getByRole('combobox', { name: 'Update channel of Press 9' })).toHaveValue('dev');
});

test('other roles cannot open Updates or Instances', async () => {
  signInAs('org_admin', 1);
  server.use(http.get(apiUrl('feature_control/subscribed_feature/'), () => HttpResponse.json([])));
  renderApp('/admin/instances');
  await waitFor(() => expect(screen.queryByRole('heading', { level: 1, name: 'Instances' })).toBeNull());
  expect(asked).toEqual([]);
});
