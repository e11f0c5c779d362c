import { beforeEach, expect, test } from 'vitest';

import { setRedirectUrl } from '@/lib/session';

import { takeRedirect } from './flow';

beforeEach(() => localStorage.clear());

test('the remembered address is taken once', () => {
  setRedirectUrl('/user/devices?x=1');
  expect(takeRedirect('/user/home', 'org_user')).toBe('/user/devices?x=1');
  expect(takeRedirect('/user/home', 'org_user')).toBe('/user/home');
});

test("an address the new user's role cannot open gives way to their landing", () => {
  setRedirectUrl('/user/label-data?task=3');
  expect(takeRedirect('/labeler/tasks', 'labeler')).toBe('/labeler/tasks');
  setRedirectUrl('/organizations');
  expect(takeRedirect('/labeler/tasks', 'labeler')).toBe('/labeler/tasks');
  setRedirectUrl('/organizations');
  expect(takeRedirect('/user/home', 'org_user')).toBe('/organizations');
});

test('only addresses of this site are taken', () => {
  setRedirectUrl('//evil.example/x');
  expect(takeRedirect('/user/home', 'org_user')).toBe('/user/home');
});
