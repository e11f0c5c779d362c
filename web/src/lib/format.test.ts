import { formatDateTime } from './format';

test("dates show in the spec's default format, MM/DD/YY, HH:mm:ss", () => {
  expect(formatDateTime(new Date(2026, 0, 2, 3, 4, 5).getTime())).toBe('01/02/26, 03:04:05');
  expect(formatDateTime(new Date(2031, 11, 31, 23, 59, 59).getTime())).toBe('12/31/31, 23:59:59');
});
