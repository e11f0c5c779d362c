import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { BlurRegionsWrite, DeviceBlurRegion, Screenshot } from '@/api/generated';
import { DATA_UPDATED } from '@/config/messages';
import { callsTo, fail, recordCalls, signInAs } from '@/testing/helpers';
import { fakeWebRtc } from '@/testing/live';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { SEEN, camera, device, devicesApi, devicesFeature } from './fixtures';

const BENCH = device(7, 'Bench', true, [camera('cam0', { state: 'running', task: 3 })]);
const STORE = device(8, 'Store', false, [camera('cam0')]);

const shot = (camera: string): Screenshot => ({
  id: 40,
  device: 7,
  camera,
  kind: 'on_demand',
  taken_at: SEEN,
  size_bytes: 2048,
  url: `/api/media/org/1/screenshots/7/40.jpg?sig=abc`,
});

/** The regions as the server keeps them: a refused save changes nothing. */
class FakeBlur {
  regions: DeviceBlurRegion[] = [{ id: 11, device: 7, camera: 'cam0', x: 0.1, y: 0.2, width: 0.3, height: 0.4, created_at: SEEN }];
  refuse: string | null = null;
  private next = 12;

  handlers() {
    return [
      http.get(apiUrl('device/blur_regions'), ({ request }) => {
        const q = new URL(request.url).searchParams;
        return HttpResponse.json(this.regions.filter((r) => r.device === Number(q.get('device')) && r.camera === q.get('camera')));
      }),
      http.put(apiUrl('device/blur_regions'), async ({ request }) => {
        const body = (await request.json()) as BlurRegionsWrite;
        if (this.refuse) return fail(400, { regions: [this.refuse] });
        const others = this.regions.filter((r) => !(r.device === body.device && r.camera === body.camera));
        const mine = body.regions.map((r) => ({ id: this.next++, device: body.device, camera: body.camera, ...r, created_at: SEEN }));
        this.regions = [...others, ...mine];
        return HttpResponse.json(mine);
      }),
      http.get(apiUrl('organization/get_screenshot'), ({ request }) => HttpResponse.json(shot(new URL(request.url).searchParams.get('camera') ?? ''))),
    ];
  }
}

let fake: FakeBlur;
beforeEach(() => {
  fakeWebRtc();
  fake = new FakeBlur();
  server.use(...fake.handlers(), ...devicesApi([BENCH, STORE]));
});
afterEach(() => vi.unstubAllGlobals());

/** Opens the player of `watch` on its blur regions. */
async function openBlur(watch: string, title: string) {
  const user = userEvent.setup();
  renderApp(`/user/cameras?watch=${encodeURIComponent(watch)}`);
  const player = await screen.findByRole('dialog', { name: title });
  await user.click(within(player).getByRole('button', { name: 'Blur regions' }));
  return { user, player };
}

/** The frame as laid out on screen: 400 × 300 px at (0, 0). */
function frame(player: HTMLElement, title: string) {
  const el = within(player).getByRole('group', { name: `Frame of ${title}` });
  el.getBoundingClientRect = () => ({ left: 0, top: 0, width: 400, height: 300, right: 400, bottom: 300, x: 0, y: 0, toJSON: () => ({}) });
  return el;
}

/** A drag from one pixel of the frame to another (`pointerType`: mouse or a finger). */
function drag(el: HTMLElement, from: [number, number], to: [number, number], pointerType = 'mouse') {
  const at = (p: [number, number]) => ({ clientX: p[0], clientY: p[1], pointerId: 1, button: 0, pointerType });
  fireEvent.pointerDown(el, at(from));
  fireEvent.pointerMove(el, at([(from[0] + to[0]) / 2, (from[1] + to[1]) / 2]));
  fireEvent.pointerMove(el, at(to));
  fireEvent.pointerUp(el, at(to));
}

const list = (player: HTMLElement) => within(player).getByRole('list', { name: 'Blur regions of cam0 on Bench' });
const items = (player: HTMLElement) => within(list(player)).getAllByRole('listitem').map((li) => li.textContent);

test('regions are drawn by dragging (mouse or finger) and deleted; a refused save keeps the drawing and saves nothing', async () => {
  signInAs('org_admin', 1);
  server.use(devicesFeature());
  const rec = recordCalls();
  const { user, player } = await openBlur('7/cam0', 'cam0 on Bench');

  expect(await within(player).findByRole('img', { name: 'cam0 on Bench, taken 02/03/26, 04:05:06' })).toHaveAttribute('src', shot('cam0').url);
  await waitFor(() => expect(items(player)).toEqual(['Region 1: from 10% across, 20% down, 30% wide, 40% high Delete']));
  expect(callsTo(rec, 'GET', 'organization/get_screenshot')[0]!.query.toString()).toBe('device=7&camera=cam0');
  expect(within(player).getByRole('button', { name: 'Save regions' })).toBeDisabled();

  const el = frame(player, 'cam0 on Bench');
  drag(el, [300, 225], [200, 150]);
  drag(el, [20, 30], [60, 300], 'touch');
  // A click draws nothing.
  drag(el, [100, 100], [101, 101]);
  expect(items(player)).toEqual([
    'Region 1: from 10% across, 20% down, 30% wide, 40% high Delete',
    'Region 2: from 50% across, 50% down, 25% wide, 25% high Delete',
    'Region 3: from 5% across, 10% down, 10% wide, 90% high Delete',
  ]);
  await user.click(within(player).getByRole('button', { name: 'Delete region 1' }));
  expect(within(player).getByRole('status')).toHaveTextContent('Not saved yet.');

  fake.refuse = 'A device has at most 64 blur regions.';
  await user.click(within(player).getByRole('button', { name: 'Save regions' }));
  expect(await within(player).findByRole('alert')).toHaveTextContent('A device has at most 64 blur regions.');
  expect(fake.regions.map((r) => r.id)).toEqual([11]);
  expect(items(player)).toHaveLength(2);

  fake.refuse = null;
  await user.click(within(player).getByRole('button', { name: 'Save regions' }));
  expect(await screen.findByText(DATA_UPDATED)).toBeInTheDocument();
  await waitFor(() => expect(within(player).queryByRole('status')).toBeNull());
  expect(items(player)).toEqual([
    'Region 1: from 50% across, 50% down, 25% wide, 25% high Delete',
    'Region 2: from 5% across, 10% down, 10% wide, 90% high Delete',
  ]);
  const sent = { device: 7, camera: 'cam0', regions: [{ x: 0.5, y: 0.5, width: 0.25, height: 0.25 }, { x: 0.05, y: 0.1, width: 0.1, height: 0.9 }] };
  // One call per save: all of it or, refused, nothing.
  expect(callsTo(rec, 'PUT', 'device/blur_regions').map((c) => c.body)).toEqual([sent, sent]);
  expect(callsTo(rec, 'DELETE', 'device/delete_blur_regions')).toHaveLength(0);
});

test('by keyboard the focused frame draws a region with the arrow keys and Enter; Escape puts a moved box back, then closes', async () => {
  signInAs('org_admin', 1);
  server.use(devicesFeature());
  const { user, player } = await openBlur('7/cam0', 'cam0 on Bench');
  await waitFor(() => expect(items(player)).toHaveLength(1));
  const el = frame(player, 'cam0 on Bench');
  el.focus();
  // From the middle fifth: 10% right, 5% down, 5% wider.
  await user.keyboard('{Shift>}{ArrowRight}{/Shift}{ArrowDown}{ArrowDown}{ArrowDown}{ArrowDown}{ArrowDown}{Alt>}{Shift>}{ArrowRight}{/Shift}{/Alt}-');
  expect(within(el).getByText(/^Region from /)).toHaveTextContent('Region from 50% across, 45% down, 29% wide, 19% high.');
  await user.keyboard('{Enter}');
  expect(items(player)).toEqual([
    'Region 1: from 10% across, 20% down, 30% wide, 40% high Delete',
    'Region 2: from 50% across, 45% down, 29% wide, 19% high Delete',
  ]);
  await user.keyboard('{ArrowLeft}{Escape}');
  expect(within(el).getByText('Region cancelled.')).toBeInTheDocument();
  await user.keyboard('{Enter}');
  expect(items(player)).toHaveLength(3);
  expect(items(player)[2]).toBe('Region 3: from 40% across, 40% down, 20% wide, 20% high Delete');
  // An unmoved box lets Escape through to the dialog.
  await user.keyboard('{Escape}');
  await waitFor(() => expect(screen.queryByRole('dialog', { name: 'cam0 on Bench' })).toBeNull());
});

test('discarding goes back to the saved regions', async () => {
  signInAs('org_admin', 1);
  server.use(devicesFeature());
  const { user, player } = await openBlur('7/cam0', 'cam0 on Bench');
  await waitFor(() => expect(items(player)).toHaveLength(1));
  await user.click(within(player).getByRole('button', { name: 'Delete region 1' }));
  expect(within(player).getByText('No blur regions: nothing of this camera is blurred.')).toBeInTheDocument();
  await user.click(within(player).getByRole('button', { name: 'Discard changes' }));
  expect(items(player)).toHaveLength(1);
  expect(within(player).getByRole('button', { name: 'Save regions' })).toBeDisabled();
});

test("a role without the 'Devices' subscription sees the regions and cannot change them", async () => {
  signInAs('org_user', 1);
  const { player } = await openBlur('7/cam0', 'cam0 on Bench');
  await waitFor(() => expect(items(player)).toEqual(['Region 1: from 10% across, 20% down, 30% wide, 40% high']));
  drag(frame(player, 'cam0 on Bench'), [300, 225], [200, 150]);
  expect(items(player)).toHaveLength(1);
  expect(frame(player, 'cam0 on Bench')).not.toHaveAttribute('tabindex');
  expect(within(player).queryByRole('button', { name: /^(Delete region|Save regions|Discard)/ })).toBeNull();
});

test('without a picture (the device did not send one, or is offline) regions are still drawn on the empty frame', async () => {
  signInAs('org_admin', 1);
  server.use(
    devicesFeature(),
    http.get(apiUrl('organization/get_screenshot'), () =>
      fail(504, { detail: 'Bench did not send the screenshot within 10 s.', msg: 'Bench did not send the screenshot within 10 s.' }),
    ),
  );
  const rec = recordCalls();
  const { player } = await openBlur('7/cam0', 'cam0 on Bench');
  expect(await within(player).findByRole('alert')).toHaveTextContent('No picture: Bench did not send the screenshot within 10 s.');
  await waitFor(() => expect(items(player)).toHaveLength(1));
  drag(frame(player, 'cam0 on Bench'), [0, 0], [40, 30]);
  expect(items(player)).toHaveLength(2);
  expect(callsTo(rec, 'GET', 'organization/get_screenshot')).toHaveLength(1);
});

test("an offline device's camera is not asked for a picture", async () => {
  signInAs('org_admin', 1);
  server.use(devicesFeature());
  const rec = recordCalls();
  const { player } = await openBlur('8/cam0', 'cam0 on Store');
  expect(await within(player).findByText('No picture while Store is offline. Regions saved now apply once it is back.')).toBeInTheDocument();
  expect(await within(player).findByText('No blur regions: nothing of this camera is blurred.')).toBeInTheDocument();
  expect(within(player).getByRole('button', { name: 'New picture' })).toBeDisabled();
  expect(callsTo(rec, 'GET', 'organization/get_screenshot')).toHaveLength(0);
});
