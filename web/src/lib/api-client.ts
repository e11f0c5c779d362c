/**
 * The one API client (spec section 4 "Session handling of responses", section 7).
 *
 * - Every call goes to `/api/{path}` with a JSON body; a signed-in call sends
 *   `Authorization: Bearer {token}`, `Organization: {id}` and `SessionKey: {key}`.
 *   A call may name another organisation (the super admin's choice on an admin screen).
 *   A file sent with `onUploadProgress` goes through `XMLHttpRequest` (`fetch` cannot
 *   report an upload's progress), under the same rules below.
 * - 401: one shared refresh (`POST account/token/refresh/` with the refresh token,
 *   answered `{access, refresh}`), then the call is retried once. Calls failing with
 *   401 meanwhile wait for the same refresh. A failed refresh clears the session.
 * - 303: the user must change their password: go to /change-password.
 * - 499: the session has ended: clear it.
 * - 498: a silent single-sign-on refresh (`POST account/refresh-azure-token/`) is
 *   tried once (shared like the 401 refresh); when it fails (today the server answers
 *   501), the session is cleared.
 * - Any other failure throws an `ApiError` holding the status and the answer's body,
 *   which the callers turn into the messages of section 8 (`api-errors.ts`).
 */
import type { RefreshRequest, TokenPair } from '@/api/generated';
import { paths } from '@/config/paths';
import {
  clearAllStorage,
  clearSessionState,
  readSession,
  setLoggingOut,
  writeSession,
} from '@/lib/session';

export class ApiError extends Error {
  readonly status: number;
  readonly data: unknown;
  constructor(status: number, data: unknown, message?: string) {
    super(message ?? `request failed with status ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.data = data;
  }
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type RequestOptions = {
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined | null>;
  /**
   * The bearer token to send: the session's (default), another one (the temporary
   * token of a sign-in waiting for its one-time code), or `null` for none.
   */
  token?: string | null;
  signal?: AbortSignal;
  /** Headers beside the client's own (an upload part's `Content-Range`). */
  headers?: Record<string, string>;
  /** The organisation the call acts in instead of the session's (the super admin's
   * choice on an admin screen). */
  organization?: number;
  /** Hears the bytes of the body sent so far (a file sent whole): the call then goes
   * through `XMLHttpRequest`, whose upload reports progress where `fetch`'s cannot. */
  onUploadProgress?: (sent: number, total: number) => void;
};

/** Where the client sends the browser (the router's `navigate` once the app runs). */
let navigate: (path: string) => void = (path) => window.location.assign(path);

export function setNavigator(fn: (path: string) => void) {
  navigate = fn;
}

function url(path: string, query?: RequestOptions['query']): string {
  const u = new URL(`/api/${path.replace(/^\//, '')}`, window.location.origin);
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v !== undefined && v !== null) u.searchParams.set(k, String(v));
  }
  return u.toString();
}

async function body(res: Response): Promise<unknown> {
  const text = await res.text();
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

async function send(method: Method, path: string, opts: RequestOptions, token: string | null) {
  const s = readSession();
  const headers: Record<string, string> = { Accept: 'application/json' };
  // A Blob (an upload part, a file) goes as it is; anything else as JSON.
  const raw = opts.body instanceof Blob;
  if (opts.body !== undefined) headers['Content-Type'] = raw ? 'application/octet-stream' : 'application/json';
  Object.assign(headers, opts.headers);
  const organization = opts.organization ?? s.organization;
  if (token) headers.Authorization = `Bearer ${token}`;
  if (token && organization !== null) headers.Organization = String(organization);
  if (token && s.sessionKey) headers.SessionKey = s.sessionKey;
  // A Blob's bytes are read first (a part of a few MiB, a model file of at most 64):
  // every fetch takes an ArrayBuffer.
  const body = opts.body === undefined ? undefined : raw ? await (opts.body as Blob).arrayBuffer() : JSON.stringify(opts.body);
  const to = url(path, opts.query);
  if (opts.onUploadProgress) return sendWithProgress(method, to, headers, body, opts.signal, opts.onUploadProgress);
  return fetch(to, { method, headers, body, signal: opts.signal });
}

/** Answers that carry no body (a `Response` refuses one for them). */
const NULL_BODY = new Set([101, 204, 205, 304]);

/** The call through `XMLHttpRequest`, reporting its upload's progress, answered as
 * `fetch` would: a `Response`, or a `TypeError` when the server could not be reached. */
function sendWithProgress(
  method: Method,
  to: string,
  headers: Record<string, string>,
  body: ArrayBuffer | string | undefined,
  signal: AbortSignal | undefined,
  onProgress: (sent: number, total: number) => void,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, to);
    for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.total);
    xhr.onload = () => resolve(new Response(NULL_BODY.has(xhr.status) ? null : xhr.responseText, { status: xhr.status }));
    xhr.onerror = () => reject(new TypeError('Failed to fetch'));
    xhr.onabort = () => reject(new DOMException('The upload was stopped.', 'AbortError'));
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(body ?? null);
  });
}

// The refresh in flight, shared by every call that met a 401 (or a 498) meanwhile.
let refreshing: Promise<boolean> | null = null;
let ssoRefreshing: Promise<boolean> | null = null;

async function refreshTokens(): Promise<boolean> {
  const refresh = readSession().refresh;
  if (!refresh) return false;
  try {
    const res = await send('POST', 'account/token/refresh/', { body: { refresh } satisfies RefreshRequest }, null);
    if (!res.ok) return false;
    const pair = (await res.json()) as TokenPair;
    writeSession({ token: pair.access, refresh: pair.refresh });
    return true;
  } catch {
    return false;
  }
}

async function refreshSso(): Promise<boolean> {
  const s = readSession();
  try {
    const res = await send('POST', 'account/refresh-azure-token/', { body: { access_token: s.token ?? '' } }, null);
    if (!res.ok) return false;
    const data = (await res.json()) as { access?: unknown; token?: unknown };
    const access = typeof data.access === 'string' ? data.access : typeof data.token === 'string' ? data.token : null;
    if (!access) return false;
    writeSession({ token: access });
    return true;
  } catch {
    return false;
  }
}

function shared(kind: 'jwt' | 'sso'): Promise<boolean> {
  if (kind === 'jwt') {
    refreshing ??= refreshTokens().finally(() => {
      refreshing = null;
    });
    return refreshing;
  }
  ssoRefreshing ??= refreshSso().finally(() => {
    ssoRefreshing = null;
  });
  return ssoRefreshing;
}

/** Clears the session (section 4) and returns to the login screen. */
export function endSession() {
  clearSessionState();
  navigate(paths.login);
}

export async function request<T>(method: Method, path: string, opts: RequestOptions = {}): Promise<T> {
  const res = await exchange(method, path, opts);
  const data = await body(res);
  if (!res.ok) throw new ApiError(res.status, data);
  return data as T;
}

/** A call answered with a file (the QR code's PNG). */
export async function requestBlob(method: Method, path: string, opts: RequestOptions = {}): Promise<Blob> {
  const res = await exchange(method, path, opts);
  if (!res.ok) throw new ApiError(res.status, await body(res));
  return res.blob();
}

/** Sends the call and applies the session rules; answers the final response. */
async function exchange(method: Method, path: string, opts: RequestOptions): Promise<Response> {
  const ownToken = opts.token === undefined;
  let token = ownToken ? readSession().token : (opts.token ?? null);
  let res = await send(method, path, opts, token);

  // Only the session's own token is refreshed; a temporary or no token is not.
  if (ownToken && token && (res.status === 401 || res.status === 498)) {
    const current = readSession().token;
    // Another call refreshed while this one was on its way: just retry.
    const ok = current !== null && current !== token ? true : await shared(res.status === 401 ? 'jwt' : 'sso');
    if (!ok) {
      endSession();
      throw new ApiError(res.status, await body(res));
    }
    token = readSession().token;
    res = await send(method, path, opts, token);
    if (res.status === 401 || res.status === 498) {
      endSession();
      throw new ApiError(res.status, await body(res));
    }
  }

  if (res.status === 303) {
    navigate(paths.changePassword);
    throw new ApiError(303, await body(res));
  }
  if (res.status === 499) {
    endSession();
    throw new ApiError(499, await body(res));
  }
  return res;
}

export const api = {
  get: <T>(path: string, opts?: RequestOptions) => request<T>('GET', path, opts),
  post: <T>(path: string, body?: unknown, opts?: RequestOptions) => request<T>('POST', path, { ...opts, body }),
  put: <T>(path: string, body?: unknown, opts?: RequestOptions) => request<T>('PUT', path, { ...opts, body }),
  patch: <T>(path: string, body?: unknown, opts?: RequestOptions) => request<T>('PATCH', path, { ...opts, body }),
  delete: <T>(path: string, opts?: RequestOptions) => request<T>('DELETE', path, opts),
  blob: (method: Method, path: string, opts?: RequestOptions) => requestBlob(method, path, opts),
};

/**
 * Logout (section 4): tells the server (its session and tokens stop working), then
 * clears local storage and goes to /login, whatever the server answered.
 */
export async function logout(): Promise<void> {
  const s = readSession();
  if (s.token) {
    try {
      await send('PATCH', 'account/logout/', {}, s.token);
    } catch {
      // Offline or already signed out: the local sign-out below still happens.
    }
  }
  setLoggingOut(true);
  clearAllStorage();
  navigate(paths.login);
}
