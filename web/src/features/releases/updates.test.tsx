import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { MoveRelease, Page, Release, ReleaseDeployment, ReleaseDevice, ReleasePatch } from '@/api/generated';
import { fail, signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

const UPLOADED = new Date(2026, 10, 20, 9, 30, 0).getTime();

const release = (id: number, version: string, extra: Partial<Release> = {}): Release => ({
  id,
  running_environment: 'dev',
  branch: 'main',
  version_number: version,
  target: 'x86_64',
  size_bytes: 3 * 1024 * 1024,
  sha256: 'ab'.repeat(32),
  signature: 'sig',
  uploaded_at: UPLOADED,
  start_time: UPLOADED,
  end_time: null,
  currentState: 'rolling_out',
  reason: null,
  devices_total: 4,
  devices_done: 1,
  devices_failed: 0,
  ...extra,
});

const rdevice = (device: number, name: string, extra: Partial<ReleaseDevice> = {}): ReleaseDevice => ({
  device,
  display_name: name,
  organization: 1,
  wave: 1,
  state: 'downloading',
  detail: null,
  agent_version: '1.3.0',
  updated_at: UPLOADED,
  ...extra,
});

/** The releases as the server keeps them. */
class FakeReleases {
  rows: Release[] = [release(2, '1.4.0'), release(1, '1.3.0', { running_environment: 'prod', currentState: 'deployed', devices_done: 4 })];
  devices: ReleaseDevice[] = [rdevice(7, 'Bench 7'), rdevice(8, 'Bench 8', { wave: 2, state: 'pending' })];
  uploads: URLSearchParams[] = [];
  moves: MoveRelease[] = [];
  patches: ReleasePatch[] = [];
  deletes: URLSearchParams[] = [];
  deploymentAsks = 0;

  handlers() {
    return [
      http.get(apiUrl('binary_deployment/previous_releases/'), () =>
        HttpResponse.json({ results: this.rows, count: this.rows.length } satisfies Page<Release>),
      ),
      http.post(apiUrl('binary_deployment/'), async ({ request }) => {
        const q = new URL(request.url).searchParams;
        this.uploads.push(q);
        const bytes = await request.arrayBuffer();
        if (q.get('signature') !== 'good-signature') return fail(400, { signature: ['The signature does not match the release key.'] });
        const r = release(3, q.get('version') ?? '', { size_bytes: bytes.byteLength, target: q.get('target') ?? '', currentState: 'deployed' });
        this.rows = [r, ...this.rows];
        return HttpResponse.json(r, { status: 201 });
      }),
      http.patch(apiUrl('binary_deployment/move_binaries_to_prod/'), async ({ request }) => {
        const body = (await request.json()) as MoveRelease;
        this.moves.push(body);
        this.rows = this.rows.map((r) => (r.version_number === body.version ? { ...r, running_environment: body.environment } : r));
        return HttpResponse.json(this.rows.filter((r) => r.version_number === body.version));
      }),
      http.patch(apiUrl('binary_deployment/:id/'), async ({ params, request }) => {
        const body = (await request.json()) as ReleasePatch;
        this.patches.push(body);
        this.rows = this.rows.map((r) =>
          r.id === Number(params.id)
            ? { ...r, currentState: body.currentState, reason: body.currentState === 'stopped' ? 'Stopped by admin@gemba.local.' : null }
            : r,
        );
        return HttpResponse.json(this.rows.find((r) => r.id === Number(params.id)));
      }),
      http.get(apiUrl('binary_deployment/:id/latest_deployment/'), ({ params }) => {
        this.deploymentAsks += 1;
        const r = this.rows.find((x) => x.id === Number(params.id));
        if (!r) return fail(404, { detail: 'Not found.' });
        return HttpResponse.json({ release: r, devices: this.devices } satisfies ReleaseDeployment);
      }),
      http.get(apiUrl('binary_deployment/download_binaries/'), () => fail(404, { detail: 'No release of main 1.4.0 for x86_64 in dev.' })),
      http.delete(apiUrl('binary_deployment/delete_branch/'), ({ request }) => {
        const q = new URL(request.url).searchParams;
        this.deletes.push(q);
        this.rows = this.rows.filter((r) => r.id !== Number(q.get('id')));
        return HttpResponse.json({ msg: 'Release deleted.' });
      }),
    ];
  }
}

let fake: FakeReleases;
beforeEach(() => {
  fake = new FakeReleases();
  server.use(...fake.handlers());
  signInAs('admin', null);
});

const releases = () => screen.getByRole('table', { name: 'Releases' });

test('the releases list with their state and progress; moved, stopped and gone on with; deleted after a confirmation', async () => {
  const user = userEvent.setup();
  renderApp('/admin/updates');
  expect(await screen.findByRole('heading', { level: 1, name: 'Updates' })).toBeInTheDocument();
  await waitFor(() => expect(tableRows(releases())).toHaveLength(2));
  const [newer, older] = tableRows(releases());
  expect(newer!.slice(0, 8)).toEqual(['1.4.0', 'main', 'dev', 'x86_64', '3.0 MB', '11/20/26, 09:30:00', 'Rolling out', '1 done of 4']);
  expect(older!.slice(6, 8)).toEqual(['Deployed', '4 done of 4']);

  await user.click(screen.getByRole('button', { name: 'Move 1.4.0 (x86_64) to prod' }));
  await waitFor(() => expect(fake.moves).toEqual([{ version: '1.4.0', environment: 'prod' }]));
  expect(await screen.findByText('Version 1.4.0 moved to prod (1 release).')).toBeInTheDocument();
  expect(await screen.findByRole('button', { name: 'Move 1.4.0 (x86_64) to dev' })).toHaveTextContent('Back to dev');

  await user.click(screen.getByRole('button', { name: 'Stop the roll-out of 1.4.0 (x86_64)' }));
  await waitFor(() => expect(tableRows(releases())[0]![6]).toBe('Stopped: Stopped by admin@gemba.local.'));
  await user.click(screen.getByRole('button', { name: 'Go on with the roll-out of 1.4.0 (x86_64)' }));
  await waitFor(() => expect(tableRows(releases())[0]![6]).toBe('Rolling out'));
  expect(fake.patches).toEqual([{ currentState: 'stopped' }, { currentState: 'rolling_out' }]);
  // A finished roll-out neither stops nor goes on.
  expect(screen.queryByRole('button', { name: 'Stop the roll-out of 1.3.0 (x86_64)' })).toBeNull();

  await user.click(screen.getByRole('button', { name: 'Delete 1.3.0 (x86_64)' }));
  let dialog = await screen.findByRole('dialog', { name: 'Delete the release?' });
  await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
  expect(fake.deletes).toEqual([]);
  await user.click(screen.getByRole('button', { name: 'Delete 1.3.0 (x86_64)' }));
  dialog = await screen.findByRole('dialog', { name: 'Delete the release?' });
  expect(dialog).toHaveTextContent('of branch main in prod');
  await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
  await waitFor(() => expect(fake.deletes.map((q) => q.toString())).toEqual(['environment=prod&branch=main&id=1']));
  expect(await screen.findByText('Data deleted successfully!')).toBeInTheDocument();
  await waitFor(() => expect(tableRows(releases())).toHaveLength(1));
});

test('a failed download says the spec\'s message', async () => {
  const user = userEvent.setup();
  renderApp('/admin/updates');
  await user.click(await screen.findByRole('button', { name: 'Download 1.4.0 (x86_64)' }));
  expect(await screen.findByText('Could Not Download The Binaries')).toBeInTheDocument();
});

test('the upload checks its fields first, shows a refused signature under its field, then uploads with progress', async () => {
  const user = userEvent.setup();
  renderApp('/admin/updates');
  const form = within(await screen.findByRole('form', { name: 'Upload a release' }));
  await user.click(form.getByRole('button', { name: 'Upload' }));
  expect(form.getByText('Choose the agent binary.')).toBeInTheDocument();
  expect(form.getAllByText('This field is required.')).toHaveLength(2);
  expect(fake.uploads).toEqual([]);

  await user.upload(form.getByLabelText('Agent binary'), new File([new Uint8Array(2048)], 'gemba-agent'));
  await user.type(form.getByLabelText('Version'), '1.5.0');
  await user.selectOptions(form.getByLabelText('Target'), 'aarch64');
  expect(form.getByLabelText('Signing command')).toHaveTextContent('gemba-cloud sign-release --target aarch64 --version 1.5.0 gemba-agent');
  await user.type(form.getByLabelText('Signature'), 'wrong');
  await user.click(form.getByRole('button', { name: 'Upload' }));
  const sig = form.getByLabelText('Signature');
  await waitFor(() => expect(sig).toHaveAccessibleDescription('The signature does not match the release key.'));
  expect(fake.uploads[0]!.toString()).toBe('environment=dev&branch=main&version=1.5.0&target=aarch64&signature=wrong');

  await user.clear(sig);
  await user.type(sig, 'good-signature');
  await user.click(form.getByRole('button', { name: 'Upload' }));
  expect(await screen.findByText('Release 1.5.0 (aarch64) uploaded to dev.')).toBeInTheDocument();
  await waitFor(() => expect(tableRows(releases())[0]!.slice(0, 5)).toEqual(['1.5.0', 'main', 'dev', 'aarch64', '2.0 KB']));
  expect(form.getByLabelText('Version')).toHaveValue('');
});

test("choosing a release shows its roll-out device by device, asked again while it rolls out", async () => {
  const user = userEvent.setup();
  renderApp('/admin/updates');
  await user.click(await screen.findByRole('button', { name: 'Show the roll-out of 1.4.0 (x86_64)' }));
  const panel = await screen.findByRole('region', { name: 'Roll-out' });
  expect(await within(panel).findByRole('heading', { name: 'Roll-out of 1.4.0 (x86_64) in dev' })).toBeInTheDocument();
  const table = within(panel).getByRole('table', { name: 'Roll-out devices' });
  expect(tableRows(table).map((r) => r.slice(0, 5))).toEqual([
    ['Bench 7', 'First', 'Downloading', '—', '1.3.0'],
    ['Bench 8', 'Rest', 'Pending', '—', '1.3.0'],
  ]);
  // The devices move on; the panel follows without a click.
  fake.devices = [rdevice(7, 'Bench 7', { state: 'done', agent_version: '1.4.0' }), rdevice(8, 'Bench 8', { wave: 2, state: 'failed', detail: 'The signature did not hold.' })];
  await waitFor(() => expect(tableRows(within(panel).getByRole('table', { name: 'Roll-out devices' }))[1]!.slice(2, 4)).toEqual(['Failed', 'The signature did not hold.']), {
    timeout: 5_000,
  });
  await user.click(within(panel).getByRole('button', { name: 'Close' }));
  expect(screen.queryByRole('region', { name: 'Roll-out' })).toBeNull();
});

test('a finished roll-out is not asked again', async () => {
  const user = userEvent.setup();
  renderApp('/admin/updates');
  await user.click(await screen.findByRole('button', { name: 'Show the roll-out of 1.3.0 (x86_64)' }));
  const panel = await screen.findByRole('region', { name: 'Roll-out' });
  await within(panel).findByRole('table', { name: 'Roll-out devices' });
  const asked = fake.deploymentAsks;
  await new Promise((r) => setTimeout(r, 3_500));
  expect(fake.deploymentAsks).toBe(asked);
});
