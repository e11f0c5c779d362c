import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { Feature, SubscribedFeature, SubscribedFeatureCreate } from '@/api/generated';
import { signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { ORGS, orgsHandler } from './fixtures';

let features: Feature[];
let subs: SubscribedFeature[];
let posted: SubscribedFeatureCreate[];
let ended: string[];
let asked: (string | null)[];
beforeEach(() => {
  features = [
    { id: 1, name: 'Devices' },
    { id: 2, name: 'Define Operation' },
  ];
  subs = [{ id: 10, Feature: 2, Organization: ORGS[1]!.id, feature_name: 'Define Operation', is_suppressed: false }];
  posted = [];
  ended = [];
  asked = [];
  server.use(
    orgsHandler(),
    http.get(apiUrl('feature_control/feature/'), () => HttpResponse.json(features)),
    http.post(apiUrl('feature_control/feature/'), async ({ request }) => {
      const { name } = (await request.json()) as { name: string };
      if (features.some((f) => f.name === name)) return HttpResponse.json({ name: ['feature with this name already exists.'] }, { status: 400 });
      const f = { id: features.length + 1, name };
      features = [...features, f];
      return HttpResponse.json(f, { status: 201 });
    }),
    http.delete(apiUrl('feature_control/feature/'), ({ request }) => {
      const id = Number(new URL(request.url).searchParams.get('id'));
      features = features.filter((f) => f.id !== id);
      subs = subs.filter((s) => s.Feature !== id);
      return HttpResponse.json({ msg: 'Data deleted successfully!' });
    }),
    http.get(apiUrl('feature_control/subscribed_feature/'), ({ request }) => {
      const org = new URL(request.url).searchParams.get('organization');
      asked.push(org);
      return HttpResponse.json(org === null ? subs : subs.filter((s) => String(s.Organization) === org));
    }),
    http.post(apiUrl('feature_control/subscribed_feature/'), async ({ request }) => {
      const body = (await request.json()) as SubscribedFeatureCreate;
      posted.push(body);
      const old = subs.find((s) => s.Feature === body.Feature && s.Organization === body.Organization);
      if (old) {
        old.is_suppressed = body.is_suppressed ?? false;
        return HttpResponse.json(old);
      }
      const name = features.find((f) => f.id === body.Feature)!.name;
      const s = { id: 20 + subs.length, Feature: body.Feature, Organization: body.Organization, feature_name: name, is_suppressed: body.is_suppressed ?? false };
      subs = [...subs, s];
      return HttpResponse.json(s, { status: 201 });
    }),
    http.delete(apiUrl('feature_control/subscribed_feature/'), ({ request }) => {
      const id = new URL(request.url).searchParams.get('id')!;
      ended.push(id);
      subs = subs.filter((s) => String(s.id) !== id);
      return HttpResponse.json({ msg: 'Data deleted successfully!' });
    }),
  );
  signInAs('admin', null);
});

const acme = ORGS[0]!;

test('every subscription is listed; an organisation is subscribed, suppressed, unsuppressed and unsubscribed', async () => {
  const user = userEvent.setup();
  renderApp('/admin/feature-control');
  const all = await screen.findByRole('table', { name: 'Subscriptions' });
  expect(tableRows(all)).toEqual([['Globex', 'Define Operation', 'Subscribed']]);

  await user.selectOptions(screen.getByRole('combobox', { name: 'Organization' }), String(acme.id));
  const table = await screen.findByRole('table', { name: 'Features of ACME' });
  await waitFor(() => expect(tableRows(table).map((r) => r.slice(0, 2))).toEqual([['Devices', 'Not subscribed'], ['Define Operation', 'Not subscribed']]));
  expect(asked).toContain(String(acme.id));
  expect(screen.queryByRole('table', { name: 'Subscriptions' })).toBeNull();

  await user.click(screen.getByRole('button', { name: 'Subscribe ACME to Devices' }));
  await waitFor(() => expect(posted).toEqual([{ Feature: 1, Organization: acme.id, is_suppressed: false }]));
  expect(await screen.findByText('Data created successfully!')).toBeInTheDocument();
  await waitFor(() => expect(tableRows(table)[0]!.slice(0, 2)).toEqual(['Devices', 'Subscribed']));

  await user.click(screen.getByRole('button', { name: 'Suppress Devices for ACME' }));
  await waitFor(() => expect(posted[1]).toEqual({ Feature: 1, Organization: acme.id, is_suppressed: true }));
  await waitFor(() => expect(tableRows(table)[0]!.slice(0, 2)).toEqual(['Devices', 'Suppressed']));
  await user.click(screen.getByRole('button', { name: 'Unsuppress Devices for ACME' }));
  await waitFor(() => expect(tableRows(table)[0]!.slice(0, 2)).toEqual(['Devices', 'Subscribed']));

  const id = String(subs.find((s) => s.Organization === acme.id)!.id);
  await user.click(screen.getByRole('button', { name: 'Unsubscribe ACME from Devices' }));
  await waitFor(() => expect(ended).toEqual([id]));
  await waitFor(() => expect(tableRows(table)[0]!.slice(0, 2)).toEqual(['Devices', 'Not subscribed']));
});

test('a feature is added (a duplicate refused under the name) and deleted after a confirmation', async () => {
  const user = userEvent.setup();
  renderApp('/admin/feature-control');
  const table = await screen.findByRole('table', { name: 'Features' });
  const name = screen.getByRole('textbox', { name: 'Feature name' });

  await user.click(screen.getByRole('button', { name: 'Add feature' }));
  expect(await screen.findByRole('alert')).toHaveTextContent('Enter the feature’s name.');

  await user.type(name, 'Devices');
  await user.click(screen.getByRole('button', { name: 'Add feature' }));
  expect(await screen.findByRole('alert')).toHaveTextContent('feature with this name already exists.');
  expect(features).toHaveLength(2);

  await user.clear(name);
  await user.type(name, 'Barcodes');
  await user.click(screen.getByRole('button', { name: 'Add feature' }));
  await waitFor(() => expect(tableRows(table).map((r) => r[0])).toEqual(['Devices', 'Define Operation', 'Barcodes']));
  expect(screen.queryByRole('alert')).toBeNull();

  await user.click(screen.getByRole('button', { name: 'Delete feature Define Operation' }));
  const dialog = screen.getByRole('dialog');
  expect(dialog).toHaveTextContent('Every organisation’s subscription to it ends');
  await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
  await waitFor(() => expect(tableRows(table).map((r) => r[0])).toEqual(['Devices', 'Barcodes']));
  // Its subscription went with it.
  await waitFor(() => expect(screen.queryByRole('table', { name: 'Subscriptions' })).toBeNull());
  expect(screen.getByText('No organisation is subscribed to a feature yet.')).toBeInTheDocument();
});

test.each(['/admin/feature-control', '/admin/tasks', '/admin/trained-tasks', '/admin/task-videos/4/Pump'])(
  'an organisation admin sent to %s lands on the Dashboard, and no admin call is made',
  async (path) => {
    signInAs('org_admin', 1);
    const calls: string[] = [];
    server.use(
      http.get(apiUrl('feature_control/subscribed_feature/'), ({ request }) => {
        calls.push(new URL(request.url).search);
        return HttpResponse.json([]);
      }),
      http.get(apiUrl('organization/tasks/admin'), () => {
        calls.push('tasks/admin');
        return HttpResponse.json({ results: [], count: 0 });
      }),
      http.get(apiUrl('organization/task/videos/:task'), () => {
        calls.push('videos');
        return HttpResponse.json({ results: [], count: 0 });
      }),
    );
    const { router } = renderApp(path);
    await waitFor(() => expect(router.state.location.pathname).toBe('/user/home'));
    expect(screen.queryByRole('heading', { level: 1, name: /Feature Control|All Operations|Trained Operations|Task Videos/ })).toBeNull();
    // Only the sidebar's own look-up of the session's organisation's features.
    expect(calls.filter((c) => c !== '?organization=1')).toEqual([]);
  },
);
