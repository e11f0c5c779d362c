import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { AnnotationProgress, Page } from '@/api/generated';
import { formatDateTime } from '@/lib/format';
import { signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { ORGS } from './fixtures';

const CHANGED = new Date(2026, 10, 26, 11, 15, 0).getTime();

let asked: URLSearchParams[];
beforeEach(() => {
  const rows: AnnotationProgress[] = [
    {
      task: 7,
      taskName: 'Pump / A',
      organization: 1,
      org_name_to_display: 'ACME',
      videos: 3,
      labelled_videos: 2,
      reviewed_videos: 1,
      to_review: 1,
      segments: 5,
      labelers: 1,
      last_change: CHANGED,
    },
    {
      task: 8,
      taskName: 'Valve',
      organization: 2,
      org_name_to_display: 'Globex',
      videos: 0,
      labelled_videos: 0,
      reviewed_videos: 0,
      to_review: 0,
      segments: 0,
      labelers: 0,
      last_change: null,
    },
  ];
  asked = [];
  server.use(
    http.get(apiUrl('organization/'), () => HttpResponse.json(ORGS)),
    http.get(apiUrl('admin/annotations/'), ({ request }) => {
      const q = new URL(request.url).searchParams;
      asked.push(q);
      const org = Number(q.get('organization'));
      const hits = rows.filter((r) => !org || r.organization === org);
      return HttpResponse.json({ results: hits, count: hits.length } satisfies Page<AnnotationProgress>);
    }),
  );
  signInAs('admin', null);
});

const table = () => screen.getByRole('table', { name: 'Annotations' });

test("every organisation's labelling progress per operation, each linking to its videos; filtered by organisation", async () => {
  const user = userEvent.setup();
  renderApp('/admin/annotations');
  expect(await screen.findByRole('heading', { level: 1, name: 'Annotations' })).toBeInTheDocument();
  await waitFor(() => expect(tableRows(table())).toHaveLength(2));
  expect(tableRows(table())).toEqual([
    ['Pump / A', 'ACME', '3', '2 of 3', '1 of 3', '1', '5', '1', formatDateTime(CHANGED)],
    ['Valve', 'Globex', '0', '0 of 0', '0 of 0', '0', '0', '0', 'Never'],
  ]);
  expect(screen.getByRole('link', { name: 'Videos of Pump / A' })).toHaveAttribute('href', '/admin/task-videos/7/Pump%20%2F%20A');

  await user.selectOptions(await screen.findByRole('combobox', { name: 'Organization' }), 'Globex');
  await waitFor(() => expect(tableRows(table())).toHaveLength(1));
  expect(asked.at(-1)?.get('organization')).toBe('2');
});

test('other roles cannot open Annotations', async () => {
  signInAs('org_user', 1);
  server.use(http.get(apiUrl('feature_control/subscribed_feature/'), () => HttpResponse.json([])));
  renderApp('/admin/annotations');
  await waitFor(() => expect(screen.queryByRole('heading', { level: 1, name: 'Annotations' })).toBeNull());
  expect(asked).toEqual([]);
});
