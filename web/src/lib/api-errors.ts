/**
 * The messages of failed calls (spec section 8 "Generic handling"), from the error
 * shapes of `cloud/src/http/error.rs`: 400 `{field: [message]}`, 429 `{detail}`,
 * others `{detail, msg}`.
 */
import { ApiError } from '@/lib/api-client';

/** The login 429 message of section 8. */
export const TOO_MANY_ATTEMPTS = 'Too many attempts.Please try after 1 min.';

function firstString(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    for (const x of v) {
      const s = firstString(x);
      if (s !== null) return s;
    }
  }
  return null;
}

/** The first message of the first field (400): `{email: ["…"]}` → "…". */
export function firstFieldMessage(data: unknown): string | null {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return firstString(data);
  for (const v of Object.values(data)) {
    const s = firstString(v);
    if (s !== null) return s;
  }
  return null;
}

/**
 * The messages of a 400 by field, the first of each (`{email: ["…"]}` → `{email: "…"}`),
 * for showing next to the fields; empty for any other failure.
 */
export function fieldErrors(err: unknown): Record<string, string> {
  if (!(err instanceof ApiError) || err.status !== 400) return {};
  const { data } = err;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) {
    const s = firstString(v);
    if (s !== null) out[k] = s;
  }
  return out;
}

function field(data: unknown, name: string): unknown {
  return typeof data === 'object' && data !== null ? (data as Record<string, unknown>)[name] : undefined;
}

export type ErrorKind = 'post' | 'delete' | 'login' | 'register' | 'account';

const FALLBACK = 'Error';
const NETWORK = 'The server could not be reached. Please try again.';

/**
 * The message to show for `err` from a call of the given kind:
 * - 400: the first message of the first field (login: the first `non_field_errors`
 *   item when there is one; registration: the first e-mail error when there is one);
 * - 429: the first value of the answer (login: 'Too many attempts.Please try after 1 min.');
 * - other failures: posts show `msg` else 'Error'; deletes `detail` else 'Error';
 *   account calls the first value of the answer.
 */
export function errorMessage(err: unknown, kind: ErrorKind): string {
  if (!(err instanceof ApiError)) return NETWORK;
  const { status, data } = err;
  if (status === 429) return kind === 'login' ? TOO_MANY_ATTEMPTS : (firstFieldMessage(data) ?? FALLBACK);
  if (status === 400) {
    if (kind === 'login') return firstString(field(data, 'non_field_errors')) ?? firstFieldMessage(data) ?? FALLBACK;
    if (kind === 'register') return firstString(field(data, 'email')) ?? firstFieldMessage(data) ?? FALLBACK;
    return firstFieldMessage(data) ?? FALLBACK;
  }
  switch (kind) {
    case 'post':
      return firstString(field(data, 'msg')) ?? FALLBACK;
    case 'delete':
      return firstString(field(data, 'detail')) ?? FALLBACK;
    default:
      return firstFieldMessage(data) ?? FALLBACK;
  }
}

/**
 * A form's errors from a failed post: the fields' messages of a 400, else the call's
 * message as `non_field_errors` (shown above the form's buttons).
 */
export function formErrors(err: unknown): Record<string, string> {
  const f = fieldErrors(err);
  return Object.keys(f).length > 0 ? f : { non_field_errors: errorMessage(err, 'post') };
}
