import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http } from 'msw';

import type { VideoLabels } from '@/api/generated';
import { fail, jsonHandler, ok, signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';
import { video, videoLabels } from '@/testing/videos';


// A labeler's requested operation: a model guessed the labels of video 2; video 1 is theirs.
let guessed: VideoLabels;
const SCREEN = '/labeler/videos/ACME/Assemble/1';

beforeEach(() => {
  signInAs('labeler', null);
  guessed = videoLabels(2, { propagated_from: 't1-r3', updated_by: null });
  server.use(
    http.get(apiUrl('labeler/videos/1'), () =>
      ok({
        results: [video(2, { labels: guessed.reviewed ? 'reviewed' : 'propagated' }), video(1, { labels: 'labelled' })],
        count: 2,
      }),
    ),
    http.get(apiUrl('labeler/task_record/2/labels/'), () => ok(guessed)),
  );
});

test('propagated labels stand out in the list and are reviewed in the editor', async () => {
  const marks: unknown[] = [];
  server.use(
    jsonHandler('patch', 'labeler/task/mark_propagations_as_reviewed', marks, () => {
      guessed = { ...guessed, reviewed: true };
      return ok({ msg: 'Propagated labels of 1 video marked reviewed.' });
    }),
  );
  const user = userEvent.setup();
  renderApp(SCREEN);
  const list = await screen.findByRole('table', { name: 'Videos to label' });
  expect(tableRows(list).map((r) => r.slice(0, 4))).toEqual([
    ['clip-2.mp4', 'Training', '12.000 s', 'Propagated: to review'],
    ['clip-1.mp4', 'Training', '12.000 s', 'Labelled'],
  ]);
  await user.click(within(list).getByRole('button', { name: 'Review clip-2.mp4' }));

  const notice = await screen.findByRole('status', { name: 'Propagated labels' });
  expect(notice).toHaveTextContent('Model t1-r3 guessed these segments.');
  expect(tableRows(screen.getByRole('table', { name: 'Segments' })).map((r) => r[0])).toEqual(['1. Fit', '2. Check']);
  await user.click(within(notice).getByRole('button', { name: 'Mark reviewed' }));
  await waitFor(() => expect(marks).toEqual([{ task: 1, videos: [2] }]));
  expect(await screen.findByText('Propagated labels of 1 video marked reviewed.')).toBeInTheDocument();
  await waitFor(() => expect(screen.queryByRole('status', { name: 'Propagated labels' })).toBeNull());
  expect(screen.getByText('Checked (propagated from model t1-r3)')).toBeInTheDocument();
});

test('edited propagated labels are saved, not marked reviewed; a refusal is shown', async () => {
  server.use(
    http.patch(apiUrl('labeler/task/mark_propagations_as_reviewed'), () =>
      fail(400, { videos: ['Video 2 has no propagated labels of this task to review; nothing was marked.'] }),
    ),
  );
  const user = userEvent.setup();
  renderApp(`${SCREEN}?video=2`);
  const notice = await screen.findByRole('status', { name: 'Propagated labels' });
  await user.click(within(notice).getByRole('button', { name: 'Mark reviewed' }));
  expect(await screen.findByText('Video 2 has no propagated labels of this task to review; nothing was marked.')).toBeInTheDocument();

  // An edit makes them the labeler's own once saved: marking is no longer offered.
  const segments = screen.getByRole('table', { name: 'Segments' });
  await user.click(within(segments).getAllByRole('button', { name: 'Remove' })[0]!);
  expect(within(notice).getByRole('button', { name: 'Save your changes instead' })).toBeDisabled();
});

test("an engineer deletes a video's labels after confirming; Cancel keeps them", async () => {
  signInAs('org_user');
  let saved: VideoLabels = videoLabels(1);
  const deletes: unknown[] = [];
  server.use(
    http.get(apiUrl('organization/task/'), () => ok([{ id: 1, taskName: 'Assemble' }])),
    http.get(apiUrl('organization/task/videos/1'), () => ok({ results: [video(1, { labels: saved.updated_at === null ? 'none' : 'labelled' })], count: 1 })),
    http.get(apiUrl('organization/task_record/1/labels/'), () => ok(saved)),
    jsonHandler('patch', 'organization/task/delete_annotations', deletes, () => {
      saved = { ...saved, segments: [], updated_at: null, updated_by: null };
      return ok({ msg: 'Labels of 1 video deleted.' });
    }),
  );
  const user = userEvent.setup();
  renderApp('/user/label-data?task=1&video=1');
  await user.click(await screen.findByRole('button', { name: 'Delete labels' }));
  let dialog = await screen.findByRole('dialog', { name: 'Delete labels' });
  expect(dialog).toHaveTextContent('Delete all the saved labels of clip-1.mp4?');
  await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
  expect(deletes).toEqual([]);

  await user.click(screen.getByRole('button', { name: 'Delete labels' }));
  dialog = await screen.findByRole('dialog', { name: 'Delete labels' });
  await user.click(within(dialog).getByRole('button', { name: 'Delete labels' }));
  await waitFor(() => expect(deletes).toEqual([{ task: 1, videos: [1] }]));
  expect(await screen.findByText('Labels of 1 video deleted.')).toBeInTheDocument();
  expect(await screen.findByText('No segments yet: the whole video is background.')).toBeInTheDocument();
  expect(screen.queryByRole('button', { name: 'Delete labels' })).toBeNull();
});
