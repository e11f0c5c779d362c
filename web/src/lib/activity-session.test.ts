import { HttpResponse, http } from 'msw';

import { apiUrl, server } from '@/testing/server';

import { activityStep, browserOf, checkActivity } from './activity-session';
import { readSession, writeSession } from './session';

const T = 1_000_000;

describe('activityStep (section 4: create on focus, extend after 20 s, end after 120 s without focus)', () => {
  const none = { sessionId: null, sessionEndTime: null };
  const live = (end: number) => ({ sessionId: 5, sessionEndTime: end });

  test('focus without a session creates one', () => {
    expect(activityStep(none, T, true, T)).toBe('create');
  });
  test('no focus and no session does nothing', () => {
    expect(activityStep(none, T, false, T - 500_000)).toBe('none');
  });
  test('an end time up to 20 s old is left alone; older is extended', () => {
    expect(activityStep(live(T - 20_000), T, true, T)).toBe('none');
    expect(activityStep(live(T - 20_001), T, true, T)).toBe('update');
  });
  test('the session ends after 120 s without focus, not before', () => {
    expect(activityStep(live(T - 30_000), T, false, T - 119_999)).toBe('none');
    expect(activityStep(live(T - 30_000), T, false, T - 120_000)).toBe('clear');
  });
});

test('browserOf names the browser and its major version', () => {
  const chrome = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.8078.73 Safari/537.36';
  expect(browserOf(chrome)).toEqual({ browser: 'Chrome', browser_version: '156' });
  expect(browserOf(`${chrome} Edg/150.0.1`)).toEqual({ browser: 'Edge', browser_version: '150' });
  expect(browserOf('Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0')).toEqual({ browser: 'Firefox', browser_version: '140' });
  expect(browserOf('curl/8')).toEqual({ browser: 'Other', browser_version: '' });
});

describe('checkActivity against the API', () => {
  let calls: string[] = [];
  beforeEach(() => {
    calls = [];
    writeSession({ id: 7, token: 'tok', require_otp: false, organization: 1, sessionId: null, sessionEndTime: null });
    server.use(
      http.post(apiUrl('account/session/create/'), async ({ request }) => {
        const body = (await request.json()) as { user: number; browser: string };
        calls.push(`create user=${body.user} browser=${body.browser !== ''}`);
        return HttpResponse.json({ id: 42, user: 7, browser: 'Chrome', browser_version: '1', end_time: T }, { status: 201 });
      }),
      http.patch(apiUrl('account/session/update/:id/'), ({ params }) => {
        calls.push(`update ${String(params.id)}`);
        return params.id === '42' ? HttpResponse.json({ end_time: T + 30_000 }) : HttpResponse.json({ detail: 'Not found.' }, { status: 404 });
      }),
    );
  });

  test('creates, extends, then forgets the session as focus comes and goes', async () => {
    expect(await checkActivity(T, true, T)).toBe('create');
    expect(readSession()).toMatchObject({ sessionId: 42, sessionEndTime: T, sessionUser: 7 });
    expect(await checkActivity(T + 10_000, true, T + 10_000)).toBe('none');
    expect(await checkActivity(T + 30_000, true, T + 30_000)).toBe('update');
    expect(readSession().sessionEndTime).toBe(T + 30_000);
    expect(await checkActivity(T + 150_000, false, T + 30_000)).toBe('clear');
    expect(readSession()).toMatchObject({ sessionId: null, sessionEndTime: null, sessionUser: null });
    expect(calls).toEqual(['create user=7 browser=true', 'update 42']);
  });

  test('a session the server no longer has is forgotten, and the next focus creates one', async () => {
    writeSession({ sessionId: 9, sessionEndTime: T - 60_000 });
    expect(await checkActivity(T, true, T)).toBe('update');
    expect(readSession().sessionId).toBeNull();
    expect(await checkActivity(T + 10_000, true, T + 10_000)).toBe('create');
    expect(calls).toEqual(['update 9', 'create user=7 browser=true']);
  });

  test('signed out: nothing is sent', async () => {
    writeSession({ token: null });
    expect(await checkActivity(T, true, T)).toBe('none');
    expect(calls).toEqual([]);
  });
});
