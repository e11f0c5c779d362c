import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http } from 'msw';

import type { ModelVersion } from '@/api/generated';
import { callsTo, fail, jsonHandler, ok, recordCalls, signInAs } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { modelTypes, modelVersion as model } from './fixtures';

let stored: ModelVersion[];

beforeEach(() => {
  signInAs('org_user');
  stored = [model(2, false), model(1, true)];
  server.use(
    http.get(apiUrl('organization/model_version'), () => ok(stored)),
    http.get(apiUrl('organization/task/'), () => ok([{ id: 1, taskName: 'Assemble sensor' }, { id: 4, taskName: 'Weld frame' }])),
    http.get(apiUrl('organization/model_types'), () => ok(modelTypes())),
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

const form = () => within(screen.getByRole('form', { name: 'Register a model file' }));

test('a model file is registered as a model version of an operation, and the list shows it', async () => {
  const posts: unknown[] = [];
  server.use(
    jsonHandler('post', 'organization/model_version', posts, () => {
      stored = [model(3, false, { version: 'demo-1', training_run: null }), ...stored];
      return ok(stored[0], 201);
    }),
  );
  const user = userEvent.setup();
  renderApp('/user/models');
  await screen.findByRole('checkbox', { name: 't1-r2 deleted' });

  // The files by type (types without files left out), with version, name and labels.
  const files = form().getByLabelText('Model file');
  await within(files).findByRole('option', { name: 'demo-3 · wide.onnx · Pick base, Pick cover, Fasten screws, Inspect, background' });
  expect([...files.querySelectorAll('optgroup')].map((g) => [g.label, [...g.querySelectorAll('option')].map((o) => o.textContent)])).toEqual([
    [
      'Step classifier 64×48',
      [
        'demo-1 · model-1.onnx · Pick base, Pick cover, Fasten screws, Inspect, background',
        'demo-2 · model-2.onnx · Weld, background',
      ],
    ],
    ['Wide classifier 64×48', ['demo-3 · wide.onnx · Pick base, Pick cover, Fasten screws, Inspect, background']],
  ]);

  await user.click(form().getByRole('button', { name: 'Register' }));
  expect(form().getByText('Operation is required!')).toBeInTheDocument();
  expect(form().getByText('Model file is required!')).toBeInTheDocument();
  expect(posts).toEqual([]);

  await user.selectOptions(form().getByLabelText('Operation'), 'Assemble sensor');
  await user.selectOptions(files, 'demo-1 · model-1.onnx · Pick base, Pick cover, Fasten screws, Inspect, background');
  await user.click(form().getByRole('button', { name: 'Register' }));
  expect(await screen.findByText('Model version demo-1 registered.')).toBeInTheDocument();
  expect(posts).toEqual([{ task: 1, model_file: 1 }]);
  expect(await screen.findByRole('checkbox', { name: 'demo-1 deleted' })).not.toBeChecked();
  expect(files).toHaveValue('');
});

test("a refused registration shows the server's message by its field", async () => {
  const refusal =
    "The model's labels (Weld, background) are not this task's steps then background (Pick base, Pick cover, Fasten screws, Inspect, background).";
  server.use(http.post(apiUrl('organization/model_version'), () => fail(400, { model_file: [refusal] })));
  const rec = recordCalls();
  const user = userEvent.setup();
  renderApp('/user/models');
  await screen.findByRole('form', { name: 'Register a model file' });
  const files = form().getByLabelText('Model file');
  await within(files).findByRole('option', { name: 'demo-2 · model-2.onnx · Weld, background' });
  await user.selectOptions(form().getByLabelText('Operation'), 'Assemble sensor');
  await user.selectOptions(files, 'demo-2 · model-2.onnx · Weld, background');
  await user.click(form().getByRole('button', { name: 'Register' }));
  expect(await form().findByText(refusal)).toBeInTheDocument();
  expect(files).toHaveAccessibleDescription(refusal);
  expect(callsTo(rec, 'POST', 'organization/model_version').map((c) => c.body)).toEqual([{ task: 1, model_file: 2 }]);

  server.use(http.post(apiUrl('organization/model_version'), () => fail(400, { task: ['Choose one of this organisation\'s tasks.'] })));
  await user.click(form().getByRole('button', { name: 'Register' }));
  expect(await form().findByText("Choose one of this organisation's tasks.")).toBeInTheDocument();
  expect(form().queryByText(refusal)).toBeNull();
});
