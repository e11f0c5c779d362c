/**
 * The nine roles (spec section 6), mirroring `shared/src/roles.rs`; the `Role` type is
 * generated from it, and `roles.test.ts` checks this list covers exactly that type.
 */
import { ROLE_PERMISSIONS, type Permission, type Role } from '@/api/generated';

export type { Permission, Role };

export const ROLES = [
  'admin',
  'org_admin',
  'org_user',
  'user',
  'labeler',
  'analytics_user',
  'workstation_user',
  'support_user',
  'doc_user',
] as const satisfies readonly Role[];

/** The label the portal shows (as `Role::label`). */
export const ROLE_LABELS: Record<Role, string> = {
  admin: 'Super Admin',
  org_admin: 'Organization Admin',
  org_user: 'Organization User',
  user: 'User',
  labeler: 'Labeler',
  analytics_user: 'Analytics User',
  workstation_user: 'Workstation User',
  support_user: 'Support User',
  doc_user: 'Docs User',
};

export function parseRole(v: unknown): Role | null {
  return typeof v === 'string' && (ROLES as readonly string[]).includes(v) ? (v as Role) : null;
}

/** The roles that work in an organisation's user area ("most user screens"). */
export const USER_AREA_ROLES = ['org_admin', 'org_user', 'user', 'support_user'] as const satisfies readonly Role[];

/** Whether `role` holds `p`: the server's matrix (`Role::can`), generated from Rust. */
export function can(role: Role, p: Permission): boolean {
  return ROLE_PERMISSIONS[role].includes(p);
}

/** The roles holding `p`. */
export function rolesWith(p: Permission): Role[] {
  return ROLES.filter((r) => can(r, p));
}

/** Roles that sign in without an organisation (`Role::needs_organization`). */
export function needsOrganization(role: Role): boolean {
  return role !== 'admin' && role !== 'labeler';
}
