/** What the msw server saw, for asserting that a form sent something, or nothing. */
import { server } from './server';

export type Call = {
  method: string;
  /** Without `/api/`. */
  path: string;
  query: URLSearchParams;
  headers: Headers;
  authorization: string | null;
  /** The JSON body (`null` when none, the text when it is not JSON), filled in as it is read. */
  body: unknown;
};

/** Records every API call from now on. Listeners end with the test (`setup.ts`
 * removes them). */
export function recordCalls(): Call[] {
  const calls: Call[] = [];
  server.events.on('request:start', ({ request }) => {
    const u = new URL(request.url);
    const call: Call = {
      method: request.method,
      path: u.pathname.replace(/^\/api\//, ''),
      query: u.searchParams,
      headers: request.headers,
      authorization: request.headers.get('authorization'),
      body: null,
    };
    calls.push(call);
    void request
      .clone()
      .text()
      .then((t) => {
        try {
          call.body = t === '' ? null : (JSON.parse(t) as unknown);
        } catch {
          call.body = t; // not JSON (a file)
        }
      });
  });
  return calls;
}

/** The calls to `path` with `method`. */
export const callsTo = (calls: Call[], method: string, path: string) => calls.filter((c) => c.method === method && c.path === path);

/** The calls other than the shell's own bookkeeping (features, activity session). */
export const screenCalls = (calls: Call[]) =>
  calls.filter((c) => !c.path.startsWith('feature_control/subscribed_feature') && !c.path.startsWith('account/session/'));

/** The calls as "METHOD path". */
export const names = (calls: Call[]) => calls.map((c) => `${c.method} ${c.path}`);
