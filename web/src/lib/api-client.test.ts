import { HttpResponse, http } from 'msw';

import { apiUrl, server } from '@/testing/server';

import { ApiError, api, logout, setNavigator } from './api-client';
import { readSession, writeSession } from './session';

let went: string[] = [];
beforeEach(() => {
  went = [];
  setNavigator((p) => went.push(p));
  writeSession({
    id: 7,
    role: 'org_admin',
    token: 'old-access',
    refresh: 'refresh-1',
    sessionKey: 'sk-1',
    organization: 3,
    require_otp: false,
    isOtpSetup: true,
    hostURL: 'http://localhost:8080',
  });
  localStorage.setItem('redirectUrl', JSON.stringify('/user/tasks'));
});

const bearer = (r: Request) => r.headers.get('authorization');

/** An endpoint that accepts only `good` as token and counts its calls by token. */
function protectedEndpoint(path: string, good: string, seen: string[]) {
  return http.get(apiUrl(path), ({ request }) => {
    seen.push(bearer(request) ?? '');
    return bearer(request) === `Bearer ${good}`
      ? HttpResponse.json({ ok: path })
      : HttpResponse.json({ detail: 'Given token not valid for any token type' }, { status: 401 });
  });
}

function expectCleared() {
  const s = readSession();
  expect(s.token).toBeNull();
  expect(s.refresh).toBeNull();
  expect(s.id).toBeNull();
  expect(s.isOtpSetup).toBe(false);
  expect(s.require_otp).toBe(true);
  expect(s.hostURL).toBe('http://localhost:8080');
  expect(localStorage.getItem('redirectUrl')).toBe('"/user/tasks"');
}

test('signed-in calls send the bearer token, Organization and SessionKey headers', async () => {
  let headers: Headers | undefined;
  server.use(
    http.post(apiUrl('organization/'), async ({ request }) => {
      headers = request.headers;
      return HttpResponse.json({ got: await request.json() }, { status: 201 });
    }),
  );
  await expect(api.post('organization/', { org_name_to_display: 'X' })).resolves.toEqual({ got: { org_name_to_display: 'X' } });
  expect(headers?.get('authorization')).toBe('Bearer old-access');
  expect(headers?.get('organization')).toBe('3');
  expect(headers?.get('sessionkey')).toBe('sk-1');
  expect(headers?.get('content-type')).toBe('application/json');
});

test('a call may act in another organisation than the session’s', async () => {
  let org: string | null = null;
  server.use(http.get(apiUrl('organization/model_version'), ({ request }) => ((org = request.headers.get('organization')), HttpResponse.json([]))));
  await api.get('organization/model_version', { organization: 8 });
  expect(org).toBe('8');
});

test('a file sent with upload progress goes whole, reports its bytes, and keeps the session rules', async () => {
  const seen: string[] = [];
  let got: { type: string | null; org: string | null; bytes: number } | null = null;
  server.use(
    http.post(apiUrl('account/token/refresh/'), () => HttpResponse.json({ access: 'new-access', refresh: 'refresh-2' })),
    http.post(apiUrl('organization/model_files'), async ({ request }) => {
      seen.push(bearer(request) ?? '');
      if (bearer(request) !== 'Bearer new-access') return HttpResponse.json({ detail: 'expired' }, { status: 401 });
      got = { type: request.headers.get('content-type'), org: request.headers.get('organization'), bytes: (await request.arrayBuffer()).byteLength };
      return HttpResponse.json({ id: 4, name: new URL(request.url).searchParams.get('name') }, { status: 201 });
    }),
  );
  const progress: [number, number][] = [];
  const answer = api.post('organization/model_files', new Blob([new Uint8Array(3000)]), {
    query: { model_type: 2, name: 'm.onnx' },
    onUploadProgress: (sent, total) => progress.push([sent, total]),
  });
  await expect(answer).resolves.toEqual({ id: 4, name: 'm.onnx' });
  expect(seen).toEqual(['Bearer old-access', 'Bearer new-access']);
  expect(got).toEqual({ type: 'application/octet-stream', org: '3', bytes: 3000 });
  expect(progress.at(-1)).toEqual([3000, 3000]);

  server.use(http.post(apiUrl('organization/model_files'), () => HttpResponse.json({ file: ['This file is not an ONNX model.'] }, { status: 400 })));
  await expect(api.post('organization/model_files', new Blob(['x']), { onUploadProgress: () => {} })).rejects.toMatchObject({
    status: 400,
    data: { file: ['This file is not an ONNX model.'] },
  });
});

test('concurrent 401s share one refresh, then every call is retried with the new token', async () => {
  const refreshes: unknown[] = [];
  const seen: string[] = [];
  server.use(
    http.post(apiUrl('account/token/refresh/'), async ({ request }) => {
      refreshes.push(await request.json());
      // Slow enough that all three calls meet the same refresh.
      await new Promise((r) => setTimeout(r, 30));
      return HttpResponse.json({ access: 'new-access', refresh: 'refresh-2' });
    }),
    protectedEndpoint('a/', 'new-access', seen),
    protectedEndpoint('b/', 'new-access', seen),
    protectedEndpoint('c/', 'new-access', seen),
  );
  const got = await Promise.all([api.get('a/'), api.get('b/'), api.get('c/')]);
  expect(got).toEqual([{ ok: 'a/' }, { ok: 'b/' }, { ok: 'c/' }]);
  expect(refreshes).toEqual([{ refresh: 'refresh-1' }]);
  expect(seen.filter((t) => t === 'Bearer old-access')).toHaveLength(3);
  expect(seen.filter((t) => t === 'Bearer new-access')).toHaveLength(3);
  expect(readSession()).toMatchObject({ token: 'new-access', refresh: 'refresh-2' });
  expect(went).toEqual([]);
});

test('a 401 after another call already refreshed retries without refreshing again', async () => {
  let refreshes = 0;
  server.use(
    http.post(apiUrl('account/token/refresh/'), () => {
      refreshes++;
      return HttpResponse.json({ access: 'new-access', refresh: 'refresh-2' });
    }),
    protectedEndpoint('a/', 'new-access', []),
  );
  await api.get('a/');
  expect(refreshes).toBe(1);
  // A second sequence: the token is now valid, no refresh at all.
  await api.get('a/');
  expect(refreshes).toBe(1);
});

test('a failed refresh clears the session and goes to /login', async () => {
  server.use(
    http.post(apiUrl('account/token/refresh/'), () => HttpResponse.json({ detail: 'Token is invalid or expired' }, { status: 401 })),
    protectedEndpoint('a/', 'never', []),
  );
  const err = await api.get('a/').catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).status).toBe(401);
  expectCleared();
  expect(went).toEqual(['/login']);
});

test('a 401 again after the refresh clears the session (one refresh per call)', async () => {
  let refreshes = 0;
  server.use(
    http.post(apiUrl('account/token/refresh/'), () => {
      refreshes++;
      return HttpResponse.json({ access: 'new-access', refresh: 'refresh-2' });
    }),
    protectedEndpoint('a/', 'never', []),
  );
  await expect(api.get('a/')).rejects.toMatchObject({ status: 401 });
  expect(refreshes).toBe(1);
  expectCleared();
});

test('without a refresh token a 401 clears the session', async () => {
  writeSession({ refresh: null });
  server.use(protectedEndpoint('a/', 'never', []));
  await expect(api.get('a/')).rejects.toMatchObject({ status: 401 });
  expectCleared();
  expect(went).toEqual(['/login']);
});

test('a call with the temporary token is not refreshed on 401', async () => {
  let refreshes = 0;
  server.use(
    http.post(apiUrl('account/token/refresh/'), () => {
      refreshes++;
      return HttpResponse.json({ access: 'x', refresh: 'y' });
    }),
    http.post(apiUrl('account/verify_otp_code/'), ({ request }) => {
      expect(bearer(request)).toBe('Bearer temp');
      return HttpResponse.json({ detail: 'expired' }, { status: 401 });
    }),
  );
  await expect(api.post('account/verify_otp_code/', { otp: '123456' }, { token: 'temp' })).rejects.toMatchObject({ status: 401 });
  expect(refreshes).toBe(0);
  expect(readSession().token).toBe('old-access');
});

test('303 sends the user to change password and keeps the session', async () => {
  // The server's 303 has no Location, so a browser's fetch hands it to the caller (Fetch
  // standard, "HTTP-redirect fetch": no location URL, return the response). msw's fetch
  // interceptor would follow it to ".../null" instead, so this one answer is stubbed.
  const fetchSpy = vi
    .spyOn(globalThis, 'fetch')
    .mockResolvedValue(Response.json({ detail: 'Your password must be changed' }, { status: 303 }));
  await expect(api.get('a/')).rejects.toMatchObject({ status: 303 });
  expect(fetchSpy).toHaveBeenCalledTimes(1);
  expect(went).toEqual(['/change-password']);
  expect(readSession().token).toBe('old-access');
});

test('499 clears the session', async () => {
  server.use(http.get(apiUrl('a/'), () => HttpResponse.json({ detail: 'Your session has ended.' }, { status: 499 })));
  await expect(api.get('a/')).rejects.toMatchObject({ status: 499 });
  expectCleared();
  expect(went).toEqual(['/login']);
});

test('498 tries one silent SSO refresh; the server answering 501 clears the session', async () => {
  const ssoCalls: unknown[] = [];
  server.use(
    http.get(apiUrl('a/'), () => HttpResponse.json({ detail: 'SSO token expired' }, { status: 498 })),
    http.post(apiUrl('account/refresh-azure-token/'), async ({ request }) => {
      ssoCalls.push(await request.json());
      return HttpResponse.json({ detail: 'Single sign-on is not configured on this server.' }, { status: 501 });
    }),
  );
  await expect(Promise.all([api.get('a/'), api.get('a/')])).rejects.toMatchObject({ status: 498 });
  expect(ssoCalls).toEqual([{ access_token: 'old-access' }]);
  expectCleared();
});

test('498 with a working SSO refresh retries the call with the new token', async () => {
  server.use(
    http.get(apiUrl('a/'), ({ request }) =>
      bearer(request) === 'Bearer sso-new' ? HttpResponse.json({ ok: 1 }) : HttpResponse.json({}, { status: 498 }),
    ),
    http.post(apiUrl('account/refresh-azure-token/'), () => HttpResponse.json({ access: 'sso-new' })),
  );
  await expect(api.get('a/')).resolves.toEqual({ ok: 1 });
  expect(readSession().token).toBe('sso-new');
});

test('other failures throw the status and the answer for the caller', async () => {
  server.use(http.post(apiUrl('a/'), () => HttpResponse.json({ name: ['This field may not be blank.'] }, { status: 400 })));
  const err = (await api.post('a/', {}).catch((e: unknown) => e)) as ApiError;
  expect(err.status).toBe(400);
  expect(err.data).toEqual({ name: ['This field may not be blank.'] });
  expect(readSession().token).toBe('old-access');
});

test('logout tells the server, clears local storage and goes to /login', async () => {
  let auth: string | null = null;
  server.use(
    http.patch(apiUrl('account/logout/'), ({ request }) => {
      auth = bearer(request);
      return HttpResponse.json({ msg: 'Logged out successfully.' });
    }),
  );
  await logout();
  expect(auth).toBe('Bearer old-access');
  expect(localStorage.length).toBe(0);
  expect(went).toEqual(['/login']);
});

test('logout still signs out locally when the server cannot be reached', async () => {
  server.use(http.patch(apiUrl('account/logout/'), () => HttpResponse.error()));
  await logout();
  expect(localStorage.length).toBe(0);
  expect(went).toEqual(['/login']);
});
