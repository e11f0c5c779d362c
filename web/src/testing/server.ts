/** The msw server the unit tests answer API calls with (`server.use(...)` per test). */
import { HttpResponse, http, ws } from 'msw';
import { setupServer } from 'msw/node';

/** `/api/{path}` on the test origin. */
export const apiUrl = (path: string) => new URL(`/api/${path}`, window.location.origin).toString();

/** The device stream, `/api/ws` (any query). */
export const deviceStream = ws.link(/^wss?:\/\/[^/]+\/api\/ws(\?.*)?$/);

/**
 * Answers every test starts with (kept by `resetHandlers`): the signed-in layout asks
 * for the organisation's features on every screen, possibly after a test's last check.
 */
const defaults = [
  http.get(apiUrl('feature_control/subscribed_feature/'), () => HttpResponse.json([])),
  // The signed-in layout keeps an activity session (lib/activity-session.ts).
  http.post(apiUrl('account/session/create/'), () =>
    HttpResponse.json({ id: 1, user: 1, browser: 'Other', browser_version: '', end_time: Date.now() }, { status: 201 }),
  ),
  http.patch(apiUrl('account/session/update/:id/'), () => HttpResponse.json({ end_time: Date.now() })),
  // The devices screens open the device stream; by default it is open and quiet.
  deviceStream.addEventListener('connection', () => {}),
];

export const server = setupServer(...defaults);
