import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { Task, TrainedTask } from '@/api/generated';
import { signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { ORGS, adminTask, orgsHandler } from './fixtures';

const [acme, globex] = [ORGS[0]!, ORGS[1]!];
const TASKS: Task[] = [
  adminTask(1, 'Pump', acme, { train_status: 'trained' }),
  adminTask(2, 'Valve', acme, { train_status: 'failed' }),
  adminTask(3, 'Weld seam', globex, { train_status: 'trained' }),
];

const PUMP: TrainedTask = {
  id: 1,
  taskName: 'Pump',
  train_status: 'trained',
  labelled_videos: 3,
  ready_videos: 4,
  run: {
    id: 8,
    task: 1,
    status: 'succeeded',
    progress: 1,
    message: 'done',
    train_videos: [1, 2],
    holdout_videos: [3],
    started_by: 5,
    created_at: 0,
    started_at: null,
    finished_at: null,
    model_version: 12,
  },
  model_version: {
    id: 12,
    version: 'Pump-1',
    task: 1,
    model_type: null,
    is_deleted: false,
    sha256: 'ab',
    size_bytes: 1000,
    training_run: 8,
    created_at: 0,
    metrics: {
      labels: ['Fit', 'background'],
      frames: 900,
      frame_accuracy: 0.925,
      per_label: [
        { label: 'Fit', precision: 0.9, recall: 0.8, f1: 0.847, support: 300 },
        { label: 'background', precision: 0.95, recall: 0.97, f1: 0.96, support: 600 },
      ],
      confusion: [
        [240, 60],
        [18, 582],
      ],
      true_cycles: 5,
      found_cycles: 5,
      matched_cycles: 4,
      cycle_time_error_s: 0.42,
      cycle_time_error_share: 0.0312,
      verdict_agreement: 0.75,
    },
  },
};

let asked: { org: string | null; status: string | null }[];
beforeEach(() => {
  asked = [];
  server.use(
    orgsHandler(),
    http.get(apiUrl('organization/task/get_all_trained_tasks_of_organization'), ({ request }) => {
      const org = request.headers.get('Organization');
      const status = new URL(request.url).searchParams.get('train_status');
      asked.push({ org, status });
      return HttpResponse.json(TASKS.filter((t) => String(t.Organization.id) === org && t.train_status === status));
    }),
    http.get(apiUrl('organization/trained_task/:id'), ({ params }) =>
      params.id === '1' ? HttpResponse.json(PUMP) : HttpResponse.json({ detail: 'Not found.' }, { status: 404 }),
    ),
  );
  signInAs('admin', null);
});

test("an organisation's operations by training status, and one's training with its model's metrics", async () => {
  const user = userEvent.setup();
  renderApp('/admin/trained-tasks');
  expect(await screen.findByText('Choose an organization to see its operations by training status.')).toBeInTheDocument();
  expect(asked).toEqual([]);
  await screen.findByRole('option', { name: 'ACME' });

  await user.selectOptions(screen.getByRole('combobox', { name: 'Organization' }), String(acme.id));
  const table = await screen.findByRole('table', { name: 'Trained operations' });
  expect(tableRows(table)).toEqual([['Pump', '2', 'TRAINED', 'Training Videos']]);
  // Asked in the organisation chosen (the Organization header), trained by default.
  expect(asked.at(-1)).toEqual({ org: String(acme.id), status: 'trained' });

  await user.selectOptions(screen.getByRole('combobox', { name: 'Training status' }), 'failed');
  await waitFor(() => expect(tableRows(screen.getByRole('table', { name: 'Trained operations' }))).toEqual([['Valve', '2', 'FAILED', 'Training Videos']]));
  expect(asked.at(-1)).toEqual({ org: String(acme.id), status: 'failed' });
  await user.selectOptions(screen.getByRole('combobox', { name: 'Training status' }), 'training');
  expect(await screen.findByText('No operation is training.')).toBeInTheDocument();

  await user.selectOptions(screen.getByRole('combobox', { name: 'Training status' }), 'trained');
  await user.click(await screen.findByRole('button', { name: 'Training of Pump' }));
  const dl = await screen.findByLabelText('Training state of Pump');
  const text = dl.textContent ?? '';
  expect(text).toContain('3 labelled, 4 ready');
  expect(text).toContain('succeeded, 100% — done');
  expect(text).toContain('2 / 1');
  expect(text).toContain('Pump-1');
  expect(text).toContain('92.5%');
  expect(text).toContain('3.12% (0.42 s)');
  expect(text).toContain('5 / 5 / 4');
  expect(text).toContain('75.0%');
  const steps = screen.getByRole('table', { name: 'Steps of Pump' });
  expect(tableRows(steps)).toEqual([
    ['Fit', '90.0%', '80.0%', '84.7%'],
    ['background', '95.0%', '97.0%', '96.0%'],
  ]);
  expect(within(table).getByRole('link', { name: 'Videos of Pump' })).toHaveAttribute('href', '/admin/task-videos/1/Pump');
});

test('an operation in training is followed until its run ends', async () => {
  let reads = 0;
  server.use(
    http.get(apiUrl('organization/trained_task/:id'), () => {
      reads += 1;
      const training = reads < 2;
      return HttpResponse.json({
        ...PUMP,
        train_status: training ? 'training' : 'trained',
        run: { ...PUMP.run!, status: training ? 'running' : 'succeeded', progress: training ? 0.5 : 1 },
      } satisfies TrainedTask);
    }),
  );
  renderApp(`/admin/trained-tasks?organization=${acme.id}&task=1`);
  const facts = await screen.findByLabelText('Training state of Pump');
  expect(facts).toHaveTextContent('running, 50%');
  await waitFor(() => expect(screen.getByLabelText('Training state of Pump')).toHaveTextContent('succeeded, 100%'), { timeout: 5000 });
  expect(reads).toBe(2);
});
