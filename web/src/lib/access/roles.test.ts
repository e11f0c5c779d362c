import type { Role } from '@/api/generated';
import { ROLE_PERMISSIONS } from '@/api/generated';

import { ROLES, ROLE_LABELS, can, needsOrganization, parseRole, rolesWith } from './roles';

// Compile-time: ROLES covers exactly the generated Role type.
type Missing = Exclude<Role, (typeof ROLES)[number]>;
const exhaustive: [Missing] extends [never] ? true : false = true;

test('the role list is the generated Role type, each with a label', () => {
  expect(exhaustive).toBe(true);
  expect(ROLES).toHaveLength(9);
  expect(new Set(ROLES).size).toBe(9);
  expect(Object.keys(ROLE_PERMISSIONS).sort()).toEqual([...ROLES].sort());
  for (const r of ROLES) expect(ROLE_LABELS[r]).not.toBe('');
});

test('parseRole accepts only the nine role values', () => {
  expect(parseRole('org_admin')).toBe('org_admin');
  expect(parseRole('root')).toBeNull();
  expect(parseRole('')).toBeNull();
  expect(parseRole(null)).toBeNull();
  expect(parseRole(3)).toBeNull();
});

test('the permission matrix is the server one: Users screen per docs/decisions.md', () => {
  expect(rolesWith('ViewOrgUsers').sort()).toEqual(['admin', 'doc_user', 'org_admin', 'support_user', 'user']);
  expect(rolesWith('AdminArea')).toEqual(['admin']);
  expect(can('org_user', 'ViewOrgUsers')).toBe(false);
});

test('only the super admin and the labeler sign in without an organisation', () => {
  expect(ROLES.filter((r) => !needsOrganization(r)).sort()).toEqual(['admin', 'labeler']);
});
