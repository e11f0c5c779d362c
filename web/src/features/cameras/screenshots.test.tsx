import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { Screenshot } from '@/api/generated';
import { addDays, dayOf, isoDay, startOfDay } from '@/lib/days';
import { callsTo, fail, recordCalls, signInAs } from '@/testing/helpers';
import { fakeWebRtc } from '@/testing/live';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { SEEN, camera, device, devicesApi } from './fixtures';

const BENCH = device(7, 'Bench', true, [camera('cam0', { state: 'running', task: 3 })]);
const STORE = device(8, 'Store', false, [camera('cam0')]);
const MINUTE = 60_000;

const shot = (id: number, taken_at: number, kind: Screenshot['kind'] = 'interval'): Screenshot => ({
  id,
  device: 7,
  camera: 'cam0',
  kind,
  taken_at,
  size_bytes: 48 * 1024,
  url: `/api/media/org/1/screenshots/7/${id}.jpg?sig=s${id}`,
});

/** Twelve interval screenshots, newest first, ten a page. */
const TAKEN = Array.from({ length: 12 }, (_, i) => shot(100 - i, SEEN - i * MINUTE));

beforeEach(() => {
  fakeWebRtc();
  server.use(
    http.get(apiUrl('organization/get_screenshot_intervals'), ({ request }) => {
      const page = Number(new URL(request.url).searchParams.get('page') ?? 1);
      return HttpResponse.json({ results: TAKEN.slice((page - 1) * 10, page * 10), count: TAKEN.length });
    }),
    ...devicesApi([BENCH, STORE]),
  );
});
afterEach(() => vi.unstubAllGlobals());

async function openShots(watch: string, title: string) {
  const user = userEvent.setup();
  renderApp(`/user/cameras?watch=${encodeURIComponent(watch)}`);
  const player = await screen.findByRole('dialog', { name: title });
  await user.click(within(player).getByRole('button', { name: 'Screenshots' }));
  return { user, player };
}

const gallery = (player: HTMLElement) => within(player).findByRole('list', { name: 'Interval screenshots of cam0 on Bench' });
const alts = (list: HTMLElement) => within(list).getAllByRole('img').map((i) => i.getAttribute('alt'));

test('a screenshot is taken now and shown; a refusal shows the device\'s reason', async () => {
  signInAs('org_user', 1);
  server.use(
    http.get(apiUrl('organization/get_screenshot'), () =>
      fail(502, { detail: 'Bench could not take the screenshot: cam0 is not open.', msg: 'Bench could not take the screenshot: cam0 is not open.' }),
    ),
  );
  const rec = recordCalls();
  const { user, player } = await openShots('7/cam0', 'cam0 on Bench');

  await user.click(within(player).getByRole('button', { name: 'Take screenshot' }));
  expect(await within(player).findByRole('alert')).toHaveTextContent('Bench could not take the screenshot: cam0 is not open.');

  server.use(http.get(apiUrl('organization/get_screenshot'), () => HttpResponse.json(shot(200, SEEN + MINUTE, 'on_demand'))));
  await user.click(within(player).getByRole('button', { name: 'Take screenshot' }));
  const img = await within(player).findByRole('img', { name: 'cam0 on Bench, taken 02/03/26, 04:06:06' });
  expect(img).toHaveAttribute('src', '/api/media/org/1/screenshots/7/200.jpg?sig=s200');
  expect(img.closest('a')).toHaveAttribute('href', '/api/media/org/1/screenshots/7/200.jpg?sig=s200');
  expect(within(player).queryByRole('alert')).toBeNull();
  expect(callsTo(rec, 'GET', 'organization/get_screenshot').map((c) => c.query.toString())).toEqual(['device=7&camera=cam0', 'device=7&camera=cam0']);
});

test("the camera's interval screenshots over the last seven days, a page at a time; another range goes to page 1", async () => {
  signInAs('org_user', 1);
  const rec = recordCalls();
  const { user, player } = await openShots('7/cam0', 'cam0 on Bench');

  const first = await gallery(player);
  expect(alts(first)).toHaveLength(10);
  expect(alts(first)[0]).toBe('cam0 on Bench, taken 02/03/26, 04:05:06');
  expect(within(player).getByText(/Page 1 of 2 \(12 entries\)/)).toBeInTheDocument();
  const today = startOfDay(new Date());
  const asked = () => callsTo(rec, 'GET', 'organization/get_screenshot_intervals').map((c) => Object.fromEntries(c.query));
  expect(asked()[0]).toEqual({
    device: '7',
    camera: 'cam0',
    datetime_start: String(addDays(today, -6).getTime()),
    datetime_end: String(addDays(today, 1).getTime() - 1),
    page: '1',
  });

  await user.click(within(player).getByRole('button', { name: 'Next' }));
  await waitFor(async () => expect(alts(await gallery(player))).toEqual(['cam0 on Bench, taken 02/03/26, 03:55:06', 'cam0 on Bench, taken 02/03/26, 03:54:06']));
  expect(asked().at(-1)?.page).toBe('2');

  const from = isoDay(addDays(today, -30));
  fireEvent.change(within(player).getByLabelText('From'), { target: { value: from } });
  await waitFor(() => expect(asked().at(-1)).toMatchObject({ datetime_start: String(dayOf(from).getTime()), page: '1' }));
});

test("an offline device's camera cannot be asked for a screenshot; its gallery still shows", async () => {
  signInAs('org_user', 1);
  server.use(http.get(apiUrl('organization/get_screenshot_intervals'), () => HttpResponse.json({ results: [], count: 0 })));
  const rec = recordCalls();
  const { player } = await openShots('8/cam0', 'cam0 on Store');
  expect(within(player).getByRole('button', { name: 'Take screenshot' })).toBeDisabled();
  expect(within(player).getByText('Store is offline: a screenshot can be taken once it is back.')).toBeInTheDocument();
  expect(await within(player).findByText("No screenshots taken at the device's interval in these days.")).toBeInTheDocument();
  expect(callsTo(rec, 'GET', 'organization/get_screenshot')).toHaveLength(0);
});
