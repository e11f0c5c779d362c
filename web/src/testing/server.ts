/** The msw server the unit tests answer API calls with (`server.use(...)` per test). */
import { setupServer } from 'msw/node';

export const server = setupServer();

/** `/api/{path}` on the test origin. */
export const apiUrl = (path: string) => new URL(`/api/${path}`, window.location.origin).toString();
