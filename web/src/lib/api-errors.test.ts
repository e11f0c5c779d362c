import { ApiError } from './api-client';
import { TOO_MANY_ATTEMPTS, errorMessage, fieldErrors, firstFieldMessage } from './api-errors';

test('400 shows the first message of the first field', () => {
  expect(firstFieldMessage({ name: ['Name is required!', 'x'], email: ['bad'] })).toBe('Name is required!');
  expect(errorMessage(new ApiError(400, { org_name_to_display: ['This field may not be blank.'] }), 'post')).toBe(
    'This field may not be blank.',
  );
});

test('login errors show the first non_field_errors item; login 429 the spec message', () => {
  expect(
    errorMessage(new ApiError(400, { non_field_errors: ['Unable to log in with provided credentials.'] }), 'login'),
  ).toBe('Unable to log in with provided credentials.');
  expect(errorMessage(new ApiError(400, { email: ['This field may not be blank.'] }), 'login')).toBe(
    'This field may not be blank.',
  );
  expect(errorMessage(new ApiError(429, { detail: 'locked' }), 'login')).toBe(TOO_MANY_ATTEMPTS);
  expect(TOO_MANY_ATTEMPTS).toBe('Too many attempts.Please try after 1 min.');
});

test('429 elsewhere shows the first value of the answer', () => {
  expect(errorMessage(new ApiError(429, { detail: 'Too many codes requested. Please try again later.' }), 'account')).toBe(
    'Too many codes requested. Please try again later.',
  );
});

test('registration errors show the first e-mail error', () => {
  expect(
    errorMessage(new ApiError(400, { password: ['too short'], email: ['user with this email already exists.'] }), 'register'),
  ).toBe('user with this email already exists.');
});

test('post errors show msg else Error; delete errors show detail else Error', () => {
  expect(errorMessage(new ApiError(403, { detail: 'No.', msg: 'No.' }), 'post')).toBe('No.');
  expect(errorMessage(new ApiError(500, 'Internal'), 'post')).toBe('Error');
  expect(errorMessage(new ApiError(404, { detail: 'Not found.', msg: 'Not found.' }), 'delete')).toBe('Not found.');
  expect(errorMessage(new ApiError(502, null), 'delete')).toBe('Error');
});

test('a failure without an answer (network) says so', () => {
  expect(errorMessage(new TypeError('fetch failed'), 'post')).toBe('The server could not be reached. Please try again.');
});

test('a 400 gives each field its first message; other failures give none', () => {
  expect(fieldErrors(new ApiError(400, { password: ['too short', 'numeric'], email: ['taken'], x: [] }))).toEqual({
    password: 'too short',
    email: 'taken',
  });
  expect(fieldErrors(new ApiError(429, { detail: 'Too many attempts.Please try after 1 min.' }))).toEqual({});
  expect(fieldErrors(new ApiError(400, 'plain text'))).toEqual({});
  expect(fieldErrors(new TypeError('fetch failed'))).toEqual({});
});
