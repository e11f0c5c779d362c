/** Helpers the screen tests share: a signed-in session and a record of the calls made. */
import { within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';

import type { Role } from '@/api/generated';
import { writeSession } from '@/lib/session';

import { apiUrl } from './server';

/** A full session of `role` (no code pending) in organisation `organization`. */
export function signInAs(role: Role, organization: number | null = 1, id = 5) {
  writeSession({
    id,
    name: 'Tess',
    role,
    token: 'tok',
    refresh: 'ref',
    sessionKey: 'sk',
    email: 'tess@acme.test',
    organization,
    organizationName: organization ? 'ACME' : null,
    require_otp: false,
    isOtpSetup: true,
  });
}

export { callsTo, recordCalls, screenCalls } from './calls';

/** A handler answering `body` as JSON, recording the JSON bodies it receives in `bodies`. */
export function jsonHandler(
  method: 'post' | 'put' | 'patch' | 'delete',
  path: string,
  bodies: unknown[],
  answer: () => Response | Promise<Response>,
) {
  return http[method](apiUrl(path), async ({ request }) => {
    const text = await request.text();
    bodies.push(text === '' ? null : (JSON.parse(text) as unknown));
    return answer();
  });
}

export const ok = (body: unknown, status = 200) => HttpResponse.json(body as never, { status });
export const fail = (status: number, body: unknown) => HttpResponse.json(body as never, { status });

/** A table's body rows as the texts of their cells (the header row left out). */
export const tableRows = (t: HTMLElement) =>
  within(t)
    .getAllByRole('row')
    .slice(1)
    .map((r) => within(r).getAllByRole('cell').map((c) => c.textContent));

/** The first column of a table's body rows. */
export const firstColumn = (t: HTMLElement) => tableRows(t).map((r) => r[0]);
