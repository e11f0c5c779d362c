import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http } from 'msw';

import type { TrainStatus } from '@/api/generated';
import { callsTo, fail, firstColumn, recordCalls, signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { defineOperationFeature, FakeTasks, PUMP } from './fixtures';

let tasks: FakeTasks;

beforeEach(() => {
  signInAs('org_user');
  tasks = new FakeTasks();
  server.use(defineOperationFeature(), ...tasks.handlers());
});

const table = () => screen.findByRole('table', { name: 'Tasks' });
const STATUSES: TrainStatus[] = ['new_task', 'in_annotation', 'training', 'failed', 'trained'];

test('tasks are listed 10 a page with steps, training status and creation date; a search and the page go into the address', async () => {
  for (let i = 1; i <= 12; i += 1) {
    tasks.add(`Task ${String(i).padStart(2, '0')}`, i % 2 ? PUMP : PUMP.slice(0, 1), {
      train_status: STATUSES[(i - 1) % STATUSES.length],
      starred: i === 7,
    });
  }
  const rec = recordCalls();
  const user = userEvent.setup();
  const { router } = renderApp('/user/tasks');

  const t = await table();
  expect(screen.getByRole('heading', { level: 1, name: 'Tasks' })).toBeInTheDocument();
  expect(tableRows(t).slice(0, 6)).toEqual([
    ['★ Starred: Task 07', '3', 'IN ANNOTATION', '01/02/26, 03:04:05'],
    ['Task 01', '3', 'NEW TASK', '01/02/26, 03:04:05'],
    ['Task 02', '2', 'IN ANNOTATION', '01/02/26, 03:04:05'],
    ['Task 03', '3', 'TRAINING', '01/02/26, 03:04:05'],
    ['Task 04', '2', 'FAILED', '01/02/26, 03:04:05'],
    ['Task 05', '3', 'TRAINED', '01/02/26, 03:04:05'],
  ]);
  expect(screen.getByText('Page 1 of 2 (12 entries)')).toBeInTheDocument();

  await user.click(screen.getByRole('button', { name: 'Next' }));
  await waitFor(() => expect(firstColumn(screen.getByRole('table', { name: 'Tasks' }))).toEqual(['Task 11', 'Task 12']));
  expect(router.state.location.search).toBe('?page=2');

  await user.type(screen.getByRole('searchbox', { name: 'Search tasks' }), 'task 1');
  await user.click(screen.getByRole('button', { name: 'Search' }));
  await screen.findByText('Page 1 of 1 (3 entries)');
  expect(router.state.location.search).toBe('?search=task+1');
  expect(callsTo(rec, 'GET', 'organization/task/taskpage').map((c) => c.query.toString())).toEqual(['page=1', 'page=2', 'page=1&search=task+1']);

  await user.clear(screen.getByRole('searchbox', { name: 'Search tasks' }));
  await user.type(screen.getByRole('searchbox', { name: 'Search tasks' }), 'zzz');
  await user.click(screen.getByRole('button', { name: 'Search' }));
  expect(await screen.findByText('No task matches "zzz".')).toBeInTheDocument();
});

test('a task’s name opens it on the Define Operation screen', async () => {
  tasks.add('Assemble pump');
  tasks.add('Check valve');
  const user = userEvent.setup();
  const { router } = renderApp('/user/tasks');
  const t = await table();
  await user.click(within(t).getByRole('link', { name: 'Check valve' }));
  expect(await screen.findByRole('article', { name: 'Check valve' })).toBeInTheDocument();
  expect(router.state.location.pathname).toBe('/user/process');
  expect(router.state.location.search).toBe('?task=2');
});

test('no tasks, and a list the server refuses, say so', async () => {
  const first = renderApp('/user/tasks');
  expect(await screen.findByText('No tasks yet.')).toBeInTheDocument();
  first.unmount();

  server.use(http.get(apiUrl('organization/task/taskpage'), () => fail(403, { detail: 'You do not have permission to perform this action.', msg: '' })));
  renderApp('/user/tasks');
  expect(await screen.findByRole('alert')).toHaveTextContent('Tasks could not be loaded: You do not have permission to perform this action.');
});
