/** The landing screen by role (spec section 2 "Landing screen by role"). */
import { paths } from '@/config/paths';
import type { Role } from '@/lib/access/roles';

const LANDING: Record<Role, string | null> = {
  admin: paths.admin.organizations,
  org_admin: paths.user.home,
  org_user: paths.user.home,
  support_user: paths.user.home,
  // `user` appears only in route lists; it works like an organisation user.
  user: paths.user.home,
  labeler: paths.labeler.tasks,
  analytics_user: paths.user.analytics,
  doc_user: paths.user.userManual,
  // No landing page or menu.
  workstation_user: null,
};

/** The landing path of `role`, or `null` for the workstation user (no landing page). */
export function landingFor(role: Role): string | null {
  return LANDING[role];
}
