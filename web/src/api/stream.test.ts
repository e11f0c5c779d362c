/**
 * The device stream's client logic with a fake socket: which call an answer goes to,
 * where keyed and other events go, the back-off of a dropped socket, a stuck socket's
 * time-out, signing out, and stopping. No I/O: `src/testing/fake-socket.ts`.
 */
import type { ClientEvent, ServerEvent } from '@/api/generated';
import { sockets } from '@/testing/fake-socket';

import { ANSWER_MS, type Call, DeviceStream, type Follower, LOST, NO_ANSWER, SIGN_IN_ENDED, SIGNED_OUT, type StreamOptions } from './stream';

const devices: ServerEvent = { event: 'devices', data: [] };
/** New cycles of device `id`: an event no call waits for. */
const cycles = (id: number): ServerEvent => ({ event: 'cycles', data: { id } });
/** An OPC UA step bearing `id` (the keyed events of these tests). */
const sent = (id: string): ServerEvent => ({ event: 'discover_devices_opcua', data: { type: 'sent', id, device: 3, request: { op: 'discover' } } });
const failed = (id: string, message: string): ServerEvent => ({
  event: 'discover_devices_opcua',
  data: { type: 'failed', id, device: 3, request: { op: 'discover' }, message },
});
const ask = (device: number): ClientEvent => ({ event: 'discover_devices_opcua', data: { device, request: { op: 'discover' } } });

/** A call asking `device`, answered by a `sent`; what it heard, in words. */
function call(device: number): Call & { heard: string[] } {
  const heard: string[] = [];
  return {
    heard,
    frame: ask(device),
    answeredBy: (e) => e.event === 'discover_devices_opcua' && e.data.type === 'sent',
    answer: (e) => heard.push(e.event === 'error' ? `error ${e.data.message}` : `answer ${e.event === 'discover_devices_opcua' ? e.data.id : e.event}`),
    lost: (why) => heard.push(`lost ${why}`),
  };
}

function follower(): Follower & { heard: string[] } {
  const heard: string[] = [];
  return {
    heard,
    event: (e) => heard.push(e.event === 'discover_devices_opcua' ? e.data.type : e.event),
    lost: (why) => heard.push(`lost ${why}`),
  };
}

/** A started stream greeting with `subscribe`, keyed by the OPC UA step's id. */
function stream(opts: StreamOptions = {}) {
  const s = sockets();
  const events: string[] = [];
  const states: string[] = [];
  const x = new DeviceStream(s.connect, {
    greeting: () => ({ event: 'subscribe', data: {} }),
    keyOf: (e) => (e.event === 'discover_devices_opcua' ? e.data.id : null),
    onEvent: (e) => events.push(e.event === 'error' ? `error ${e.data.message}` : e.event),
    onState: (st) => states.push(st),
    ...opts,
  });
  x.start();
  return { s, x, events, states };
}

const run = (ms = 0) => vi.advanceTimersByTimeAsync(ms);

beforeEach(() => {
  vi.useFakeTimers();
});

test('calls wait for the socket, go after the greeting, and each hears its own answer in order', () => {
  const { s, x, events, states } = stream();
  const a = call(1);
  const b = call(2);
  x.call(a);
  x.call(b);
  expect(s.last().sent).toEqual([]);
  s.last().open();
  expect(states).toEqual(['connecting', 'live']);
  expect(s.last().sent).toEqual([{ event: 'subscribe', data: {} }, ask(1), ask(2)]);
  // The greeting's answer goes to the screen; other events between answers are no answers.
  s.last().say(devices);
  s.last().say(cycles(9));
  expect(a.heard).toEqual([]);
  s.last().say(sent('ra'));
  // An error answers the oldest still waiting.
  s.last().say({ event: 'error', data: { message: 'OPCUA Explorer is not enabled for this organization.' } });
  expect(a.heard).toEqual(['answer ra']);
  expect(b.heard).toEqual(['error OPCUA Explorer is not enabled for this organization.']);
  // With nothing waiting, an error and a stray answer are the screen's; what is not JSON is nothing.
  s.last().say({ event: 'error', data: { message: 'Send JSON text frames.' } });
  s.last().events.message('not json');
  expect(events).toEqual(['devices', 'cycles', 'error Send JSON text frames.']);
  // A call made while open goes at once.
  x.call(call(3));
  expect(s.last().sent.at(-1)).toEqual(ask(3));
});

test('keyed events go to their follower until it leaves; a key nobody follows is dropped', () => {
  const { s, x, events } = stream();
  s.last().open();
  s.last().say(devices);
  const one = follower();
  const two = follower();
  x.follow('r1', one);
  x.follow('r2', two);
  s.last().say(failed('r2', 'The device did not answer in time.'));
  s.last().say(failed('r1', 'BadNodeIdUnknown'));
  expect(one.heard).toEqual(['failed']);
  expect(two.heard).toEqual(['failed']);
  expect(x.unfollow('r1')).toBe(true);
  expect(x.unfollow('r1')).toBe(false);
  s.last().say(failed('r1', 'late'));
  s.last().say(failed('nobody', 'x'));
  expect(one.heard).toEqual(['failed']);
  expect(events).toEqual(['devices']);
});

test('a dropped socket fails what waits on it and is opened again after 1, 2, 5, 10, then every 30 s', async () => {
  const { s, x, states } = stream();
  s.last().open();
  const waiting = call(1);
  x.call(waiting);
  const f = follower();
  x.follow('r0', f);
  s.last().drop();
  expect(waiting.heard).toEqual([`lost ${LOST}`]);
  expect(f.heard).toEqual([`lost ${LOST}`]);
  expect(states).toEqual(['connecting', 'live', 'down']);
  // Nothing follows a key of the socket that went.
  expect(x.unfollow('r0')).toBe(false);
  const waits: number[] = [];
  for (let i = 0; i < 6; i++) {
    const before = s.all.length;
    let waited = 0;
    while (s.all.length === before) {
      await run(500);
      waited += 500;
    }
    waits.push(waited);
    s.last().drop();
  }
  expect(waits).toEqual([1_000, 2_000, 5_000, 10_000, 30_000, 30_000]);
  // A call made while down waits for the next socket, which greets again first.
  const later = call(2);
  x.call(later);
  await run(30_000);
  s.last().open();
  expect(s.last().sent).toEqual([{ event: 'subscribe', data: {} }, ask(2)]);
  // Once one opened, the next drop waits 1 s again.
  s.last().drop();
  expect(later.heard).toEqual([`lost ${LOST}`]);
  const n = s.all.length;
  await run(1_000);
  expect(s.all).toHaveLength(n + 1);
});

test('a call not answered in time closes the stuck socket, fails what is on it and opens another', async () => {
  const { s, x, states } = stream({ greeting: () => null });
  s.last().open();
  const answered = call(1);
  x.call(answered);
  s.last().say(sent('r1'));
  // An answered call's clock stops.
  await run(ANSWER_MS * 2);
  expect(s.all).toHaveLength(1);
  const f = follower();
  x.follow('r1', f);
  const stuck = call(2);
  x.call(stuck);
  await run(ANSWER_MS - 1);
  expect(stuck.heard).toEqual([]);
  await run(1);
  expect(stuck.heard).toEqual([`lost ${NO_ANSWER}`]);
  expect(f.heard).toEqual([`lost ${NO_ANSWER}`]);
  expect(s.all[0]!.closed).toBe(true);
  expect(states.at(-1)).toBe('down');
  // A late answer on the closed socket is nobody's.
  s.all[0]!.say(sent('r2'));
  expect(stuck.heard).toHaveLength(1);
  await run(1_000);
  expect(s.all).toHaveLength(2);
});

test('a stream whose sign-in ended is not opened again; later calls fail at once', async () => {
  const { s, x, states } = stream();
  s.last().open();
  const waiting = call(1);
  x.call(waiting);
  s.last().drop(SIGNED_OUT);
  expect(waiting.heard).toEqual([`lost ${SIGN_IN_ENDED}`]);
  await run(60_000);
  expect(s.all).toHaveLength(1);
  expect(states.at(-1)).toBe('down');
  const later = call(2);
  x.call(later);
  // Told after the call returns, never during it.
  expect(later.heard).toEqual([]);
  await run();
  expect(later.heard).toEqual([`lost ${SIGN_IN_ENDED}`]);

  // No sign-in to open one with: the same.
  const none = new DeviceStream(() => null);
  const c = call(1);
  none.call(c);
  none.start();
  expect(c.heard).toEqual([`lost ${SIGN_IN_ENDED}`]);
});

test('stop closes the socket and fails everything; calls made while stopped wait for start', () => {
  const { s, x } = stream();
  const unsent = call(1);
  x.call(unsent);
  const withdrawn = call(2);
  x.call(withdrawn);
  expect(x.withdraw(withdrawn)).toBe(true);
  expect(x.withdraw(withdrawn)).toBe(false);
  s.last().open();
  const waiting = call(3);
  x.call(waiting);
  x.stop();
  expect(s.last().closed).toBe(true);
  expect(unsent.heard).toEqual([`lost ${LOST}`]);
  expect(waiting.heard).toEqual([`lost ${LOST}`]);
  expect(withdrawn.heard).toEqual([]);
  expect(s.last().sent).toEqual([{ event: 'subscribe', data: {} }, ask(1), ask(3)]);
  // A screen shown again (React runs effects twice in development): the call waits.
  const again = call(4);
  x.call(again);
  expect(again.heard).toEqual([]);
  x.start();
  s.last().open();
  expect(s.all).toHaveLength(2);
  expect(s.last().sent).toEqual([{ event: 'subscribe', data: {} }, ask(4)]);
  // Frames nobody answers go only on an open socket.
  x.send({ event: 'unsubscribe', data: {} });
  expect(s.last().sent.at(-1)).toEqual({ event: 'unsubscribe', data: {} });
  // Stopped before its socket opened: a call not sent yet fails too.
  x.stop();
  x.start();
  const notSent = call(5);
  x.call(notSent);
  x.stop();
  expect(notSent.heard).toEqual([`lost ${LOST}`]);
  expect(s.all[2]!.sent).toEqual([]);
});
