import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { Page, TamperingRequest, TamperingReview } from '@/api/generated';
import { formatDateTime } from '@/lib/format';
import { signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { orgsHandler } from './fixtures';

const SINCE = new Date(2026, 10, 28, 9, 30, 0).getTime();
const LATER = new Date(2026, 10, 28, 10, 0, 0).getTime();

const request = (id: number, kind: 'covered' | 'moved', extra: Partial<TamperingRequest> = {}): TamperingRequest => ({
  id,
  organization: 1,
  organization_name: 'ACME',
  device: 7,
  device_name: 'Bench 7',
  camera: `cam${id}`,
  kind,
  started_at: SINCE,
  ended_at: null,
  detail: kind === 'moved' ? '62 % of the view differs from its reference for 12 s' : 'the picture is nearly uniform',
  screenshot: kind === 'moved' ? `/api/media/shot-${id}` : null,
  screenshot_taken_at: kind === 'moved' ? SINCE : null,
  state: 'open',
  action: null,
  note: '',
  reviewed_by: null,
  reviewed_at: null,
  ...extra,
});

let rows: TamperingRequest[];
let asked: URLSearchParams[];
let reviews: { id: string; body: TamperingReview }[];
let refuse: Response | null;

beforeEach(() => {
  rows = [request(1, 'moved'), request(2, 'covered', { organization: 2, organization_name: 'Globex', device_name: 'Press 9' })];
  asked = [];
  reviews = [];
  refuse = null;
  server.use(
    orgsHandler(),
    http.get(apiUrl('telemetry/tampering_requests/'), ({ request: r }) => {
      const q = new URL(r.url).searchParams;
      asked.push(q);
      const state = q.get('state');
      const org = q.get('organization');
      const hits = rows.filter((x) => (!state || x.state === state) && (!org || String(x.organization) === org));
      return HttpResponse.json({ results: hits, count: hits.length } satisfies Page<TamperingRequest>);
    }),
    http.patch(apiUrl('telemetry/tampering_requests/:id/'), async ({ request: r, params }) => {
      const body = (await r.json()) as TamperingReview;
      reviews.push({ id: String(params.id), body });
      if (refuse) return refuse;
      const i = rows.findIndex((x) => String(x.id) === params.id);
      const row = rows[i];
      if (!row) return HttpResponse.json({ detail: 'Not found.' }, { status: 404 });
      const done: TamperingRequest = {
        ...row,
        state: 'resolved',
        action: body.action,
        note: body.note ?? '',
        reviewed_by: 'tess@acme.test',
        reviewed_at: LATER,
      };
      rows[i] = done;
      return HttpResponse.json(done);
    }),
  );
  signInAs('admin', null);
});

const table = () => screen.getByRole('table', { name: 'Tampering requests' });

test('open requests first: screenshot, device, camera, organisation, kind, since; moved ones may be accepted', async () => {
  renderApp('/admin/tampering-requests');
  expect(await screen.findByRole('heading', { level: 1, name: 'Tampering Requests' })).toBeInTheDocument();
  await waitFor(() => expect(tableRows(table())).toHaveLength(2));
  expect(asked[0]?.get('state')).toBe('open');
  const since = formatDateTime(SINCE);
  const [moved, covered] = tableRows(table());
  expect(moved?.slice(1)).toEqual(['Bench 7', 'cam1', 'ACME', 'Camera moved', `${since} (ongoing)`, 'Accept new viewDismiss']);
  expect(covered?.slice(1)).toEqual(['Press 9', 'cam2', 'Globex', 'Camera covered', `${since} (ongoing)`, 'Dismiss']);
  expect(screen.getByRole('img', { name: 'cam1 on Bench 7 when it began' })).toHaveAttribute('src', '/api/media/shot-1');
  expect(within(table()).getByText('No screenshot')).toBeInTheDocument();
});

test('accepting a new view sends accept_view with the note and shows who decided', async () => {
  const user = userEvent.setup();
  renderApp('/admin/tampering-requests?state=all');
  await waitFor(() => expect(tableRows(table())).toHaveLength(2));
  await user.click(within(table()).getByRole('button', { name: 'Accept new view' }));
  const dialog = screen.getByRole('dialog', { name: 'Accept the new view of cam1 on Bench 7' });
  await user.type(within(dialog).getByRole('textbox'), 'Bench moved to line 3');
  await user.click(within(dialog).getByRole('button', { name: 'Accept new view' }));
  await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  expect(reviews).toEqual([{ id: '1', body: { action: 'accept_view', note: 'Bench moved to line 3' } }]);
  await waitFor(() =>
    expect(tableRows(table())[0]?.[6]).toBe(`New view accepted by tess@acme.test on ${formatDateTime(LATER)} — Bench moved to line 3`),
  );
});

test('dismissing needs a note; a refusal from the server is shown in the dialog', async () => {
  const user = userEvent.setup();
  renderApp('/admin/tampering-requests');
  await waitFor(() => expect(tableRows(table())).toHaveLength(2));
  await user.click(within(table()).getAllByRole('button', { name: 'Dismiss' })[1]!);
  const dialog = screen.getByRole('dialog', { name: 'Dismiss: cam2 on Press 9' });
  await user.click(within(dialog).getByRole('button', { name: 'Dismiss' }));
  expect(within(dialog).getByText('Say why the request is dismissed.')).toBeInTheDocument();
  expect(reviews).toEqual([]);

  refuse = HttpResponse.json({ detail: 'This request was reviewed already.' }, { status: 409 });
  await user.type(within(dialog).getByRole('textbox'), 'Cover removed by the line lead');
  await user.click(within(dialog).getByRole('button', { name: 'Dismiss' }));
  expect(await within(dialog).findByText('This request was reviewed already.')).toBeInTheDocument();
  expect(reviews).toEqual([{ id: '2', body: { action: 'dismiss', note: 'Cover removed by the line lead' } }]);

  refuse = null;
  await user.click(within(dialog).getByRole('button', { name: 'Dismiss' }));
  await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  // Open only: the dismissed one is gone from the list.
  await waitFor(() => expect(tableRows(table())).toHaveLength(1));
});

test('one organisation, and resolved ones, on request', async () => {
  const user = userEvent.setup();
  renderApp('/admin/tampering-requests');
  await waitFor(() => expect(tableRows(table())).toHaveLength(2));
  await user.selectOptions(screen.getByRole('combobox', { name: 'Organization' }), 'Globex');
  await waitFor(() => expect(tableRows(table())).toHaveLength(1));
  expect(asked.at(-1)?.get('organization')).toBe('2');
  await user.selectOptions(screen.getByRole('combobox', { name: 'Requests' }), 'Resolved');
  expect(await screen.findByText('No tampering requests.')).toBeInTheDocument();
  expect(asked.at(-1)?.get('state')).toBe('resolved');
});

test('other roles cannot open Tampering Requests', async () => {
  signInAs('org_admin', 1);
  server.use(http.get(apiUrl('feature_control/subscribed_feature/'), () => HttpResponse.json([])));
  renderApp('/admin/tampering-requests');
  await waitFor(() => expect(screen.queryByRole('heading', { level: 1, name: 'Tampering Requests' })).toBeNull());
  expect(asked).toEqual([]);
});
