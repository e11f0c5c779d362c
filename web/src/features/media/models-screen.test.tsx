import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http } from 'msw';

import type { ModelVersion } from '@/api/generated';
import { fail, ok, signInAs } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

const model = (id: number, is_deleted: boolean): ModelVersion => ({
  id,
  version: `t1-r${id}`,
  task: 1,
  model_type: null,
  is_deleted,
  sha256: 'ab'.repeat(32),
  size_bytes: 2048,
  metrics: null,
  training_run: id,
  created_at: Date.UTC(2026, 0, 2, 3, 4, 5),
});

let stored: ModelVersion[];

beforeEach(() => {
  signInAs('org_user');
  stored = [model(2, false), model(1, true)];
  server.use(
    http.get(apiUrl('organization/model_version'), () => ok(stored)),
    http.get(apiUrl('organization/task/'), () => ok([{ id: 1, taskName: 'Assemble sensor' }])),
  );
});

test('the soft delete shows at once and stays when the server agrees', async () => {
  const patches: unknown[] = [];
  server.use(
    http.patch(apiUrl('organization/model_version/2'), async ({ request }) => {
      const body = (await request.json()) as { is_deleted: boolean };
      patches.push(body);
      stored = [model(2, body.is_deleted), model(1, true)];
      return ok(stored[0]);
    }),
  );
  const user = userEvent.setup();
  renderApp('/user/models');
  const box = await screen.findByRole('checkbox', { name: 't1-r2 deleted' });
  expect(box).not.toBeChecked();
  expect(screen.getByRole('checkbox', { name: 't1-r1 deleted' })).toBeChecked();
  expect(await screen.findAllByRole('cell', { name: 'Assemble sensor' })).toHaveLength(2);
  await user.click(box);
  expect(screen.getByRole('checkbox', { name: 't1-r2 deleted' })).toBeChecked();
  await waitFor(() => expect(patches).toEqual([{ is_deleted: true }]));
  await waitFor(() => expect(screen.getByRole('checkbox', { name: 't1-r2 deleted' })).toBeChecked());
});

test("a refused soft delete is put back with 'Unable to delete Model Version'", async () => {
  server.use(http.patch(apiUrl('organization/model_version/2'), () => fail(500, { detail: 'boom' })));
  const user = userEvent.setup();
  renderApp('/user/models');
  const box = await screen.findByRole('checkbox', { name: 't1-r2 deleted' });
  await user.click(box);
  expect(await screen.findByText('Unable to delete Model Version')).toBeInTheDocument();
  await waitFor(() => expect(screen.getByRole('checkbox', { name: 't1-r2 deleted' })).not.toBeChecked());
});
