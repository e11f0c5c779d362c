/**
 * Field rules checked before a form sends anything (spec section 5), the same rules
 * and messages as the server's `gemba_shared::validate` (`shared/src/validate.rs`), so
 * the portal refuses exactly what the server would. Each answers the message to show,
 * or `null` when the value is fine.
 *
 * An empty field answers '{Field} is required!' (the spec's message for names, used
 * for every required field; docs/decisions.md "Account forms").
 *
 * Lengths count Unicode code points, as Rust's `chars().count()` does. The longest
 * lengths are the server's (`MAX_CHARS`, `BODY_LIMITS`: generated from
 * `shared/src/validate.rs` and `shared/src/api/v1/lengths.rs`); forms put them on their
 * inputs as `maxLength` (which counts UTF-16 units, so it stops astral characters such
 * as emoji early, never late) and check them with `maxChars` before sending.
 */
import { BODY_LIMITS, MAX_CHARS } from '@/api/generated';

export { BODY_LIMITS, MAX_CHARS };

export const INVALID_NAME_MESSAGE = 'Invalid Name. Valid name only contain letters, dashes (-) and spaces';
export const INVALID_EMAIL_MESSAGE = 'Enter a valid email address.';
export const PASSWORD_MIN_LEN = 8;
export const PASSWORD_MAX_LEN = 128;
export const PASSWORD_TOO_SHORT = 'This password is too short. It must contain at least 8 characters.';
export const PASSWORD_TOO_LONG = 'This password is too long. It must contain at most 128 characters.';
export const PASSWORD_NUMERIC = 'This password is entirely numeric.';
export const PASSWORD_NEEDS_NON_LETTER = 'This password must contain at least one digit or symbol.';

/** '{Field} is required!' (spec section 5). */
export const requiredMessage = (field: string) => `${field} is required!`;

/** Trims as the server does (Rust's `str::trim`: Unicode White_Space, which differs from
 * JavaScript's `trim` on U+FEFF and U+0085). */
export const trimWs = (v: string) => v.replace(/^\p{White_Space}+|\p{White_Space}+$/gu, '');

const LETTER = /^\p{Alphabetic}$/u;
const SEPARATOR = /^[-' ]$/;

/** A person's name: letters, with single dashes, apostrophes or spaces between letters. */
export function personName(field: string, value: string): string | null {
  const v = trimWs(value);
  if (v === '') return requiredMessage(field);
  let prevSep = true; // the name must start with a letter
  for (const c of v) {
    if (LETTER.test(c)) prevSep = false;
    else if (SEPARATOR.test(c)) {
      if (prevSep) return INVALID_NAME_MESSAGE;
      prevSep = true;
    } else return INVALID_NAME_MESSAGE;
  }
  return prevSep ? INVALID_NAME_MESSAGE : null;
}

const SPACE_OR_CONTROL = /[\p{White_Space}\p{Cc}]/u;

/** A plausible e-mail address: one `@`, a non-empty local part of at most 64 bytes, a
 * dotted domain of labels of at most 63, no spaces. */
export function email(field: string, value: string): string | null {
  const v = trimWs(value);
  if (v === '') return requiredMessage(field);
  if (new TextEncoder().encode(v).length > 254 || SPACE_OR_CONTROL.test(v)) return INVALID_EMAIL_MESSAGE;
  const at = v.indexOf('@');
  if (at < 0) return INVALID_EMAIL_MESSAGE;
  const local = v.slice(0, at);
  const domain = v.slice(at + 1);
  const bytes = (s: string) => new TextEncoder().encode(s).length;
  if (
    local === '' ||
    bytes(local) > 64 ||
    domain.split('.').some((l) => bytes(l) > 63) ||
    domain.includes('@') ||
    !domain.includes('.') ||
    domain.startsWith('.') ||
    domain.endsWith('.') ||
    domain.includes('..')
  ) {
    return INVALID_EMAIL_MESSAGE;
  }
  return null;
}

/** Password strength: 8–128 characters, not only digits, not only letters. */
export function password(field: string, value: string): string | null {
  if (value === '') return requiredMessage(field);
  const n = [...value].length;
  if (n < PASSWORD_MIN_LEN) return PASSWORD_TOO_SHORT;
  if (n > PASSWORD_MAX_LEN) return PASSWORD_TOO_LONG;
  if (/^[0-9]+$/.test(value)) return PASSWORD_NUMERIC;
  if (/^\p{Alphabetic}+$/u.test(value)) return PASSWORD_NEEDS_NON_LETTER;
  return null;
}

export const OTP_MESSAGE = 'Please enter the 6-digit OTP';

/** A one-time code: exactly six digits, spaces around them dropped (section 5 OTP rule,
 * `validate::otp`). */
export function otp(value: string): string | null {
  return /^[0-9]{6}$/.test(trimWs(value)) ? null : OTP_MESSAGE;
}

export const MOBILE_NUMBER_MESSAGE = 'Enter a valid mobile number, e.g. +4915112345678.';

/** A mobile number for SMS codes: 8 to 15 digits, optionally after a `+`; spaces, dashes
 * and brackets are dropped. */
export function mobileNumber(field: string, value: string): string | null {
  if (trimWs(value) === '') return requiredMessage(field);
  const number = trimWs(value).replace(/[ \-()]/g, '');
  const digits = number.startsWith('+') ? number.slice(1) : number;
  return digits.length >= 8 && digits.length <= 15 && /^[0-9]+$/.test(digits) ? null : MOBILE_NUMBER_MESSAGE;
}

/** '{Field} must be at most {max} characters.' (`validate::too_long_message`). */
export const tooLongMessage = (label: string, max: number) => `${label} must be at most ${max} characters.`;

/** `value` is at most `max` code points (`validate::max_chars`), counted as sent. */
export function maxChars(label: string, value: string, max: number): string | null {
  return [...value].length > max ? tooLongMessage(label, max) : null;
}

/** A required name (an organisation's, a department's, a role's) of at most `max`
 * characters, counted after trimming (the form sends it trimmed); the server's length
 * message. */
export function checkName(value: string, field: string, max: number = MAX_CHARS.NAME): string | null {
  const v = trimWs(value);
  if (v === '') return requiredMessage(field);
  return maxChars(field, v, max);
}

/** A required choice (a select still on its placeholder). */
export function checkChosen(value: string | number | null | undefined, field: string): string | null {
  return value === null || value === undefined || value === '' ? requiredMessage(field) : null;
}

/** A whole number in [min, max] typed in `text` (surrounding spaces allowed), else null. */
export function wholeNumber(text: string, min: number, max: number): number | null {
  const t = text.trim();
  if (!/^[+-]?\d+$/.test(t)) return null;
  const n = Number(t);
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : null;
}
