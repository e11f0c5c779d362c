import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { Page, Video } from '@/api/generated';
import { signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';
import { video } from '@/testing/videos';

import { filterOf } from './components/task-videos-screen';

const VIDEOS: Video[] = [
  video(1, { task: 40, file_name: 'morning.mp4', no_of_comments: 2 }),
  video(2, { task: 40, file_name: 'night.mp4', isUploadedVideo: false, tags: ['slow'] }),
  video(3, { task: 40, file_name: 'late.mp4', status: 'uploading', url: null, received_bytes: 500_000 }),
];

let seen: { path: string; q: URLSearchParams; org: string | null }[];
beforeEach(() => {
  seen = [];
  server.use(
    http.get(apiUrl('organization/task/videos/:task'), ({ request, params }) => {
      const q = new URL(request.url).searchParams;
      seen.push({ path: String(params.task), q, org: request.headers.get('Organization') });
      const type = q.get('isUploadedVideo');
      const hits = VIDEOS.filter((v) => type === null || String(v.isUploadedVideo) === type);
      return HttpResponse.json({ results: hits, count: hits.length } satisfies Page<Video>);
    }),
  );
  signInAs('admin', null);
});

test("an operation's videos, filtered, a ready one played", async () => {
  const user = userEvent.setup();
  renderApp('/admin/task-videos/40/Weld%20seam');
  expect(await screen.findByRole('heading', { name: 'Task Videos' })).toBeInTheDocument();
  expect(screen.getByText('Weld seam')).toBeInTheDocument();
  const table = () => screen.getByRole('table', { name: 'Task videos' });
  await screen.findByRole('table', { name: 'Task videos' });
  expect(tableRows(table()).map((r) => r.slice(1, 5))).toEqual([
    ['morning.mp4', 'Training', '—', '2'],
    ['night.mp4', 'Trace', 'slow', '0'],
    ['late.mp4 (uploading, 50%)', 'Training', '—', '0'],
  ]);
  // The task's own organisation is the server's to find: the session names none.
  expect(seen[0]).toMatchObject({ path: '40', org: null });

  await user.selectOptions(screen.getByRole('combobox', { name: 'Video type' }), 'false');
  await waitFor(() => expect(tableRows(table()).map((r) => r[1])).toEqual(['night.mp4']));
  expect(seen.at(-1)?.q.get('isUploadedVideo')).toBe('false');
  await user.selectOptions(screen.getByRole('combobox', { name: 'Order' }), '-no_of_comments');
  await waitFor(() => expect(seen.at(-1)?.q.get('ordering')).toBe('-no_of_comments'));
  expect(seen.at(-1)?.q.get('isUploadedVideo')).toBe('false');

  await user.click(screen.getByRole('button', { name: 'Play night.mp4' }));
  expect(screen.getByLabelText<HTMLVideoElement>('Playing night.mp4')).toHaveAttribute('src', '/api/media/2');
});

test('the filters come from the address, anything unknown read as none', () => {
  expect(filterOf({ type: 'true', from: '2026-11-01', to: '', ordering: 'no_of_comments' })).toEqual({
    isUploadedVideo: 'true',
    from: '2026-11-01',
    to: '',
    ordering: 'no_of_comments',
  });
  expect(filterOf({ type: 'maybe', from: '', to: '', ordering: 'name' })).toEqual({ isUploadedVideo: '', from: '', to: '', ordering: '' });
});
