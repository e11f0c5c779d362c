import { isInternalHref, parseInline, safeHref } from './markdown';

test("links go to web and mail addresses and the portal's own pages, never another site by a path", () => {
  expect(parseInline('see [Devices](/user/devices?x=1#a-b)')).toEqual([
    { kind: 'text', text: 'see ' },
    { kind: 'link', href: '/user/devices?x=1#a-b', children: [{ kind: 'text', text: 'Devices' }] },
  ]);
  expect(isInternalHref('/user/home')).toBe(true);
  expect(isInternalHref('https://x.test/user/home')).toBe(false);
  for (const other of ['//evil.test/x', '/\\evil.test', 'javascript:alert(1)', 'user/home']) {
    expect(safeHref(other), other).toBe(false);
  }
  // A refused address keeps its text only.
  expect(parseInline('[here](//evil.test)')).toEqual([{ kind: 'text', text: 'here' }]);
});
